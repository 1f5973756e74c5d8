"""Refresh against a changed dump: diff counts, exactly the LLM calls the changes need,
unchanged conversations untouched, and a killed refresh ends like an uninterrupted one."""

from __future__ import annotations

import json
import re
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from convkgyarn.cli import app
from convkgyarn.store import ProjectLock, connect
from tests.llm.prompts import data_blocks, is_text_prompt, template_facts
from tests.llm.scripted_server import ScriptedServer, json_reply, last_user_message

REPO = Path(__file__).resolve().parent.parent


def handler(log):
    def reply(body, n):
        prompt = last_user_message(body)
        if "describes one entity type" in prompt:
            log.append("types")
            return json_reply({"selected": [row[0] for row in data_blocks(prompt)[0]]})
        if prompt.startswith("You help build a dataset"):
            log.append("selector")
            return json_reply({"selected": [row[0] for row in data_blocks(prompt)[0][1:]]})
        log.append("templater")
        text = is_text_prompt(prompt)
        out = {}
        for fact in template_facts(prompt):
            num, subj, qual = str(fact["n"]), fact["subject"], "qualifier" in fact
            a = " [a]" if qual else ""
            turn = {"original": [f"info {subj}{a} {k}" for k in "xyz"],
                    "deixis": [f"info [his]{a} {k}" for k in "xyz"],
                    "answer": "[b]" if qual else "[a]"}
            if not text:
                turn["disfluencies"] = [f"um info {subj}{a} {k}" for k in "xyz"]
                turn["deixis_disfluencies"] = [f"uh info [he]{a} {k}" for k in "xyz"]
            out[num] = turn
        return json_reply(out)
    return reply


def modified_dump(sample: Path, out: Path) -> None:
    lines = sample.read_text().splitlines()
    ents = [json.loads(l.rstrip(",")) for l in lines[1:-1]]
    by_id = {e["id"]: e for e in ents}

    def claim(eid, prop, value, n):
        return {"mainsnak": {"snaktype": "value", "property": prop, "datatype": "wikibase-item",
                             "datavalue": {"value": {"entity-type": "item", "id": value},
                                           "type": "wikibase-entityid"}},
                "type": "statement", "id": f"{eid}$NEW-{prop}-{n}", "rank": "normal"}

    for film in ("Q44578", "Q134773", "Q165817", "Q24871"):  # a new predicate for films
        by_id[film]["claims"]["P1411"] = [claim(film, "P1411", "Q102427", 0)]
    ents.append({"type": "property", "id": "P1411", "datatype": "wikibase-item",
                 "labels": {"en": {"language": "en", "value": "nominated for"}}})
    ents.append({"type": "item", "id": "Q4022", "labels": {"en": {"language": "en",
                                                                  "value": "river"}}})
    for rid, label, country in (("Q19686", "Thames", "Q145"), ("Q1471", "Seine", "Q142"),
                                ("Q584", "Rhine", "Q183")):  # a new type
        ents.append({"type": "item", "id": rid, "labels": {"en": {"language": "en",
                                                                   "value": label}},
                     "claims": {"P31": [claim(rid, "P31", "Q4022", 0)],
                                "P17": [claim(rid, "P17", country, 0)]}})
    chicago = by_id["Q1297"]["claims"]["P1082"][0]["mainsnak"]["datavalue"]["value"]
    chicago["amount"] = "+2746389"  # a changed value
    obama = by_id["Q76"]["claims"]
    obama["P69"] = [c for c in obama["P69"]
                    if c["mainsnak"]["datavalue"]["value"]["id"] != "Q49088"]  # removed
    spouse = obama["P26"][0]["qualifiers"]["P580"][0]["datavalue"]["value"]
    spouse["time"] = "+1992-10-04T00:00:00Z"  # a changed qualifier
    by_id["Q26876"]["claims"]["P19"] = [claim("Q26876", "P19", "Q60", 0)]  # an added fact
    out.write_text("[\n" + ",\n".join(json.dumps(e) for e in ents) + "\n]\n")


EXPECTED_DIFF = {"entities_added": 4, "entities_removed": 0, "labels_changed": 0,
                 "statements_added": 11, "statements_removed": 1, "values_changed": 1,
                 "qualifiers_changed": 1, "new_types": 1, "new_type_predicates": 3,
                 "types_changed": 0, "property_labels_changed": 0,
                 "language_labels_changed": 0, "entities_with_changed_facts": 11}


def cli(*args, server=None, check=True, env=None, extra=()):
    env = env or ({"OPENAI_API_KEY": "k"} if server else {})
    extra = [*extra, *(["--base-url", server.base_url] if server else [])]
    r = CliRunner(env=env).invoke(app, [*args, *extra])
    if check:
        assert r.exit_code in (0, 10), r.output
    return r


@pytest.fixture(scope="module")
def base_project(tmp_path_factory, sample_path):
    """A project generated with the (scripted) LLM path, before any refresh."""
    tmp = tmp_path_factory.mktemp("refresh")
    log = []
    with ScriptedServer(handler(log)) as server:
        for inter in ("voice", "text"):
            cli("generate", "--db", str(tmp / "p.duckdb"), "--out", str(tmp / "out"),
                "--interaction", inter, "--deixis", "--conversations", "40", server=server)
    modified_dump(sample_path, tmp / "new.json")
    shutil.copy(sample_path, tmp / "same.json")
    return tmp, log


def snapshot(con) -> dict:
    """Everything a refresh decides, without run ids and clocks."""
    out = {}
    for t in ("entities", "statements", "qualifiers", "entity_types", "type_predicates"):
        cols = "* EXCLUDE (file_id)" if t != "type_predicates" else "*"
        out[t] = sorted(map(repr, con.execute(f"SELECT {cols} FROM {t}").fetchall()))
    out["selected"] = sorted(map(repr, con.execute(
        "SELECT type_id, property_id, qualifier_property_id, selected_by FROM "
        "selected_predicates").fetchall()))
    out["templates"] = sorted(map(repr, con.execute(
        "SELECT template_id, writer FROM templates").fetchall()))
    out["conversations"] = sorted(map(repr, con.execute(
        "SELECT c.conversation_id, t.turn, t.question, t.answer FROM conversations c JOIN turns "
        "t USING (run_id, conversation_id) JOIN generation_runs g USING (run_id) "
        "WHERE g.current").fetchall()))
    return out


def test_nothing_changed_means_zero_calls_and_identical_exports(base_project, tmp_path):
    tmp, _ = base_project
    db = tmp_path / "p.duckdb"
    shutil.copy(tmp / "p.duckdb", db)
    cli("export", "--db", str(db), "--out", str(tmp_path / "before.jsonl"))
    log = []
    with ScriptedServer(handler(log)) as server:
        r = cli("refresh", str(tmp / "same.json"), "--db", str(db), server=server)
    assert r.exit_code == 10, r.output
    assert log == []
    cli("export", "--db", str(db), "--out", str(tmp_path / "after.jsonl"))
    assert (tmp_path / "before.jsonl").read_bytes() == (tmp_path / "after.jsonl").read_bytes()
    assert Path(str(db) + ".refresh.log").read_text().count("refresh nothing") == 1


def test_refresh_costs_only_what_changed(base_project, tmp_path):
    tmp, _ = base_project
    db = tmp_path / "p.duckdb"
    shutil.copy(tmp / "p.duckdb", db)
    con = connect(db)
    old_runs = dict(con.execute("SELECT config_name, run_id FROM generation_runs WHERE current"
                                ).fetchall())
    before = {name: _convs(con, run) for name, run in old_runs.items()}
    old_pairs = {r for r in con.execute("SELECT type_id, property_id FROM selected_predicates "
                                        "WHERE qualifier_property_id IS NULL").fetchall()}
    con.close()
    log = []
    with ScriptedServer(handler(log)) as server:
        r = cli("refresh", str(tmp / "new.json"), "--db", str(db), server=server)
    assert r.exit_code == 0, r.output
    con = connect(db)
    diff = json.loads(con.execute("SELECT diff FROM refresh_runs WHERE status = 'done'"
                                  ).fetchone()[0])
    assert diff == EXPECTED_DIFF
    new_pairs = {r for r in con.execute("SELECT type_id, property_id FROM selected_predicates "
                                        "WHERE qualifier_property_id IS NULL").fetchall()}
    added = new_pairs - old_pairs
    assert added == {("Q11424", "P1411"), ("Q4022", "P17")}
    # selection only for the two types whose predicate table changed; templates only for
    # the new pairs: one call of up to five facts per interaction
    assert log.count("selector") == 2
    assert log.count("templater") == 2
    # unchanged entities keep their conversations, ids and content
    changed = {"Q44578", "Q134773", "Q165817", "Q24871", "Q1297", "Q76", "Q26876"}
    for name, old_run in old_runs.items():
        new_run = con.execute("SELECT run_id FROM generation_runs WHERE current AND "
                              "config_name = ?", [name]).fetchone()[0]
        assert new_run != old_run
        # the replaced run is gone: one current set of conversations per configuration
        assert con.execute("SELECT count(*) FROM generation_runs WHERE config_name = ?",
                           [name]).fetchone()[0] == 1
        old = before[name]
        new = _convs(con, new_run)
        # ... and so do those that turn to no changed entity (a side topic: Tom Hanks's
        # "What are his best-known works?" "Forrest Gump." "Who is its director?" asks
        # Forrest Gump's facts, which changed)
        turned = {e for e, (_, turns) in [*old.items(), *new.items()]
                  if any(t[3] in changed for t in turns)}
        same = [e for e in old if e not in changed | turned and e in new]
        assert len(same) > 20
        for e in same:
            assert old[e] == new[e], (name, e, old[e], new[e])
        # a changed entity keeps its conversation id only when its conversation asked none of
        # the facts that changed (a removed school, a changed marriage date); facts added to
        # an entity may or may not be picked
        asked: dict[str, set] = {}
        for eid, pid, qid in con.execute(
                "SELECT c.entity_id, t.property_id, t.qualifier_property_id FROM conversations "
                "c JOIN turns t USING (run_id, conversation_id) WHERE run_id = ?",
                [new_run]).fetchall():
            asked.setdefault(eid, set()).add((pid, qid))
        # the facts whose answers changed: Obama's schools (one removed) and his marriage's
        # start date; Chicago's population (a new value)
        changed_facts = {"Q76": {("P69", None), ("P26", "P580")},
                         "Q1297": {("P1082", None)}}
        for e in changed & set(old) & set(new):
            if old[e][0] == new[e][0]:
                assert not changed_facts.get(e, set()) & asked[e], (e, asked[e])
    summary = json.loads(con.execute("SELECT summary FROM refresh_runs WHERE status = 'done'"
                                     ).fetchone()[0])
    assert log.count("types") == 1  # a new type (river): one call of the type selector
    assert summary["llm_calls"] == 5 and summary["conversations"]["unchanged"] > 40
    assert set(summary["seconds"]) >= {"load", "swap", "predicates.select", "templates.generate",
                                       "assemble"}


def _convs(con, run):
    out = {}
    for cid, eid in con.execute("SELECT conversation_id, entity_id FROM conversations WHERE "
                                "run_id = ?", [run]).fetchall():
        turns = con.execute("SELECT turn, question, answer, subject_id FROM turns WHERE "
                            "conversation_id = ? AND run_id = ? ORDER BY turn",
                            [cid, run]).fetchall()
        out[eid] = (cid, turns)
    return out


def test_killed_refresh_then_rerun_matches_an_uninterrupted_one(base_project, tmp_path):
    tmp, _ = base_project
    clean, killed = tmp_path / "clean.duckdb", tmp_path / "killed.duckdb"
    shutil.copy(tmp / "p.duckdb", clean)
    shutil.copy(tmp / "p.duckdb", killed)
    with ScriptedServer(handler([])) as server:
        cli("refresh", str(tmp / "new.json"), "--db", str(clean), server=server)
    log = []

    def slow(body, n):
        time.sleep(0.5)
        return handler(log)(body, n)

    with ScriptedServer(slow) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "convkgyarn.cli", "refresh", str(tmp / "new.json"), "--db",
             str(killed), "--base-url", server.base_url],
            env={**os.environ, "OPENAI_API_KEY": "k"}, cwd=REPO,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while not server.requests and time.time() < deadline:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert server.requests  # killed after the swap, while selecting predicates
        r = cli("refresh", str(tmp / "new.json"), "--db", str(killed), server=server)
        assert "resuming" in r.output
    a, b = connect(clean, read_only=True), connect(killed, read_only=True)
    assert snapshot(a) == snapshot(b)


def test_a_second_concurrent_run_fails_fast(base_project, tmp_path):
    tmp, _ = base_project
    db = tmp_path / "p.duckdb"
    shutil.copy(tmp / "p.duckdb", db)
    with ProjectLock(db, exclusive=True, command="a test"):
        t0 = time.perf_counter()
        r = cli("refresh", str(tmp / "new.json"), "--db", str(db), check=False)
        assert time.perf_counter() - t0 < 10
    assert r.exit_code == 75 and "another convkgyarn command is using" in r.output
    assert f"pid {os.getpid()}" in r.output


@pytest.mark.parametrize("content", [b"", b"garbage that is not json\n" * 50,
                                     b'{"a": 1}\n[1, 2, 3]\n'])
def test_a_snapshot_without_entities_is_refused_and_the_project_kept(base_project, tmp_path,
                                                                     content):
    tmp, _ = base_project
    db = tmp_path / "p.duckdb"
    shutil.copy(tmp / "p.duckdb", db)
    cli("export", "--db", str(db), "--out", str(tmp_path / "before.jsonl"))
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    r = cli("refresh", str(bad), "--db", str(db), check=False)
    assert r.exit_code == 2 and "no Wikidata entities" in r.output, r.output
    cli("export", "--db", str(db), "--out", str(tmp_path / "after.jsonl"))
    assert (tmp_path / "before.jsonl").read_bytes() == (tmp_path / "after.jsonl").read_bytes()
    last = Path(str(db) + ".refresh.log").read_text().splitlines()[-1]
    # the first rejected line is named in the message: `kg rejects` reads the project,
    # not the staging load that rejected them (found in review)
    assert re.search(r"rejected \(line 1: .+\)$|the file is empty$", last), last
    assert "kg rejects" not in last


def test_a_snapshot_that_removes_too_much_needs_allow_shrink(base_project, tmp_path):
    tmp, _ = base_project
    db = tmp_path / "p.duckdb"
    shutil.copy(tmp / "p.duckdb", db)
    lines = (tmp / "same.json").read_text().splitlines()
    half = tmp_path / "half.json"
    half.write_text("\n".join(lines[: len(lines) // 2]) + "\n]\n")
    r = cli("refresh", str(half), "--db", str(db), check=False)
    assert r.exit_code == 2 and "--allow-shrink" in r.output and "fewer" in r.output
    with_more_room = tmp_path / "convkgyarn.toml"
    with_more_room.write_text("[refresh]\nmax_shrink = 0.9\n")
    r = cli("refresh", str(half), "--db", str(db), "--config", str(with_more_room), check=False)
    assert r.exit_code == 0, r.output
    r = cli("refresh", str(tmp / "same.json"), "--db", str(db))
    r = cli("refresh", str(half), "--db", str(db), "--allow-shrink", check=False)
    assert r.exit_code == 0, r.output


def test_when_the_endpoint_fails_the_refresh_log_ends_with_the_reason(base_project, tmp_path):
    tmp, _ = base_project
    db = tmp_path / "p.duckdb"
    shutil.copy(tmp / "p.duckdb", db)
    from tests.llm.scripted_server import Reply

    with ScriptedServer(lambda body, n: Reply(status=503)) as server:
        r = cli("refresh", str(tmp / "new.json"), "--db", str(db), "--base-url",
                server.base_url, check=False, env={"OPENAI_API_KEY": "k"},
                extra=["--config", str(fast_retries(tmp_path))])
    assert r.exit_code == 4, r.output
    last = Path(str(db) + ".refresh.log").read_text().splitlines()[-1]
    assert "refresh stopped (exit 4)" in last and "HTTP 503" in last and "gave up" in last


def fast_retries(tmp_path: Path) -> Path:
    cfg = tmp_path / "fast.toml"
    cfg.write_text("[llm]\nmax_attempts = 2\nbackoff_max = 0.05\n")
    return cfg
