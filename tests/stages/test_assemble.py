"""Conversations, checked on the exported records a user gets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from convkgyarn.cli import app
from convkgyarn.text import starts_with_wh
from tests.stages.test_typos import classify

CONFIGS = {
    "voice": [], "voice-deixis": ["--deixis"], "voice-deixis-disfluency": ["--deixis",
                                                                       "--disfluency"],
    "text-deixis-typos": ["--interaction", "text", "--deixis", "--typos"],
}


def generate(tmp: Path, *args: str, db: str = "p.duckdb") -> list[dict]:
    out = tmp / "out"
    r = CliRunner().invoke(app, ["generate", "--db", str(tmp / db), "--out", str(out),
                                 "--conversations", "60", *args])
    assert r.exit_code == 0, r.output
    return [json.loads(l) for l in (out / "conversations.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("gen")
    recs = {}
    for name, args in CONFIGS.items():
        recs[name] = generate(tmp, *args, "--interaction", "voice", "--same-facts") \
            if not args or args[0] != "--interaction" else generate(tmp, *args, "--same-facts")
    return tmp, recs


def kg_values(con, subject, prop, qual, statement_id):
    if qual is None:
        return [r[0] for r in con.execute(
            "SELECT value_label FROM statement_values WHERE entity_id = ? AND property_id = ? "
            "AND truthy ORDER BY ordinal", [subject, prop]).fetchall()]
    return [r[0] for r in con.execute(
        "SELECT value_label FROM qualifier_values WHERE statement_id = ? AND "
        "qualifier_property_id = ? ORDER BY ordinal", [statement_id, qual]).fetchall()]


def test_every_rule_holds_on_exported_records(generated):
    tmp, recs = generated
    from convkgyarn.store import connect

    con = connect(tmp / "p.duckdb", read_only=True)
    statement_of = dict(con.execute("SELECT template_id, 1 FROM templates").fetchall())
    assert statement_of
    for name, records in recs.items():
        assert len(records) == 60
        for r in records:
            assert r["config"]["name"] == name
            first = r["turns"][0]
            assert "deixis" not in first["phenomenon"]  # no deixis in turn 1
            for t in r["turns"]:
                sid = con.execute("SELECT statement_id FROM turns WHERE template_id = ? AND "
                                  "conversation_id = ? AND turn = ?",
                                  [t["template_id"], r["conversation_id"], t["turn"]]).fetchone()[0]
                assert t["answer"] == kg_values(con, t["subject_id"], t["property_id"],
                                                t["qualifier_property_id"], sid)
                for label in t["answer"]:
                    assert label.lower() not in t["question"].lower()
                if name.startswith("text"):
                    assert not starts_with_wh(t["question"])
                if t["phenomenon"] in ("typos", "deixis_typos"):
                    assert classify(t["question_before_typo"], t["question"]) is not None
                else:
                    assert t["question_before_typo"] is None
                assert t["template_id"] in statement_of


def test_deixis_only_follows_a_turn_about_the_same_entity(generated):
    _, recs = generated
    for r in recs["voice-deixis"]:
        for prev, t in zip(r["turns"], r["turns"][1:]):
            if "deixis" in t["phenomenon"]:
                assert prev["subject_id"] == t["subject_id"]
        assert sum("deixis" in t["phenomenon"] for t in r["turns"]) == len(r["turns"]) - 1


def test_related_predicates_stay_together(generated):
    _, recs = generated
    pairs = 0
    for records in recs.values():
        for r in records:
            props = [(t["property_id"], t["qualifier_property_id"]) for t in r["turns"]]
            for i, (p, q) in enumerate(props):
                if q is not None:  # a qualifier question follows its fact's question
                    j = i - 1
                    while props[j][1] is not None:
                        j -= 1
                    assert props[j] == (p, None)
                if p == "P569" and ("P19", None) in props:
                    pairs += 1
                    assert props[i + 1] == ("P19", None) or props[i - 1] == ("P19", None)
    assert pairs > 0


def test_same_facts_across_configurations(generated):
    _, recs = generated
    facts = {name: [[(t["subject_id"], t["property_id"], t["qualifier_property_id"])
                     for t in r["turns"]] for r in records] for name, records in recs.items()}
    first = next(iter(facts.values()))
    assert all(f == first for f in facts.values())


def test_complex_facts_answer_with_the_full_list(generated):
    _, recs = generated
    multi = [t for r in recs["voice"] for t in r["turns"] if len(t["answer"]) > 1]
    assert multi and all(len(t["answer_ids"]) == len(t["answer"]) for t in multi)


def test_same_seed_gives_byte_identical_output(tmp_path):
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.mkdir()
    b.mkdir()
    generate(a, "--interaction", "text", "--typos", "--deixis", "--seed", "7")
    generate(b, "--interaction", "text", "--typos", "--deixis", "--seed", "7")
    assert (a / "out" / "conversations.jsonl").read_bytes() == \
        (b / "out" / "conversations.jsonl").read_bytes()
    generate(b, "--interaction", "text", "--typos", "--deixis", "--seed", "8", db="q.duckdb")
    assert (a / "out" / "conversations.jsonl").read_bytes() != \
        (b / "out" / "conversations.jsonl").read_bytes()


def test_export_formats(generated, tmp_path):
    tmp, _ = generated
    db = str(tmp / "p.duckdb")
    runner = CliRunner()
    r = runner.invoke(app, ["export", "--format", "parquet", "--db", db,
                            "--out", str(tmp_path / "c.parquet")])
    assert r.exit_code == 0, r.output
    import pyarrow.parquet as pq

    assert pq.read_table(tmp_path / "c.parquet").num_rows == 4 * 60
    r = runner.invoke(app, ["export", "--format", "hf", "--db", db, "--out", str(tmp_path / "hf")])
    assert r.exit_code == 0, r.output
    card = (tmp_path / "hf" / "README.md").read_text()
    for needle in ("voice-deixis", "Q5", "P569", "2024-11-01", "rules"):
        assert needle in card
    import datasets

    ds = datasets.load_dataset(str(tmp_path / "hf"), "text-deixis-typos", split="train")
    assert len(ds) == 60 and ds[0]["turns"][0]["turn"] == 1
    r = runner.invoke(app, ["stats", "--db", db, "--json"])
    stats = json.loads(r.stdout)
    assert stats["conversations"] == 240 and stats["questions_per_fact"] >= 1
    assert set(stats["phenomena"]) >= {"original", "deixis", "deixis_disfluencies", "typos"}
