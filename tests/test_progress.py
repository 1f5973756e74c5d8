"""Live progress of long steps (#34 item 1): stages, assembly batches and LLM requests (with
tokens and USD so far) report through one hook; the CLI draws live bars in a terminal and one
quiet line per step otherwise."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from convkgyarn.config import GenerateConfig
from convkgyarn.progress import StepProgress, counted
from tests.conversations_llm import healthy
from tests.helpers import cli, config, llm
from tests.llm.scripted_server import ScriptedServer


def test_generate_reports_assembly_and_llm_progress_to_the_projects_hook(tmp_path,
                                                                         sample_path):
    from convkgyarn import Project

    events: list[StepProgress] = []
    with ScriptedServer(healthy) as server:
        cfg = config(tmp_path / "p.duckdb", **llm(server))
        with Project(cfg, progress=events.append) as p:
            p.load([sample_path], kind="sample")
            p.generate([GenerateConfig(conversations=30)])
    steps = {e.step for e in events}
    assert "assemble voice" in steps
    finished = [e for e in events if e.finished and e.step == "assemble voice"]
    assert len(finished) == 1 and finished[0].done == 30 and finished[0].total == 30
    llm_events = [e for e in events if e.step.endswith("LLM requests")]
    assert {e.step for e in llm_events} >= {"selector LLM requests", "templater LLM requests"}
    last = [e for e in llm_events if e.finished][-1]
    assert last.done == last.total and last.tokens and last.tokens > 0 and last.usd is not None
    done = [e.done for e in llm_events if e.step == "templater LLM requests"]
    assert done == sorted(done) or 0 in done  # counts up within each batch of requests


def test_without_a_terminal_each_step_is_one_quiet_line(tmp_path, sample_path):
    db = tmp_path / "p.duckdb"
    r = cli("generate", "--db", db, "--conversations", "12", "--out", tmp_path / "out")
    assert r.exit_code == 0, r.output
    lines = [line for line in r.output.splitlines() if line.startswith("assemble voice:")]
    assert lines == [lines[0]] and "12 conversations in" in lines[0]
    r = cli("related", "build", "--db", db)
    assert r.exit_code == 0, r.output
    assert any(line.startswith("reading connecting links:") for line in r.output.splitlines())


@pytest.mark.skipif(shutil.which("script") is None, reason="needs util-linux `script` (a pty)")
def test_in_a_terminal_long_steps_show_live_bars(tmp_path, sample_path):
    db = tmp_path / "p.duckdb"
    exe = Path(sys.executable).with_name("convkgyarn")
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env.update(COLUMNS="120", TERM="xterm")
    for command, step in ((f"{exe} generate --db {db} --conversations 40 --out {tmp_path}/o",
                           "assemble voice"),
                          (f"{exe} related build --db {db}", "reading connecting links")):
        r = subprocess.run(["script", "-q", "-c", command, "/dev/null"], capture_output=True,
                           text=True, env=env, timeout=600)
        assert r.returncode == 0, r.stdout
        assert step in r.stdout and "━" in r.stdout, r.stdout  # a rich bar, drawn live


@pytest.mark.parametrize("n, said", [(0, "0 entries"), (1, "1 entry"), (2, "2 entries"),
                                     (12345, "12,345 entries")])
def test_a_count_takes_its_noun_in_the_number_it_needs(n, said):
    assert counted(n, "entry", "entries") == said
    assert counted(n, "file") == said.replace("entries", "files").replace("entry", "file")
