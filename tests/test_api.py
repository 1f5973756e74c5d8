"""The Python API as a first-class entry point (#34 item 2): the README's first Python
example runs as written from a folder holding the bundled sample; paths may be str; every
public method of Project has a docstring."""

from __future__ import annotations

import inspect
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from convkgyarn import Project

REPO = Path(__file__).resolve().parents[1]


def readme_python_examples() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text[text.index("## Python API\n"):]
    section = section[:section.index("\n## ", 1)]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_the_readme_first_python_example_runs_as_written(tmp_path, sample_path):
    (tmp_path / "wikidata").mkdir()
    shutil.copy(sample_path, tmp_path / "wikidata" / "sample-dump.json")
    code = readme_python_examples()[0]
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = (tmp_path / "outputs" / "api-conversations.jsonl").read_text().splitlines()
    n = int(r.stdout.split()[0])
    assert n == len(lines) > 0
    configs = {json.loads(line)["config"]["name"] for line in lines}
    assert len(configs) > 1  # the paper's configurations, each stored and exported


def test_every_public_project_method_says_what_it_does():
    undocumented = [name for name, member in inspect.getmembers(Project)
                    if not name.startswith("_") and callable(member) and not member.__doc__]
    assert undocumented == []
    assert Project.__doc__ and "progress" in Project.__doc__
