"""Predicate selection: rules path, LLM path against the scripted server, persistence."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from convkgyarn.cli import app
from convkgyarn.config import LLMConfig, LoadConfig, PredicatesConfig
from convkgyarn.kg.load import LoadStage
from convkgyarn.llm import new_meter
from convkgyarn.stages.predicates import ExtractPredicates, SelectPredicates
from tests.llm.scripted_server import Reply, ScriptedServer, json_reply, last_user_message


def selection(con, type_id):
    return {(r[0], r[1]) for r in con.execute(
        "SELECT property_id, qualifier_property_id FROM selected_predicates WHERE type_id = ?",
        [type_id]).fetchall()}


def test_rules_select_askable_predicates_and_time_qualifiers(sample_db):
    stage = SelectPredicates(sample_db, PredicatesConfig(), LLMConfig(), new_meter(LLMConfig()))
    assert stage.path == "rules"
    stage.run()
    human = selection(sample_db, "Q5")
    for wanted in [("P569", None), ("P19", None), ("P26", None), ("P26", "P580"),
                   ("P166", None), ("P166", "P585"), ("P39", "P580"), ("P39", "P582")]:
        assert wanted in human
    for unwanted in ("P18", "P373", "P856", "P1559", "P21", "P31"):
        assert (unwanted, None) not in human
    reasons = dict(sample_db.execute(
        "SELECT item, detail FROM dropped WHERE stage = 'predicates.select'").fetchall())
    assert reasons["Q5/P21"].startswith("excluded property")
    by = sample_db.execute("SELECT DISTINCT selected_by FROM selected_predicates").fetchall()
    assert by == [("rules",)]


def test_unchanged_types_are_not_selected_again(sample_db):
    meter = new_meter(LLMConfig())
    first = SelectPredicates(sample_db, PredicatesConfig(), LLMConfig(), meter).run()
    second = SelectPredicates(sample_db, PredicatesConfig(), LLMConfig(), meter).run()
    assert first.stats["types"] > 0 and second.stats["types"] == 0
    assert second.stats["unchanged"] == first.stats["types"]


def _llm(server):
    return LLMConfig(base_url=server.base_url, api_key="k", backoff_max=0.1)


def test_llm_selection_keeps_only_offered_ids_and_records_the_rest(sample_db):
    def handler(body, n):
        table = last_user_message(body)
        ids = re.findall(r"^(P\d+):", table, re.M)
        quals = {}
        if "P26" in ids:
            quals = {"P26": ["P580", "P9999"]}
        return json_reply({"selected": ids[:3] + ["P26", "P123456"], "qualifiers": quals})

    with ScriptedServer(handler) as server:
        stage = SelectPredicates(sample_db, PredicatesConfig(), _llm(server),
                                 new_meter(_llm(server)), types=["Q5"])
        assert stage.path == "llm"
        report = stage.run()
        assert len(server.requests) == 1
    rows = sample_db.execute("SELECT DISTINCT selected_by, model, prompt_hash FROM "
                             "selected_predicates WHERE type_id = 'Q5'").fetchall()
    assert rows == [("llm", "gpt-4o", stage.prompt.hash)]
    human = selection(sample_db, "Q5")
    assert ("P26", "P580") in human and ("P123456", None) not in human
    assert report.stats["dropped_ids"] == 2
    dropped = [r[0] for r in sample_db.execute(
        "SELECT reason FROM dropped WHERE stage = 'predicates.select' AND item LIKE 'Q5/P%' "
        "AND reason LIKE 'selector%'").fetchall()]
    assert len(dropped) == 2


def test_llm_sees_at_most_50_predicates_per_call(db, shared_data):
    LoadStage(db, LoadConfig(paths=[shared_data / "wikidata" / "dump-sample-100.json.bz2"],
                             labels=shared_data / "labels" / "preferred-labels-en.json")).run()
    ExtractPredicates(db, PredicatesConfig(min_type_entities=10)).run()
    type_id = db.execute("SELECT type_id FROM type_predicates GROUP BY 1 ORDER BY count(*) DESC "
                         "LIMIT 1").fetchone()[0]
    seen: list[list[str]] = []

    def handler(body, n):
        ids = re.findall(r"^(P\d+):", last_user_message(body), re.M)
        seen.append(ids)
        return json_reply({"selected": ids[:5]})

    with ScriptedServer(handler) as server:
        cfg = PredicatesConfig(min_type_entities=10, min_share=0.0)
        stage = SelectPredicates(db, cfg, _llm(server), new_meter(_llm(server)), types=[type_id])
        n_candidates = len(stage.candidates(type_id))
        stage.run()
    assert n_candidates > 50
    assert all(len(ids) <= 50 for ids in seen) and len(seen) == -(-n_candidates // 50)
    assert sum(len(ids) for ids in seen) == n_candidates


def test_show_prints_labels(tmp_path, sample_path):
    dbfile = str(tmp_path / "p.duckdb")
    runner = CliRunner()
    assert runner.invoke(app, ["kg", "load", str(sample_path), "--db", dbfile]).exit_code == 0
    assert runner.invoke(app, ["predicates", "extract", "--db", dbfile]).exit_code == 0
    r = runner.invoke(app, ["predicates", "select", "--db", dbfile])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["predicates", "show", "Q5", "--db", dbfile])
    assert r.exit_code == 0 and "date of birth" in r.stdout and "rules" in r.stdout
