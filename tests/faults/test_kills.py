"""kill -9 at several moments of the main job, then a re-run: the project ends exactly as an
uninterrupted run leaves it, and nothing answered before is asked again. (Loads, refreshes
and evaluations have their own kill tests beside their stages.)"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conversations_llm import healthy
from tests.helpers import cli, project, volume_config
from tests.llm.scripted_server import ScriptedServer

REPO = Path(__file__).resolve().parents[2]


def snapshot(db: Path) -> dict:
    with project(db, write=False) as p:
        con = p.con
        return {
            "selected": sorted(con.execute("SELECT type_id, property_id, qualifier_property_id, "
                                           "selected_by FROM selected_predicates").fetchall(),
                               key=repr),
            "templates": sorted(con.execute("SELECT template_id, writer FROM templates"
                                            ).fetchall()),
            "done": sorted(con.execute("SELECT type_id, property_id, qualifier_property_id, "
                                       "interaction, complete FROM template_inputs").fetchall(),
                           key=repr),
            "conversations": sorted(map(repr, con.execute(
                "SELECT c.config_name, c.conversation_id, t.turn, t.question, t.answer FROM "
                "conversations c JOIN turns t USING (run_id, conversation_id) JOIN "
                "generation_runs g USING (run_id) WHERE g.current").fetchall())),
            "runs": con.execute("SELECT count(*) FROM generation_runs").fetchone()[0],
        }


@pytest.fixture(scope="module")
def setup(tmp_path_factory, sample_path):
    tmp = tmp_path_factory.mktemp("kills")
    with project(tmp / "base.duckdb") as p:
        p.load([sample_path])
    clean = tmp / "clean.duckdb"
    shutil.copy(tmp / "base.duckdb", clean)
    with ScriptedServer(healthy) as server:
        r = cli("generate", "--db", clean, "--out", tmp / "o", "--conversations", "30",
                "--base-url", server.base_url, env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        total = len(server.requests)
    return tmp, snapshot(clean), total


@pytest.mark.slow
@pytest.mark.parametrize("after", [1, 8, 30])  # requests answered before the kill
def test_generate_killed_during_llm_work_then_rerun_equals_uninterrupted(setup, tmp_path,
                                                                         after):
    tmp, expected, total = setup
    assert after < total
    db = tmp_path / "k.duckdb"
    shutil.copy(tmp / "base.duckdb", db)
    answered: list[str] = []

    def slow(body, n):
        time.sleep(0.05)
        reply = healthy(body, n)
        answered.append(body["messages"][-1]["content"])
        return reply

    with ScriptedServer(slow) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "convkgyarn", "generate", "--db", str(db), "--out",
             str(tmp_path / "o"), "--conversations", "30", "--base-url", server.base_url,
             "--concurrency", "2"], env={**os.environ, "OPENAI_API_KEY": "k"}, cwd=REPO,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while len(server.requests) < after and time.time() < deadline:
            time.sleep(0.005)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        time.sleep(0.2)  # replies in flight when the client died
        before, answered_before = len(server.requests), len(answered)
        r = cli("generate", "--db", db, "--out", tmp_path / "o", "--conversations", "30",
                "--base-url", server.base_url, env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        resent = len(server.requests) - before
    assert snapshot(db) == expected
    # what was answered and stored before the kill is not asked again (but for the requests
    # in flight, whose replies the killed process never stored)
    assert resent <= total - answered_before + 2


@pytest.mark.slow
def test_generate_killed_during_assembly_then_rerun_equals_uninterrupted(tmp_path,
                                                                         sample_path):
    base = tmp_path / "base.duckdb"
    with project(base) as p:
        p.load([sample_path])
        p.extract_predicates()
        p.select_predicates()
        p.write_templates()
    clean, killed = tmp_path / "clean.duckdb", tmp_path / "killed.duckdb"
    shutil.copy(base, clean)
    shutil.copy(base, killed)
    volume = volume_config(tmp_path)  # the 3,000 asked of the small sample: facts repeat
    args = ["generate", "--all-configs", "--conversations", "3000", "--config", str(volume),
            "--out"]
    t0 = time.perf_counter()
    assert cli(*args, tmp_path / "o1", "--db", clean).exit_code == 0
    took = time.perf_counter() - t0
    proc = subprocess.Popen([sys.executable, "-m", "convkgyarn", *args, str(tmp_path / "o2"),
                             "--db", str(killed)], cwd=REPO, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(max(0.5, took * 0.5))
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait() == -9
    assert cli(*args, tmp_path / "o2", "--db", killed).exit_code == 0
    assert snapshot(killed) == snapshot(clean)
    assert (tmp_path / "o1" / "conversations.jsonl").read_bytes() != b""
