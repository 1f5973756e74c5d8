"""Conversations that move: hops to items answered earlier, follow-ups that leave the subject
out, several topics. Checked on the bundled sample and on real Wikidata with the black-box
tools in ../shared/tools, and turn by turn on the exported records."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from convkgyarn.config import GenerateConfig
from tests.helpers import project

FLOW = dict(interaction="voice", deixis=True, hops=True, ellipsis=True, turns=12,
            conversations=200)
PRONOUN = re.compile(r"\b(he|she|him|his|her|its|it|this|these|their)\b", re.I)


def _generate(db: Path, out: Path, dumps: list[Path] | None, labels: list[Path], **cfg):
    with project(db) as p:
        if dumps:
            p.load(dumps, labels=labels)
        result = p.generate([GenerateConfig(**cfg)])
        p.write_outputs(result.runs, out)
    return [json.loads(line) for line in (out / "conversations.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module", params=["sample", pytest.param(
    "real-entities-dev", marks=[pytest.mark.shared_data, pytest.mark.slow])])
def flow(request, tmp_path_factory, shared_data):
    tmp = tmp_path_factory.mktemp(request.param)
    dumps = None
    labels = []
    if request.param != "sample":
        dumps = [shared_data / "wikidata" / f"{request.param}.ndjson.bz2"]
        labels = [shared_data / "wikidata" / "property-labels-en.json",
                  shared_data / "labels" / "preferred-labels-en.json"]
    recs = _generate(tmp / "p.duckdb", tmp / "out", dumps, labels, **FLOW)
    return request.param, recs, tmp / "out" / "conversations.jsonl", tmp / "p.duckdb"


def _tool(shared_data: Path, name: str, *args) -> dict:
    out = subprocess.run([sys.executable, str(shared_data.parent / "tools" / name),
                          *map(str, args)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_conversations_move_as_the_issue_asks(flow, shared_data):
    name, recs, export, _ = flow
    followups = [t for r in recs for t in r["turns"] if t["turn"] > 1]
    hop_share = sum(t["hop_from"] is not None for t in followups) / len(followups)
    mean_turns = sum(len(r["turns"]) for r in recs) / len(recs)
    # of the 200 asked, as many as the subjects' facts allow (generate.new_fact_share: 70 of
    # twelve turns on the sample, 166 on real-entities-dev): enough to measure
    assert 50 <= len(recs) <= 200, (name, len(recs))
    assert hop_share >= 0.25, (name, hop_share)
    # 9.6 before issue #33; since, data-date follow-ups ("As of when?"), trivia, second
    # questions with the same answer and present-tense facts whose value held an earlier
    # term are asked only to reach min_turns: entities with few facts end sooner (9.25 on
    # real-entities-dev)
    assert mean_turns >= 9.2, (name, mean_turns)
    style = _tool(shared_data, "style_stats.py", export)
    assert 0.35 <= style["deixis_in_followups"] <= 0.85, (name, style)
    if shutil.which("link-parser") is None:
        pytest.skip("link-grammar is not installed (apt-get install link-grammar)")
    rate = _tool(shared_data, "grammar_rate.py", export)["parsed_without_null_links"]
    assert rate >= 0.90, (name, rate)


def test_a_hop_comes_back_to_the_subject_before_moving_on(flow):
    """A newcomer's find: "Where is University College?" "Oxford." then the town, then its
    country, then back to the college: a hop from a hop while the subject's own facts
    waited. A move from an item the conversation moved to comes only once the subject has
    nothing planned left (so nothing about the subject follows it). 17 such on
    real-entities-dev before."""
    name, recs, _, _ = flow
    chained_then_back = []
    for r in recs:
        turns = {t["turn"]: t for t in r["turns"]}
        for t in r["turns"]:
            came = turns.get(t["hop_from"]) if t["hop_from"] is not None else None
            if came is not None and came["hop_from"] is not None and any(
                    u["turn"] > t["turn"] and u["subject_id"] == r["entity"]["id"]
                    for u in r["turns"]):
                chained_then_back.append([u["question"] for u in r["turns"]])
    assert not chained_then_back, (name, chained_then_back[:3])


def test_a_conversation_that_moves_is_still_about_its_subject(flow):
    """"In which country is the Transport Studies Unit based?" then four questions about the
    United Kingdom (a newcomer's find): a subject with one askable fact is left out with
    its reason rather than lent a conversation about its country."""
    name, recs, _, _ = flow
    thin = [[t["question"] for t in r["turns"]] for r in recs
            if sum(t["subject_id"] == r["entity"]["id"] for t in r["turns"]) < 2]
    assert not thin, (name, thin[:3])


def test_no_continent_once_something_narrower_was_asked(flow):
    """"Which country is Omsk in?" ... "Which continent is it on?": a conversation that
    runs out of planned facts fills with the subject's others, never the continent its
    country, region or capital already said."""
    name, recs, _, _ = flow
    said = []
    for r in recs:
        asked: dict[str, set] = {}
        for t in r["turns"]:
            mine = asked.setdefault(t["subject_id"], set())
            if t["property_id"] == "P30" and t["qualifier_property_id"] is None and \
                    mine & {"P17", "P131", "P36", "P1376"}:
                said.append([u["question"] for u in r["turns"]])
            mine.add(t["property_id"])
    assert not said, (name, said[:3])


def test_every_answer_is_a_fact_of_the_kg(flow):
    _, recs, _, db = flow
    with project(db, write=False) as p:
        stated = set(p.con.execute(
            "SELECT entity_id, property_id, value_id FROM statements WHERE value_id IS NOT NULL"
        ).fetchall())
        qualified = set(p.con.execute(
            "SELECT q.entity_id, q.qualifier_property_id, s.property_id FROM qualifiers q "
            "JOIN statements s USING (statement_id)").fetchall())
    for r in recs:
        for t in r["turns"]:
            if t["qualifier_property_id"] is None:
                for vid in filter(None, t["answer_ids"]):
                    assert (t["subject_id"], t["property_id"], vid) in stated, t
            else:
                assert (t["subject_id"], t["qualifier_property_id"],
                        t["property_id"]) in qualified, t


def test_a_hop_is_about_an_earlier_answer_and_points_at_it_only_when_clear(flow):
    name, recs, _, _ = flow
    for r in recs:
        turns = r["turns"]
        subjects = {t["subject_id"] for t in turns}
        assert len(subjects) <= 3, (r["conversation_id"], subjects)  # --topics 3
        assert turns[0]["hop_from"] is None and turns[0]["subject_id"] == r["entity"]["id"]
        asked = [(t["subject_id"], t["property_id"], t["qualifier_property_id"]) for t in turns]
        assert len(asked) == len(set(asked)), "a fact asked twice"
        for i, t in enumerate(turns):
            if t["hop_from"] is None:
                assert t["subject_id"] == r["entity"]["id"]
                continue
            source = turns[t["hop_from"] - 1]
            assert t["hop_from"] < t["turn"]
            assert t["subject_id"] in source["answer_ids"], (name, t, source)
            before = turns[i - 1]
            if t["phenomenon"] == "deixis" and before["subject_id"] != t["subject_id"]:
                # "Who did she marry?" "Steven Spielberg" "When was he born?"
                assert before["answer_ids"] == [t["subject_id"]], (name, before, t)


def test_ellipsis_leaves_the_subject_out_right_after_the_same_subject(flow):
    name, recs, _, _ = flow
    elliptic = 0
    for r in recs:
        labels = {}
        for i, t in enumerate(r["turns"]):
            labels.setdefault(t["subject_id"], None)
            if t["phenomenon"] != "ellipsis":
                continue
            elliptic += 1
            before = r["turns"][i - 1]
            assert i > 0 and before["subject_id"] == t["subject_id"], (name, t)
            assert r["entity"]["label"] not in t["question"] or \
                t["subject_id"] != r["entity"]["id"], t
            assert len(t["question"].split()) <= 7, t
            if t["qualifier_property_id"]:  # "When was that?" follows that very statement
                assert before["statement_ids"] == t["statement_ids"], (before, t)
    assert elliptic >= 0.1 * sum(len(r["turns"]) - 1 for r in recs), (name, elliptic)


def test_without_deixis_ellipsis_has_no_pronoun_and_topics_1_never_hops(tmp_path):
    recs = _generate(tmp_path / "p.duckdb", tmp_path / "a", None, [], interaction="voice",
                     ellipsis=True, hops=True, topics=1, turns=8, conversations=40)
    turns = [t for r in recs for t in r["turns"]]
    assert all(t["hop_from"] is None for t in turns)
    assert {t["subject_id"] for r in recs for t in r["turns"]} == {r["entity"]["id"]
                                                                  for r in recs}
    elliptic = [t["question"] for t in turns if t["phenomenon"] == "ellipsis"]
    assert elliptic and not any(PRONOUN.search(q) and "that" not in q for q in elliptic), \
        elliptic
    assert recs[0]["config"]["ellipsis"] is True and recs[0]["config"]["name"] == \
        "voice-hops-topics1-ellipsis"  # --topics 1 is a setting of its own


def test_text_ellipsis_queries_stay_queries(tmp_path):
    recs = _generate(tmp_path / "p.duckdb", tmp_path / "t", None, [], interaction="text",
                     deixis=True, typos=True, ellipsis=True, hops=True, turns=10,
                     conversations=60)
    elliptic = [t for r in recs for t in r["turns"] if t["phenomenon"] == "ellipsis_typos"]
    assert elliptic
    for t in elliptic:
        assert not re.match(r"\W*(who|whom|what|when|which|how)\b", t["question"], re.I), t
        assert len(t["question"].split()) <= 6, t  # five words, "[his]" may be "this film's"
