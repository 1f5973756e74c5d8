"""Load a slice of Wikidata from any SPARQL 1.1 endpoint (Wikidata Query Service, QLever,
Oxigraph, Blazegraph) through Wikidata's RDF model, with SPARQLWrapper.

Labels come from plain ``rdfs:label`` triples (no ``SERVICE wikibase:label``), in English and
in the languages asked (``SparqlConfig.languages``, as ``kg load --language``). Fetched
entities are rebuilt in Wikidata's JSON shape and go through the dump loader's own
extraction, so both sources give the same tables. Everything is fetched before anything
is written, and written in one transaction: a failed fetch leaves no partial rows.
"""

from __future__ import annotations

import ast
import email.utils
import hashlib
import http.client
import json
import logging
import socket
import urllib.error
import urllib.parse
from collections import defaultdict
from datetime import datetime, timezone
from typing import Any

from SPARQLWrapper import ASK, JSON, POST, SELECT, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import SPARQLWrapperException
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_exponential_jitter

from convkgyarn.config import SparqlConfig
from convkgyarn.errors import SparqlError, UserError
from convkgyarn.kg.extract import Keep, parse_lines
from convkgyarn.kg.values import is_blank
from convkgyarn.kg.ids import (
    ENTITY_VALUE, LANGUAGE, checked, is_entity_value, is_item, is_language, is_property)
from convkgyarn.kg.languages import ALL, ENGLISH, kept_languages
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
GENID = "http://www.wikidata.org/.well-known/genid/"  # Wikidata's IRIs of unknown values
_WRAPPER_CODES = {"QueryBadFormed": 400, "Unauthorized": 401, "EndPointNotFound": 404,
                  "URITooLong": 414, "EndPointInternalError": 500}


class HttpStatus(Exception):
    def __init__(self, code: int, retry_after: float | None, body: str) -> None:
        super().__init__(f"HTTP {code}" + (f": {_one_line(body)}" if body.strip() else ""))
        self.code, self.retry_after = code, retry_after


class Malformed(Exception):
    """A reply that is no SPARQL JSON result (retried: a proxy's error page, a cut body)."""


TRANSIENT_CODES = frozenset({429, 500, 502, 503, 504})
CONNECTION_ERRORS = (socket.timeout, TimeoutError, ConnectionError, http.client.HTTPException,
                     urllib.error.URLError)


def _one_line(text: str, limit: int = 200) -> str:
    """A reply body as one short line (error pages span many)."""
    return " ".join(text.split())[:limit]


def retry_after_seconds(value: str | None) -> float | None:
    """A Retry-After header's wait: seconds, or an HTTP date (RFC 9110); None if absent or
    unreadable."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


def _wrapped_body(exc: SPARQLWrapperException) -> str:
    """The reply body SPARQLWrapper put into its exception's message (as a bytes repr)."""
    text = str(exc).partition("Response:\n")[2]
    try:
        body = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text
    return body.decode(errors="replace") if isinstance(body, bytes) else str(body)


def _ids(values: list[str]) -> str:
    """A VALUES list of ``wd:`` terms; every id was checked where it came in."""
    return " ".join(f"wd:{checked(v, ENTITY_VALUE, 'entity id')}" for v in values)


def result_rows(result: Any) -> list[dict[str, dict]]:
    """The bindings of a SPARQL JSON result, checked to be one: a list of rows, each a map
    of variable names to terms with a string ``type`` and ``value``. An ASK result is one
    row whose ``?answer`` is "yes" or "no". ``Malformed`` otherwise."""
    if isinstance(result, dict) and isinstance(result.get("boolean"), bool):
        return [{"answer": {"type": "literal", "value": "yes" if result["boolean"] else "no"}}]
    results = result.get("results") if isinstance(result, dict) else None
    rows = results.get("bindings") if isinstance(results, dict) else None
    if not isinstance(rows, list):
        raise Malformed(f"not a SPARQL JSON result ({_one_line(str(result), 120)!r})")
    for row in rows:
        if not isinstance(row, dict) or not all(
                isinstance(k, str) and isinstance(t, dict) and isinstance(t.get("type"), str)
                and isinstance(t.get("value"), str) for k, t in row.items()):
            raise Malformed(f"a result row that is no SPARQL binding "
                            f"({_one_line(str(row), 120)!r})")
    return rows


class SparqlClient:
    """One SPARQL endpoint, queried one request at a time. Only SELECT and ASK queries are
    sent (as ``query=``, never as an update). Retried with jittered exponential backoff, at
    most ``max_attempts`` times in all: 429 and 5xx replies (waiting as long as Retry-After
    says, up to ``retry_after_max`` seconds, with a warning when that is more than a few
    seconds), timeouts, refused or dropped connections, and replies that are no SPARQL JSON
    result. Any other HTTP status is a refusal, not retried. Every failure is a
    ``SparqlError``: one line, exit 4."""

    def __init__(self, config: SparqlConfig) -> None:
        self.config = config
        self.queries = 0

    def select(self, query: str, prefixes: bool = True) -> list[dict[str, dict]]:
        """Run a SELECT (or ASK) and return its bindings. ``prefixes``: put our PREFIX lines
        first (a complete query brings its own)."""
        cfg = self.config

        def transient(exc: BaseException) -> bool:
            if isinstance(exc, HttpStatus):
                return exc.code in TRANSIENT_CODES
            return isinstance(exc, (Malformed, *CONNECTION_ERRORS))

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            if isinstance(exc, HttpStatus) and exc.retry_after is not None:
                seconds = min(exc.retry_after, cfg.retry_after_max)
                if exc.retry_after > 5:  # not silent: say how long, and why
                    log.warning("%s asked to wait %.0f s (Retry-After); waiting %.3g s before "
                                "attempt %d of %d", cfg.endpoint, exc.retry_after, seconds,
                                state.attempt_number + 1, cfg.max_attempts)
                return seconds
            return wait_exponential_jitter(multiplier=0.5, max=cfg.backoff_max,
                                           jitter=0.5)(state)

        text = PREFIXES + query if prefixes else query
        try:
            for attempt in Retrying(retry=retry_if_exception(transient), wait=wait,
                                    stop=stop_after_attempt(cfg.max_attempts), reraise=True):
                with attempt:
                    return self._once(text)
        except HttpStatus as exc:
            if exc.code in TRANSIENT_CODES:
                raise SparqlError(f"{cfg.endpoint}: gave up after {cfg.max_attempts} attempts "
                                  f"({exc})") from None
            raise SparqlError(f"{cfg.endpoint}: refused the query ({exc})") from None
        except Malformed as exc:
            raise SparqlError(f"{cfg.endpoint}: malformed reply after {cfg.max_attempts} "
                              f"attempts, {exc}") from None
        except (socket.timeout, TimeoutError) as exc:
            raise SparqlError(f"{cfg.endpoint}: no answer within {cfg.timeout:g}s, "
                              f"{cfg.max_attempts} attempts ({_one_line(str(exc))})") from None
        except urllib.error.URLError as exc:
            raise SparqlError(f"{cfg.endpoint}: unreachable after {cfg.max_attempts} attempts "
                              f"({_one_line(str(exc.reason))})") from None
        except (ConnectionError, http.client.HTTPException) as exc:
            raise SparqlError(f"{cfg.endpoint}: the connection failed {cfg.max_attempts} "
                              f"times ({type(exc).__name__}: {_one_line(str(exc))})") from None
        raise AssertionError("unreachable")

    def _once(self, query: str) -> list[dict[str, dict]]:
        self.queries += 1
        client = SPARQLWrapper(self.config.endpoint, agent=self.config.user_agent)
        client.setQuery(query)
        if client.queryType not in (SELECT, ASK):  # SPARQLWrapper would send it as an update
            raise SparqlError(f"{self.config.endpoint}: refusing to send a "
                              f"{client.queryType} query (only SELECT and ASK are sent)")
        client.setMethod(POST)
        client.setReturnFormat(JSON)
        client.setTimeout(int(self.config.timeout))
        try:
            response = client.query().response
            body = response.read()
        except urllib.error.HTTPError as exc:
            after = exc.headers.get("Retry-After") if exc.headers else None
            raise HttpStatus(exc.code, retry_after_seconds(after),
                             exc.read().decode(errors="replace")) from None
        except SPARQLWrapperException as exc:  # 400, 401, 404, 414, 500
            raise HttpStatus(_WRAPPER_CODES.get(type(exc).__name__, 400), None,
                             _wrapped_body(exc)) from None
        try:
            result = json.loads(body)
        except ValueError as exc:  # a body that is not JSON (cut short, an error page)
            raise Malformed(f"not JSON ({exc}): {_one_line(body.decode(errors='replace'), 80)!r}"
                            ) from None
        return result_rows(result)

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
        if v.startswith(GENID):
            return None  # somevalue, as Wikidata's RDF writes it
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


def _note_ids(dv: dict | None, prop: str, value_ids: set[str], props: set[str]) -> None:
    """Remember the ids whose labels and property types are fetched next: only ids of
    Wikidata's form, since those queries paste them in (the loader rejects the others, with
    their statements, when it reads the entities)."""
    if is_property(prop):
        props.add(prop)
    if dv is None:
        return
    if dv["type"] == "wikibase-entityid":
        value_id = dv["value"]["id"]
    elif dv["type"] == "quantity" and dv["value"]["unit"].startswith(WD):
        value_id = _local(dv["value"]["unit"], WD)  # units need labels too
    else:
        return
    if is_entity_value(value_id):
        value_ids.add(value_id)


def _tag(term: dict) -> str | None:
    """A literal's language tag as Wikidata writes codes (lower case); None for an untagged
    literal or a tag of another form (never pasted anywhere)."""
    tag = term.get("xml:lang", "").lower()
    return tag if is_language(tag) else None


def _add_text(entity: dict, what: str, term: dict) -> None:
    """A label, description or alias literal into a rebuilt entity, under its language."""
    lang = _tag(term)
    if lang is None:
        return
    value = {"language": lang, "value": term["value"]}
    if what == "aliases":
        names = entity["aliases"].setdefault(lang, [])
        if value not in names:
            names.append(value)
    elif what in ("labels", "descriptions"):
        entity[what][lang] = value


def _datatype_of(dv: dict) -> str:
    return {"wikibase-entityid": "wikibase-item", "time": "time", "quantity": "quantity",
            "monolingualtext": "monolingualtext", "globecoordinate": "globe-coordinate"
            }.get(dv["type"], "string")


class SparqlLoad(Stage):
    """Fetch entities (by id, or by type ordered by popularity) and store them as a load."""

    name = "kg.load.sparql"
    writes = ("load_files", "entities", "properties", "entity_types", "statements",
              "qualifiers", "load_rejects", "entity_labels", "extra_labels", "kg_meta")

    def __init__(self, ctx, config: SparqlConfig) -> None:
        super().__init__(ctx, config)
        self.client = SparqlClient(config)
        self.languages = kept_languages(config.languages)

    def _in_languages(self, var: str) -> str:
        """A FILTER keeping the literals of ``var`` in English and the kept languages (every
        tagged one with ``all``); each code was checked, and is checked again here since it
        is pasted into the query."""
        if self.languages == [ALL]:
            return f'FILTER(LANG(?{var}) != "")'
        codes = [ENGLISH, *(self.languages or ())]
        listed = ", ".join(f'"{checked(c, LANGUAGE, "language code")}"' for c in codes)
        return f"FILTER(LCASE(LANG(?{var})) IN ({listed}))"

    def select_entities(self) -> list[str]:
        cfg = self.config
        ids = list(dict.fromkeys(cfg.entities))
        for type_id in cfg.types:
            rows = self.client.select(
                f"SELECT ?e ?sl WHERE {{ ?e wdt:P31 wd:{type_id} . "
                f"OPTIONAL {{ ?e wikibase:sitelinks ?sl }} }} ORDER BY DESC(?sl) ?e "
                f"LIMIT {cfg.limit}")
            found = [_local(r["e"]["value"], WD) for r in rows if "e" in r]
            strange = [i for i in found if not is_item(i)]
            if strange:  # never pasted into a query: not Wikidata items
                log.warning("%s: %d entities of type %s are not Wikidata items (%r ...), left "
                            "out", cfg.endpoint, len(strange), type_id, strange[0][:80])
            ids += [i for i in found if is_item(i) and i not in ids]
        return ids

    def fetch(self, ids: list[str]) -> tuple[list[dict], list[dict[str, str]]]:
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
        # one row per label, description, alias, sitelink count and date (a UNION, not
        # OPTIONALs: those multiply every language's labels by its aliases)
        text = self._in_languages("text")
        info = self.client.paged(f"""
            SELECT ?e ?what ?text ?sl ?mod WHERE {{ VALUES ?e {{ {values} }}
              {{ ?e rdfs:label ?text {text} BIND("labels" AS ?what) }}
              UNION {{ ?e schema:description ?text {text} BIND("descriptions" AS ?what) }}
              UNION {{ ?e skos:altLabel ?text {text} BIND("aliases" AS ?what) }}
              UNION {{ ?e wikibase:sitelinks ?sl }}
              UNION {{ ?e schema:dateModified ?mod }}
            }} ORDER BY ?e ?what ?text ?sl ?mod""")
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
        # every entity asked (one the endpoint lacks has no label: the loader skips it)
        out: dict[str, dict[str, Any]] = {
            eid: {"type": "item", "id": eid, "labels": {}, "descriptions": {},
                  "aliases": {"en": []}, "claims": {}, "sitelink_count": 0} for eid in batch}
        for r in info:
            e = out.get(_local(r["e"]["value"], WD))
            if e is None:
                continue
            if "what" in r and "text" in r:
                _add_text(e, r["what"]["value"], r["text"])
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
            if dv is None:  # unknown (somevalue): the loader keeps an unknown end time
                qual_by_statement[r["s"]["value"]][prop].append(
                    {"snaktype": "somevalue", "property": prop})
                continue
            _note_ids(dv, prop, value_ids, props)
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
                _note_ids(dv, prop, value_ids, props)
        for e in out.values():  # rank order within a property as the dump has it: by id
            for group in e["claims"].values():
                group.sort(key=lambda c: c["id"])
        return [out[i] for i in batch if i in out]

    def _labels(self, ids: list[str]) -> list[dict[str, str]]:
        """Labels of the values outside the slice, in English and the kept languages: rows
        for ``extra_labels`` (a label file's, under the endpoint's name)."""
        labels: dict[tuple[str, str], str] = {}
        for i in range(0, len(ids), self.config.batch_size):
            rows = self.client.select(
                f"SELECT ?x ?label WHERE {{ VALUES ?x {{ {_ids(ids[i:i + self.config.batch_size])}"
                f" }} ?x rdfs:label ?label {self._in_languages('label')} }}")
            asked = set(ids[i:i + self.config.batch_size])
            for r in rows:
                x, lang = _local(r["x"]["value"], WD), _tag(r["label"])
                if x in asked and lang and not is_blank(r["label"]["value"]):
                    labels[(x, lang)] = r["label"]["value"]
        return [{"id": x, "language": lang, "label": label}
                for (x, lang), label in sorted(labels.items())]

    def _properties(self, pids: list[str]) -> list[dict]:
        out = []
        for i in range(0, len(pids), self.config.batch_size):
            rows = self.client.select(
                f"SELECT ?p ?label ?type WHERE {{ VALUES ?p {{ {_ids(pids[i:i + self.config.batch_size])} }}"
                f" OPTIONAL {{ ?p rdfs:label ?label {self._in_languages('label')} }}"
                f" OPTIONAL {{ ?p wikibase:propertyType ?type }} }} ORDER BY ?p ?label")
            found: dict[str, dict] = {}
            for r in rows:
                if "label" not in r and "type" not in r:
                    continue
                pid = _local(r["p"]["value"], WD)
                if not is_property(pid):
                    continue
                dtype = TYPES.get(_local(r.get("type", {}).get("value", ""),
                                         "http://wikiba.se/ontology#"))
                p = found.setdefault(pid, {"type": "property", "id": pid, "datatype": dtype,
                                           "labels": {}})
                if "label" in r:
                    _add_text(p, "labels", r["label"])
            out += found.values()
        return out

    def process(self) -> dict[str, Any]:
        cfg = self.config
        queried_at = datetime.now(timezone.utc)
        ids = self.select_entities()
        if not ids:
            raise UserError(f"{cfg.endpoint}: no entities selected (give --entity or --type)")
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

    def _write(self, key: str, fp: str, lines: list[bytes], labels: list[dict[str, str]],
               queried_at: datetime) -> None:
        con = self.con
        row = con.execute("SELECT file_id FROM load_files WHERE path = ?", [key]).fetchone()
        file_id = row[0] if row else next_file_id(con)
        batch = parse_lines(lines, 1, file_id, key, keep=Keep(
            languages=tuple(self.languages) if self.languages else None))
        now = queried_at.replace(tzinfo=None)
        with transaction(con):
            clear_file(con, file_id)
            for table, data in batch.to_arrow().items():
                insert_arrow(con, table, data)
            keep_last_copies(con, file_id)
            con.execute("DELETE FROM extra_labels WHERE source = ?", [key])
            insert_rows(con, "extra_labels", [{**row, "source": key} for row in labels])
            insert_rows(con, "load_files", [{
                "file_id": file_id, "path": key, "kind": "sparql", "fingerprint": fp,
                "status": "done", "started_at": now, "finished_at": now, "lines": len(lines),
                "bytes": 0, "entities": batch.rows("entities"),
                "rejects": batch.rows("load_rejects"),
                "skipped": json.dumps({"endpoint": self.config.endpoint,
                                       "queried_at": queried_at.isoformat(), **batch.skipped}),
                "dump_date": queried_at.date().isoformat(), "code_version": code_version(),
                "languages": self.languages}])
            bump_kg_version(con, f"sparql {key} {fp}")
