"""Load a slice of Wikidata from any SPARQL 1.1 endpoint (Wikidata Query Service, QLever,
Oxigraph, Blazegraph) through Wikidata's RDF model, with SPARQLWrapper.

Labels come from plain ``rdfs:label`` triples (no ``SERVICE wikibase:label``). Fetched
entities are rebuilt in Wikidata's JSON shape and go through the dump loader's own
extraction, so both sources give the same tables. Everything is fetched before anything
is written, and written in one transaction: a failed fetch leaves no partial rows.
"""

from __future__ import annotations

import hashlib
import json
import logging
import socket
import urllib.error
import urllib.parse
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

from SPARQLWrapper import JSON, POST, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import SPARQLWrapperException
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_exponential_jitter

from convkgyarn.config import SparqlConfig
from convkgyarn.kg.extract import parse_lines
from convkgyarn.errors import UserError
from convkgyarn.kg.load import clear_file, keep_last_copies, next_file_id
from convkgyarn.kg.snapshot import bump_kg_version
from convkgyarn.stage import Stage, code_version
from convkgyarn.store import insert_arrow, insert_rows, transaction

log = logging.getLogger("convkgyarn.sparql")
WD = "http://www.wikidata.org/entity/"
P = "http://www.wikidata.org/prop/"
PREFIXES = """PREFIX wd: <http://www.wikidata.org/entity/>
PREFIX wdt: <http://www.wikidata.org/prop/direct/>
PREFIX wikibase: <http://wikiba.se/ontology#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX schema: <http://schema.org/>
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
"""
RANKS = {"PreferredRank": "preferred", "NormalRank": "normal", "DeprecatedRank": "deprecated"}
TYPES = {"WikibaseItem": "wikibase-item", "String": "string", "ExternalId": "external-id",
         "Time": "time", "Quantity": "quantity", "Monolingualtext": "monolingualtext",
         "GlobeCoordinate": "globe-coordinate", "CommonsMedia": "commonsMedia", "Url": "url",
         "WikibaseProperty": "wikibase-property", "GeoShape": "geo-shape",
         "TabularData": "tabular-data", "Math": "math"}
XSD = "http://www.w3.org/2001/XMLSchema#"
FILE_PATH = "http://commons.wikimedia.org/wiki/Special:FilePath/"


class SparqlError(UserError):
    """An endpoint that cannot be reached or answers with something unusable."""


class HttpStatus(Exception):
    def __init__(self, code: int, retry_after: float | None, body: str) -> None:
        super().__init__(f"HTTP {code}: {body[:200]}")
        self.code, self.retry_after = code, retry_after


def _ids(values: list[str]) -> str:
    return " ".join(f"wd:{v}" for v in values)


class SparqlClient:
    def __init__(self, config: SparqlConfig) -> None:
        self.config = config
        self.queries = 0

    def select(self, query: str, prefixes: bool = True) -> list[dict[str, dict]]:
        """Run a SELECT with retries on 429/5xx/timeouts; return the bindings. ``prefixes``:
        put our PREFIX lines first (a complete query brings its own)."""
        def transient(exc: BaseException) -> bool:
            if isinstance(exc, HttpStatus):
                return exc.code in (429, 500, 502, 503, 504)
            return isinstance(exc, (socket.timeout, TimeoutError, urllib.error.URLError))

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            if isinstance(exc, HttpStatus) and exc.retry_after is not None:
                return min(exc.retry_after, 120.0)
            return wait_exponential_jitter(multiplier=0.5, max=self.config.backoff_max,
                                           jitter=0.5)(state)

        try:
            for attempt in Retrying(retry=retry_if_exception(transient), wait=wait,
                                    stop=stop_after_attempt(self.config.max_attempts),
                                    reraise=True):
                with attempt:
                    return self._once(PREFIXES + query if prefixes else query)
        except HttpStatus as exc:
            raise SparqlError(f"{self.config.endpoint}: {exc}") from None
        except (socket.timeout, TimeoutError) as exc:
            raise SparqlError(f"{self.config.endpoint}: no answer within "
                              f"{self.config.timeout:g}s ({exc})") from None
        except urllib.error.URLError as exc:
            raise SparqlError(f"{self.config.endpoint}: unreachable ({exc.reason})") from None
        raise AssertionError("unreachable")

    def _once(self, query: str) -> list[dict[str, dict]]:
        self.queries += 1
        client = SPARQLWrapper(self.config.endpoint, agent=self.config.user_agent)
        client.setQuery(query)
        client.setMethod(POST)
        client.setReturnFormat(JSON)
        client.setTimeout(int(self.config.timeout))
        try:
            result = client.queryAndConvert()
        except urllib.error.HTTPError as exc:
            after = exc.headers.get("Retry-After") if exc.headers else None
            raise HttpStatus(exc.code, float(after) if after else None,
                             exc.read().decode(errors="replace")) from None
        except SPARQLWrapperException as exc:
            code = 500 if "EndPointInternalError" in type(exc).__name__ else 400
            raise HttpStatus(code, None, str(exc)) from None
        except ValueError as exc:  # a body that is not JSON
            raise SparqlError(f"{self.config.endpoint}: malformed reply, not SPARQL JSON results "
                              f"({exc})") from None
        if not isinstance(result, dict) or "results" not in result:
            raise SparqlError(f"{self.config.endpoint}: not a SPARQL JSON result "
                              f"({str(result)[:200]!r})")
        return result["results"].get("bindings", [])

    def paged(self, query: str) -> list[dict[str, dict]]:
        """All rows of an ordered query, LIMIT/OFFSET page by page."""
        rows, offset = [], 0
        while True:
            page = self.select(f"{query}\nLIMIT {self.config.page_size} OFFSET {offset}")
            rows += page
            if len(page) < self.config.page_size:
                return rows
            offset += self.config.page_size


def _local(iri: str, prefix: str) -> str:
    return iri[len(prefix):] if iri.startswith(prefix) else iri


def _value(term: dict, node: dict | None, datatype: str | None) -> dict | None:
    """An RDF term (plus its full value node) as a Wikidata JSON datavalue."""
    kind, v = term["type"], term["value"]
    if kind == "uri":
        if v.startswith(WD) and v[len(WD):][:1] in "QPL":
            return {"type": "wikibase-entityid", "value": {"id": v[len(WD):]}}
        if datatype == "commonsMedia" or v.startswith(FILE_PATH):
            return {"type": "string", "value": urllib.parse.unquote(v[len(FILE_PATH):])}
        return {"type": "string", "value": v}
    if kind == "bnode":
        return None  # somevalue
    dtype = term.get("datatype", "")
    if term.get("xml:lang"):
        return {"type": "monolingualtext", "value": {"text": v, "language": term["xml:lang"]}}
    if dtype == XSD + "dateTime":
        t = v if v.startswith(("+", "-")) else "+" + v
        prec = int(node["prec"]["value"]) if node and node.get("prec") else 11
        return {"type": "time", "value": {"time": t, "precision": prec}}
    if dtype in (XSD + "decimal", XSD + "integer", XSD + "double") or datatype == "quantity":
        unit = "1"
        if node and node.get("unit") and not node["unit"]["value"].endswith("/Q199"):
            unit = node["unit"]["value"]
        return {"type": "quantity", "value": {"amount": v if v.startswith("-") else "+" + v,
                                              "unit": unit}}
    if dtype.endswith("wktLiteral") and v.startswith("Point("):
        lon, lat = v[6:-1].split()[:2]
        return {"type": "globecoordinate", "value": {"latitude": float(lat),
                                                     "longitude": float(lon)}}
    return {"type": "string", "value": v}


def _datatype_of(dv: dict) -> str:
    return {"wikibase-entityid": "wikibase-item", "time": "time", "quantity": "quantity",
            "monolingualtext": "monolingualtext", "globecoordinate": "globe-coordinate"
            }.get(dv["type"], "string")


class SparqlLoad(Stage):
    """Fetch entities (by id, or by type ordered by popularity) and store them as a load."""

    name = "kg.load.sparql"
    writes = ("load_files", "entities", "properties", "entity_types", "statements",
              "qualifiers", "load_rejects", "extra_labels", "kg_meta")

    def __init__(self, ctx, config: SparqlConfig) -> None:
        super().__init__(ctx, config)
        self.client = SparqlClient(config)

    def select_entities(self) -> list[str]:
        cfg = self.config
        ids = list(dict.fromkeys(cfg.entities))
        for type_id in cfg.types:
            rows = self.client.select(
                f"SELECT ?e ?sl WHERE {{ ?e wdt:P31 wd:{type_id} . "
                f"OPTIONAL {{ ?e wikibase:sitelinks ?sl }} }} ORDER BY DESC(?sl) ?e "
                f"LIMIT {cfg.limit}")
            ids += [_local(r["e"]["value"], WD) for r in rows
                    if _local(r["e"]["value"], WD) not in ids]
        return ids

    def fetch(self, ids: list[str]) -> tuple[list[dict], dict[str, str]]:
        entities: list[dict] = []
        value_ids: set[str] = set()
        props: set[str] = set()
        for i in range(0, len(ids), self.config.batch_size):
            batch = ids[i:i + self.config.batch_size]
            entities += self._fetch_batch(batch, value_ids, props)
        known = {e["id"] for e in entities}
        labels = self._labels(sorted(value_ids - known))
        entities += self._properties(sorted(props))
        return entities, labels

    def _fetch_batch(self, batch: list[str], value_ids: set[str], props: set[str]) -> list[dict]:
        values = _ids(batch)
        info = self.client.select(f"""
            SELECT ?e ?label ?desc ?alias ?sl ?mod WHERE {{ VALUES ?e {{ {values} }}
              OPTIONAL {{ ?e rdfs:label ?label FILTER(lang(?label) = "en") }}
              OPTIONAL {{ ?e schema:description ?desc FILTER(lang(?desc) = "en") }}
              OPTIONAL {{ ?e skos:altLabel ?alias FILTER(lang(?alias) = "en") }}
              OPTIONAL {{ ?e wikibase:sitelinks ?sl }}
              OPTIONAL {{ ?e schema:dateModified ?mod }} }}""")
        stmts = self.client.paged(f"""
            SELECT ?e ?pc ?s ?rank ?v ?prec ?amount ?unit WHERE {{ VALUES ?e {{ {values} }}
              ?e ?pc ?s . FILTER(STRSTARTS(STR(?pc), "{P}P"))
              ?s wikibase:rank ?rank .
              OPTIONAL {{ ?s ?ps ?v . FILTER(STRSTARTS(STR(?ps), "{P}statement/P")) }}
              OPTIONAL {{ ?s ?psv ?node . FILTER(STRSTARTS(STR(?psv), "{P}statement/value/P"))
                OPTIONAL {{ ?node wikibase:timePrecision ?prec }}
                OPTIONAL {{ ?node wikibase:quantityAmount ?amount }}
                OPTIONAL {{ ?node wikibase:quantityUnit ?unit }} }}
            }} ORDER BY ?s ?v""")
        quals = self.client.paged(f"""
            SELECT ?s ?pq ?qv WHERE {{ VALUES ?e {{ {values} }}
              ?e ?pc ?s . FILTER(STRSTARTS(STR(?pc), "{P}P"))
              ?s ?pq ?qv . FILTER(STRSTARTS(STR(?pq), "{P}qualifier/P"))
            }} ORDER BY ?s ?pq ?qv""")
        qnodes = self.client.paged(f"""
            SELECT ?s ?pqv ?tv ?prec ?amount ?unit WHERE {{ VALUES ?e {{ {values} }}
              ?e ?pc ?s . FILTER(STRSTARTS(STR(?pc), "{P}P"))
              ?s ?pqv ?node . FILTER(STRSTARTS(STR(?pqv), "{P}qualifier/value/P"))
              OPTIONAL {{ ?node wikibase:timeValue ?tv }}
              OPTIONAL {{ ?node wikibase:timePrecision ?prec }}
              OPTIONAL {{ ?node wikibase:quantityAmount ?amount }}
              OPTIONAL {{ ?node wikibase:quantityUnit ?unit }}
            }} ORDER BY ?s ?pqv""")
        out: dict[str, dict[str, Any]] = {}
        for r in info:
            eid = _local(r["e"]["value"], WD)
            e = out.setdefault(eid, {"type": "item", "id": eid, "labels": {}, "descriptions": {},
                                     "aliases": {"en": []}, "claims": {}, "sitelink_count": 0})
            if "label" in r:
                e["labels"] = {"en": {"language": "en", "value": r["label"]["value"]}}
            if "desc" in r:
                e["descriptions"] = {"en": {"language": "en", "value": r["desc"]["value"]}}
            if "alias" in r and {"value": r["alias"]["value"]} not in e["aliases"]["en"]:
                e["aliases"]["en"].append({"value": r["alias"]["value"]})
            if "sl" in r:
                e["sitelink_count"] = int(r["sl"]["value"])
            if "mod" in r:
                e["modified"] = r["mod"]["value"]
        node_of: dict[tuple[str, str, str], dict] = {}
        for r in qnodes:
            key_value = (r.get("tv") or r.get("amount") or {}).get("value")
            prop = _local(r["pqv"]["value"], P + "qualifier/value/")
            node_of[(r["s"]["value"], prop, key_value)] = r
        qual_by_statement: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
        for r in quals:
            prop = _local(r["pq"]["value"], P + "qualifier/")
            node = node_of.get((r["s"]["value"], prop, r["qv"]["value"]))
            dv = _value(r["qv"], node, None)
            if dv is None:
                continue
            props.add(prop)
            if dv["type"] == "wikibase-entityid":
                value_ids.add(dv["value"]["id"])
            elif dv["type"] == "quantity" and dv["value"]["unit"].startswith(WD):
                value_ids.add(_local(dv["value"]["unit"], WD))  # units need labels too
            qual_by_statement[r["s"]["value"]][prop].append(
                {"snaktype": "value", "property": prop, "datatype": _datatype_of(dv),
                 "datavalue": dv})
        seen = set()
        for r in stmts:
            s_iri = r["s"]["value"]
            if s_iri in seen:
                continue
            seen.add(s_iri)
            eid = _local(r["e"]["value"], WD)
            prop = _local(r["pc"]["value"], P)
            rank = RANKS.get(_local(r["rank"]["value"], "http://wikiba.se/ontology#"), "normal")
            dv = _value(r["v"], r, None) if "v" in r else None
            local = _local(s_iri, WD + "statement/")
            sid = local.replace("-", "$", 1) if local.startswith(eid + "-") else local
            snak = ({"snaktype": "value", "property": prop, "datatype": _datatype_of(dv),
                     "datavalue": dv} if dv else {"snaktype": "somevalue", "property": prop})
            claim = {"mainsnak": snak, "rank": rank, "id": sid, "type": "statement"}
            if s_iri in qual_by_statement:
                claim["qualifiers"] = {k: v for k, v in qual_by_statement[s_iri].items()}
            if eid in out:
                out[eid]["claims"].setdefault(prop, []).append(claim)
                props.add(prop)
                if dv and dv["type"] == "wikibase-entityid":
                    value_ids.add(dv["value"]["id"])
                elif dv and dv["type"] == "quantity" and dv["value"]["unit"].startswith(WD):
                    value_ids.add(_local(dv["value"]["unit"], WD))  # units need labels too
        for e in out.values():  # rank order within a property as the dump has it: by id
            for group in e["claims"].values():
                group.sort(key=lambda c: c["id"])
        return [out[i] for i in batch if i in out]

    def _labels(self, ids: list[str]) -> dict[str, str]:
        labels = {}
        for i in range(0, len(ids), self.config.batch_size):
            rows = self.client.select(
                f"SELECT ?x ?label WHERE {{ VALUES ?x {{ {_ids(ids[i:i + self.config.batch_size])}"
                f" }} ?x rdfs:label ?label FILTER(lang(?label) = \"en\") }}")
            labels.update({_local(r["x"]["value"], WD): r["label"]["value"] for r in rows})
        return labels

    def _properties(self, pids: list[str]) -> list[dict]:
        out = []
        for i in range(0, len(pids), self.config.batch_size):
            rows = self.client.select(
                f"SELECT ?p ?label ?type WHERE {{ VALUES ?p {{ {_ids(pids[i:i + self.config.batch_size])} }}"
                f" OPTIONAL {{ ?p rdfs:label ?label FILTER(lang(?label) = \"en\") }}"
                f" OPTIONAL {{ ?p wikibase:propertyType ?type }} }}")
            for r in rows:
                if "label" not in r and "type" not in r:
                    continue
                pid = _local(r["p"]["value"], WD)
                dtype = TYPES.get(_local(r.get("type", {}).get("value", ""),
                                         "http://wikiba.se/ontology#"))
                out.append({"type": "property", "id": pid, "datatype": dtype,
                            "labels": {"en": {"language": "en", "value": r["label"]["value"]}}
                            if "label" in r else {}})
        return out

    def process(self) -> dict[str, Any]:
        cfg = self.config
        queried_at = datetime.now(timezone.utc)
        ids = self.select_entities()
        if not ids:
            raise SparqlError(f"{cfg.endpoint}: no entities selected (give --entities or --type)")
        entities, labels = self.fetch(ids)
        types = {p["id"]: p["datatype"] for p in entities if p["type"] == "property"}
        for e in entities:  # snak datatypes from the endpoint's property types where known
            for group in e.get("claims", {}).values():
                for c in group:
                    for snak in [c["mainsnak"], *(s for ss in (c.get("qualifiers") or {}).values()
                                                  for s in ss)]:
                        if types.get(snak["property"]) and snak.get("datavalue"):
                            snak["datatype"] = types[snak["property"]]
        lines = [json.dumps(e, ensure_ascii=False).encode() for e in entities]
        key = f"sparql:{cfg.endpoint}#" + hashlib.sha256(
            json.dumps([cfg.entities, cfg.types, cfg.limit]).encode()).hexdigest()[:12]
        fp = hashlib.sha256(b"\n".join(lines)).hexdigest()[:32]
        self._write(key, fp, lines, labels, queried_at)
        return {"endpoint": cfg.endpoint, "entities": sum(e["type"] == "item" for e in entities),
                "queries": self.client.queries, "queried_at": queried_at.isoformat()}

    def _write(self, key: str, fp: str, lines: list[bytes], labels: dict[str, str],
               queried_at: datetime) -> None:
        con = self.con
        row = con.execute("SELECT file_id FROM load_files WHERE path = ?", [key]).fetchone()
        file_id = row[0] if row else next_file_id(con)
        batch = parse_lines(lines, 1, file_id, key)
        now = queried_at.replace(tzinfo=None)
        with transaction(con):
            clear_file(con, file_id)
            for table, data in batch.to_arrow().items():
                insert_arrow(con, table, data)
            keep_last_copies(con, file_id)
            con.execute("DELETE FROM extra_labels WHERE source = ?", [key])
            insert_rows(con, "extra_labels", {
                "id": list(labels), "label": list(labels.values()),
                "source": [key] * len(labels)})
            insert_rows(con, "load_files", [{
                "file_id": file_id, "path": key, "kind": "sparql", "fingerprint": fp,
                "status": "done", "started_at": now, "finished_at": now, "lines": len(lines),
                "bytes": 0, "entities": batch.rows("entities"),
                "rejects": batch.rows("load_rejects"),
                "skipped": json.dumps({"endpoint": self.config.endpoint,
                                       "queried_at": queried_at.isoformat(), **batch.skipped}),
                "dump_date": queried_at.date().isoformat(), "code_version": code_version()}])
            bump_kg_version(con, f"sparql {key} {fp}")
