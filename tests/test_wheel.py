"""The built wheel carries everything the main job needs: installed apart from the checkout,
it runs `convkgyarn generate` from an empty folder."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_the_wheel_runs_the_main_job_from_an_empty_folder(tmp_path):
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w",
                            str(tmp_path / "dist"), str(REPO)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[-2000:]
    [wheel] = (tmp_path / "dist").glob("convkgyarn-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "convkgyarn/wikidata/sample-dump.json" in names
    assert {f"convkgyarn/prompts/{p.relative_to(REPO / 'prompts').as_posix()}"
            for p in (REPO / "prompts").glob("**/*.md")} <= set(names)  # examples/ too
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)  # what pip installs, away from the checkout
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    code = ("import convkgyarn, sys; assert convkgyarn.__file__.startswith(sys.argv[1]), "
            "convkgyarn.__file__; from convkgyarn.cli import main; sys.argv = ['convkgyarn', "
            "'generate', '--interaction', 'voice', '--deixis']; main()")
    run = subprocess.run([sys.executable, "-c", code, str(site)], cwd=empty, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = (empty / "outputs" / "conversations.jsonl").read_text().splitlines()
    # the 100 asked, or as many as the sample's subjects have new facts for (and it says so)
    assert json.loads(lines[0])["config"]["name"] == "voice-deixis"
    assert len(lines) == 100 or (50 <= len(lines) < 100 and "fewer than asked" in run.stderr)
    assert "bundled sample" in run.stderr
