"""Odd and hostile dump files: no entities is a clear error (exit 2) with the lines kept as
rejects; every layout a user may hand us loads; one bad line never refuses a whole file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from convkgyarn.errors import UserError
from convkgyarn.kg.stats import kg_stats
from tests.helpers import cli, project

REPO = Path(__file__).resolve().parents[2]


def entities_of(sample: Path) -> list[dict]:
    lines = sample.read_text().splitlines()
    return [json.loads(line.rstrip(",")) for line in lines[1:-1]]


@pytest.mark.parametrize("content,rejected", [
    (b"", 0), (b'{"a": 1}\n', 1), (b"[1, 2, 3]\n", 3), (os.urandom(3000), None),
    (b"[\n]\n", 0),
])
def test_a_file_without_entities_is_exit_2_and_keeps_its_rejects(tmp_path, content, rejected):
    path = tmp_path / "odd.json"
    path.write_bytes(content)
    r = cli("kg", "load", path, "--db", tmp_path / "p.duckdb")
    assert r.exit_code == 2, r.output
    assert f"no Wikidata entities in {path.resolve()}" in " ".join(r.output.split())
    assert "Traceback" not in r.output and len(r.output.strip().splitlines()) <= 3
    if rejected is not None:
        with project(tmp_path / "p.duckdb", write=False) as p:
            assert len(p.rejects()) == rejected
    assert cli("kg", "rejects", "--db", tmp_path / "p.duckdb").exit_code == 0
    # and generate refuses such a project instead of loading the bundled sample into it
    r = cli("generate", "--db", tmp_path / "p.duckdb", "--out", tmp_path / "o")
    assert r.exit_code == 2 and "holds no entities" in r.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("layout", ["one-line-array", "pretty-array", "pretty-reply",
                                    "one-line-reply", "ndjson"])
def test_every_json_layout_of_entities_loads_the_same(tmp_path, sample_path, layout):
    ents = entities_of(sample_path)
    path = tmp_path / f"{layout}.json"
    if layout == "one-line-array":
        path.write_text(json.dumps(ents))
    elif layout == "pretty-array":
        path.write_text(json.dumps(ents, indent=2))
    elif layout == "pretty-reply":
        path.write_text(json.dumps({"entities": {e["id"]: e for e in ents}}, indent=2))
    elif layout == "one-line-reply":
        path.write_text(json.dumps({"entities": {e["id"]: e for e in ents}}))
    else:
        path.write_text("\n".join(json.dumps(e) for e in ents) + "\n")
    with project(tmp_path / "a.duckdb") as a, project(tmp_path / "b.duckdb") as b:
        a.load([sample_path])
        b.load([path])
        keys = ("entities", "statements", "qualifiers", "types", "facts_by_kind",
                "property_entities", "rejected_lines")
        assert {k: kg_stats(a.con)[k] for k in keys} == {k: kg_stats(b.con)[k] for k in keys}


def test_a_corrupt_first_line_is_rejected_alone(tmp_path, sample_path):
    ents = entities_of(sample_path)
    path = tmp_path / "first.ndjson"
    path.write_text('{"id": "Q1", "type": "item", "labels": {broken\n'
                    + "\n".join(json.dumps(e) for e in ents) + "\n")
    with project(tmp_path / "p.duckdb") as p:
        p.load([path])
        stats = kg_stats(p.con)
        assert stats["rejected_lines"] == 1
        assert stats["entities"] == sum(1 for e in ents if e["type"] == "item")
        assert p.rejects()[0][1] == 1


def test_a_deeply_nested_line_is_rejected_not_fatal(tmp_path, sample_path):
    ents = entities_of(sample_path)
    deep = '{"id": "Q1", "type": "item", "claims": ' + "[" * 200_000 + "]" * 200_000 + "}"
    path = tmp_path / "deep.ndjson"
    path.write_text("\n".join([json.dumps(ents[0]), deep, json.dumps(ents[1])]) + "\n")
    with project(tmp_path / "p.duckdb") as p:
        p.load([path])
        [(_, line, field, reason, _)] = p.rejects()
    assert line == 2 and "nested too deeply" in reason


def test_a_killed_load_is_named_until_it_is_run_again(tmp_path, sample_path):
    db = tmp_path / "k.duckdb"
    code = (
        "import os, signal\n"
        "from tests.helpers import project\n"
        "calls = 0\n"
        "def tick(nbytes, entities):\n"
        "    global calls\n"
        "    calls += 1\n"
        "    if calls == 3: os.kill(os.getpid(), signal.SIGKILL)\n"
        f"p = project({str(db)!r})\n"
        f"p.ctx.config.db\n"
        f"from convkgyarn.config import LoadConfig\n"
        f"from convkgyarn.kg.load import LoadStage\n"
        f"LoadStage(p.ctx, LoadConfig(paths=[{str(sample_path)!r}], block_bytes=50000), "
        f"progress=tick).run()\n")
    assert subprocess.run([sys.executable, "-c", code], cwd=REPO).returncode == -9
    for args in (["kg", "stats"], ["generate", "--out", tmp_path / "o"],
                 ["predicates", "select"]):
        r = cli(*args, "--db", db)
        assert r.exit_code == 2, (args, r.output)
        assert "is incomplete" in r.output and "kg load" in r.output
    assert cli("kg", "load", sample_path, "--db", db).exit_code == 0
    assert cli("kg", "stats", "--db", db).exit_code == 0


def _marked(marker: str) -> list[int]:
    """Live processes whose environment carries ``marker``."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            env = (entry / "environ").read_bytes()
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if marker.encode() in env and ") Z " not in stat:
            pids.append(int(entry.name))
    return pids


@pytest.mark.slow
def test_workers_exit_when_the_loading_process_is_killed(tmp_path, sample_path):
    ents = entities_of(sample_path)
    big = tmp_path / "big.ndjson"
    with open(big, "w") as fh:  # ~60 MB: long enough to kill mid-load
        for k in range(250):
            for e in ents:
                fh.write(json.dumps({**e, "id": f"{e['id']}{k:03d}" if e["type"] == "item"
                                     else e["id"]}) + "\n")
    marker = f"CONVKGYARN_TEST_{uuid.uuid4().hex}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "convkgyarn", "kg", "load", str(big), "--workers", "3",
         "--db", str(tmp_path / "w.duckdb")], cwd=REPO, env={**os.environ, marker: "1"},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while len(_marked(marker)) < 4 and time.time() < deadline:  # main, forkserver, 2 workers
        time.sleep(0.1)
    assert len(_marked(marker)) >= 4
    proc.kill()
    proc.wait()
    deadline = time.time() + 15
    while _marked(marker) and time.time() < deadline:
        time.sleep(0.2)
    assert _marked(marker) == []


def test_labels_files_are_checked_before_anything_loads(tmp_path, sample_path):
    bad = tmp_path / "labels.json"
    bad.write_text("[1, 2]")
    r = cli("kg", "load", sample_path, "--labels", bad, "--db", tmp_path / "p.duckdb")
    assert r.exit_code == 2 and "labels.json: not a JSON object" in r.output
    with pytest.raises(UserError, match="no such file"):
        with project(tmp_path / "q.duckdb") as p:
            p.load([tmp_path / "missing.json"])
    # a file that reads as JSON but holds no usable label is refused before the dump loads
    # too (0.8.23 refused it after: an hour's load of a real dump, then the error)
    for name, flag in (("empty.json", "--labels"), ("values.json", "--value-labels")):
        (tmp_path / name).write_text(json.dumps({"Q1": 5, "Q2": {"de": 7}}))
        db = tmp_path / f"{name}.duckdb"
        r = cli("kg", "load", sample_path, flag, tmp_path / name, "--db", db)
        assert r.exit_code == 2 and f"{name}: no labels in it" in r.output, r.output
        if db.exists():
            with project(db, write=False) as p:
                assert p.con.execute("SELECT count(*) FROM load_files").fetchone()[0] == 0
