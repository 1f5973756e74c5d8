"""Parallel conversations in several languages over the same facts (issue #35), on the real
entities: every plan's conversation in every language asked for, the same statements turn
by turn, answers with the dump's label in that language wherever it has one, subjects each
language can name, never a raw id, and questions a language detector takes for their
language."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest

from convkgyarn.config import GenerateConfig
from convkgyarn.errors import UserError
from convkgyarn.store import connect
from tests.helpers import project

LANGUAGES = ["en", "de", "ja", "zh"]
RAW_ID = re.compile(r"(?<![\w-])[PQ]\d{1,10}(?![\w-])")


@pytest.fixture(scope="module")
def multilingual(shared_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("languages")
    with project(tmp / "p.duckdb") as p:
        p.load([shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"],
               labels=[shared_data / "wikidata" / "property-labels-en.json",
                       shared_data / "labels" / "preferred-labels-en.json"],
               languages=["de", "ja", "zh"])
        result = p.generate([
            GenerateConfig(interaction="voice", deixis=True, conversations=60,
                           languages=LANGUAGES),
            GenerateConfig(interaction="text", typos=True, conversations=30,
                           languages=["en", "de"])])
        p.write_outputs(result.runs, tmp)
        p.export("hf", tmp / "hf", result.runs)
    records = [json.loads(line) for line in (tmp / "conversations.jsonl").read_text()
               .splitlines()]
    con = connect(tmp / "p.duckdb", read_only=True)
    yield records, con
    con.close()


def records_dir(con):
    """The folder of the fixture's project (its database's)."""
    from pathlib import Path
    (path,) = {r[2] for r in con.execute("PRAGMA database_list").fetchall() if r[2]}
    return Path(path).parent


def by_plan(records, config):
    plans = defaultdict(dict)
    for r in records:
        if r["config"]["name"] == config:
            plans[r["fact_set_id"]][r["language"]] = r
    return plans


def test_every_plan_is_said_in_every_language_over_the_same_statements(multilingual):
    records, _ = multilingual
    plans = by_plan(records, "voice-deixis-en-de-ja-zh")
    assert len(plans) == 60
    for said in plans.values():
        assert sorted(said) == sorted(LANGUAGES)
        shapes = {code: [(t["subject_id"], t["property_id"], t["qualifier_property_id"],
                          t["statement_ids"], json.dumps(t["answer_values"]), t["sparql"])
                         for t in r["turns"]] for code, r in said.items()}
        assert all(shape == shapes["en"] for shape in shapes.values())
        assert len({r["conversation_id"] for r in said.values()}) == len(LANGUAGES)
        assert {r["config"]["languages"] == LANGUAGES for r in said.values()} == {True}


def test_no_raw_id_and_every_placeholder_filled(multilingual):
    records, _ = multilingual
    for r in records:
        for t in r["turns"]:
            assert not RAW_ID.search(t["question"]), t["question"]
            assert not any(RAW_ID.fullmatch(a) for a in t["answer"]), t["answer"]
            assert "[" not in t["question"] and "{" not in t["question"], t["question"]


def test_answers_use_the_dumps_label_in_the_language_wherever_it_has_one(multilingual):
    """"In welchem Land liegt Rennes? Frankreich": the German label where the dump has one;
    the English one (the fallback chain) where it has none, in every language alike."""
    records, con = multilingual
    native = defaultdict(dict)
    for code in ("de", "ja"):
        native[code] = dict(con.execute(
            "SELECT id, label FROM labels_by_language WHERE language = ?", [code]).fetchall())
    checked = 0
    for r in records:
        if r["language"] not in native:
            continue
        labels = native[r["language"]]
        for t in r["turns"]:
            for value_id, said in zip(t["answer_ids"], t["answer"]):
                if value_id in labels:
                    assert said == labels[value_id], (t["question"], said)
                    checked += 1
    assert checked > 50


def test_each_answer_says_which_language_its_label_is_in(multilingual):
    """A newcomer found German answers said in English ("Germany", "Lao kip") with nothing
    to tell them from German ones: each turn's answer_languages names the language of each
    item value's label, the conversation's own where it has one, else the one the fallback
    chain found; null for dates, amounts, yes and no. English answers are "en"."""
    records, con = multilingual
    own = {code: {i for (i,) in con.execute(
        "SELECT DISTINCT id FROM labels_by_language WHERE language = ? OR language LIKE ?",
        [code, code + "-%"]).fetchall()} for code in ("de", "ja", "zh")}
    fell_back = said_own = 0
    for r in records:
        lang = r["language"]
        for t in r["turns"]:
            assert len(t["answer_languages"]) == len(t["answer"]), t
            for value_id, said_in in zip(t["answer_ids"], t["answer_languages"]):
                if value_id is None or t["question_kind"] == "verify":
                    assert said_in is None, t
                elif lang == "en":
                    assert said_in == "en", t
                elif value_id in own[lang]:
                    assert said_in == lang or said_in.startswith(lang + "-"), t
                    said_own += 1
                else:
                    assert said_in in ("mul", "en"), t
                    fell_back += 1
    assert said_own > 50 and fell_back > 0, (said_own, fell_back)


def test_each_subject_has_a_name_of_its_own_in_every_language(multilingual):
    records, con = multilingual
    for r in records:
        if r["language"] == "en":
            continue
        codes = (r["language"],) if r["language"] != "zh" else \
            ("zh", "zh-hans", "zh-cn", "zh-hant", "zh-tw", "zh-hk", "zh-sg", "zh-my", "zh-mo")
        (n,), = con.execute("SELECT count(*) FROM labels_by_language WHERE id = ? AND "
                            "list_contains(?, language)", [r["entity"]["id"],
                                                            list(codes)]).fetchall()
        assert n, (r["language"], r["entity"])


def test_typed_queries_take_one_typo_in_their_own_language(multilingual):
    records, _ = multilingual
    typed = [t for r in records if r["config"]["name"] == "text-typos-en-de" for t in
             r["turns"] if t["question_before_typo"]]
    langs = {r["language"] for r in records if r["config"]["name"] == "text-typos-en-de"}
    assert langs == {"en", "de"} and typed
    for t in typed:
        assert t["question"] != t["question_before_typo"]


@pytest.mark.slow
def test_questions_are_identified_as_their_language(multilingual):
    """The issue's target: at least 95% of each language's questions identified as that
    language by lingua (every language it knows)."""
    from lingua import LanguageDetectorBuilder

    records, _ = multilingual
    detector = LanguageDetectorBuilder.from_all_languages().build()
    asked, right = defaultdict(int), defaultdict(int)
    for r in records:
        if r["config"]["name"] != "voice-deixis-en-de-ja-zh":
            continue
        for t in r["turns"]:
            found = detector.detect_language_of(t["question"])
            asked[r["language"]] += 1
            right[r["language"]] += found is not None and \
                found.iso_code_639_1.name.lower() == r["language"]
    for code in LANGUAGES:
        assert right[code] / asked[code] >= 0.95, (code, right[code], asked[code])


def test_an_unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown language 'fr'"):
        GenerateConfig(languages=["en", "fr"])
    assert GenerateConfig(languages=["de", "DE", "en"]).languages == ["de", "en"]
    assert GenerateConfig(interaction="voice", deixis=True,
                          languages=["en", "de"]).name == "voice-deixis-en-de"
    assert GenerateConfig().name == "voice"


def test_a_language_without_labels_says_why(shared_data, tmp_path):
    """A project loaded without German labels makes no German conversation: every subject
    is left out for its name, and the error says so."""
    with project(tmp_path / "p.duckdb") as p:
        p.load([shared_data / "wikidata" / "entities-635.ndjson.bz2"],
               labels=[shared_data / "wikidata" / "property-labels-en.json"])
        with pytest.raises(UserError, match=r"no labels in de.*kg load DUMP --language de"):
            p.generate([GenerateConfig(conversations=5, languages=["en", "de"])])
        reasons = {r[0] for r in p.con.execute("SELECT reason FROM dropped").fetchall()}
    assert "no name of its own in a language asked for" in reasons


def test_plans_pair_their_languages_and_the_card_names_them(multilingual, tmp_path):
    records, con = multilingual
    plans = defaultdict(set)
    for r in records:
        plans[r["plan_id"]].add(r["language"])
        if r["language"] == "en":
            assert r["plan_id"] == r["conversation_id"]
    assert {frozenset(v) for v in plans.values()} == {frozenset(LANGUAGES),
                                                      frozenset({"en", "de"})}
    card = (records_dir(con) / "hf" / "README.md").read_text()
    assert "language:\n- de\n- en\n- ja\n- zh\n" in card


def test_follow_ups_are_asked_in_every_language_with_its_own_yes_and_no(multilingual):
    """"Is he also the head of government?" "Ist er auch Regierungschef?" "...兼ねているんです
    か？" "...也是政府首脑吗？": the same kinds of follow-up in every language, a yes/no answered
    as each language answers."""
    records, _ = multilingual
    yes_no = {"en": {"yes", "no"}, "de": {"ja", "nein"}, "ja": {"はい", "いいえ"},
              "zh": {"是的", "不是"}}
    kinds = defaultdict(set)
    for r in records:
        if r["config"]["name"] != "voice-deixis-en-de-ja-zh":
            continue
        for t in r["turns"]:
            kinds[r["language"]].add(t["question_kind"])
            if t["question_kind"] == "verify":
                assert t["answer"][0] in yes_no[r["language"]], (t["question"], t["answer"])
    assert kinds["en"] - {"fact"} and all(k == kinds["en"] for k in kinds.values())


def test_every_fact_turn_names_a_stored_template_in_every_language(multilingual):
    """Provenance: a fact turn's template is one the project stored (English: templates;
    other languages: local_templates, their follow-ups "Wo war das?" included)."""
    records, con = multilingual
    stored = {r[0] for r in con.execute("SELECT template_id FROM templates UNION "
                                        "SELECT template_id FROM local_templates").fetchall()}
    facts = [t for r in records for t in r["turns"] if t["question_kind"] == "fact"]
    assert facts and all(t["template_id"] in stored for t in facts)


def test_a_question_calls_its_answer_a_city_only_where_the_kg_types_it(multilingual):
    """"In welcher Stadt wurde er geboren?", "どの町で", "哪座城市" only of an answer the KG
    types (as a settlement), never of one it knows nothing of ("Derbyshire", "California")."""
    records, con = multilingual
    from convkgyarn.languages import language
    typed = {r[0] for r in con.execute(
        "SELECT DISTINCT entity_id FROM entity_types WHERE via = 'P31'").fetchall()}
    checked = 0
    for r in records:
        if r["language"] == "en":
            continue
        words = dict((kind, pattern) for pattern, kind in
                     language(r["language"]).answer_kind_words)["settlement"]
        for t in r["turns"]:
            if t["question_kind"] == "fact" and t["property_id"] in ("P19", "P20", "P159",
                                                                      "P740", "P937", "P551"):
                checked += 1
                if words.search(re.sub(r"\[[^\]]*\]", " ", t["question"])):
                    assert set(t["answer_ids"]) <= typed, (t["question"], t["answer"])
    assert checked >= 20


def test_a_share_is_a_percentage_in_every_language(shared_data, tmp_path):
    """Oxford's admission rate is stored as the fraction 0.175: every language says 17.5
    per cent in its own way (never "0,175" in German)."""
    with project(tmp_path / "p.duckdb") as p:
        p.load([shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"],
               labels=[shared_data / "wikidata" / "property-labels-en.json",
                       shared_data / "labels" / "preferred-labels-en.json"],
               languages=["de", "ja", "zh"])
        result = p.generate([GenerateConfig(interaction="voice", deixis=True,
                                            entities=["Q34433"], conversations=4,
                                            languages=LANGUAGES)])
        said: dict[str, set] = {}
        for r in p.records(result.runs):
            for t in r["turns"]:
                if t["property_id"] == "P5822":
                    said.setdefault(r["language"], set()).update(t["answer"])
    assert said == {"en": {"17.5%"}, "de": {"17,5 %"}, "ja": {"17.5%"}, "zh": {"17.5%"}}
