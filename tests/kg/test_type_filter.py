"""`kg load --type`: items of the kept types load whole; every other item keeps only its
entity row and types, so answers still have labels; the filter sticks across reloads and
refreshes."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from convkgyarn.cli import app
from convkgyarn.config import LoadConfig
from convkgyarn.kg.extract import LABEL_ONLY
from convkgyarn.kg.load import LoadStage
from convkgyarn.store import connect
from tests.helpers import context, project

KEEP = ["Q5", "Q515"]  # humans and cities


def load(con, path, **kw) -> LoadStage:
    stage = LoadStage(context(con), LoadConfig(paths=[path], **kw))
    stage.run()
    return stage


def rows(con, sql: str, *args) -> set:
    return set(map(repr, con.execute(sql, list(args)).fetchall()))


@pytest.fixture(scope="module")
def dev(shared_data):
    return shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"


@pytest.fixture(scope="module")
def whole(dev, tmp_path_factory):
    con = connect(tmp_path_factory.mktemp("whole") / "w.duckdb")
    load(con, dev)
    yield con
    con.close()


@pytest.mark.shared_data
def test_kept_types_load_whole_and_every_other_item_keeps_label_and_types(dev, whole, db):
    stage = load(db, dev, keep_types=KEEP)
    kept = {e for (e,) in whole.execute(
        "SELECT DISTINCT entity_id FROM entity_types WHERE list_contains(?, type_id)",
        [KEEP]).fetchall()}
    assert 20 < len(kept) < 200  # the real file has both kinds

    # every item is still there, named as before, with its types
    entity_cols = "id, label, sitelinks, modified, line_no"
    assert rows(db, f"SELECT {entity_cols} FROM entities") == \
        rows(whole, f"SELECT {entity_cols} FROM entities")
    assert rows(db, "SELECT entity_id, type_id, via FROM entity_types") == \
        rows(whole, "SELECT entity_id, type_id, via FROM entity_types")
    # kept items keep everything, down to aliases, qualifiers and ranks
    for table, key in (("statements", "entity_id"), ("qualifiers", "entity_id"),
                       ("entities", "id")):
        sql = f"SELECT * EXCLUDE (file_id) FROM {table} WHERE list_contains(?, {key})"
        assert rows(db, sql, sorted(kept)) == rows(whole, sql, sorted(kept)), table
    # and the others no statements at all
    assert {e for (e,) in db.execute("SELECT DISTINCT entity_id FROM statements").fetchall()} \
        == kept & {e for (e,) in whole.execute("SELECT DISTINCT entity_id FROM statements")
                   .fetchall()}
    n_entities = whole.execute("SELECT count(*) FROM entities").fetchone()[0]
    report = stage.files[0]
    assert report.entities == n_entities
    assert report.skipped[LABEL_ONLY] == n_entities - len(kept)


@pytest.mark.shared_data
def test_occupation_counts_as_a_type_for_humans(dev, whole, db):
    occupation, n = whole.execute(
        "SELECT type_id, count(*) FROM entity_types WHERE via = 'P106' GROUP BY 1 "
        "ORDER BY 2 DESC, 1 LIMIT 1").fetchone()
    load(db, dev, keep_types=[occupation])
    with_facts = db.execute("SELECT count(DISTINCT entity_id) FROM statements").fetchone()[0]
    assert with_facts == n


@pytest.mark.shared_data
def test_the_filter_is_part_of_a_files_identity(dev, whole, db):
    assert load(db, dev, keep_types=KEEP).files[0].status == "loaded"
    assert load(db, dev, keep_types=list(reversed(KEEP))).files[0].status == "unchanged"
    assert load(db, dev, keep_types=["Q5"]).files[0].status == "loaded"
    assert load(db, dev).files[0].status == "loaded"  # no filter: whole again
    sql = "SELECT * EXCLUDE (file_id) FROM statements"
    assert rows(db, sql) == rows(whole, sql)


@pytest.mark.shared_data
def test_refresh_keeps_the_filter_the_snapshot_was_loaded_with(dev, tmp_path):
    copy = tmp_path / "next.ndjson.bz2"
    shutil.copy(dev, copy)  # the same content as a new file: nothing has changed
    with project(tmp_path / "p.duckdb") as p:
        p.load([dev], keep_types=KEEP)
        p.extract_predicates()
        result = p.refresh([copy])
        assert result.status == "nothing", {k: v for k, v in result.diff.items() if v}


def test_a_bad_type_is_one_line_and_exit_2(tmp_path, sample_path):
    r = CliRunner().invoke(app, ["kg", "load", str(sample_path), "--type", "human",
                                 "--db", str(tmp_path / "p.duckdb")])
    assert r.exit_code == 2
    assert r.output.strip().count("\n") == 0 and "--type" in r.output and "Q5" in r.output


def test_cli_says_how_many_items_were_kept_as_labels(tmp_path, sample_path):
    r = CliRunner().invoke(app, ["kg", "load", str(sample_path), "--type", "Q5",
                                 "--db", str(tmp_path / "p.duckdb")])
    assert r.exit_code == 0, r.output
    assert "kept as id, label and types only" in r.output
    r = CliRunner().invoke(app, ["kg", "stats", "--json", "--db", str(tmp_path / "p.duckdb")])
    assert json.loads(r.output)["sources"][0]["keep_types"] == ["Q5"]
