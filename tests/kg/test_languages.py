"""`kg load --language`: labels, descriptions and aliases in more languages than English, kept
in `entity_labels` beside an English KG that stays exactly as it was; the languages are part of
a file's identity; a label is looked up in one language with a fallback chain."""

from __future__ import annotations

import bz2
import json
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from convkgyarn import config as config_module
from convkgyarn.config import LoadConfig, language_codes
from convkgyarn.kg import ids
from convkgyarn.kg.languages import (
    LocalLabel, fallback_chain, kept_languages, labels_in_language)
from convkgyarn.kg.load import LoadStage
from convkgyarn.kg.snapshot import kg_version
from convkgyarn.kg.stats import kg_stats
from convkgyarn.store import KG_TABLES, connect
from tests.helpers import cli, context, project
from tests.kg.independent import independent_language_rows

DE_JA_ZH = ["de", "ja", "zh"]
KEPT = {"de", "ja", "zh", "zh-hans", "zh-hant"}  # zh brings its script variants


def load(con, *paths, **kw) -> LoadStage:
    stage = LoadStage(context(con), LoadConfig(paths=list(paths), **kw))
    stage.run()
    return stage


def language_rows(con) -> set[tuple]:
    return {(i, lang, label, desc, tuple(aliases)) for i, lang, label, desc, aliases in
            con.execute("SELECT id, language, label, description, aliases FROM entity_labels"
                        ).fetchall()}


def english_tables(con) -> dict[str, list]:
    """Every KG table but entity_labels, row by row (file ids included)."""
    return {t: sorted(map(repr, con.execute(f"SELECT * FROM {t}").fetchall()))
            for t in KG_TABLES if t != "entity_labels"}


@pytest.fixture(scope="module")
def dev(shared_data):
    return shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"


@pytest.fixture(scope="module")
def english(dev, tmp_path_factory):
    con = connect(tmp_path_factory.mktemp("english") / "e.duckdb")
    load(con, dev)
    yield con
    con.close()


@pytest.fixture(scope="module")
def de_ja_zh(dev, tmp_path_factory):
    con = connect(tmp_path_factory.mktemp("languages") / "l.duckdb")
    load(con, dev, languages=DE_JA_ZH)
    yield con
    con.close()


@pytest.mark.shared_data
def test_the_real_file_has_450_german_337_japanese_and_349_chinese_labels(dev, de_ja_zh):
    labelled = dict(de_ja_zh.execute(
        "SELECT language, count(*) FROM entity_labels WHERE label IS NOT NULL GROUP BY 1"
    ).fetchall())
    assert {k: labelled[k] for k in DE_JA_ZH} == {"de": 450, "ja": 337, "zh": 349}
    # every row, as the raw JSON has it (items and the file's 26 property entities)
    assert language_rows(de_ja_zh) == independent_language_rows(dev, KEPT)
    # the same figures in kg stats, of the 676 entities of the file
    coverage = kg_stats(de_ja_zh)["label_languages"]
    assert coverage["languages"] == sorted(KEPT) and coverage["entities"] == 676
    assert {k: coverage["coverage"][k]["entities"] for k in ("en", *DE_JA_ZH)} == {
        "en": 674, "de": 450, "ja": 337, "zh": 349}


@pytest.mark.shared_data
def test_english_stays_exactly_where_it_was(english, de_ja_zh):
    assert english_tables(de_ja_zh) == english_tables(english)
    assert language_rows(english) == set()
    for view in ("labels", "property_info", "statement_values"):
        sql = f"SELECT * FROM {view}"
        assert sorted(map(repr, de_ja_zh.execute(sql).fetchall())) == \
            sorted(map(repr, english.execute(sql).fetchall())), view
    ours, theirs = kg_stats(de_ja_zh), kg_stats(english)
    for stats in (ours, theirs):
        stats.pop("sources")
        stats.pop("label_languages")
    assert ours == theirs


@pytest.mark.shared_data
def test_item_value_coverage_counts_the_values_that_have_a_label(dev, de_ja_zh):
    coverage = kg_stats(de_ja_zh)["label_languages"]["coverage"]
    values = {v for (v,) in de_ja_zh.execute(
        "SELECT DISTINCT value_id FROM statements WHERE value_id IS NOT NULL").fetchall()}
    raw = independent_language_rows(dev, {"de"})
    german = {i for i, _, label, _, _ in raw if label is not None}
    assert coverage["de"]["item_values"] == {
        "used": len(values), "labelled": len(values & german),
        "share": round(len(values & german) / len(values), 4)}
    # English as label_coverage counts it
    assert coverage["en"]["item_values"] == kg_stats(de_ja_zh)["label_coverage"]["item_values"]


@pytest.mark.shared_data
def test_zh_also_keeps_the_script_variants_and_the_lookup_falls_back_to_them(dev, de_ja_zh):
    raw = independent_language_rows(dev, KEPT)
    labelled = {lang: {i for i, code, label, _, _ in raw if code == lang and label}
                for lang in KEPT}
    chinese = labelled["zh"] | labelled["zh-hans"] | labelled["zh-hant"]
    assert len(labelled["zh"]) == 349 and len(chinese) == 358  # 9 have only a script label
    every = [i for (i,) in de_ja_zh.execute(
        "SELECT id FROM entities UNION SELECT id FROM properties UNION SELECT id FROM "
        "entity_labels").fetchall()]
    found = labels_in_language(de_ja_zh, every, "zh")
    by_language = {i: hit.language for i, hit in found.items()}
    assert {i for i, lang in by_language.items() if lang.startswith("zh")} == chinese
    assert {i for i, lang in by_language.items() if lang == "zh-hans"} == \
        labelled["zh-hans"] - labelled["zh"]
    assert {i for i, lang in by_language.items() if lang == "zh-hant"} == \
        labelled["zh-hant"] - labelled["zh"] - labelled["zh-hans"]
    # the rest fall back to English; with no fallback, only zh answers
    assert {lang for i, lang in by_language.items() if i not in chinese} == {"en"}
    assert set(labels_in_language(de_ja_zh, every, "zh", chain=["zh"])) == labelled["zh"]


@pytest.mark.shared_data
def test_an_item_without_an_english_label_keeps_its_other_labels(de_ja_zh):
    # Q41700 (a disambiguation page) has German and Japanese labels, no English one: it is
    # no entity (nothing asks about it), but an answer in German can name it
    assert de_ja_zh.execute("SELECT count(*) FROM entities WHERE id = 'Q41700'").fetchone()[0] == 0
    assert labels_in_language(de_ja_zh, ["Q41700"], "de") == {
        "Q41700": LocalLabel("Vereinigte Staaten", "de")}
    assert labels_in_language(de_ja_zh, ["Q41700"], "fr") == {}  # and no English to fall to


def write_lines(path, entities) -> str:
    path.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entities),
                    encoding="utf-8")
    return path


def item(qid: str, **labels) -> dict:
    return {"type": "item", "id": qid, "labels": {
        code.replace("_", "-"): {"language": code.replace("_", "-"), "value": text}
        for code, text in labels.items()}}


def test_the_lookup_falls_back_to_mul_then_english(tmp_path, db):
    dump = write_lines(tmp_path / "d.ndjson", [
        item("Q1", en="Berlin", de="Berlin (Stadt)"),
        item("Q2", en="Tokyo", mul="東京"),
        item("Q3", en="Paris"),
        item("Q4", mul="Mont Blanc"),  # no English label: kept only in entity_labels
        item("Q5", en="Lisbon", pt_br="Lisboa"),
    ])
    load(db, dump, languages=["de", "mul", "pt"])
    assert labels_in_language(db, ["Q1", "Q2", "Q3", "Q4", "Q5", "Q404"], "de") == {
        "Q1": ("Berlin (Stadt)", "de"), "Q2": ("東京", "mul"), "Q3": ("Paris", "en"),
        "Q4": ("Mont Blanc", "mul"), "Q5": ("Lisbon", "en")}
    assert labels_in_language(db, ["Q1", "Q2"], "de", chain=["de"]) == {
        "Q1": ("Berlin (Stadt)", "de")}
    # pt-br was not kept: the Portuguese lookup has no label of its own to give
    assert labels_in_language(db, ["Q5"], "pt-br")["Q5"].language == "en"
    load(db, dump, languages=["de"])  # without mul, Tokyo falls back to English
    assert labels_in_language(db, ["Q2", "Q4"], "de") == {"Q2": ("Tokyo", "en")}
    assert db.execute("SELECT id FROM entities ORDER BY id").fetchall() == [
        ("Q1",), ("Q2",), ("Q3",), ("Q5",)]


def test_fallback_chains():
    assert fallback_chain("de") == ("de", "mul", "en")
    assert fallback_chain("pt-br") == ("pt-br", "pt", "mul", "en")
    assert fallback_chain("zh-tw") == ("zh-tw", "zh-hant", "zh", "mul", "en")
    assert fallback_chain("zh")[:3] == ("zh", "zh-hans", "zh-cn")
    assert fallback_chain("en") == ("en", "mul")
    with pytest.raises(ValueError, match="not a language code"):
        fallback_chain("de; DROP")


def test_kept_languages():
    assert kept_languages(None) is None
    assert kept_languages(["en"]) is None  # English is always kept, elsewhere
    assert kept_languages(["zh", "de"]) == ["de", "zh", "zh-hans", "zh-hant"]
    assert kept_languages(["all"]) == ["all"]


@given(st.text(max_size=20))
def test_a_language_option_is_normalised_to_codes_of_wikidatas_form(text):
    try:
        codes = language_codes([text])
    except ValueError as exc:
        assert "--language" in str(exc)
        return
    assert codes is not None and all(ids.is_language(c) for c in codes)
    assert language_codes(codes) == codes  # normalising twice changes nothing
    assert codes == [text.strip().lower()]


def test_the_option_and_the_loader_check_the_same_form():
    assert config_module.LANGUAGE_CODE.pattern == ids.LANGUAGE.pattern
    assert language_codes(["DE", "pt-BR", " ja "]) == ["de", "ja", "pt-br"]
    assert language_codes(["de", "all"]) == ["all"]
    for code in ("zh-hans", "be-tarask", "nan-latn-pehoeji", "mul", "zh-classical", "simple"):
        assert language_codes([code]) == [code]


@pytest.mark.parametrize("bad", ["d e", "zh_Hans", "de;DROP", "x", "ja\n<a>", ""])
def test_a_bad_language_code_is_one_line_naming_it_and_exit_2(tmp_path, sample_path, bad):
    r = cli("kg", "load", sample_path, "--language", "de", "--language", bad,
            "--db", tmp_path / "p.duckdb")
    assert r.exit_code == 2, r.output
    assert r.output.strip().count("\n") == 0 and "--language" in r.output
    assert repr(bad) in r.output
    r = cli("kg", "load", "--sparql", "http://127.0.0.1:9/query", "--entity", "Q1",
            "--language", bad, "--db", tmp_path / "s.duckdb")
    assert r.exit_code == 2 and repr(bad) in r.output, r.output  # before any query


@pytest.mark.shared_data
def test_the_languages_are_part_of_a_files_identity_and_of_the_kg_version(dev, english, db):
    assert load(db, dev).files[0].status == "loaded"
    versions = [kg_version(db)]
    assert load(db, dev, languages=["de"]).files[0].status == "loaded"
    versions.append(kg_version(db))
    assert load(db, dev, languages=["DE", "en"]).files[0].status == "unchanged"
    assert kg_version(db) == versions[-1]
    assert load(db, dev, languages=["ja"]).files[0].status == "loaded"
    versions.append(kg_version(db))
    assert {lang for (lang,) in db.execute("SELECT DISTINCT language FROM entity_labels")
            .fetchall()} == {"ja"}
    assert load(db, dev).files[0].status == "loaded"
    versions.append(kg_version(db))
    assert len(set(versions)) == 4
    assert language_rows(db) == set()
    assert english_tables(db) == english_tables(english)
    assert db.execute("SELECT languages FROM load_files").fetchall() == [(None,)]


@pytest.mark.shared_data
def test_refresh_keeps_the_languages_and_sees_a_changed_german_label(dev, tmp_path):
    same = tmp_path / "same.ndjson.bz2"
    shutil.copy(dev, same)
    changed = tmp_path / "changed.ndjson"
    lines = bz2.open(dev).read().decode().splitlines()
    entity = json.loads(lines[0])
    entity["labels"]["de"]["value"] += " (neu)"
    changed.write_text("\n".join([json.dumps(entity, ensure_ascii=False), *lines[1:]]) + "\n",
                       encoding="utf-8")
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"Q1": {"de": "Universum"}, "Q2": {"de": 7}}))
    with project(tmp_path / "p.duckdb") as p:
        p.load([dev], labels=[labels], languages=DE_JA_ZH)
        p.extract_predicates()
        before, version = language_rows(p.con), kg_version(p.con)
        result = p.refresh([same])
        assert result.status == "nothing", {k: v for k, v in result.diff.items() if v}
        assert language_rows(p.con) == before and kg_version(p.con) == version
        assert p.con.execute("SELECT languages FROM load_files").fetchone()[0] == sorted(KEPT)
        result = p.refresh([changed])
        assert {k: v for k, v in result.diff.items() if v} == {"language_labels_changed": 1}
        assert result.status == "done" and kg_version(p.con) != version
        # the label file's labels and its rejects stay, as they are no part of a dump
        assert labels_in_language(p.con, ["Q1"], "de") == {"Q1": ("Universum", "de")}
        assert p.con.execute("SELECT field FROM load_rejects WHERE file_id IS NULL"
                             ).fetchall() == [("Q2.de",)]
        assert language_rows(p.con) ^ before == {
            r for r in before | language_rows(p.con) if r[0] == entity["id"] and r[1] == "de"}


@pytest.mark.shared_data
@pytest.mark.parametrize("name", ["dump-sample-100.json.bz2", "entities-635.ndjson.bz2"])
def test_other_real_files_load_every_asked_language_as_their_json_has_it(shared_data, db, name):
    """dump-sample-100 is in the dump format (an array, a comma after every line)."""
    path = shared_data / "wikidata" / name
    load(db, path, languages=DE_JA_ZH)
    assert language_rows(db) == independent_language_rows(path, KEPT)
    assert db.execute("SELECT count(*) FROM load_rejects").fetchone()[0] == \
        (2 if name.startswith("dump-sample") else 0)  # its two 31 June dates, as ever


@pytest.mark.shared_data
def test_all_keeps_every_language_of_the_dump(dev, db):
    load(db, dev, languages=["all"])
    expected = independent_language_rows(dev, None)
    assert language_rows(db) == expected
    assert len({lang for _, lang, *_ in expected}) == 482  # every code but English
    stats = kg_stats(db)["label_languages"]
    assert set(stats["languages"]) == {lang for _, lang, *_ in expected}
    assert stats["coverage"]["de"]["entities"] == 450


@pytest.mark.shared_data
def test_workers_and_the_type_filter_keep_the_same_labels(dev, de_ja_zh, db, tmp_path):
    load(db, dev, languages=DE_JA_ZH, workers=2, bz2_range_bytes=64 << 10)
    assert language_rows(db) == language_rows(de_ja_zh)
    # an item kept as a label only keeps its labels and descriptions, no aliases (as in
    # English); items kept whole keep everything
    filtered = connect(tmp_path / "f.duckdb")
    load(filtered, dev, languages=DE_JA_ZH, keep_types=["Q5"])
    whole = {e for (e,) in filtered.execute(
        "SELECT DISTINCT entity_id FROM statements").fetchall()}
    mine = language_rows(filtered)
    assert {r for r in mine if r[0] in whole or r[0].startswith("P")} == {
        r for r in language_rows(de_ja_zh) if r[0] in whole or r[0].startswith("P")}
    label_only = {(*r[:4], ()) for r in language_rows(de_ja_zh) if r[0].startswith("Q")
                  and r[0] not in whole and (r[2], r[3]) != (None, None)}
    assert {r for r in mine if r[0].startswith("Q") and r[0] not in whole} == label_only


def test_bad_labels_of_one_language_are_rejects_and_the_entity_loads(tmp_path, db):
    entities = [
        {**item("Q1", en="One", ja="一"), "labels": {
            "en": {"language": "en", "value": "One"}, "de": {"language": "de", "value": 5},
            "ja": {"language": "ja", "value": "一"}}},
        {**item("Q2", en="Two", de="   "), "descriptions": {
            "de": {"language": "de", "value": "die Zahl zwei"}}},
        {**item("Q3", en="Three", de="Drei"), "aliases": {"de": {"value": "drei"}}},
        # an API reply with language fallback: an English label under the German key
        {**item("Q4", en="Four"), "labels": {"en": {"language": "en", "value": "Four"},
                                              "de": {"language": "en", "value": "Four"}}},
        item("Q5", en="Five", **{"x y": "?"}),
    ]
    dump = write_lines(tmp_path / "bad.ndjson", entities)
    with dump.open("a") as fh:
        fh.write("{broken\n")
    english = connect(tmp_path / "e.duckdb")
    load(english, dump)
    stage = load(db, dump, languages=["de", "ja"])
    assert language_rows(db) == {("Q1", "ja", "一", None, ()),
                                 ("Q2", "de", None, "die Zahl zwei", ()),
                                 ("Q3", "de", "Drei", None, ())}
    rejects = sorted(db.execute("SELECT line_no, field, reason FROM load_rejects").fetchall(),
                     key=lambda r: r[0])
    assert [(line, field) for line, field, _ in rejects] == [
        (1, "labels.de"), (2, "labels.de"), (3, "aliases.de"), (6, None)]
    assert [reason.partition("): ")[0] for _, _, reason in rejects] == [
        'not a label ({"value": text}', "blank label (read as no label)",
        'not a list of aliases ([{"value": text}]',
        "invalid JSON: JSON is malformed: object keys must be strings (byte 1)"]
    assert stage.files[0].skipped[
        "label given for another language (an API's language fallback), left out"] == 1
    assert english_tables(db)["entities"] == english_tables(english)["entities"]
    # every language: a key that is no language code is a reject of its own
    load(db, dump, languages=["all"])
    assert ("Q5", "x y") not in {r[:2] for r in language_rows(db)}
    assert db.execute("SELECT count(*) FROM load_rejects WHERE field = 'labels' AND reason "
                      "LIKE 'language code not of Wikidata%'").fetchone()[0] == 1


@pytest.mark.shared_data
def test_kg_load_and_kg_stats_report_each_language(dev, tmp_path):
    db = tmp_path / "p.duckdb"
    r = cli("kg", "load", dev, "--language", "de", "--language", "ja", "--language", "zh",
            "--db", db)
    load_output = r.output
    assert r.exit_code == 0, r.output
    assert "de 450, ja 337, zh 349, zh-hans 235, zh-hant 262" in r.output
    # "648 entities" beside "of 676 entities: de 450" read as a disagreement: the 676 are
    # the items and the property entities
    assert "of 676 items and properties:" in r.output, r.output
    r = cli("kg", "stats", "--json", "--db", db)
    stats = json.loads(r.output)
    # a language that names few of the values in use says so, and what its answers do then
    said = " ".join(load_output.split())
    assert said.count("note: few labels of the") == 1, load_output  # one note, not one each
    note = said.split("note: few labels of the")[1]
    for lang in ("de", "ja", "zh"):
        share = stats["label_languages"]["coverage"][lang]["item_values"]["share"]
        assert (f" {lang} {share:.0%}" in note) == (share < 0.9), lang
    assert "zh-hans" not in note  # a script of zh, which zh's answers read
    assert stats["sources"][0]["languages"] == sorted(KEPT)
    assert stats["label_languages"]["coverage"]["ja"]["entities"] == 337
    r = cli("kg", "stats", "--db", db)
    assert r.exit_code == 0 and "450 of 676" in r.output, r.output
