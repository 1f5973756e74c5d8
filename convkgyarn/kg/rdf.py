"""N-Triples in Wikidata's RDF shape (for SPARQL stores), from a JSON dump or from a
project's loaded KG (``convkgyarn kg rdf``).

Follows the Wikibase RDF mapping: ``wdt:`` truthy values, ``p:`` / ``ps:`` / ``pq:``
statements with ``wikibase:rank`` (best-rank ones also typed ``wikibase:BestRank``), full
value nodes (``psv:`` / ``pqv:``) for time precision and quantity units, ``rdfs:label`` /
``schema:description`` / ``skos:altLabel``, ``wikibase:sitelinks`` and, for property
entities, ``wikibase:propertyType``. A project's snapshot also carries the labels its label
files gave ids outside the dump, so a turn's query finds every label assembly used, and the
labels, descriptions and aliases of every language its loads kept (``entity_labels``), each
tagged with its Wikidata language code (``"..."@de``, ``@zh-hans``, ``@mul``). An unknown
value (``somevalue``: an end time known to exist but not when) is written as Wikidata writes
it, a skolem IRI under ``/.well-known/genid/``.

Nothing reaches a triple unchecked: every id must have Wikidata's form (``kg.ids``; a row
or snak with another is left out, and ``kg rdf`` says how many: only a database loaded
before ids were checked can hold one), a language tag must be one, and literals are
escaped (JSON's string escapes are N-Triples' ECHAR and UCHAR).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import duckdb
import orjson

from convkgyarn.kg import ids
from convkgyarn.kg.reader import iter_blocks
from convkgyarn.kg.values import AMOUNT, MONTH_DAYS

log = logging.getLogger("convkgyarn.rdf")
WD = "http://www.wikidata.org/entity/"
WDS = "http://www.wikidata.org/entity/statement/"
WDV = "http://www.wikidata.org/value/"
P = "http://www.wikidata.org/prop/"
WIKIBASE = "http://wikiba.se/ontology#"
RDFS_LABEL = "http://www.w3.org/2000/01/rdf-schema#label"
SKOS_ALT = "http://www.w3.org/2004/02/skos/core#altLabel"
SCHEMA = "http://schema.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"
GEO_WKT = "http://www.opengis.net/ont/geosparql#wktLiteral"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
GENID = "http://www.wikidata.org/.well-known/genid/"
SOMEVALUE = "somevalue"
_LANG = re.compile(r"[a-zA-Z]{1,8}(?:-[a-zA-Z0-9]{1,8})*", re.ASCII)
RANKS = {"preferred": "PreferredRank", "normal": "NormalRank", "deprecated": "DeprecatedRank"}
PROPERTY_TYPES = {
    "wikibase-item": "WikibaseItem", "string": "String", "external-id": "ExternalId",
    "time": "Time", "quantity": "Quantity", "monolingualtext": "Monolingualtext",
    "globe-coordinate": "GlobeCoordinate", "commonsMedia": "CommonsMedia", "url": "Url",
    "wikibase-property": "WikibaseProperty", "geo-shape": "GeoShape",
    "tabular-data": "TabularData", "math": "Math",
}


def _lit(text: str, lang: str | None = None, dtype: str | None = None) -> str:
    """An N-Triples literal: JSON's escapes (quote, backslash, newline and every other
    control character) are the ones N-Triples reads."""
    s = json.dumps(text, ensure_ascii=False)
    if lang:
        return f"{s}@{lang if _LANG.fullmatch(lang) else 'und'}"
    if dtype:
        return f"{s}^^<{dtype}>"
    return s


def _iri(x: str) -> str:
    return f"<{x}>"


def _somevalue(statement_node: str, prop: str, n: int) -> str:
    """The skolem IRI Wikidata's RDF writes for an unknown value."""
    key = f"{statement_node}|{prop}|{n}".encode()
    return _iri(GENID + hashlib.md5(key, usedforsecurity=False).hexdigest())


def _simple_value(dv: dict, datatype: str | None) -> tuple[str, list[str], str | None]:
    """(object term, extra triples of the full value node, value node IRI)."""
    kind, v = dv.get("type"), dv.get("value")
    if kind == "wikibase-entityid":
        value_id = v.get("id")
        if value_id is None and ids.NUMERIC_ID_LETTERS.get(v.get("entity-type")) \
                and isinstance(v.get("numeric-id"), int):
            value_id = f"{ids.NUMERIC_ID_LETTERS[v['entity-type']]}{v['numeric-id']}"
        if not ids.is_entity_value(value_id):
            return "", [], None
        return _iri(WD + value_id), [], None
    if kind == "string":
        if datatype in ("url", "commonsMedia"):
            return _iri(quote(v, safe=":/?#[]@!$&'()*+,;=%") if datatype == "url" else
                        "http://commons.wikimedia.org/wiki/Special:FilePath/" + quote(v)), [], None
        return _lit(v), [], None
    if kind == "monolingualtext":
        return _lit(v["text"], lang=v.get("language") or "und"), [], None
    if kind == "time":
        t = v["time"].lstrip("+")
        t = t.replace("-00-00T", "-01-01T").replace("-00T", "-01T")
        node = WDV + hashlib.sha1(json.dumps(v, sort_keys=True).encode()).hexdigest()
        extra = [f"{_iri(node)} {_iri(WIKIBASE + 'timeValue')} {_lit(t, dtype=XSD + 'dateTime')} .",
                 f"{_iri(node)} {_iri(WIKIBASE + 'timePrecision')} "
                 f"{_lit(str(v.get('precision', 11)), dtype=XSD + 'integer')} ."]
        return _lit(t, dtype=XSD + "dateTime"), extra, node
    if kind == "quantity":
        amount = v["amount"].lstrip("+")
        node = WDV + hashlib.sha1(json.dumps(v, sort_keys=True).encode()).hexdigest()
        unit = v.get("unit", "1")
        if unit != "1" and not ids.UNIT.fullmatch(unit):
            return "", [], None
        unit_iri = unit if unit != "1" else WD + "Q199"
        extra = [f"{_iri(node)} {_iri(WIKIBASE + 'quantityAmount')} "
                 f"{_lit(amount, dtype=XSD + 'decimal')} .",
                 f"{_iri(node)} {_iri(WIKIBASE + 'quantityUnit')} {_iri(unit_iri)} ."]
        return _lit(amount, dtype=XSD + "decimal"), extra, node
    if kind == "globecoordinate":
        return _lit(f"Point({v['longitude']} {v['latitude']})", dtype=GEO_WKT), [], None
    return _lit(json.dumps(v)), [], None


def entity_triples(e: dict) -> Iterator[str]:
    """One dump entity's triples; an entity, claim or snak whose id is not of Wikidata's
    form is left out, as the loader leaves it out."""
    eid = e.get("id")
    if not isinstance(eid, str) or ids.entity_id_problem(e.get("type"), eid) or not (
            ids.is_item(eid) or ids.is_property(eid)):
        return
    s = _iri(WD + eid)
    labels = e.get("labels") or {}
    if isinstance(labels, dict) and "en" in labels:
        yield f"{s} {_iri(RDFS_LABEL)} {_lit(labels['en']['value'], lang='en')} ."
    descs = e.get("descriptions") or {}
    if isinstance(descs, dict) and "en" in descs:
        yield f"{s} {_iri(SCHEMA + 'description')} {_lit(descs['en']['value'], lang='en')} ."
    aliases = e.get("aliases") or {}
    if isinstance(aliases, dict):
        for a in aliases.get("en", []):
            yield f"{s} {_iri(SKOS_ALT)} {_lit(a['value'], lang='en')} ."
    if e.get("type") == "property":
        dt = PROPERTY_TYPES.get(e.get("datatype"), "String")
        yield f"{s} {_iri(WIKIBASE + 'propertyType')} {_iri(WIKIBASE + dt)} ."
        return
    sitelinks = e.get("sitelinks") or {}
    yield (f"{s} {_iri(WIKIBASE + 'sitelinks')} "
           f"{_lit(str(len(sitelinks)), dtype=XSD + 'integer')} .")
    if e.get("modified"):
        yield f"{s} {_iri(SCHEMA + 'dateModified')} {_lit(e['modified'], dtype=XSD + 'dateTime')} ."
    claims = e.get("claims") or {}
    if not isinstance(claims, dict):
        return
    for prop, group in claims.items():
        if not ids.is_property(prop):
            continue
        values = [c for c in group if c.get("rank") != "deprecated"
                  and c["mainsnak"].get("snaktype") == "value"]
        best = "preferred" if any(c.get("rank") == "preferred" for c in values) else "normal"
        for n, c in enumerate(group):
            snak = c["mainsnak"]
            sid = c.get("id") or f"{eid}${prop}${n}"
            if not ids.is_statement(sid):
                continue
            st = _iri(WDS + sid.replace("$", "-"))
            yield f"{s} {_iri(P + prop)} {st} ."
            rank = RANKS.get(c.get("rank", "normal"), "NormalRank")
            yield f"{st} {_iri(WIKIBASE + 'rank')} {_iri(WIKIBASE + rank)} ."
            if snak.get("snaktype") != "value" or "datavalue" not in snak:
                continue
            obj, extra, node = _simple_value(snak["datavalue"], snak.get("datatype"))
            if not obj:
                continue
            yield f"{st} {_iri(P + 'statement/' + prop)} {obj} ."
            if node:
                yield f"{st} {_iri(P + 'statement/value/' + prop)} {_iri(node)} ."
                yield from extra
            if c in values and c.get("rank", "normal") == best:
                yield f"{s} {_iri(P + 'direct/' + prop)} {obj} ."
                yield f"{st} {_iri(RDF_TYPE)} {_iri(WIKIBASE + 'BestRank')} ."
            quals = c.get("qualifiers") or {}
            if isinstance(quals, dict):
                for qprop, snaks in quals.items():
                    if not ids.is_property(qprop):
                        continue
                    for qn, q in enumerate(snaks):
                        if q.get("snaktype") == "somevalue":
                            yield (f"{st} {_iri(P + 'qualifier/' + qprop)} "
                                   f"{_somevalue(st, qprop, qn)} .")
                        if q.get("snaktype") != "value" or "datavalue" not in q:
                            continue
                        qobj, qextra, qnode = _simple_value(q["datavalue"], q.get("datatype"))
                        if not qobj:
                            continue
                        yield f"{st} {_iri(P + 'qualifier/' + qprop)} {qobj} ."
                        if qnode:
                            yield f"{st} {_iri(P + 'qualifier/value/' + qprop)} {_iri(qnode)} ."
                            yield from qextra


def dump_to_ntriples(dump: Path, out: Path) -> int:
    """Convert a dump file; returns the number of triples written."""
    n = 0
    with open(out, "w", encoding="utf-8") as fh:
        for block in iter_blocks(dump):
            for line in block.lines:
                line = line.strip().rstrip(b",")
                if line in (b"", b"[", b"]"):
                    continue
                for triple in entity_triples(orjson.loads(line)):
                    fh.write(triple + "\n")
                    n += 1
    return n


# -- a project's snapshot ------------------------------------------------------------------

_ISO = re.compile(r"^(-?)([0-9]+)(?:-([0-9]{2}))?(?:-([0-9]{2}))?( BCE)?$", re.ASCII)
_DECADE = re.compile(r"^([0-9]+)0s( BCE)?$", re.ASCII)
_ORDINAL_SPAN = re.compile(r"^([0-9]+)(?:st|nd|rd|th) (century|millennium)( BCE)?$", re.ASCII)


def time_literal(text: str) -> str | None:
    """An xsd:dateTime for a stored time text ("1952-03-11", "1952-03", "44 BCE", "1950s",
    "19th century"): the first day of the span, as Wikidata writes a value of that
    precision. None for a text that is no date (a month 13 or a 30 February, which a
    database loaded before times were checked may hold, included)."""
    m = _ISO.match(text)
    if m:
        sign, year, month, day, bce = m.groups()
        if month and not (1 <= int(month) <= 12 and int(day or 1) <= MONTH_DAYS[int(month) - 1]):
            return None
        if day and (not month or int(day) < 1):
            return None
        return (f"{'-' if sign or bce else ''}{int(year):04d}-{month or '01'}-{day or '01'}"
                "T00:00:00Z")
    m = _DECADE.match(text)
    if m:
        return f"{'-' if m.group(2) else ''}{int(m.group(1)) * 10:04d}-01-01T00:00:00Z"
    m = _ORDINAL_SPAN.match(text)
    if m:
        size = 100 if m.group(2) == "century" else 1000
        year = (int(m.group(1)) - 1) * size + 1
        return f"{'-' if m.group(3) else ''}{year:04d}-01-01T00:00:00Z"
    return None


_LITERAL = re.compile(r"^(-?)(\d+)-(\d\d)-(\d\d)T")


def time_order(text: str) -> tuple[int, int, int] | None:
    """A key that orders stored time texts as SPARQL orders their ``time_literal``s
    (year, month, day; BCE years negative). None for a text that is no date."""
    literal = time_literal(text)
    if literal is None:
        return None
    sign, year, month, day = _LITERAL.match(literal).groups()
    return (-int(year) if sign else int(year), int(month), int(day))


def _stored_value(vtype, value_id, text, unit_id, precision) -> tuple[str, list[str], str | None]:
    """(object term, triples of the full value node, value node IRI) of a stored value; no
    term ("") for one that is none (an id, date, amount or unit not of Wikidata's form)."""
    if value_id is not None:
        return (_iri(WD + value_id), [], None) if ids.is_entity_value(value_id) else ("", [], None)
    if vtype == "time":
        if text is None or (t := time_literal(text)) is None:
            return "", [], None
        node = WDV + hashlib.sha1(f"time|{t}|{precision}".encode()).hexdigest()
        obj = _lit(t, dtype=XSD + "dateTime")
        return obj, [f"{_iri(node)} {_iri(WIKIBASE + 'timeValue')} {obj} .",
                     f"{_iri(node)} {_iri(WIKIBASE + 'timePrecision')} "
                     f"{_lit(str(precision if precision is not None else 11), dtype=XSD + 'integer')} ."
                     ], node
    if vtype == "quantity":
        if text is None or not AMOUNT.fullmatch(text) or not (
                unit_id is None or ids.is_item(unit_id)):
            return "", [], None
        unit = WD + (unit_id or "Q199")
        node = WDV + hashlib.sha1(f"quantity|{text}|{unit}".encode()).hexdigest()
        obj = _lit(text.lstrip("+"), dtype=XSD + "decimal")
        return obj, [f"{_iri(node)} {_iri(WIKIBASE + 'quantityAmount')} {obj} .",
                     f"{_iri(node)} {_iri(WIKIBASE + 'quantityUnit')} {_iri(unit)} ."], node
    if text is not None:
        return _lit(text), [], None
    return "", [], None


def snapshot_triples(con: duckdb.DuckDBPyConnection) -> Iterator[str]:
    """The project's loaded KG as N-Triples (labels from the label files included)."""
    def rows(sql: str) -> Iterator[tuple]:
        cur = con.execute(sql)
        while batch := cur.fetchmany(10_000):
            yield from batch

    skipped = 0
    for eid, label in rows("SELECT id, label FROM labels WHERE label IS NOT NULL ORDER BY id"):
        if not ids.is_entity_value(eid):
            skipped += 1
            continue
        yield f"{_iri(WD + eid)} {_iri(RDFS_LABEL)} {_lit(label, lang='en')} ."
    for eid, desc, aliases, sitelinks in rows(
            "SELECT id, description, aliases, sitelinks FROM entities ORDER BY id"):
        if not ids.is_item(eid):
            skipped += 1
            continue
        s = _iri(WD + eid)
        if desc:
            yield f"{s} {_iri(SCHEMA + 'description')} {_lit(desc, lang='en')} ."
        for alias in aliases or ():
            yield f"{s} {_iri(SKOS_ALT)} {_lit(alias, lang='en')} ."
        yield (f"{s} {_iri(WIKIBASE + 'sitelinks')} "
               f"{_lit(str(sitelinks or 0), dtype=XSD + 'integer')} .")
    for pid, datatype in rows("SELECT id, datatype FROM properties WHERE datatype IS NOT NULL "
                              "ORDER BY id"):
        if not ids.is_property(pid):
            skipped += 1
            continue
        yield (f"{_iri(WD + pid)} {_iri(WIKIBASE + 'propertyType')} "
               f"{_iri(WIKIBASE + PROPERTY_TYPES.get(datatype, 'String'))} .")
    skipped += yield from _language_triples(rows)
    for (sid, eid, prop, rank, vtype, value_id, text, unit_id, precision,
         truthy) in rows("SELECT statement_id, entity_id, property_id, rank, value_type, "
                         "value_id, value_text, unit_id, precision, truthy FROM statements "
                         "ORDER BY entity_id, property_id, ordinal"):
        if not (ids.is_statement(sid) and ids.is_item(eid) and ids.is_property(prop)):
            skipped += 1
            continue
        st = _iri(WDS + sid.replace("$", "-"))
        yield f"{_iri(WD + eid)} {_iri(P + prop)} {st} ."
        yield f"{st} {_iri(WIKIBASE + 'rank')} {_iri(WIKIBASE + RANKS.get(rank, 'NormalRank'))} ."
        obj, extra, node = _stored_value(vtype, value_id, text, unit_id, precision)
        if not obj:
            continue
        yield f"{st} {_iri(P + 'statement/' + prop)} {obj} ."
        if node:
            yield f"{st} {_iri(P + 'statement/value/' + prop)} {_iri(node)} ."
            yield from extra
        if truthy:
            yield f"{_iri(WD + eid)} {_iri(P + 'direct/' + prop)} {obj} ."
            yield f"{st} {_iri(RDF_TYPE)} {_iri(WIKIBASE + 'BestRank')} ."
    for sid, qprop, vtype, value_id, text, unit_id, precision, ordinal in rows(
            "SELECT statement_id, qualifier_property_id, value_type, value_id, value_text, "
            "unit_id, precision, ordinal FROM qualifiers ORDER BY statement_id, "
            "qualifier_property_id, ordinal"):
        if not (ids.is_statement(sid) and ids.is_property(qprop)):
            skipped += 1
            continue
        st = _iri(WDS + sid.replace("$", "-"))
        if vtype == SOMEVALUE:  # an end time known to exist, not when
            yield f"{st} {_iri(P + 'qualifier/' + qprop)} {_somevalue(st, qprop, ordinal)} ."
            continue
        obj, extra, node = _stored_value(vtype, value_id, text, unit_id, precision)
        if not obj:
            continue
        yield f"{st} {_iri(P + 'qualifier/' + qprop)} {obj} ."
        if node:
            yield f"{st} {_iri(P + 'qualifier/value/' + qprop)} {_iri(node)} ."
            yield from extra
    if skipped:
        log.warning("%d rows hold an id not of Wikidata's form and were left out of the "
                    "triples (the KG was loaded before ids were checked: load it again)",
                    skipped)


def _language_triples(rows) -> Iterator[str]:
    """``rdfs:label``, ``schema:description`` and ``skos:altLabel`` in every language besides
    English the project kept (labels of label files included, as in English); returns how
    many rows were left out for an id or a language code not of Wikidata's form."""
    skipped = 0
    for eid, lang, label in rows("SELECT id, language, label FROM labels_by_language WHERE "
                                 "language <> 'en' ORDER BY id, language"):
        if not (ids.is_entity_value(eid) and ids.is_language(lang)):
            skipped += 1
            continue
        yield f"{_iri(WD + eid)} {_iri(RDFS_LABEL)} {_lit(label, lang=lang)} ."
    for eid, lang, desc, aliases in rows("SELECT id, language, description, aliases FROM "
                                         "entity_labels ORDER BY id, language"):
        if not (ids.is_entity_value(eid) and ids.is_language(lang)):
            skipped += 1
            continue
        s = _iri(WD + eid)
        if desc:
            yield f"{s} {_iri(SCHEMA + 'description')} {_lit(desc, lang=lang)} ."
        for alias in aliases or ():
            yield f"{s} {_iri(SKOS_ALT)} {_lit(alias, lang=lang)} ."
    return skipped


def write_snapshot(con: duckdb.DuckDBPyConnection, out: Path) -> int:
    """Write the project's KG as N-Triples; returns the number of triples (duplicates of a
    shared value node are written once per use, which stores collapse)."""
    n = 0
    with open(out, "w", encoding="utf-8") as fh:
        for triple in snapshot_triples(con):
            fh.write(triple + "\n")
            n += 1
    return n
