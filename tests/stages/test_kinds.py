"""More kinds of question (count, yes/no, order in time) and sentence answers: every answer
recomputed here from the project's tables, every turn's query run against its own snapshot
on a real Oxigraph server, on the bundled sample and on real Wikidata."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from convkgyarn.config import GenerateConfig
from convkgyarn.stages.assemble.view import NEEDS_EXISTING, KGView
from convkgyarn.stages.kinds import sentence, when
from convkgyarn.text import Fact
from tests.helpers import cli, project
from tests.oxigraph import serve

KINDS = dict(interaction="voice", deixis=True, hops=True, kinds=["count", "verify", "before"],
             kind_share=1.0, answer_style="sentence", turns=8, conversations=200)


@pytest.fixture(scope="module", params=["sample", pytest.param(
    "real-entities-dev", marks=[pytest.mark.shared_data, pytest.mark.slow])])
def asked(request, tmp_path_factory, shared_data):
    tmp = tmp_path_factory.mktemp(f"kinds-{request.param}")
    with project(tmp / "p.duckdb") as p:
        if request.param != "sample":
            wd = shared_data / "wikidata"
            p.load([wd / f"{request.param}.ndjson.bz2"],
                   labels=[wd / "property-labels-en.json",
                           shared_data / "labels" / "preferred-labels-en.json"])
        configs = [GenerateConfig(**KINDS)]
        if request.param != "sample":  # successions are rare in real data: ask every one
            configs.append(GenerateConfig(**_befores_only(p.con)))
        result = p.generate(configs)
        p.write_outputs(result.runs, tmp / "out")
    recs = [json.loads(line) for line in
            (tmp / "out" / "conversations.jsonl").read_text().splitlines()]
    return request.param, recs, tmp


def _befores_only(con) -> dict:
    """A configuration asking "before" of every entity whose KG holds a succession: two
    best-rank statements of a curated property with different values and start times."""
    from convkgyarn.stages.kinds import BEFORE

    entities = [r[0] for r in con.execute(
        "SELECT s.entity_id FROM statements s JOIN qualifiers q USING (statement_id) "
        "WHERE s.truthy AND q.qualifier_property_id = 'P580' AND list_contains(?, "
        "s.property_id) GROUP BY s.entity_id, s.property_id HAVING count(DISTINCT "
        "s.value_id) > 1 AND count(DISTINCT q.value_text) > 1 ORDER BY 1",
        [list(BEFORE)]).fetchall()]
    assert entities, "the real file holds no succession to ask about"
    return dict(interaction="voice", kinds=["before"], kind_share=1.0, turns=20, min_turns=1,
                entities=sorted(set(entities)), answer_style="sentence")


def _turns(recs, kind):
    return [t for r in recs for t in r["turns"] if t["question_kind"] == kind]


def _candidate(t) -> str:
    """The item a yes/no question names, as its query states it."""
    return re.search(r"ps:P\d+ wd:(Q\d+)", t["sparql"]).group(1)


def test_counts_are_the_number_of_items_in_the_kg(asked):
    name, recs, tmp = asked
    counts = _turns(recs, "count")
    assert len(counts) >= 10, name
    with project(tmp / "p.duckdb", write=False) as p:
        for t in counts:
            ended = "" if t["tense"] == "past" else (  # now: only what has not ended
                " AND NOT EXISTS (SELECT 1 FROM qualifiers q WHERE q.statement_id = "
                "s.statement_id AND q.qualifier_property_id = 'P582')")
            n = p.con.execute(
                "SELECT count(DISTINCT value_id) FROM statements s WHERE entity_id = ? AND "
                f"property_id = ? AND truthy AND value_id LIKE 'Q%'{ended}",
                [t["subject_id"], t["property_id"]]).fetchone()[0]
            assert t["answer"] == [str(n)] and t["question"].startswith(("How many",
                                                                         "Okay", "Alright",
                                                                         "And")), t


def test_yes_no_questions_hold_exactly_when_the_kg_says_so(asked):
    name, recs, tmp = asked
    checks = _turns(recs, "verify")
    answers = {t["answer"][0] for t in checks}
    assert answers == {"yes", "no"}, (name, answers)  # true and false candidates both
    with project(tmp / "p.duckdb", write=False) as p:
        for t in checks:
            ended = "" if t["tense"] == "past" else (
                " AND NOT EXISTS (SELECT 1 FROM qualifiers q WHERE q.statement_id = "
                "s.statement_id AND q.qualifier_property_id = 'P582')")
            holds = p.con.execute(
                "SELECT count(*) > 0 FROM statements s WHERE entity_id = ? AND property_id = ? "
                f"AND value_id = ? AND truthy{ended}",
                [t["subject_id"], t["property_id"], _candidate(t)]).fetchone()[0]
            assert t["answer"] == ["yes" if holds else "no"], t
            label = p.con.execute("SELECT label FROM entities WHERE id = ?",
                                  [_candidate(t)]).fetchone()
            if label:  # the candidate is named in the question (a false one is plausible:
                assert label[0] in t["question"], t  # another entity's value)


GONE = "(SELECT entity_id FROM statements WHERE property_id IN ('P576', 'P570'))"
CLOSENESS = (  # how close each labelled wrong candidate's closest holder is to the subject:
    # a neighbour 10, else 2 for a shared occupation or sport, 1 for each other shared
    # value, 1 once for any shared type; in the present tense no candidate that is gone
    "WITH mine AS (SELECT DISTINCT property_id, value_id FROM statements WHERE entity_id = $s "
    "AND truthy AND property_id IN ('P31', 'P17', 'P30', 'P27', 'P106', 'P641')), "
    "held AS (SELECT value_id FROM statements WHERE entity_id = $s AND property_id = $p AND "
    "value_id IS NOT NULL), holders AS (SELECT DISTINCT v.value_id, v.entity_id FROM "
    "statements v JOIN labels l ON l.id = v.value_id WHERE v.property_id = $p AND v.truthy "
    "AND v.entity_id <> $s AND v.value_id NOT IN (SELECT value_id FROM held) AND "
    f"($past OR NOT list_contains($needs, $p) OR v.value_id NOT IN {GONE})), near AS "
    "(SELECT h.value_id, CASE WHEN h.entity_id IN (SELECT value_id FROM statements WHERE "
    "entity_id = $s AND property_id = 'P47') THEN 10 ELSE (SELECT coalesce(sum(CASE WHEN "
    "o.property_id IN ('P106', 'P641') THEN 2 WHEN o.property_id = 'P31' THEN 0 ELSE 1 END), "
    "0) + coalesce(max(CASE WHEN o.property_id = 'P31' THEN 1 ELSE 0 END), 0) FROM (SELECT "
    "DISTINCT o.property_id, o.value_id FROM statements o JOIN mine m ON o.property_id = "
    "m.property_id AND o.value_id = m.value_id WHERE o.entity_id = h.entity_id AND o.truthy) "
    "o) END AS n FROM holders h) SELECT value_id, max(n) FROM near GROUP BY value_id")


def test_a_wrong_candidate_is_what_the_subjects_closest_peers_hold(asked):
    """"Was Windhoek the capital of the Soviet Union?" is no question anyone asks: a wrong
    candidate is a value of the same property held by the subject's closest peer, a
    neighbour first ("Is Algiers the capital of Mali?", not Dushanbe, whose country shares
    three of Mali's types), then an entity sharing its occupation or sport, then its types,
    country, continent and citizenship. Read here over the whole KG, the subject's facts
    all counted: the planner counts those it can ask, so a few differ."""
    name, recs, tmp = asked
    wrong = [t for t in _turns(recs, "verify") if t["answer"] == ["no"]]
    assert len(wrong) >= 10, name
    closest = 0
    with project(tmp / "p.duckdb", write=False) as p:
        for t in wrong:
            near = dict(p.con.execute(CLOSENESS, {
                "s": t["subject_id"], "p": t["property_id"], "past": t["tense"] == "past",
                "needs": sorted(NEEDS_EXISTING)}).fetchall())
            closest += bool(near) and near.get(_candidate(t), 0) == max(near.values())
    assert closest / len(wrong) >= 0.8, (name, closest, len(wrong))


def test_a_present_tense_wrong_candidate_is_not_gone(asked):
    """"Is Nordhausen in the Soviet Union?" reads as a trick: in the present tense a wrong
    country, continent, citizenship, party, spouse, capital or currency is never one the
    KG says was dissolved or died ("Is John Lennon her father?" may be asked)."""
    name, recs, tmp = asked
    wrong = [t for t in _turns(recs, "verify") if t["answer"] == ["no"] and
             t["tense"] == "present" and t["property_id"] in NEEDS_EXISTING]
    assert wrong, name
    with project(tmp / "p.duckdb", write=False) as p:
        gone = {r[0] for r in p.con.execute(GONE[1:-1]).fetchall()}
    assert not [t["question"] for t in wrong if _candidate(t) in gone]


def _peer_view(subject: SimpleNamespace, holders: dict) -> KGView:
    """A view holding one subject's facts and the holders of a property's values, for
    ``KGView.peer_values`` alone."""
    view = KGView.__new__(KGView)
    view._peer_values, view._facts = {}, {subject.id: subject}
    view.run = SimpleNamespace(pool_holders=lambda property_id: holders)
    return view


def _facts_of(entity_id: str, types: tuple, **properties) -> SimpleNamespace:
    return SimpleNamespace(id=entity_id, types=types, properties={
        pid: [SimpleNamespace(value=SimpleNamespace(value_id=v)) for v in values]
        for pid, values in properties.items()})


def test_a_neighbour_outranks_a_country_sharing_types_and_a_trade_outranks_a_passport():
    """Mali's wrong capital: Algeria borders it; Tajikistan is, like Mali, a sovereign
    state, a country and landlocked, which counted three and tied with the neighbour
    ("Is Dushanbe the capital of Mali?"). Types count once, a neighbour first. For a
    person, a peer in the same occupation counts more than one with the same citizenship
    ("Has Paris Jackson received AAAS Fellow?")."""
    states = ("Q3624078", "Q6256", "Q123480")
    mali = _facts_of("Q912", states, P47=["Q262"], P30=["Q15"])
    near = _peer_view(mali, {
        "Q3561": [("Q262", frozenset({("P31", "Q3624078"), ("P31", "Q6256"),
                                      ("P30", "Q15")}))],
        "Q9365": [("Q863", frozenset({("P31", t) for t in states} | {("P30", "Q48")}))],
    }).peer_values("Q912", "P36")
    assert near["Q3561"] > near["Q9365"] == 1
    actress = _facts_of("Q1", ("Q5",), P106=["Q33999"], P27=["Q30"])
    near = _peer_view(actress, {
        "Q_oscar": [("Q2", frozenset({("P31", "Q5"), ("P106", "Q33999")}))],
        "Q_aaas": [("Q3", frozenset({("P31", "Q5"), ("P27", "Q30")}))],
    }).peer_values("Q1", "P166")
    assert near["Q_oscar"] > near["Q_aaas"]


def test_a_wrong_candidate_is_never_a_value_held_at_a_lower_rank():
    """"Is Canberra the capital of Australia?" "No." would be false where a statement below
    the best rank (an earlier capital, another claim) says it: the candidates a "no"
    question may name leave out every value the fact holds at any rank."""
    from convkgyarn.kg.render import Value
    from convkgyarn.stages.assemble.realiser import Realiser
    from convkgyarn.stages.assemble.records import EntityFacts, PlannedTurn, Statement

    melbourne, sydney = Value("wikibase-item", "Melbourne", "Q3141"), \
        Value("wikibase-item", "Sydney", "Q3130")
    offered: list[set] = []

    def false_candidate(property_id, held, rng, subject_id=None, tense="past"):
        offered.append(set(held))
        return next(v for v in (melbourne, sydney) if v.value_id not in held)

    state = EntityFacts("Q408", "Australia", None, ("Q6256",), False, False, {
        "P36": (Statement("Q408$c", Value("wikibase-item", "Canberra", "Q3114")),)})
    realiser = Realiser.__new__(Realiser)
    realiser.view = SimpleNamespace(below_best={("Q408", "P36"): {"Q3141"}},
                                    false_candidate=false_candidate)
    nos = []
    for seed in range(40):
        realiser.cfg = GenerateConfig(seed=seed)
        answer = realiser.kind_answer(state, PlannedTurn("Q408", "P36", None, 0, "verify"))
        if answer.values[0].label == "no":
            nos.append(answer.slot_value)
    assert nos and all(v == sydney for v in nos), nos
    assert all({"Q3114", "Q3141"} <= held for held in offered)


def test_no_conversation_opens_with_a_count_or_a_yes_no(asked):
    """The first question is a plain fact (``salience.good_opener``), even where every fact
    that fits a kind is asked that way: "Is Nordhausen in the Soviet Union?" and "How many
    awards has it received?" are no way to start."""
    name, recs, _ = asked
    firsts = [r["turns"][0] for r in recs if r["turns"]]
    assert len(firsts) >= 50, name
    assert not [t["question"] for t in firsts if t["question_kind"] != "fact"], name


def test_before_asks_for_the_holder_right_before(asked):
    name, recs, tmp = asked
    befores = _turns(recs, "before")
    assert befores, name
    with project(tmp / "p.duckdb", write=False) as p:
        for t in befores:
            reference = re.search(r"VALUES \?reference \{ wds:(\S+) \}", t["sparql"]).group(1)
            rows = p.con.execute(
                "SELECT s.statement_id, s.value_id, q.value_text FROM statements s JOIN "
                "qualifiers q USING (statement_id) WHERE s.entity_id = ? AND s.property_id = ? "
                "AND s.truthy AND q.qualifier_property_id = 'P580'",
                [t["subject_id"], t["property_id"]]).fetchall()
            start = {sid.replace("$", "-"): (vid, text) for sid, vid, text in rows}
            later_value, later_start = start[reference]
            earlier = [(text, vid) for vid, text in start.values()
                       if text < later_start and vid != later_value]
            latest = max(earlier)[0]
            assert t["answer_ids"] == sorted({v for s, v in earlier if s == latest}), t
            assert "before" in t["question"] and t["tense"] == "past"


def test_every_kind_of_turn_verifies_against_its_snapshot(asked):
    name, recs, tmp = asked
    assert cli("kg", "rdf", "--out", tmp / "kg.nt", "--db", tmp / "p.duckdb").exit_code == 0
    with serve(tmp / "kg.nt", tmp) as url:
        r = cli("verify", "--endpoint", url, "--input", tmp / "out" / "conversations.jsonl",
                "--out", tmp / "drift.json", "--fail-on-drift")
    assert r.exit_code == 0, r.output
    summary = json.loads((tmp / "drift.json").read_text())["summary"]
    assert summary["same"] == summary["turns"] == sum(len(r["turns"]) for r in recs), summary


def test_sentence_answers_name_the_subject_and_every_answer(asked):
    name, recs, _ = asked
    for r in recs:
        for t in r["turns"]:
            s = t["answer_sentence"]
            assert s and s[0].isupper() and s.endswith("."), t
            if t["question_kind"] == "verify":
                assert s.startswith("Yes" if t["answer"] == ["yes"] else "No"), t
                continue
            for a in t["answer"]:
                assert a in s, (a, s)


@pytest.mark.parametrize("kind,fact,answers,kw,expected", [
    ("fact", Fact("Q5", "human", "P26", "spouse", "wikibase-item"), ["Michelle Obama"],
     {}, "Barack Obama is married to Michelle Obama."),
    ("fact", Fact("Q5", "human", "P2032", "work period (end)", "time"), ["1986"],
     {"tense": "past", "precisions": (9,)}, "Barack Obama stopped working in 1986."),
    ("fact", Fact("Q5", "human", "P9999", "work period (end)", "time"), ["1986"],
     {"tense": "past"}, "Barack Obama's work period was 1986."),
    ("fact", Fact("Q5", "human", "P106", "occupation", "wikibase-item"),
     ["engineer", "inventor"], {"tense": "past"},
     "Barack Obama's occupations were engineer and inventor."),
    ("fact", Fact("Q5", "human", "P26", "spouse", "wikibase-item", "P580", "start time"),
     ["3 October 1992"], {"precisions": (11,)}, "That began on 3 October 1992."),
    ("fact", Fact("Q5", "human", "P40", "child", "wikibase-item"), ["Malia Obama",
     "Sasha Obama"], {}, "Barack Obama's children are Malia Obama and Sasha Obama."),
    # one child is "child" ("Elizabeth II's children were Charles III." in review)
    ("fact", Fact("Q5", "human", "P40", "child", "wikibase-item"), ["Malia Obama"], {},
     "Barack Obama's child is Malia Obama."),
    ("count", Fact("Q5", "human", "P40", "child", "wikibase-item"), ["2"],
     {"counted": ("child", "children")}, "Barack Obama has 2 children."),
    ("verify", Fact("Q5", "human", "P26", "spouse", "wikibase-item"), ["no"],
     {"slot": "Laura Bush"}, "No, Laura Bush is not Barack Obama's spouse."),
    ("before", Fact("Q5", "human", "P26", "spouse", "wikibase-item"), ["Ann Dunham"],
     {"slot": "Michelle Obama", "tense": "past"},
     "Ann Dunham was Barack Obama's spouse before Michelle Obama."),
])
def test_sentences_read_as_english(kind, fact, answers, kw, expected):
    kw = {"tense": "present", **kw}
    assert sentence(kind, "Barack Obama", fact, answers, **kw) == expected


def test_kinds_need_a_kind_option_and_are_recorded(tmp_path: Path):
    r = cli("generate", "--db", tmp_path / "p.duckdb", "--out", tmp_path / "o",
            "--kind", "sometimes")
    assert r.exit_code == 2 and "kind" in r.output.lower()
    r = cli("generate", "--db", tmp_path / "p.duckdb", "--out", tmp_path / "o",
            "--kind", "count", "--conversations", "30")
    assert r.exit_code == 0, r.output
    rec = json.loads((tmp_path / "o" / "conversations.jsonl").read_text().splitlines()[0])
    assert rec["config"]["kinds"] == ["count"] and rec["config"]["name"] == "voice-kinds-count"


@pytest.mark.parametrize("text, precision, said", [
    ("3 October 1992", 11, "on 3 October 1992"), ("1918", 11, "in 1918"),
    ("1918", 9, "in 1918"), ("October 1992", 10, "in October 1992"),
    ("the 1990s", 8, "in the 1990s"), ("1918", None, "in 1918")])
def test_a_date_in_a_sentence_takes_the_preposition_of_what_is_said(text, precision, said):
    """A "What year ...?" answer is the year of a day-precise date: "founded in 1918",
    never "founded on 1918" (a newcomer's find)."""
    assert when(text, precision) == said


def test_sentence_answers_read_as_english_on_real_entities(tmp_path, shared_data):
    """Found by a newcomer with --answer-style sentence: "The Weimar Republic was founded
    on 1918.", "AFC Ajax is in Netherlands.", "London lies on River Thames."."""
    with project(tmp_path / "p.duckdb") as p:
        p.load([shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"],
               labels=[shared_data / "wikidata" / "property-labels-en.json",
                       shared_data / "labels" / "preferred-labels-en.json"])
        result = p.generate([GenerateConfig(conversations=200, answer_style="sentence")])
        sentences = [t["answer_sentence"] for r in p.records(result.runs) for t in r["turns"]]
    assert len(sentences) > 500 and all(sentences)
    assert not [s for s in sentences if re.search(r"\bon \d{1,4}( and|\.)", s)]
    assert not [s for s in sentences if re.search(
        r"\b(in|on|of) (Netherlands|United Kingdom|United States|River Thames)\b", s)]
    assert any("in the Netherlands" in s for s in sentences)


def test_a_person_in_a_sentence_answer_takes_no_article(tmp_path):
    """A reviewer's find: a person whose family name ends like a place's kind ("Union",
    "Court", "Ocean") was said "Barack Obama is married to the Gabrielle Union."."""
    with project(tmp_path / "p.duckdb") as p:
        p.generate([GenerateConfig(conversations=1)])  # the sample, loaded
        p.con.execute("UPDATE entities SET label = 'James Union' WHERE id = 'Q42574'")
        result = p.generate([GenerateConfig(conversations=200, answer_style="sentence",
                                            seed=1)])
        turns = [t for r in p.records(result.runs) for t in r["turns"]
                 if "James Union" in t["answer"]]
    assert turns, "James Cameron, renamed, directs a film of the sample"
    assert all("James Union" in t["answer_sentence"] and "the James Union" not in
               t["answer_sentence"] for t in turns), [t["answer_sentence"] for t in turns]


def test_typed_yes_no_questions_that_point_back_read_as_questions(tmp_path, shared_data):
    """Keywords cannot point back: text-deixis once typed "his citizen of Australia?", "its
    in Algeria?", "Igor Putin father of her?". Pointing back, a typed yes/no query is the
    question as said ("is he a citizen of Australia?"); naming the subject, it stays in
    keywords ("Roman Putin citizen of Argentina?")."""
    with project(tmp_path / "p.duckdb") as p:
        p.load([shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"],
               labels=[shared_data / "wikidata" / "property-labels-en.json",
                       shared_data / "labels" / "preferred-labels-en.json"])
        result = p.generate([GenerateConfig(interaction="text", deixis=True, hops=True,
                                            kinds=["verify"], kind_share=1.0,
                                            conversations=200)])
        asked = [t for r in p.records(result.runs) for t in r["turns"]
                 if t["question_kind"] == "verify"]
    pointing = [t["question"] for t in asked if t["phenomenon"].startswith("deixis")]
    assert len(pointing) >= 10, pointing
    assert all(re.match(r"(is|was|did|does|has) ", q) for q in pointing), pointing
    assert not [q for q in pointing if re.search(
        r"\b(his|her|its|their) (citizen|member|in)\b|\b(of|father|mother) (him|her|it)\?", q)]
    named = [t["question"] for t in asked if t["phenomenon"] == "original"]
    assert named and all(not re.match(r"(is|was|did|does|has) ", q) for q in named)
