"""Stale-knowledge probes: after a refresh, conversations about exactly the facts that
changed, each turn carrying the values they held before; a model that answers with those
is reported as outdated, not merely wrong."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from convkgyarn.cli import app
from convkgyarn.store import connect
from tests.helpers import generated_records
from tests.llm.scripted_server import Reply, ScriptedServer
from tests.test_refresh import modified_dump


def run(*args, env=None):
    return CliRunner(env=env).invoke(app, [*args])


@pytest.fixture(scope="module")
def probed(tmp_path_factory, sample_path):
    tmp = tmp_path_factory.mktemp("probes")
    db = str(tmp / "p.duckdb")
    r = run("generate", "--db", db, "--out", str(tmp / "out"), "--conversations", "20")
    assert r.exit_code == 0, r.output
    modified_dump(sample_path, tmp / "new.json")
    # and one fact whose current value is replaced the way Wikidata records it: the old
    # statement gets an end time, a new one starts (the UK's head of state)
    lines = (tmp / "new.json").read_text().splitlines()
    ents = [json.loads(line.rstrip(",")) for line in lines[1:-1]]
    uk = next(e for e in ents if e["id"] == "Q145")
    old = uk["claims"]["P35"][-1]
    old.setdefault("qualifiers", {})["P582"] = [{
        "snaktype": "value", "property": "P582", "datatype": "time",
        "datavalue": {"type": "time", "value": {"time": "+2030-01-01T00:00:00Z",
                                                "precision": 11, "timezone": 0, "before": 0,
                                                "after": 0, "calendarmodel": "x"}}}]
    uk["claims"]["P35"].append({
        "mainsnak": {"snaktype": "value", "property": "P35", "datatype": "wikibase-item",
                     "datavalue": {"value": {"entity-type": "item", "id": "Q76"},
                                   "type": "wikibase-entityid"}},
        "type": "statement", "id": "Q145$NEW-P35", "rank": "normal"})
    (tmp / "new.json").write_text("[\n" + ",\n".join(map(json.dumps, ents)) + "\n]\n")
    r = run("refresh", str(tmp / "new.json"), "--db", db)
    assert r.exit_code == 0, r.output
    r = run("generate", "--db", db, "--out", str(tmp / "probes"), "--changed-since", "last",
            "--interaction", "voice", "--conversations", "50")
    assert r.exit_code == 0, r.output
    return tmp, db, generated_records(tmp / "probes")


def test_probes_ask_exactly_the_changed_facts_with_their_earlier_values(probed):
    tmp, db, recs = probed
    con = connect(db)
    changed = {(e, p): json.loads(v) for e, p, v in con.execute(
        "SELECT entity_id, property_id, old_values FROM fact_changes").fetchall()}
    ended = set(con.execute(
        "SELECT entity_id, property_id, value_id FROM statements s WHERE EXISTS (SELECT 1 "
        "FROM qualifiers q WHERE q.statement_id = s.statement_id AND "
        "q.qualifier_property_id = 'P582')").fetchall())
    con.close()
    assert ("Q1297", "P1082") in changed and ("Q145", "P35") in changed
    turns = [t for rec in recs for t in rec["turns"]]
    assert {rec["config"]["name"] for rec in recs} == {"voice-changes"}
    asked = {(t["subject_id"], t["property_id"]) for t in turns}
    assert asked <= set(changed) and {("Q1297", "P1082"), ("Q145", "P35")} <= asked
    for t in turns:
        assert t["qualifier_property_id"] is None and t["tense"] == "present"
        assert t["outdated_answer"] and t["change"]["refresh_id"]
        old = changed[(t["subject_id"], t["property_id"])]
        old_ids = {v["value_id"] for v in old}
        # an outdated value is one the fact held before (in the older snapshot, or in a
        # statement that has ended) and does not hold now
        assert all(v.get("id") in old_ids or "amount" in v or
                   (t["subject_id"], t["property_id"], v.get("id")) in ended
                   for v in t["outdated_values"])
        assert not set(t["answer"]) & set(t["outdated_answer"])
    chicago = next(t for t in turns if t["subject_id"] == "Q1297")
    assert chicago["answer"] == ["2,746,389"] and chicago["outdated_answer"] == ["2,746,388"]
    uk = next(t for t in turns if t["subject_id"] == "Q145")
    assert uk["answer"] == ["Barack Obama"]
    assert set(uk["outdated_answer"]) == {"Charles III", "Elizabeth II"}


def test_a_model_answering_with_the_old_values_is_reported_outdated(probed):
    tmp, db, recs = probed
    old = {t["question"]: t["outdated_answer"] for rec in recs for t in rec["turns"]}

    def handler(body, n):
        msgs = body["messages"]
        if msgs[0]["role"] == "system":  # the answerer: always the value held before
            question = msgs[-1]["content"]
            return Reply(content="Answer: " + json.dumps(old[question]))
        return Reply(content=json.dumps({"ratings": [0] * 20}))

    with ScriptedServer(handler) as server:
        r = run("evaluate", "--db", db, "--config-name", "voice-changes", "--base-url",
                server.base_url, env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
    r = run("report", "--db", db, "--out", str(tmp / "report"))
    assert r.exit_code == 0, r.output
    md = (tmp / "report" / "report.md").read_text()
    row = next(line for line in md.splitlines() if "| voice-changes |" in line
               and line.count("|") == 8)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3:] == ["0.000", "1.000", "0.000", "0.000"], row  # current, outdated, ...


def test_changed_since_without_a_refresh_is_one_clear_line(tmp_path):
    db = str(tmp_path / "p.duckdb")
    assert run("generate", "--db", db, "--out", str(tmp_path / "o")).exit_code == 0
    r = run("generate", "--db", db, "--out", str(tmp_path / "o"), "--changed-since", "last")
    assert r.exit_code == 2 and "run `convkgyarn refresh" in r.output
