"""Nothing from a dump, an endpoint or an input file is pasted into a query or a triple
unchecked. Ids were pasted into each turn's SPARQL and into `kg rdf` as they came: an id
carrying `SERVICE <http://...>` made the endpoint call out during `verify`, an id with a
newline forged triples, one with a space made the N-Triples file unloadable; `verify` sent
whatever its input's `sparql` said (a DELETE WHERE emptied an endpoint that takes updates).
Ids of another form than Wikidata's are now rejected at load with their line, and `verify`
sends only SELECT and ASK queries that call no other service."""

from __future__ import annotations

import http.server
import json
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import httpx
import pytest

from convkgyarn.kg.queries import count_query, turn_query
from convkgyarn.kg.rdf import entity_triples
from tests.helpers import cli, project
from tests.oxigraph import serve

EVIL = "http://127.0.0.1:9/evil"
SERVICE = f" }} SERVICE <{EVIL}> {{ ?s ?p ?o "
OBAMA, MICHELLE, CHICAGO, TITANIC = "Q76", "Q13133", "Q1297", "Q44578"


def sample_entities(sample_path: Path) -> dict[str, dict]:
    lines = sample_path.read_text().splitlines()[1:-1]
    return {e["id"]: e for e in (json.loads(line.rstrip(",")) for line in lines)}


class Endpoint:
    """A SPARQL endpoint on 127.0.0.1 that records every request it gets and answers each
    with ``reply(query)`` (SPARQL JSON), or no rows."""

    def __init__(self, reply=None) -> None:
        self.requests: list[dict[str, list[str]]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
                form = urllib.parse.parse_qs(body)
                outer.requests.append(form)
                query = (form.get("query") or [""])[0]
                result = (reply(query) if reply else None) or {
                    "head": {"vars": []}, "results": {"bindings": []}}
                self.send_response(200)
                self.send_header("Content-Type", "application/sparql-results+json")
                self.end_headers()
                self.wfile.write(json.dumps(result).encode())

            do_GET = do_POST

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/sparql"

    @contextmanager
    def running(self) -> Iterator[Endpoint]:
        thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        thread.start()
        try:
            yield self
        finally:
            self.server.shutdown()
            self.server.server_close()

    def sent(self) -> str:
        return json.dumps(self.requests)


@pytest.fixture(scope="module")
def injected(tmp_path_factory, sample_path):
    """The bundled sample with ids that are SPARQL or N-Triples, and labels full of quotes,
    backslashes and newlines, loaded, generated from and written as N-Triples."""
    tmp = tmp_path_factory.mktemp("injected")
    ents = sample_entities(sample_path)
    obama = ents[OBAMA]["claims"]
    obama["P26"][0]["id"] = f"Q76$AB12{SERVICE}"  # a statement id
    obama["P27"][0]["mainsnak"]["datavalue"]["value"]["id"] = f"Q30{SERVICE}"  # a value id
    obama["P39"][0]["qualifiers"]["P580"] = obama["P39"][0]["qualifiers"].get("P580", []) + [
        {"snaktype": "value", "property": "P580", "datatype": "wikibase-item",
         "datavalue": {"type": "wikibase-entityid", "value": {"id": "Q1 .\n<a> <b> <c"}}}]
    obama["P19 x"] = obama.pop("P19")  # a property id
    ents[TITANIC]["claims"]["P2047"][0]["mainsnak"]["datavalue"]["value"]["unit"] = \
        "http://www.wikidata.org/entity/Q7727> . <x> <y> <z"
    ents[CHICAGO]["labels"]["en"]["value"] = 'Chi"ca\\go\n<x> <y> "z" .'
    bad_entity = {**ents[MICHELLE], "id": f"Q13133{SERVICE}",  # a subject, named apart
                  "labels": {"en": {"language": "en", "value": "Michelle Robinson"}}}
    lines = [json.dumps(e) for e in ents.values()] + [json.dumps(bad_entity)]
    dump = tmp / "injected.ndjson"
    dump.write_text("\n".join(lines) + "\n")
    db = tmp / "p.duckdb"
    load = cli("kg", "load", dump, "--db", db)
    gen = cli("generate", "--all-configs", "--db", db, "--out", tmp / "out")
    rdf = cli("kg", "rdf", "--out", tmp / "kg.nt", "--db", db)
    return tmp, db, len(lines), load, gen, rdf


def test_ids_not_of_wikidatas_form_are_rejected_at_load_with_their_line(injected):
    tmp, db, n_lines, load, _, _ = injected
    assert load.exit_code == 0, load.output
    assert "1 rejected line, 5 rejected values" in load.output, load.output
    with project(db, write=False) as p:
        rejects = {(line, field, reason) for _, line, field, reason, _ in p.rejects()}
        obama_line = p.con.execute("SELECT line_no FROM entities WHERE id = ?", [OBAMA]
                                   ).fetchone()[0]
        titanic_line = p.con.execute("SELECT line_no FROM entities WHERE id = ?", [TITANIC]
                                     ).fetchone()[0]
        kept = p.con.execute("SELECT count(*) FROM statements WHERE entity_id = ? AND "
                             "property_id = 'P39'", [OBAMA]).fetchone()[0]
        leaked = p.con.execute(
            "SELECT count(*) FROM (SELECT id FROM entities UNION ALL SELECT statement_id FROM "
            "statements UNION ALL SELECT value_id FROM statements UNION ALL SELECT value_id "
            "FROM qualifiers UNION ALL SELECT unit_id FROM statements UNION ALL SELECT "
            "property_id FROM statements) WHERE regexp_matches(id, '[^A-Za-z0-9$-]')"
        ).fetchone()[0]
    assert rejects == {
        (n_lines, None, "invalid entity: item id 'Q13133 } SERVICE <http://127.0.0.1:9/evil> "
                        "{ ?s ?p ?o ' is not a Wikidata item id (Q123)"),
        (obama_line, "claims", "property id is not of Wikidata's form (its snaks left out)"),
        (obama_line, "claims.P26", "statement id is not of Wikidata's form (Q42$GUID)"),
        (obama_line, "claims.P27", "entity value id is not of Wikidata's form"),
        (obama_line, "claims.P39.qualifiers.P580", "entity value id is not of Wikidata's form"),
        (titanic_line, "claims.P2047", "unit is neither 1 nor a Wikidata item's IRI"),
    }
    assert kept >= 1 and leaked == 0  # the statement whose qualifier value was bad stays


def test_no_turn_query_holds_anything_but_ids(injected):
    tmp, _, _, _, gen, _ = injected
    assert gen.exit_code == 0, gen.output
    queries = [t["sparql"] for line in (tmp / "out" / "conversations.jsonl").read_text(
    ).splitlines() for t in json.loads(line)["turns"]]
    assert len(queries) > 2000
    assert not [q for q in queries if "SERVICE" in q or "evil" in q or "<a>" in q]


def test_kg_rdf_writes_only_what_a_store_reads_as_written(injected):
    tmp, _, _, _, _, rdf = injected
    assert rdf.exit_code == 0, rdf.output
    text = (tmp / "kg.nt").read_text(encoding="utf-8")
    assert "evil" not in text and "<a>" not in text and "\n<x>" not in text
    with serve(tmp / "kg.nt", tmp) as url:
        def select(query: str) -> list[dict]:
            reply = httpx.post(url, data={"query": query},
                               headers={"Accept": "application/sparql-results+json"})
            return reply.json()["results"]["bindings"]
        n = select("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")[0]["n"]["value"]
        label = select("SELECT ?l WHERE { <http://www.wikidata.org/entity/Q1297> "
                       "<http://www.w3.org/2000/01/rdf-schema#label> ?l }")
    triples = {line for line in text.splitlines() if not line.startswith("#")}  # a header
    assert int(n) == len(triples)  # every line one triple, none forged
    assert [row["l"]["value"] for row in label] == ['Chi"ca\\go\n<x> <y> "z" .']


def test_a_dump_converted_to_ntriples_leaves_out_what_is_not_an_id():
    entity = {"type": "item", "id": "Q1", "labels": {"en": {"value": "x"}}, "claims": {
        "P1": [{"id": "Q1$A1", "rank": "normal", "mainsnak": {
            "snaktype": "value", "datavalue": {"type": "monolingualtext", "value": {
                "text": "y", "language": "en .\n<a> <b> <c>"}}}}],
        "P2 .\n<a> <b> <c>": [{"id": "Q1$A2", "rank": "normal", "mainsnak": {
            "snaktype": "value", "datavalue": {"type": "string", "value": "z"}}}],
        "P3": [{"id": "Q1$A3\n<a> <b> <c>", "rank": "normal", "mainsnak": {
            "snaktype": "value", "datavalue": {"type": "string", "value": "z"}}}]}}
    triples = list(entity_triples(entity))
    assert all(t.count("\n") == 0 and "<a>" not in t for t in triples), triples
    assert any('"y"@und' in t for t in triples)
    assert list(entity_triples({**entity, "id": "Q1> <a> <b"})) == []


def test_queries_are_never_built_from_what_is_not_an_id():
    from convkgyarn.kg.ids import BadId

    assert "wd:Q42 p:P26" in turn_query("Q42", "P26", "item", "present")
    for bad in ({"subject_id": "Q42 } SERVICE <x> {"}, {"property_id": "P26 ."},
                {"statement_id": "Q42$A } SERVICE <x> {", "qualifier_id": "P580"}):
        args = {"subject_id": "Q42", "property_id": "P26", "kind": "item",
                "tense": "present", **bad}
        with pytest.raises(BadId):
            turn_query(**args)
    with pytest.raises(BadId):
        count_query("Q42\n", "P40", "present")


def test_an_older_database_with_injected_ids_is_refused_not_queried(tmp_path, sample_path):
    db = tmp_path / "old.duckdb"
    assert cli("kg", "load", sample_path, "--db", db).exit_code == 0
    con = duckdb.connect(str(db))
    for table in ("statements", "qualifiers"):
        con.execute(f"UPDATE {table} SET statement_id = statement_id || ? WHERE entity_id = ?",
                    [SERVICE, OBAMA])
    con.close()
    r = cli("generate", "--db", db, "--out", tmp_path / "out", "--entity", OBAMA, "--turns",
            "20")  # enough turns for questions about a statement (when did he marry?)
    assert r.exit_code == 2 and "load it again" in r.output, r.output
    out = tmp_path / "out" / "conversations.jsonl"
    assert not out.exists() or "SERVICE" not in out.read_text()
    r = cli("kg", "rdf", "--out", tmp_path / "kg.nt", "--db", db)
    assert r.exit_code == 0 and "load it again" in r.output, r.output
    assert "evil" not in (tmp_path / "kg.nt").read_text()


def test_kg_load_sparql_sends_no_id_it_did_not_check(tmp_path):
    """The user's --entity ids, and ids an endpoint returns, are checked before they are
    pasted into the next query."""
    with Endpoint().running() as endpoint:
        r = cli("kg", "load", "--sparql", endpoint.url, "--entity", f"Q76{SERVICE}",
                "--db", tmp_path / "a.duckdb")
    assert r.exit_code == 2 and "Q42" in r.output, r.output
    assert endpoint.requests == []

    def reply(query: str) -> dict | None:
        if "wdt:P31" in query:  # the type's entities: one of them no item id
            return {"head": {"vars": ["e"]}, "results": {"bindings": [
                {"e": {"type": "uri", "value": f"http://www.wikidata.org/entity/Q1{SERVICE}"}},
                {"e": {"type": "uri", "value": "http://www.wikidata.org/entity/Q76"}}]}}
        if "?e ?what ?text" in query:  # labels, descriptions, aliases, sitelinks
            return {"head": {"vars": ["e", "what", "text"]}, "results": {"bindings": [
                {"e": {"type": "uri", "value": "http://www.wikidata.org/entity/Q76"},
                 "what": {"type": "literal", "value": "labels"},
                 "text": {"type": "literal", "value": "Barack Obama", "xml:lang": "en"}}]}}
        if "?pc ?s ?rank" in query:  # a statement whose value is no id
            return {"head": {"vars": []}, "results": {"bindings": [{
                "e": {"type": "uri", "value": "http://www.wikidata.org/entity/Q76"},
                "pc": {"type": "uri", "value": "http://www.wikidata.org/prop/P26"},
                "s": {"type": "uri", "value": "http://www.wikidata.org/entity/statement/"
                                              "Q76-0B3A4E0D-6C5F-4E26-9F7B-2B8F7C1D2E3F"},
                "rank": {"type": "uri", "value": "http://wikiba.se/ontology#NormalRank"},
                "v": {"type": "uri", "value": f"http://www.wikidata.org/entity/Q9{SERVICE}"}}]}}
        return None

    with Endpoint(reply).running() as endpoint:
        r = cli("kg", "load", "--sparql", endpoint.url, "--type", "Q5", "--limit", "5",
                "--db", tmp_path / "b.duckdb")
    assert r.exit_code == 0, r.output
    assert len(endpoint.requests) >= 3 and "SERVICE" not in json.dumps(endpoint.requests[1:])
    with project(tmp_path / "b.duckdb", write=False) as p:
        assert [r[2:4] for r in p.rejects()] == [
            ("claims.P26", "entity value id is not of Wikidata's form")]


@pytest.mark.parametrize("query, why", [
    ("DELETE WHERE { ?s ?p ?o }", "not a SPARQL SELECT or ASK query"),
    ("PREFIX wd: <http://www.wikidata.org/entity/>\nSELECT ?answer WHERE { SERVICE "
     f"<{EVIL}> {{ ?s ?p ?answer }} }}", "it calls another service (SERVICE)"),
    ('SELECT ?x WHERE { ?x ?p "a\\u0022 . SERVICE <http://evil/> { ?s ?p ?o } } #" }',
     "it calls another service (SERVICE)"),
    (f"SELECT ?answer FROM <{EVIL}> WHERE {{ ?s ?p ?answer }}", "it names another dataset"),
    ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "a CONSTRUCT query"),
    ("SELECT ?answer WHERE { ?s ?p ?answer } ; DROP ALL", "not a SPARQL SELECT or ASK query"),
])
def test_verify_sends_only_select_and_ask_and_names_the_line(tmp_path, query, why):
    good = {"turn": 1, "sparql": "SELECT ?answer WHERE { ?s ?p ?answer }",
            "answer_values": [{"id": "Q1"}]}
    export = tmp_path / "in.jsonl"
    export.write_text(
        json.dumps({"conversation_id": "a", "turns": [good]}) + "\n"
        + json.dumps({"conversation_id": "b", "turns": [{**good, "sparql": query}]}) + "\n")
    with Endpoint().running() as endpoint:
        r = cli("verify", "--endpoint", endpoint.url, "--input", export, "--out",
                tmp_path / "d.json")
    assert r.exit_code == 2, r.output
    errors = [line for line in r.output.splitlines() if line.strip()]
    assert len(errors) == 1 and f"{export}, line 2: refusing to send its query" in errors[0] \
        and why in errors[0], r.output
    assert endpoint.requests == []  # nothing was sent, not even the good query


def test_verify_sends_queries_as_queries(tmp_path):
    export = tmp_path / "in.jsonl"
    export.write_text(json.dumps({"conversation_id": "a", "turns": [
        {"turn": 1, "sparql": "SELECT ?answer WHERE { ?s ?p ?answer }", "answer_values": []},
        {"turn": 2, "sparql": "ASK { ?s ?p ?o }", "answer_values": [{"text": "yes"}]}]}) + "\n")
    with Endpoint(lambda q: {"boolean": True} if q.startswith("ASK") else None
                  ).running() as endpoint:
        r = cli("verify", "--endpoint", endpoint.url, "--input", export, "--out",
                tmp_path / "d.json")
    assert r.exit_code == 0, r.output
    assert len(endpoint.requests) == 2 and all(
        "query" in form and "update" not in form for form in endpoint.requests)
    summary = json.loads((tmp_path / "d.json").read_text())["summary"]
    assert summary["same"] == 2, summary  # no rows as before, and "yes"
