"""The SPARQL source against a real Oxigraph server on 127.0.0.1 holding our RDF rendering
of the bundled sample: the same tables as loading the JSON dump."""

from __future__ import annotations

import http.server
import json
import threading
import time

import pytest
from typer.testing import CliRunner

from convkgyarn.cli import app
from convkgyarn.config import LoadConfig, SparqlConfig
from convkgyarn.kg.load import LoadStage
from convkgyarn.kg.rdf import dump_to_ntriples
from convkgyarn.kg.sparql import SparqlError, SparqlLoad
from convkgyarn.store import connect
from tests.helpers import context
from tests.oxigraph import _port, serve


@pytest.fixture(scope="module")
def oxigraph(tmp_path_factory, sample_path):
    tmp = tmp_path_factory.mktemp("oxigraph")
    nt = tmp / "sample.nt"
    assert dump_to_ntriples(sample_path, nt) > 1000
    with serve(nt, tmp) as url:
        yield url


def main_entities(sample_path) -> list[str]:
    ids = []
    for line in sample_path.read_text().splitlines()[1:-1]:
        e = json.loads(line.rstrip(","))
        if e["type"] == "item" and e.get("claims", {}).get("P31"):
            ids.append(e["id"])
    return ids


def tables(con, ids: list[str]) -> dict:
    q = lambda sql: sorted(map(repr, con.execute(sql, [ids]).fetchall()))  # noqa: E731
    return {
        "entities": q("SELECT id, label, description, list_sort(aliases), sitelinks FROM "
                      "entities WHERE list_contains(?, id)"),
        "types": q("SELECT entity_id, type_id, via FROM entity_types WHERE "
                   "list_contains(?, entity_id)"),
        "truthy": q("SELECT statement_id, entity_id, property_id, value_id, value_text, unit_id, "
                    "datatype, rank FROM statements WHERE truthy AND list_contains(?, entity_id)"),
        "qualifiers": q("SELECT statement_id, qualifier_property_id, value_id, value_text "
                        "FROM qualifiers WHERE list_contains(?, entity_id)"),
        "labels": q("SELECT s.statement_id, v.value_label FROM statements s JOIN statement_values v "
                    "USING (statement_id) WHERE list_contains(?, s.entity_id)"),
    }


def test_sparql_load_equals_dump_load(oxigraph, sample_path, tmp_path):
    ids = main_entities(sample_path)
    via_sparql = connect(tmp_path / "s.duckdb")
    report = SparqlLoad(context(via_sparql), SparqlConfig(endpoint=oxigraph, entities=ids,
                                                 batch_size=20)).run()
    assert report.stats["entities"] == len(ids)
    via_dump = connect(tmp_path / "d.duckdb")
    LoadStage(context(via_dump), LoadConfig(paths=[sample_path])).run()
    a, b = tables(via_sparql, ids), tables(via_dump, ids)
    for key in a:
        assert a[key] == b[key], key
    prov = via_sparql.execute("SELECT path, dump_date, skipped FROM load_files").fetchone()
    assert prov[0].startswith("sparql:" + oxigraph) and "queried_at" in prov[2]


def test_type_selection_is_by_popularity(oxigraph, tmp_path):
    con = connect(tmp_path / "t.duckdb")
    SparqlLoad(context(con), SparqlConfig(endpoint=oxigraph, types=["Q11424"], limit=3)).run()
    films = [r[0] for r in con.execute("SELECT id FROM entities WHERE id IN (SELECT entity_id "
                                       "FROM entity_types WHERE type_id = 'Q11424') "
                                       "ORDER BY sitelinks DESC, id").fetchall()]
    assert films == ["Q44578", "Q24871", "Q167726"]  # Titanic 120, Avatar 110, Jurassic Park 100


def test_cli_and_reload_keep_one_copy(oxigraph, tmp_path):
    db = str(tmp_path / "c.duckdb")
    for _ in range(2):
        r = CliRunner().invoke(app, ["kg", "load", "--sparql", oxigraph, "--entity", "Q76",
                                     "--entity", "Q13133", "--db", db])
        assert r.exit_code == 0, r.output
    con = connect(db)
    assert con.execute("SELECT count(*) FROM entities").fetchone()[0] == 2
    assert con.execute("SELECT value_label FROM statement_values WHERE entity_id = 'Q76' AND "
                       "property_id = 'P19'").fetchone()[0] == "Honolulu"


def test_unreachable_endpoint_is_a_clear_error_and_writes_nothing(tmp_path):
    db = str(tmp_path / "u.duckdb")
    r = CliRunner().invoke(app, ["kg", "load", "--sparql", f"http://127.0.0.1:{_port()}/query",
                                 "--entity", "Q76", "--db", db])
    assert r.exit_code == 4 and "unreachable" in r.output  # the endpoint failed
    assert connect(db).execute("SELECT count(*) FROM load_files").fetchone()[0] == 0


def test_rate_limits_are_retried_and_malformed_replies_rejected(tmp_path):
    hits = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            hits.append(self.headers.get("User-Agent"))
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            if len(hits) == 1:
                self.send_response(429)
                self.send_header("Retry-After", "0.2")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/sparql-results+json")
            self.end_headers()
            self.wfile.write(b"<html>not json</html>")

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    con = connect(tmp_path / "m.duckdb")
    cfg = SparqlConfig(endpoint=f"http://127.0.0.1:{server.server_address[1]}/sparql",
                       entities=["Q76"], backoff_max=0.1)
    t0 = time.perf_counter()
    with pytest.raises(SparqlError) as info:
        SparqlLoad(context(con), cfg).run()
    server.shutdown()
    assert len(hits) >= 2 and time.perf_counter() - t0 >= 0.2  # Retry-After honoured
    assert hits[0].startswith("convkgyarn/")  # a descriptive User-Agent
    assert con.execute("SELECT count(*) FROM entities").fetchone()[0] == 0
    assert "127.0.0.1" in str(info.value) and "malformed reply" in str(info.value)


def language_rows(con, ids: list[str]) -> list[tuple]:
    return sorted(con.execute(
        "SELECT id, language, label, description, list_sort(aliases) FROM entity_labels "
        "WHERE list_contains(?, id)", [ids]).fetchall())


@pytest.mark.shared_data
def test_languages_go_through_kg_rdf_and_come_back_through_sparql(shared_data, tmp_path):
    """The real file loaded with German, Japanese and Chinese, written by `kg rdf` (each label,
    description and alias with its language tag) and served by Oxigraph: the SPARQL source
    asked for the same languages loads the same rows as the dump did."""
    import re

    dev = shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"
    plain, tagged = tmp_path / "plain.duckdb", tmp_path / "tagged.duckdb"
    for db, extra in ((plain, []), (tagged, ["--language", "de", "--language", "ja",
                                             "--language", "zh"])):
        r = CliRunner().invoke(app, ["kg", "load", str(dev), *extra, "--db", str(db)])
        assert r.exit_code == 0, r.output
        r = CliRunner().invoke(app, ["kg", "rdf", "--out", str(db.with_suffix(".nt")),
                                     "--db", str(db)])
        assert r.exit_code == 0, r.output
    lines = tagged.with_suffix(".nt").read_text(encoding="utf-8").splitlines()
    other = re.compile(r'"@(?!en \.$)([a-z0-9-]+) \.$')
    # without those tags it is the English file, triple for triple
    assert [x for x in lines[1:] if not other.search(x)] == \
        plain.with_suffix(".nt").read_text(encoding="utf-8").splitlines()[1:]
    con = connect(tagged)
    tags = {}
    for x in lines:
        if (m := other.search(x)) and "rdf-schema#label" in x:
            tags[m[1]] = tags.get(m[1], 0) + 1
    assert tags == dict(con.execute("SELECT language, count(*) FROM entity_labels WHERE "
                                    "label IS NOT NULL GROUP BY 1").fetchall())
    assert tags["de"] == 450 and tags["ja"] == 337 and tags["zh"] == 349
    ids = [i for (i,) in con.execute(
        "SELECT id FROM entities WHERE id IN (SELECT id FROM entity_labels) ORDER BY "
        "sitelinks DESC, id LIMIT 40").fetchall()]
    with serve(tagged.with_suffix(".nt"), tmp_path) as url:
        via_sparql = connect(tmp_path / "s.duckdb")
        SparqlLoad(context(via_sparql), SparqlConfig(
            endpoint=url, entities=ids, batch_size=15, languages=["de", "ja", "zh"])).run()
    assert language_rows(via_sparql, ids) == language_rows(con, ids)
    assert len(language_rows(con, ids)) > 100
    # the values' labels come in every kept language too (as a label file of the endpoint)
    values = [v for (v,) in via_sparql.execute(
        "SELECT DISTINCT value_id FROM statements WHERE value_id NOT IN (SELECT id FROM "
        "entities)").fetchall()]
    german = "SELECT id, label FROM labels_by_language WHERE language = 'de' AND " \
             "list_contains(?, id) ORDER BY id"
    assert via_sparql.execute(german, [values]).fetchall() == con.execute(german, [values]
                                                                          ).fetchall()
    assert via_sparql.execute("SELECT languages FROM load_files").fetchone()[0] == [
        "de", "ja", "zh", "zh-hans", "zh-hant"]


def test_label_files_load_beside_the_endpoint(oxigraph, tmp_path):
    """--labels with --sparql loads the file too (0.8.24 ignored it without a word), and
    a dump file given beside --sparql is refused before anything is written."""
    db = str(tmp_path / "l.duckdb")
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"Q99999901": "Exampleton"}))
    r = CliRunner().invoke(app, ["kg", "load", "--sparql", oxigraph, "--entity", "Q76",
                                 "--labels", str(labels), "--db", db])
    assert r.exit_code == 0, r.output
    assert "1 entity from" in r.output and "1 label from 1 file" in r.output
    con = connect(db)
    assert con.execute("SELECT label FROM labels WHERE id = 'Q99999901'").fetchone() == \
        ("Exampleton",)
    assert con.execute("SELECT count(*) FROM entities").fetchone()[0] == 1
    con.close()

    other = str(tmp_path / "o.duckdb")
    dump = tmp_path / "dump.json"
    dump.write_text("[]")
    r = CliRunner().invoke(app, ["kg", "load", str(dump), "--sparql", oxigraph,
                                 "--entity", "Q76", "--db", other])
    assert r.exit_code == 2 and "not both" in r.output
    assert not (tmp_path / "o.duckdb").exists()

    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps({"Q1": 5, "Q2": {"de": 7}}))  # no usable label
    r = CliRunner().invoke(app, ["kg", "load", "--sparql", oxigraph, "--entity", "Q76",
                                 "--labels", str(empty), "--db", other])
    assert r.exit_code == 2 and "empty.json: no labels in it" in r.output, r.output
    con = connect(other)
    assert con.execute("SELECT count(*) FROM entities").fetchone()[0] == 0
    con.close()

    # an endpoint that fails stores the label files no more than its own rows
    failed = str(tmp_path / "f.duckdb")
    r = CliRunner().invoke(app, ["kg", "load", "--sparql", f"http://127.0.0.1:{_port()}/query",
                                 "--entity", "Q76", "--labels", str(labels), "--db", failed])
    assert r.exit_code == 4 and "unreachable" in r.output
    con = connect(failed)
    assert con.execute("SELECT count(*) FROM extra_labels").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM load_files").fetchone()[0] == 0
    con.close()


@pytest.mark.parametrize("args,says", [
    (["--sparql", "http://127.0.0.1:9/query", "--entity", "Q76", "--workers", "2"],
     "--workers: for dump files, not --sparql"),
    (["--sparql", "http://127.0.0.1:9/query", "--entity", "Q76", "--force"],
     "--force: for dump files, not --sparql"),
    (["--entity", "Q76", "--labels", "x.json"], "--entity: for --sparql"),
])
def test_options_of_the_other_source_are_refused(tmp_path, args, says):
    db = tmp_path / "o.duckdb"
    r = CliRunner().invoke(app, ["kg", "load", *args, "--db", str(db)])
    assert r.exit_code == 2 and says in r.output, r.output
    assert not db.exists()
