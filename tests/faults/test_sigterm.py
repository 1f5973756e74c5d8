"""SIGTERM (what `kill`, systemd and job schedulers send) is handled like Ctrl-C: exit 143
and one line; temporary files and worker processes go; LLM replies already received stay
cached; a run is stored whole or not at all; the project opens afterwards and says what to
run. Real processes, real signals, in the middle of a load, an LLM stage, assembly and an
export."""

from __future__ import annotations

import json
import os
import re
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
pytestmark = pytest.mark.slow


def as_from_a_terminal() -> None:
    """Ctrl-C reaches the command as it does from a terminal: a test run started in the
    background by a shell without job control (``nohup ... &``) hands its children SIGINT
    ignored, and the SIGINT cases would test nothing (two CI runs of 0.8.14 started so)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(*args: str, env: dict | None = None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "convkgyarn", *map(str, args)], cwd=REPO,
                            env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, preexec_fn=as_from_a_terminal)


def children(pid: int) -> set[int]:
    """The process's child processes (parse workers, the fork server)."""
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out |= {int(c) for c in (task / "children").read_text().split()}
        except OSError:
            pass
    return out


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


LINES = {signal.SIGTERM: (143, "error: terminated (SIGTERM); finished work is kept, nothing "
                                "half-written"),
         signal.SIGINT: (130, "error: interrupted; finished work is kept")}


def terminate(proc: subprocess.Popen, timeout: float = 60, sig=signal.SIGTERM) -> str:
    """SIGTERM (or Ctrl-C's SIGINT), then the documented exit code (143, 130) and one line
    on stderr saying so."""
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=timeout)
    code, line = LINES[sig]
    assert proc.returncode == code, err
    assert [x for x in err.splitlines() if x.startswith("error:")] == [line], err
    assert "Traceback" not in err
    return err


def wait_for(condition, timeout: float = 60, proc: subprocess.Popen | None = None) -> None:
    deadline = time.time() + timeout
    while not condition():
        assert time.time() < deadline, "the moment to send SIGTERM never came"
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"the command ended before SIGTERM: {proc.stderr.read()}")
        time.sleep(0.01)


def temporaries(*folders: Path) -> list[Path]:
    return [p for folder in folders if folder.exists() for p in folder.rglob("*")
            if re.search(r"\.convkgyarn-\d+-[0-9a-f]{8}\.tmp", p.name)]


@pytest.fixture(scope="module")
def big_dump(tmp_path_factory, sample_path) -> Path:
    """The bundled sample's items a hundred times over under fresh ids (~120 MB): a load
    that takes seconds."""
    path = tmp_path_factory.mktemp("dump") / "big.json"
    entities = json.loads(sample_path.read_text())
    with open(path, "w") as fh:
        fh.write("[\n")
        lines = [json.dumps(e) for e in entities if e["id"].startswith("P")]
        for copy in range(100):
            lines += [json.dumps(dict(e, id=f"Q{9_000_000 + copy * 1_000 + i}"))
                      for i, e in enumerate(entities) if e["id"].startswith("Q")]
        fh.write(",\n".join(lines) + "\n]\n")
    return path


def test_sigterm_mid_load_with_workers(big_dump, tmp_path):
    db, mark = tmp_path / "p.duckdb", tmp_path / "first-block-written"
    # the CLI as installed, with one probe: a file appears once the writer has its first
    # parsed block, so the signal lands in the middle of the load, not before it
    script = (
        "import pathlib, sys\n"
        "import convkgyarn.kg.load as load\n"
        "put = load._Writer.put\n"
        "def put_and_mark(self, batch):\n"
        "    put(self, batch)\n"
        f"    pathlib.Path({str(mark)!r}).touch()\n"
        "load._Writer.put = put_and_mark\n"
        "from convkgyarn.cli import main\n"
        f"sys.argv = ['convkgyarn', 'kg', 'load', {str(big_dump)!r}, '--db', {str(db)!r}, "
        "'--workers', '2']\n"
        "main()\n")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=as_from_a_terminal)
    wait_for(mark.exists, proc=proc)
    workers = children(proc.pid)
    assert workers
    terminate(proc)
    time.sleep(0.5)
    assert not [w for w in workers if alive(w)], "parse workers outlived the command"
    assert temporaries(tmp_path) == []
    # the project opens, refuses the half-loaded file and says what to run
    r = cli("kg", "stats", "--db", db)
    assert r.exit_code == 2 and f"run `convkgyarn kg load {big_dump} --db {db}` again" in \
        " ".join(r.output.split()), r.output
    assert cli("kg", "load", big_dump, "--db", db).exit_code == 0
    clean = tmp_path / "clean.duckdb"
    assert cli("kg", "load", big_dump, "--db", clean).exit_code == 0
    stats = [json.loads(cli("kg", "stats", "--json", "--db", d).stdout) for d in (db, clean)]
    for s in stats:
        s.pop("sources")
    assert stats[0] == stats[1]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_duckdb_runs_a_query_is_the_signal_not_a_bug(base, tmp_path, sig):
    """DuckDB turns a signal that arrives during a query into RuntimeError('Query
    interrupted'); it is still Ctrl-C (130) or SIGTERM (143), one line, never "a bug"."""
    db, mark = tmp_path / "p.duckdb", tmp_path / "query-started"
    shutil.copy(base, db)
    script = (
        "import pathlib, sys\n"
        "from convkgyarn.project import Project\n"
        "def slow_stats(self):\n"
        f"    pathlib.Path({str(mark)!r}).touch()\n"
        "    return self.con.execute('SELECT count(*) FROM range(100000000000)').fetchall()\n"
        "Project.kg_stats = slow_stats\n"
        "from convkgyarn.cli import main\n"
        f"sys.argv = ['convkgyarn', 'kg', 'stats', '--db', {str(db)!r}]\n"
        "main()\n")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, text=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=as_from_a_terminal)
    wait_for(mark.exists, proc=proc)
    time.sleep(0.3)
    terminate(proc, sig=sig)


@pytest.fixture(scope="module")
def base(tmp_path_factory, sample_path):
    tmp = tmp_path_factory.mktemp("term")
    with project(tmp / "base.duckdb") as p:
        p.load([sample_path])
    return tmp / "base.duckdb"


def cached_keys(db: Path) -> set[str]:
    with project(db, write=False) as p:
        return {r[0] for r in p.con.execute("SELECT key FROM llm_cache").fetchall()}


def test_sigterm_mid_llm_stage_keeps_every_reply_received(base, tmp_path):
    db = tmp_path / "p.duckdb"
    shutil.copy(base, db)
    with ScriptedServer(healthy) as server:  # how many requests an uninterrupted run makes
        clean = tmp_path / "clean.duckdb"
        shutil.copy(base, clean)
        r = cli("generate", "--db", clean, "--out", tmp_path / "o1", "--conversations", "20",
                "--base-url", server.base_url, env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        total = len(server.requests)

    def slow(body, n):
        reply = healthy(body, n)
        reply.delay = 0.3
        return reply

    with ScriptedServer(slow) as server:
        proc = start("generate", "--db", db, "--out", tmp_path / "o2", "--conversations",
                     "20", "--base-url", server.base_url, "--concurrency", "3",
                     env={"OPENAI_API_KEY": "k"})
        wait_for(lambda: len(server.requests) >= 12, proc=proc)
        t0 = time.time()
        terminate(proc)
        assert time.time() - t0 < 10  # requests in flight finish; none is started after
        sent = len(server.requests)
        assert sent < total
        time.sleep(0.5)
        assert len(server.requests) == sent
        kept = cached_keys(db)
        assert kept  # the replies received are in the cache ...
        r = cli("generate", "--db", db, "--out", tmp_path / "o2", "--conversations", "20",
                "--base-url", server.base_url, env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        # ... every one of them: the re-run asks exactly what was never answered
        assert len(server.requests) - sent == total - sent
    assert temporaries(tmp_path) == []
    assert kept <= cached_keys(db)


@pytest.fixture(scope="module")
def templated(base, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("templated")
    db = tmp / "t.duckdb"
    shutil.copy(base, db)
    with project(db) as p:
        p.extract_predicates()
        p.select_predicates()
        p.write_templates()
    return db


def runs(db: Path) -> list[tuple]:
    """Each stored run with its recorded and actual conversation counts."""
    with project(db, write=False) as p:
        return p.con.execute(
            "SELECT g.config_name, g.conversations, (SELECT count(*) FROM conversations c "
            "WHERE c.run_id = g.run_id) FROM generation_runs g ORDER BY 1").fetchall()


GENERATE = ["generate", "--all-configs", "--conversations", "2000"]


@pytest.fixture(scope="module")
def volume(tmp_path_factory) -> Path:
    """A config that makes the 2,000 conversations asked of the small sample (its subjects
    repeat their facts), so that a run lasts long enough to be interrupted."""
    return volume_config(tmp_path_factory.mktemp("volume"))


@pytest.fixture(scope="module")
def generated(templated, volume, tmp_path_factory):
    """The eight configurations made without interruption, and how long that took."""
    tmp = tmp_path_factory.mktemp("generated")
    db = tmp / "clean.duckdb"
    shutil.copy(templated, db)
    t0 = time.perf_counter()
    assert cli(*GENERATE, "--config", volume, "--db", db, "--out", tmp / "out").exit_code == 0
    return db, time.perf_counter() - t0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_sigterm_mid_assembly_stores_whole_runs_or_none(templated, generated, volume,
                                                        tmp_path, sig):
    clean, took = generated
    db = tmp_path / "p.duckdb"
    shutil.copy(templated, db)
    args = [*GENERATE, "--config", volume, "--db", db, "--out", tmp_path / "out"]
    proc = start(*args)
    time.sleep(max(1.0, took * 0.6))
    terminate(proc, sig=sig)
    stored = runs(db)
    assert all(n == actual for _, n, actual in stored)  # no run half-stored
    assert len(stored) < 8
    assert not (tmp_path / "out" / "conversations.jsonl").exists()
    assert temporaries(tmp_path) == []
    assert cli(*args).exit_code == 0
    assert runs(db) == runs(clean)


def test_sigterm_mid_export_keeps_the_previous_export_whole(generated, tmp_path):
    db = tmp_path / "p.duckdb"
    shutil.copy(generated[0], db)
    for fmt, target in (("jsonl", tmp_path / "c.jsonl"), ("hf", tmp_path / "hf")):
        assert cli("export", "--db", db, "--format", fmt, "--out", target).exit_code == 0
        before = {p.relative_to(tmp_path).as_posix(): p.read_bytes()
                  for p in [target, *target.rglob("*")] if p.is_file()}
        proc = start("export", "--db", db, "--format", fmt, "--out", target)
        wait_for(lambda: temporaries(tmp_path), proc=proc)
        terminate(proc)
        after = {p.relative_to(tmp_path).as_posix(): p.read_bytes()
                 for p in [target, *target.rglob("*")] if p.is_file()}
        assert after == before
        assert temporaries(tmp_path) == []
