"""An end time whose value is unknown (a ``somevalue`` snak of P582) still ends its statement:
Wikidata's RDF writes ``pq:P582`` for it, each turn's SPARQL (``FILTER NOT EXISTS { ?statement
pq:P582 ?end }``) and the shared gold checker read it as ended. The loader kept only qualifier
values, so assembly asked such a statement in the present tense ("Who is the head of state of
France?" "François Hollande", from a file where his term has ended). It is now a qualifier
row of value type ``somevalue``: assembly's ``ended`` sees it, ``kg rdf`` writes it as
Wikidata does, and no question asks for the unknown value."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from convkgyarn.kg.extract import parse_lines
from tests.helpers import cli, project
from tests.oxigraph import serve

UNKNOWN_END = {"snaktype": "somevalue", "property": "P582", "datatype": "time"}


def turns(export: Path) -> list[dict]:
    return [t for line in export.read_text().splitlines() for t in json.loads(line)["turns"]]


def verify_against_own_snapshot(db: Path, export: Path, tmp: Path) -> dict:
    assert cli("kg", "rdf", "--out", tmp / "kg.nt", "--db", db).exit_code == 0
    with serve(tmp / "kg.nt", tmp) as url:
        r = cli("verify", "--endpoint", url, "--input", export, "--out", tmp / "drift.json")
    assert r.exit_code == 0, r.output
    return json.loads((tmp / "drift.json").read_text())["summary"]


def test_an_unknown_end_time_is_a_qualifier_row_without_a_value():
    claim = {"id": "Q1$00000000-0000-0000-0000-000000000001", "rank": "normal",
             "mainsnak": {"snaktype": "value", "datatype": "wikibase-item", "datavalue": {
                 "type": "wikibase-entityid", "value": {"id": "Q2"}}},
             "qualifiers": {"P582": [UNKNOWN_END], "P580": [{**UNKNOWN_END, "property": "P580"}],
                            "P585": [{"snaktype": "novalue", "property": "P585"}]}}
    line = json.dumps({"type": "item", "id": "Q1", "labels": {"en": {"value": "x"}},
                       "claims": {"P26": [claim]}}).encode()
    batch = parse_lines([line], 1, 1, "f")
    [statement] = batch.rows_by_table["statements"]
    assert statement[12] is False  # qualified: a qualifier with a value, and this has none
    assert [(q[3], q[5], q[6], q[7]) for q in batch.rows_by_table["qualifiers"]] == [
        ("P582", "somevalue", None, None)]  # unknown start and no point in time: not kept


def test_a_statement_with_an_unknown_end_is_asked_in_the_past(tmp_path, sample_path):
    """Obama's marriage given an unknown end: "Who is his spouse?" no longer answers
    Michelle Obama; the fact is asked in the past, and the query of every turn returns its
    gold answer on the project's own snapshot."""
    lines = sample_path.read_text().splitlines()[1:-1]
    ents = [json.loads(line.rstrip(",")) for line in lines]
    obama = next(e for e in ents if e["id"] == "Q76")
    [marriage] = obama["claims"]["P26"]
    marriage.setdefault("qualifiers", {})["P582"] = [UNKNOWN_END]
    dump = tmp_path / "dump.ndjson"
    dump.write_text("\n".join(map(json.dumps, ents)) + "\n")
    db = tmp_path / "p.duckdb"
    assert cli("kg", "load", dump, "--db", db).exit_code == 0
    r = cli("generate", "--db", db, "--out", tmp_path / "out", "--entity", "Q76", "--turns",
            "20", "--min-turns", "1", "--all-configs")
    assert r.exit_code == 0, r.output
    spouse = [t for t in turns(tmp_path / "out" / "conversations.jsonl")
              if t["property_id"] == "P26" and t["qualifier_property_id"] is None
              and t["question_kind"] in (None, "fact")]
    assert spouse and all(t["tense"] == "past" and t["answer"] == ["Michelle Obama"]
                          for t in spouse), spouse
    assert not [t for t in turns(tmp_path / "out" / "conversations.jsonl")
                if t["property_id"] == "P26" and t["qualifier_property_id"] == "P582"]
    with project(db, write=False) as p:
        reasons = {r for (r,) in p.con.execute(
            "SELECT reason FROM dropped WHERE item = 'Q76/P582'").fetchall()}
    assert reasons == {"qualifier not asked: an unknown value (somevalue)"}
    summary = verify_against_own_snapshot(db, tmp_path / "out" / "conversations.jsonl",
                                          tmp_path)
    assert summary["same"] == summary["turns"] > 0, summary


@pytest.mark.shared_data
@pytest.mark.slow
def test_frances_head_of_state_with_an_unknown_end_is_not_current(shared_data, tmp_path):
    """In real-entities-dev, France's head of state statement (François Hollande, preferred)
    ends at an unknown date: he is not its head of state in the present tense. In the past
    tense Mitterrand and the other earlier presidents the file keeps at normal rank, ended,
    answer too, so "Who was the head of state of France?" is not asked at all (its query
    reads the best rank alone), and the drop says why."""
    wd = shared_data / "wikidata"
    db = tmp_path / "p.duckdb"
    r = cli("kg", "load", wd / "real-entities-dev.ndjson.bz2", "--labels",
            wd / "property-labels-en.json", "--labels",
            shared_data / "labels" / "preferred-labels-en.json", "--db", db)
    assert r.exit_code == 0, r.output
    with project(db, write=False) as p:
        unknown = p.con.execute("SELECT entity_id, property_id FROM qualifiers WHERE "
                                "value_type = 'somevalue' ORDER BY 1").fetchall()
    assert unknown == [("Q103", "P1651"), ("Q142", "P35"), ("Q148", "P47"),
                       ("Q19816371", "P26")]
    r = cli("generate", "--db", db, "--out", tmp_path / "out", "--entity", "Q142", "--turns",
            "40", "--min-turns", "1")
    assert r.exit_code == 0, r.output
    asked = [t for t in turns(tmp_path / "out" / "conversations.jsonl")
             if t["property_id"] == "P35" and t["qualifier_property_id"] is None]
    assert not asked, asked
    with project(db, write=False) as p:
        reasons = [r[0] for r in p.con.execute(
            "SELECT reason FROM drops WHERE item = 'Q142/P35'").fetchall()]
    assert any("ended statement below the best rank" in r for r in reasons), reasons
    summary = verify_against_own_snapshot(db, tmp_path / "out" / "conversations.jsonl",
                                          tmp_path)
    assert summary["same"] == summary["turns"] > 0, summary
