"""`kg load --labels FILE`: English label files as before, and language-tagged ones (a map of
language codes, or entities as wbgetentities returns them); every malformed entry is a reject
naming the file and the key, never a traceback."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from convkgyarn.errors import UserError
from convkgyarn.kg.label_files import read_labels
from convkgyarn.kg.languages import labels_in_language
from tests.helpers import cli, project


def write(path, data) -> str:
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def by_language(con, language: str) -> dict[str, str]:
    return dict(con.execute("SELECT id, label FROM labels_by_language WHERE language = ?",
                            [language]).fetchall())


@pytest.mark.shared_data
def test_a_wbgetentities_reply_is_a_label_file_in_every_kept_language(shared_data, tmp_path,
                                                                      sample_path):
    reply = shared_data / "wikidata" / "wbgetentities-response.json"
    db = tmp_path / "p.duckdb"
    r = cli("kg", "load", sample_path, "--labels", reply, "--language", "de", "--language",
            "ja", "--db", db)
    assert r.exit_code == 0, r.output
    with project(db, write=False) as p:
        assert {k: v for k, v in by_language(p.con, "de").items() if k in ("Q123", "Q456")} \
            == {"Q123": "September", "Q456": "Lyon"}
        assert by_language(p.con, "ja")["Q456"] == "リヨン"
        assert by_language(p.con, "en")["Q123"] == "September"
        assert p.con.execute("SELECT count(*) FROM extra_labels WHERE language = 'fr'"
                             ).fetchone()[0] == 0  # not kept
        rejects = p.rejects(10)
    # the reply's entity that does not exist is a reject naming the file and the key
    assert [(f.endswith("wbgetentities-response.json"), line, field) for f, line, field, *_
            in rejects] == [(True, None, "Q789")]
    assert "left out" in r.output and "languages this load does not keep" in r.output
    r = cli("kg", "rejects", "--db", db)
    assert "Q789" in r.output and "missing entity" in r.output
    # kg stats names the label file among the project's sources, with what it holds
    stats = json.loads(cli("kg", "stats", "--json", "--db", db).stdout)
    assert [(f["path"].endswith("wbgetentities-response.json"), f["languages"])
            for f in stats["label_files"]] == [(True, ["de", "en", "ja"])]
    assert stats["label_files"][0]["labels"] > 0
    table = cli("kg", "stats", "--db", db).output
    assert re.search(r"│ labels +│ done +│ [\d,]+ labels", table), table


def test_every_shape_in_one_file_and_the_dumps_own_labels_come_first(tmp_path, sample_path):
    labels = write(tmp_path / "labels.json", {
        "Q1": "universe",  # English, {id: label}
        "P26": {"label": "spouse", "datatype": "wikibase-item", "description": "a partner"},
        "Q2": {"de": "Erde", "ja": "地球", "fr": "Terre"},  # by language code
        "Q3": {"labels": {"de": {"language": "de", "value": "Mond"}},
               "descriptions": {"de": {"language": "de", "value": "Trabant der Erde"}}},
        "Q76": {"de": "nicht Obama"},  # the sample's own Obama
    })
    with project(tmp_path / "p.duckdb") as p:
        p.load([sample_path], labels=[labels], languages=["de", "ja"])
        assert by_language(p.con, "en")["Q1"] == "universe"
        assert p.con.execute("SELECT language, label, datatype, description FROM extra_labels "
                             "WHERE id = 'P26'").fetchall() == [
            ("en", "spouse", "wikibase-item", "a partner")]
        assert {k: by_language(p.con, "de")[k] for k in ("Q2", "Q3")} == {
            "Q2": "Erde", "Q3": "Mond"}
        assert by_language(p.con, "ja")["Q2"] == "地球"
        assert p.con.execute("SELECT description FROM extra_labels WHERE id = 'Q3'"
                             ).fetchone()[0] == "Trabant der Erde"
        # a label file never overrides the dump's own label of that language (as in English)
        p.con.execute("INSERT INTO entity_labels VALUES ('Q76', 'de', 'Barack Obama', NULL, "
                      "[], 1, 1)")
        assert labels_in_language(p.con, ["Q76"], "de") == {"Q76": ("Barack Obama", "de")}
        assert p.con.execute("SELECT count(*) FROM labels_by_language WHERE id = 'Q76' AND "
                             "language = 'de'").fetchone()[0] == 1


def test_without_the_language_a_files_labels_in_it_are_left_out_and_said(tmp_path,
                                                                         sample_path):
    labels = write(tmp_path / "de.json", {"Q1": {"de": "Weltall"}, "Q2": "earth"})
    r = cli("kg", "load", sample_path, "--labels", labels, "--db", tmp_path / "p.duckdb")
    assert r.exit_code == 0, r.output
    assert "left out 1 label in 1 language this load does not keep (de; add --language)" \
        in r.output
    with project(tmp_path / "p.duckdb", write=False) as p:
        assert p.con.execute("SELECT id, language FROM extra_labels").fetchall() == [
            ("Q2", "en")]


MALFORMED = {
    "Q1": 5, "Q2": {"de": 7}, "Q3": {"d e": "x"}, "Q4": {"labels": {"de": "Mond"}},
    "not an id": "x", "Q5": "   ", "Q6": ["a list"], "Q7": {"label": None},
    "Q8": {"labels": "none"}, "Q9": {},
}


def test_malformed_entries_are_rejects_naming_the_file_and_the_key(tmp_path, sample_path):
    labels = write(tmp_path / "mixed.json", {**MALFORMED, "Q10": "fine", "Q11": {"de": "gut"}})
    db = tmp_path / "p.duckdb"
    r = cli("kg", "load", sample_path, "--labels", labels, "--language", "de", "--db", db)
    assert r.exit_code == 0, r.output
    assert "10 entries rejected (first Q1: not a label" in r.output
    with project(db, write=False) as p:
        rejects = p.con.execute("SELECT file, file_id, line_no, field, reason FROM "
                                "load_rejects ORDER BY field").fetchall()
        assert {(f, fid, line) for f, fid, line, _, _ in rejects} == {
            (str(labels.resolve()), None, None)}
        assert [field for *_, field, _ in rejects] == [
            '"not an id"', "Q1", "Q2.de", 'Q3."d e"', "Q4.labels.de", "Q5", "Q6", "Q7", "Q8",
            "Q9"]
        assert p.con.execute("SELECT id, language, label FROM extra_labels ORDER BY id"
                             ).fetchall() == [("Q10", "en", "fine"), ("Q11", "de", "gut")]
        # and they are drops of the load, as every reject is
        assert p.con.execute("SELECT count(*) FROM drops WHERE stage = 'kg.load' AND item "
                             "LIKE '%mixed.json %'").fetchone()[0] == 10
    # loading the file again replaces its rejects, it does not add to them
    r = cli("kg", "load", sample_path, "--labels", labels, "--language", "de", "--db", db)
    assert r.exit_code == 0, r.output
    with project(db, write=False) as p:
        assert p.con.execute("SELECT count(*) FROM load_rejects").fetchone()[0] == 10


def test_one_reject_is_said_as_one(tmp_path, sample_path):
    """A newcomer's find: "1 entries rejected". One reject, one label, one file are said in
    the singular."""
    labels = write(tmp_path / "one.json", {"Q1": 5, "Q10": "fine"})
    r = cli("kg", "load", sample_path, "--labels", labels, "--db", tmp_path / "p.duckdb")
    assert r.exit_code == 0, r.output
    assert "1 entry rejected (first Q1: not a label" in r.output
    assert "1 label from 1 file" in r.output and "entries" not in r.output


def test_a_file_with_no_usable_label_is_one_line_naming_file_and_key(tmp_path, sample_path):
    labels = write(tmp_path / "bad.json", MALFORMED)
    r = cli("kg", "load", sample_path, "--labels", labels, "--db", tmp_path / "p.duckdb")
    assert r.exit_code == 2, r.output
    assert r.output.strip().count("\n") == 0
    assert "bad.json: no labels in it (first entry Q1: not a label" in r.output
    for text, what in (("[1, 2]", "not a JSON object"), ("{oops", "not a JSON object")):
        (tmp_path / "x.json").write_text(text)
        r = cli("kg", "load", sample_path, "--labels", tmp_path / "x.json",
                "--db", tmp_path / "p.duckdb")
        assert r.exit_code == 2 and what in r.output and "x.json" in r.output, r.output


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(max_size=6), inner, max_size=3), max_leaves=8)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["Q1", "P2", "Q3", "x", "entities", "labels"]) |
                       st.text(max_size=4), _json, max_size=4))
def test_any_json_object_is_read_or_refused_in_one_line(tmp_path, data):
    path = write(tmp_path / "any.json", data)
    try:
        found = read_labels(path, ["de", "zh", "zh-hans", "zh-hant"])
    except UserError as exc:
        assert "\n" not in str(exc) and "any.json" in str(exc)
        return
    for row in found.rows:
        assert row["language"] in ("en", "de", "zh", "zh-hans", "zh-hant")
        assert isinstance(row["label"], str) and row["label"].strip()
    for where, reason, snippet in found.rejects:
        assert where and reason and len(snippet) <= 200


def _without(sample_path, tmp_path, *ids: str):
    """The bundled sample with the entities ``ids`` left out: their ids stay as values
    (Obama's occupation "lawyer", Q40348), unlabelled, as a real dump's values often are."""
    lines = sample_path.read_text().splitlines()[1:-1]
    ents = [json.loads(line.rstrip(",")) for line in lines]
    dump = tmp_path / "dump.ndjson"
    dump.write_text("\n".join(json.dumps(e) for e in ents if e["id"] not in ids) + "\n")
    return dump


def _occupation_drops(p) -> list[str]:
    return [r[0] for r in p.con.execute(
        "SELECT reason FROM drops WHERE stage = 'assemble' AND item = 'Q76/P106'").fetchall()]


def test_value_labels_name_values_so_their_facts_are_asked_but_never_a_type(tmp_path,
                                                                            sample_path):
    """`kg load --value-labels FILE`: a value only the file names (CoDEx-M's occupations) may
    be asked, where without it the fact is dropped as incomplete; the file never names a type
    (a P106 type stays the inferred "person") nor replaces a label the dump or a --labels
    file gives."""
    from convkgyarn.config import GenerateConfig
    from convkgyarn.kg.snapshot import type_labels

    dump = _without(sample_path, tmp_path, "Q40348")
    values = write(tmp_path / "values.json", {
        "Q40348": {"label": "lawyer", "description": "a legal professional"},
        "Q82955": "statesman",  # the dump names it "politician"
        "Q5": "hominid",        # a type the dump names
        "Q99999999": "never used"})
    config = GenerateConfig(turns=5, conversations=20, entities=["Q76"], seed=0)
    with project(tmp_path / "before.duckdb") as p:
        p.load([dump])
        p.generate([config])
        assert any("without an English label" in r for r in _occupation_drops(p))
    with project(tmp_path / "p.duckdb") as p:
        p.load([dump], value_labels=[values])
        labels = dict(p.con.execute("SELECT id, label FROM labels").fetchall())
        classes = dict(p.con.execute("SELECT id, label FROM class_labels").fetchall())
        assert (labels["Q40348"], labels["Q82955"], labels["Q5"]) == (
            "lawyer", "politician", "human")
        assert "Q40348" not in classes and "Q99999999" not in classes
        assert type_labels(p.con, ["Q40348"], infer=True) == {"Q40348": "person"}
        result = p.generate([config])
        assert not any("without an English label" in r for r in _occupation_drops(p))
        asked = [t for rec in p.records(result.runs) for t in rec["turns"]
                 if "lawyer" in t["answer"]]
        assert asked and all("politician" in t["answer"] for t in asked)  # the whole answer
        # the export's summary names types as generation did: not by a value file
        from convkgyarn.export import labels_of
        assert labels_of(p.con, ["Q40348", "Q5"]) == {"Q5": "human"}
    with project(tmp_path / "both.duckdb") as p:  # a --labels file's label comes first,
        # in English and in every kept language, though the value file loads after it
        p.load([dump], labels=[write(tmp_path / "l.json", {
                   "Q40348": {"en": "attorney", "de": "Anwalt"}})],
               value_labels=[write(tmp_path / "v.json", {
                   "Q40348": {"en": "lawyer", "de": "Jurist"}})],
               languages=["de"])
        assert p.con.execute("SELECT label FROM labels WHERE id = 'Q40348'").fetchone()[0] \
            == "attorney"
        assert by_language(p.con, "de")["Q40348"] == "Anwalt"


def test_kg_load_takes_value_labels_and_kg_stats_names_them(tmp_path, sample_path):
    db = tmp_path / "p.duckdb"
    values = write(tmp_path / "values.json", {"Q40348": "lawyer"})
    r = cli("kg", "load", _without(sample_path, tmp_path, "Q40348"), "--value-labels", values,
            "--db", db)
    assert r.exit_code == 0, r.output
    assert "1 label from 1 file" in r.output
    stats = json.loads(cli("kg", "stats", "--json", "--db", db).stdout)
    assert [(f["scope"], f["labels"]) for f in stats["label_files"]] == [("values", 1)]
    table = cli("kg", "stats", "--db", db).output
    assert re.search(r"│ value labels +│ done +│ 1 label ", table), table
    r = cli("kg", "load", "--value-labels", tmp_path / "missing.json", sample_path, "--db", db)
    assert r.exit_code == 2 and "missing.json: no such file" in r.output, r.output
    # one file given with both scopes is one clear error, before any work
    r = cli("kg", "load", "--labels", values, "--value-labels", values, "--db", db)
    assert r.exit_code == 2 and "given as both --labels and --value-labels" in r.output, \
        r.output
    with pytest.raises(ValueError, match="given as both --labels and --value-labels"):
        with project(db) as p:  # and to a library caller
            p.load([], labels=[values], value_labels=[values])


def test_a_label_file_joins_a_loaded_project_on_its_own(tmp_path, sample_path):
    """`kg load --value-labels FILE` with no dump adds the file to the project's KG (a new
    snapshot identity), and the facts it names may be asked from then on; the dump stays
    as it was loaded."""
    db = tmp_path / "p.duckdb"
    assert cli("kg", "load", _without(sample_path, tmp_path, "Q40348"), "--db", db
               ).exit_code == 0
    with project(db, write=False) as p:
        before = p.con.execute("SELECT count(*) FROM entities").fetchone()[0]
        version = p.con.execute("SELECT value FROM kg_meta WHERE key = 'kg_version'"
                                ).fetchone()[0]
    r = cli("kg", "load", "--value-labels", write(tmp_path / "v.json", {"Q40348": "lawyer"}),
            "--db", db)
    assert r.exit_code == 0 and "1 label from 1 file" in r.output, r.output
    with project(db, write=False) as p:
        assert p.con.execute("SELECT count(*) FROM entities").fetchone()[0] == before
        assert p.con.execute("SELECT label FROM labels WHERE id = 'Q40348'").fetchone()[0] \
            == "lawyer"
        assert p.con.execute("SELECT value FROM kg_meta WHERE key = 'kg_version'"
                             ).fetchone()[0] != version
    r = cli("kg", "load", "--db", db)
    assert r.exit_code == 2 and "give dump files to load" in r.output, r.output


def test_label_files_alone_never_remove_the_bundled_sample(tmp_path, sample_path):
    """A dump of the user's own replaces the bundled sample; a label file alone is no data
    of theirs, and the sample stays."""
    with project(tmp_path / "p.duckdb") as p:
        p.load([sample_path], kind="sample")
        n = p.con.execute("SELECT count(*) FROM entities").fetchone()[0]
        p.load([], value_labels=[write(tmp_path / "v.json", {"Q99999999": "something"})])
        assert p.con.execute("SELECT count(*) FROM entities").fetchone()[0] == n > 0
