"""`kg load --engine spark`: the same extraction on Spark (local mode, 127.0.0.1) lands
exactly the rows the local loader does."""

from __future__ import annotations

import json
import shutil

import pytest
from typer.testing import CliRunner

from convkgyarn.cli import app
from convkgyarn.config import LoadConfig
from convkgyarn.kg.load import LoadStage
from convkgyarn.store import KG_TABLES, connect
from tests.helpers import context, project

pytest.importorskip("pyspark", reason="PySpark is not installed (make install adds it)")
if shutil.which("java") is None:
    pytest.skip("Spark needs Java 17", allow_module_level=True)

pytestmark = [pytest.mark.spark, pytest.mark.slow, pytest.mark.shared_data]


def stats_json(db) -> dict:
    r = CliRunner().invoke(app, ["kg", "stats", "--json", "--db", str(db)])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def table_rows(db) -> dict:
    con = connect(db)
    try:
        return {t: sorted(map(repr, con.execute(f"SELECT * FROM {t}").fetchall()))
                for t in KG_TABLES}
    finally:
        con.close()


@pytest.mark.parametrize("name, languages", [
    ("entities-635.ndjson.bz2", []), ("dump-sample-100.json.bz2", []),
    ("entities-635.ndjson.bz2", ["de", "ja", "zh"]), ("dump-sample-100.json.bz2", ["all"])])
def test_spark_gives_exactly_the_local_loaders_stats_and_rows(shared_data, tmp_path, name,
                                                              languages):
    path = shared_data / "wikidata" / name
    here, there = tmp_path / "local.duckdb", tmp_path / "spark.duckdb"
    asked = [arg for code in languages for arg in ("--language", code)]
    r = CliRunner().invoke(app, ["kg", "load", str(path), *asked, "--db", str(here)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["kg", "load", str(path), "--engine", "spark", *asked,
                                 "--db", str(there)])
    assert r.exit_code == 0, r.output
    assert stats_json(there) == stats_json(here)
    rows = table_rows(here)
    assert table_rows(there) == rows  # line numbers, rejects and labels included
    assert bool(rows["entity_labels"]) == bool(languages)
    assert not list(tmp_path.glob(".spark-load-*"))  # the scratch parts are removed


def test_spark_applies_the_type_filter_and_keeps_parquet_when_asked(shared_data, tmp_path):
    path = shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"
    here, there = connect(tmp_path / "l.duckdb"), connect(tmp_path / "s.duckdb")
    LoadStage(context(here), LoadConfig(paths=[path], keep_types=["Q5"])).run()
    out = tmp_path / "parts"
    LoadStage(context(there), LoadConfig(paths=[path], keep_types=["Q5"], engine="spark",
                                         spark_output=str(out))).run()
    (kept,) = out.glob("load-*")  # each load's parts in a folder of their own
    for table in ("entities", "statements", "qualifiers", "entity_types"):
        sql = f"SELECT * FROM {table}"
        assert sorted(map(repr, there.execute(sql).fetchall())) == \
            sorted(map(repr, here.execute(sql).fetchall())), table
        # the parts stay, and read in place give the same rows
        parts = there.execute(f"SELECT count(*) FROM read_parquet('{kept}/{table}/*.parquet')"
                              ).fetchone()[0]
        assert parts == there.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    # a second load into the same --spark-output lands its own parts only (found in
    # review: a reused folder landed the first load's parts again, doubling rows)
    second = shared_data / "wikidata" / "entities-635.ndjson.bz2"
    LoadStage(context(here), LoadConfig(paths=[second], keep_types=["Q5"])).run()
    LoadStage(context(there), LoadConfig(paths=[second], keep_types=["Q5"], engine="spark",
                                         spark_output=str(out))).run()
    assert len(list(out.glob("load-*"))) == 2 and kept.exists()
    for table in ("entities", "statements"):
        sql = f"SELECT * FROM {table}"
        assert sorted(map(repr, there.execute(sql).fetchall())) == \
            sorted(map(repr, here.execute(sql).fetchall())), table


def test_refresh_on_spark_finds_nothing_changed_in_the_same_dump(shared_data, tmp_path):
    path = shared_data / "wikidata" / "entities-635.ndjson.bz2"
    copy = tmp_path / "next.ndjson.bz2"
    shutil.copy(path, copy)
    with project(tmp_path / "p.duckdb") as p:
        p.load([path])
        p.extract_predicates()
        result = p.refresh([copy], engine="spark")
        assert result.status == "nothing", {k: v for k, v in result.diff.items() if v}


def test_a_json_document_is_refused_with_a_clear_error(shared_data, tmp_path):
    path = shared_data / "wikidata" / "wbgetentities-response.json"
    r = CliRunner().invoke(app, ["kg", "load", str(path), "--engine", "spark",
                                 "--db", str(tmp_path / "p.duckdb")])
    assert r.exit_code == 2
    assert "local engine" in r.output and r.output.strip().count("\n") == 0


def test_corrupt_lines_are_rejected_on_spark_exactly_as_here(tmp_path, sample_path):
    from tests.kg.test_load import _corrupt_copy

    path, bad = _corrupt_copy(sample_path, tmp_path)  # plain text: split in 4 partitions
    here, there = tmp_path / "l.duckdb", tmp_path / "s.duckdb"
    for db, engine in ((here, "local"), (there, "spark")):
        con = connect(db)
        LoadStage(context(con), LoadConfig(paths=[path], engine=engine)).run()
        con.close()
    rows = table_rows(there)
    assert rows == table_rows(here)
    assert len(rows["load_rejects"]) == len(bad)
