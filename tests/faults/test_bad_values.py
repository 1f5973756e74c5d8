"""Blank and invalid values never become answers and never crash a run. A blank English label
(empty, whitespace, zero-width) was used as a label (turns answered ""); "NaN" metres, a date
of "garbage", a 30 February or a month 13 became answers, or crashed `generate` (an
IndexError on month 13). Each such value is now rejected on its own, with the file, line,
field and reason in `kg rejects`, and the rest of its entity loads; a database loaded before
the checks (which may hold such values) still generates, leaving those facts out."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from tests.helpers import cli, project
from tests.oxigraph import serve

OBAMA, MICHELLE, HONOLULU, CHICAGO, TITANIC, AVATAR, TRUMP = (
    "Q76", "Q13133", "Q18094", "Q1297", "Q44578", "Q24871", "Q22686")


def sample_entities(sample_path: Path) -> dict[str, dict]:
    lines = sample_path.read_text().splitlines()[1:-1]
    return {e["id"]: e for e in (json.loads(line.rstrip(",")) for line in lines)}


def write_dump(path: Path, entities: dict[str, dict]) -> Path:
    path.write_text("\n".join(json.dumps(e, ensure_ascii=False) for e in entities.values())
                    + "\n", encoding="utf-8")
    return path


def main_value(entities: dict, eid: str, prop: str) -> dict:
    return entities[eid]["claims"][prop][0]["mainsnak"]["datavalue"]["value"]


def answers(export: Path) -> list[tuple[dict, dict]]:
    return [(rec, t) for rec in map(json.loads, export.read_text().splitlines())
            for t in rec["turns"]]


@pytest.fixture(scope="module")
def bad(tmp_path_factory, sample_path):
    """The bundled sample with blank labels, impossible dates, amounts that are no number and
    a unit that is no item, loaded and generated from."""
    tmp = tmp_path_factory.mktemp("bad-values")
    ents = sample_entities(sample_path)
    ents[HONOLULU]["labels"]["en"]["value"] = ""
    ents[MICHELLE]["labels"]["en"]["value"] = "\u200b"
    ents["Q30"]["labels"]["en"]["value"] = "   "
    main_value(ents, OBAMA, "P569")["time"] = "+1961-13-04T00:00:00Z"
    main_value(ents, TRUMP, "P569")["time"] = "+1946-02-30T00:00:00Z"
    main_value(ents, CHICAGO, "P1082")["amount"] = "NaN"
    main_value(ents, TITANIC, "P2047")["amount"] = "garbage"
    main_value(ents, AVATAR, "P2047")["unit"] = "http://example.org/minute"
    dump = write_dump(tmp / "bad.ndjson", ents)
    db = tmp / "p.duckdb"
    load = cli("kg", "load", dump, "--db", db)
    gen = cli("generate", "--all-configs", "--db", db, "--out", tmp / "out")
    return tmp, dump, db, load, gen


def test_each_bad_value_is_a_reject_with_its_field_and_reason(bad):
    tmp, dump, db, load, _ = bad
    assert load.exit_code == 0, load.output
    assert "0 rejected lines, 8 rejected values" in load.output
    with project(db, write=False) as p:
        p_rejects = p.rejects(100)
        rejects = {(field, reason) for _, _, field, reason, _ in p_rejects}
        lines = {line for _, line, _, _, _ in p.rejects(100)}
        entities = {i for (i,) in p.con.execute("SELECT id FROM entities").fetchall()}
        obama = {prop for (prop,) in p.con.execute(
            "SELECT DISTINCT property_id FROM statements WHERE entity_id = ?", [OBAMA]
        ).fetchall()}
    assert rejects == {
        ("labels.en", "blank English label (read as no label)"),
        ("claims.P569", "time: month 13 does not exist"),
        ("claims.P569", "time: February has no day 30"),
        ("claims.P1082", "amount is not a number"),
        ("claims.P2047", "amount is not a number"),
        ("claims.P2047", "unit is neither 1 nor a Wikidata item's IRI"),
    }
    snippets = {s for *_, s in p_rejects}  # the statement id and the value
    assert any(s.startswith(f'{OBAMA}$E5177316-7EC7-5BA9-AABC-583AF9466FB7 '
                            '{"time":"+1961-13-04T00:00:00Z"') for s in snippets), snippets
    assert f'{HONOLULU} ""' in snippets and f'{MICHELLE} "\u200b"' in snippets
    ids = [json.loads(line)["id"] for line in dump.read_text().splitlines()]
    assert {ids.index(e) + 1 for e in (HONOLULU, MICHELLE, "Q30", OBAMA, TRUMP, CHICAGO,
                                       TITANIC, AVATAR)} == lines
    # the rest of each entity loads: Obama keeps his other facts, not his date of birth;
    # an item whose only English label is blank has none, and is left out like one without
    assert {"P26", "P27", "P39"} <= obama and "P569" not in obama
    assert OBAMA in entities and not {HONOLULU, MICHELLE, "Q30"} & entities
    r = cli("kg", "rejects", "--db", db)
    assert r.exit_code == 0 and "claims.P1082" in r.output and "labels.en" in r.output
    with project(db, write=False) as p:
        drops = {(stage, reason): n for stage, reason, n, _ in p.drops("kg.load")}
    assert drops[("kg.load", "amount is not a number")] == 2
    assert drops[("kg.load", "blank English label (read as no label)")] == 3


def test_no_bad_value_is_ever_an_answer(bad):
    tmp, _, db, _, gen = bad
    assert gen.exit_code == 0, gen.output
    turns = answers(tmp / "out" / "conversations.jsonl")
    assert len(turns) > 2000
    for rec, t in turns:
        assert all(a.strip() and "\u200b" not in a for a in t["answer"]), t
        assert not {"NaN", "garbage"} & set(" ".join(t["answer"]).split()), t
        assert not {"1961-13-04", "1946-02-30"} & {v.get("time") for v in t["answer_values"]}, t
        assert (t["subject_id"], t["property_id"]) not in {
            (OBAMA, "P569"), (TRUMP, "P569"), (CHICAGO, "P1082"), (TITANIC, "P2047"),
            (AVATAR, "P2047")}, t
        assert HONOLULU not in t.get("answer_ids", []) and "Q30" not in t.get("answer_ids", [])


def older_database(tmp: Path, sample_path: Path) -> Path:
    """The clean sample loaded, then edited into what a load before the checks stored."""
    db = tmp / "old.duckdb"
    assert cli("kg", "load", sample_path, "--db", db).exit_code == 0
    con = duckdb.connect(str(db))
    con.execute("UPDATE statements SET value_text = '1961-13-04' WHERE entity_id = ? AND "
                "property_id = 'P569'", [OBAMA])
    con.execute("UPDATE statements SET value_text = '1946-02-30' WHERE entity_id = ? AND "
                "property_id = 'P569'", [TRUMP])
    con.execute("UPDATE statements SET value_text = 'garbage' WHERE entity_id = ? AND "
                "property_id = 'P569'", [MICHELLE])
    con.execute("UPDATE statements SET value_text = 'NaN' WHERE entity_id = ? AND "
                "property_id = 'P1082'", [CHICAGO])
    con.execute("UPDATE entities SET label = ' ' WHERE id = ?", [HONOLULU])
    con.close()
    return db


def test_an_older_database_holding_such_values_still_generates(tmp_path, sample_path):
    db = older_database(tmp_path, sample_path)
    r = cli("generate", "--db", db, "--out", tmp_path / "out", "--turns", "10", "--min-turns", "1",
            "--entity", OBAMA, "--entity", TRUMP, "--entity", MICHELLE, "--entity", CHICAGO)
    assert r.exit_code == 0, r.output  # an IndexError on month 13 before
    turns = answers(tmp_path / "out" / "conversations.jsonl")
    assert {t["subject_id"] for _, t in turns} >= {OBAMA, TRUMP, MICHELLE, CHICAGO}
    for _, t in turns:
        text = " ".join(t["answer"])
        assert text.strip() and "NaN" not in text and "garbage" not in text, t
        assert not (t["subject_id"] in (OBAMA, TRUMP, MICHELLE) and t["property_id"] == "P569"
                    and t["qualifier_property_id"] is None), t
    with project(db, write=False) as p:
        reasons = {r for (r,) in p.con.execute("SELECT DISTINCT reason FROM dropped").fetchall()}
    assert {f"not asked: {why} (the answer would be incomplete)" for why in (
        "a date that does not exist", "an amount that is not a number",
        "a value with a blank label")} <= reasons, reasons


def test_kg_rdf_of_an_older_database_loads_into_a_sparql_store(tmp_path, sample_path):
    """An impossible date written as an xsd:dateTime made the snapshot's queries fail or the
    store refuse it: such values are left out of the triples."""
    db = older_database(tmp_path, sample_path)
    r = cli("kg", "rdf", "--out", tmp_path / "kg.nt", "--db", db)
    assert r.exit_code == 0, r.output
    text = (tmp_path / "kg.nt").read_text()
    assert "1961-13" not in text and "1946-02-30" not in text and '"NaN"' not in text
    with serve(tmp_path / "kg.nt", tmp_path) as url:
        import httpx
        reply = httpx.post(url, data={"query": "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }"},
                           headers={"Accept": "application/sparql-results+json"}).json()
    triples = {line for line in text.splitlines() if not line.startswith("#")}  # a header
    assert int(reply["results"]["bindings"][0]["n"]["value"]) == len(triples)


@pytest.mark.shared_data
def test_real_impossible_dates_are_rejected_alone(shared_data, tmp_path):
    """dump-sample-100 holds two population counts dated 31 June 2016: the dates are rejected
    with their line and field, the counts load."""
    dump = shared_data / "wikidata" / "dump-sample-100.json.bz2"
    with project(tmp_path / "p.duckdb") as p:
        p.load([dump])
        rows = sorted(p.rejects())
        counts = p.con.execute(
            "SELECT count(*) FROM statements WHERE statement_id IN (?, ?)",
            [r[4].split()[0] for r in rows]).fetchone()[0]
    assert [(line, field, reason) for _, line, field, reason, _ in rows] == [
        (72, "claims.P1082.qualifiers.P585", "time: June has no day 31"),
        (81, "claims.P1082.qualifiers.P585", "time: June has no day 31")]
    assert all('"+2016-06-31T00:00:00Z"' in snippet for *_, snippet in rows)
    assert counts == 2
