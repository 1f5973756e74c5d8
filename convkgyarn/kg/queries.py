"""A SPARQL query per turn, over Wikidata's RDF model, whose answers are the turn's gold.

Each exported turn carries one complete SELECT (its PREFIX lines included). Its ``?answer``
rows (with ``?precision`` for times and ``?unit`` for amounts) are exactly the values in the
turn's ``answer_values``, because the query states every rule assembly applied:

- a fact's values are its best-rank statements (``wikibase:BestRank``); a present-tense
  question leaves out statements with an end time (``pq:P582``), and of amounts measured at
  a point in time (``pq:P585``) keeps only those no other best-rank statement of the
  property measured later; a past-tense one keeps all;
- every value that answers is returned: assembly asks a fact only when it can say all of
  them (each has an English label of at most ``max_label_chars`` characters, units too, and
  none bears the subject's name), so a query never filters by label, and a value that
  gains no label later shows up as drift instead of vanishing; the subject itself is never
  its own answer, and an unknown value (``somevalue``) is no item;
- a qualifier question is about one statement (its id is in the query, the question names
  its value): its answers are that statement's values of the qualifier.

Every id is checked before it is pasted into a query (``kg.ids``: ``wd:Q42``, ``p:P26``,
``wds:Q42-...``): text of another form there would be SPARQL, not an id.

Run against the snapshot the turn came from (``convkgyarn kg rdf``), every query returns its
gold answer; run against a later Wikidata (``convkgyarn verify``), a different answer is
drift. ``values_of()`` turns result rows into the same exact values as ``answer_values``.
"""

from __future__ import annotations

import json
from decimal import Decimal, InvalidOperation

from convkgyarn.kg.ids import ENTITY_VALUE, ITEM, PROPERTY, STATEMENT, checked
from convkgyarn.kg.values import BadValue, render_value

WD = "http://www.wikidata.org/entity/"
XSD = "http://www.w3.org/2001/XMLSchema#"
_PREFIXES = {
    "wd": "http://www.wikidata.org/entity/",
    "wds": "http://www.wikidata.org/entity/statement/",
    "p": "http://www.wikidata.org/prop/",
    "ps": "http://www.wikidata.org/prop/statement/",
    "psv": "http://www.wikidata.org/prop/statement/value/",
    "pq": "http://www.wikidata.org/prop/qualifier/",
    "pqv": "http://www.wikidata.org/prop/qualifier/value/",
    "wikibase": "http://wikiba.se/ontology#",
    "rdfs": "http://www.w3.org/2000/01/rdf-schema#",
}
KINDS = ("item", "time", "quantity", "text")


def statement_node(statement_id: str) -> str:
    """The statement's IRI local name, as Wikidata's RDF writes it (``$`` becomes ``-``)."""
    return "wds:" + checked(statement_id, STATEMENT, "statement id").replace("$", "-")


def _ids(subject_id: str, property_id: str) -> None:
    checked(subject_id, ITEM, "item id")
    checked(property_id, PROPERTY, "property id")


def _value_pattern(subject: str, prefix: str, prop: str, kind: str) -> str:
    """Bind ?answer (and ?precision or ?unit) to the value ``subject prefix:prop``."""
    vprefix = "psv" if prefix == "ps" else "pqv"
    if kind == "time":
        return (f"{subject} {vprefix}:{prop} ?node .\n"
                "  ?node wikibase:timeValue ?answer ; wikibase:timePrecision ?precision .")
    if kind == "quantity":
        return (f"{subject} {vprefix}:{prop} ?node .\n"
                "  ?node wikibase:quantityAmount ?answer ; wikibase:quantityUnit ?unit .")
    if kind == "item":
        return (f"{subject} {prefix}:{prop} ?answer .\n"
                f"  FILTER(STRSTARTS(STR(?answer), \"{WD}\"))")
    return (f"{subject} {prefix}:{prop} ?answer .\n"
            "  FILTER(isLiteral(?answer))")


def _not_the_subject(subject_id: str) -> str:
    return f"  FILTER(?answer != wd:{subject_id})"


def turn_query(subject_id: str, property_id: str, kind: str, tense: str, *,
               qualifier_id: str | None = None, statement_id: str | None = None) -> str:
    """The SELECT whose ``?answer`` rows are a turn's gold values (see the module notes)."""
    if kind not in KINDS:
        raise ValueError(f"unknown value kind {kind!r}")
    _ids(subject_id, property_id)
    if qualifier_id is not None:
        checked(qualifier_id, PROPERTY, "property id")
    columns = "?answer" + {"time": " ?precision", "quantity": " ?unit"}.get(kind, "")
    if qualifier_id is None:
        body = [f"wd:{subject_id} p:{property_id} ?statement .",
                "  ?statement a wikibase:BestRank .",
                "  " + _value_pattern("?statement", "ps", property_id, kind)]
        if tense == "present":
            body.append("  FILTER NOT EXISTS { ?statement pq:P582 ?end }")
            if kind == "quantity":  # the latest measurement only
                body.append(
                    "  FILTER NOT EXISTS { ?statement pq:P585 ?when .\n"
                    f"    wd:{subject_id} p:{property_id} ?later .\n"
                    "    ?later a wikibase:BestRank ; pq:P585 ?after .\n"
                    "    FILTER(?later != ?statement && ?after > ?when) }")
    else:
        if statement_id is None:
            raise ValueError("a qualifier question's query needs its statement id")
        body = [f"VALUES ?statement {{ {statement_node(statement_id)} }}",
                f"  wd:{subject_id} p:{property_id} ?statement .",
                "  ?statement a wikibase:BestRank .",
                "  " + _value_pattern("?statement", "pq", qualifier_id, kind)]
    if kind == "item":
        body.append(_not_the_subject(subject_id))
    text = "\n".join(body)
    used = [name for name, iri in _PREFIXES.items() if f"{name}:" in text or name == "wd"]
    prefixes = "".join(f"PREFIX {name}: <{_PREFIXES[name]}>\n" for name in used)
    return f"{prefixes}SELECT DISTINCT {columns} WHERE {{\n  {text}\n}}"


def _datavalue(row: dict) -> tuple[str, dict] | None:
    """A SPARQL JSON result row as a Wikidata JSON datavalue (type, value)."""
    term = row.get("answer")
    if term is None:
        return None
    kind, v = term.get("type"), term.get("value", "")
    if kind == "uri":
        if v.startswith(WD):
            return "wikibase-entityid", {"id": v[len(WD):]}
        return "string", v
    dtype = term.get("datatype", "")
    if dtype == XSD + "dateTime":
        precision = int(row["precision"]["value"]) if "precision" in row else 11
        return "time", {"time": v if v.startswith(("+", "-")) else "+" + v,
                        "precision": precision}
    if "unit" in row or dtype in (XSD + "decimal", XSD + "integer", XSD + "double"):
        unit = row.get("unit", {}).get("value", "1")
        try:
            amount = format(Decimal(v), "f")
        except InvalidOperation:
            amount = v
        return "quantity", {"amount": amount if amount.startswith("-") else "+" + amount,
                            "unit": "1" if unit.endswith("/Q199") else unit}
    if term.get("xml:lang"):
        return "monolingualtext", {"text": v, "language": term["xml:lang"]}
    return "string", v


def values_of(rows: list[dict]) -> list[dict]:
    """Result rows as exact values, in the shape of a turn's ``answer_values``: ``{"id"}``,
    ``{"time", "precision"}``, ``{"amount", "unit"}`` or ``{"text"}`` (sorted, distinct)."""
    out = set()
    for row in rows:
        dv = _datavalue(row)
        if dv is None:
            continue
        vtype, value = dv
        try:
            r = render_value(vtype, json.dumps(value).encode())
        except BadValue:  # an endpoint's value that is none: kept as its text (drift)
            out.add(json.dumps({"text": str(row["answer"].get("value"))}, sort_keys=True))
            continue
        if r.value_id is not None:
            v = {"id": r.value_id}
        elif vtype == "time":
            v = {"time": r.value_text, "precision": r.precision}
        elif vtype == "quantity":
            v = {"amount": (r.value_text or "").lstrip("+"), "unit": r.unit_id}
        else:
            v = {"text": r.value_text if r.value_text is not None else r.raw}
        out.add(json.dumps(v, sort_keys=True))
    return canonical([json.loads(v) for v in out])


def canonical(values: list[dict]) -> list[dict]:
    """A turn's ``answer_values`` in the order and form ``values_of()`` gives."""
    out = set()
    for v in values:
        if "amount" in v:
            v = {"amount": _amount(v["amount"]), "unit": v.get("unit")}
        out.add(json.dumps(v, sort_keys=True))
    return [json.loads(v) for v in sorted(out)]


def _amount(text: str) -> str:
    try:
        return format(Decimal(text.lstrip("+")).normalize(), "f")
    except InvalidOperation:
        return text


def _with_prefixes(select: str) -> str:
    used = [name for name in _PREFIXES if f"{name}:" in select or name == "wd"]
    return "".join(f"PREFIX {name}: <{_PREFIXES[name]}>\n" for name in used) + select


def count_query(subject_id: str, property_id: str, tense: str) -> str:
    """How many distinct items the subject's best-rank statements of the property hold
    (in the present tense, those without an end time): one row, ``?answer`` an integer."""
    _ids(subject_id, property_id)
    current = "  FILTER NOT EXISTS { ?statement pq:P582 ?end }\n" if tense == "present" else ""
    return _with_prefixes(
        f"SELECT (COUNT(DISTINCT ?value) AS ?answer) WHERE {{\n"
        f"  wd:{subject_id} p:{property_id} ?statement .\n"
        f"  ?statement a wikibase:BestRank ; ps:{property_id} ?value .\n"
        f"{current}"
        f"  FILTER(isIRI(?value) && STRSTARTS(STR(?value), \"{WD}Q\"))\n}}")


def verify_query(subject_id: str, property_id: str, candidate_id: str, tense: str) -> str:
    """Whether the subject's best-rank statements of the property hold the candidate (in the
    present tense: one without an end time): one row, ``?answer`` "yes" or "no"."""
    _ids(subject_id, property_id)
    checked(candidate_id, ENTITY_VALUE, "entity id")
    current = " FILTER NOT EXISTS { ?statement pq:P582 ?end }" if tense == "present" else ""
    return _with_prefixes(
        "SELECT ?answer WHERE {\n"
        f"  BIND(IF(EXISTS {{ wd:{subject_id} p:{property_id} ?statement .\n"
        f"    ?statement a wikibase:BestRank ; ps:{property_id} wd:{candidate_id} .{current} }},"
        " \"yes\", \"no\") AS ?answer)\n}")


def before_query(subject_id: str, property_id: str, statement_id: str,
                 any_rank: bool = False) -> str:
    """Who held the property right before the reference statement's value: the values of the
    best-rank statements (``any_rank``: of every statement not deprecated, as a follow-up
    about the holder just named reads them) with the latest start time (``pq:P580``) earlier
    than the reference's, other than its value."""
    _ids(subject_id, property_id)
    ranked = ("wikibase:rank ?{0}Rank ; " if any_rank else "a wikibase:BestRank ; ")
    # any rank (the follow-up): a holder counts with one start time, as assembly reads them
    kept = ("\n    FILTER(?{0}Rank != wikibase:DeprecatedRank)\n"
            "    FILTER NOT EXISTS {{ ?{0} pq:P580 ?{0}Again . FILTER(?{0}Again != ?{1}) }}"
            if any_rank else "")
    return _with_prefixes(
        "SELECT DISTINCT ?answer WHERE {\n"
        f"  VALUES ?reference {{ {statement_node(statement_id)} }}\n"
        f"  ?reference ps:{property_id} ?later ; pq:P580 ?laterStart .\n"
        f"  wd:{subject_id} p:{property_id} ?statement .\n"
        f"  ?statement {ranked.format('statement')}ps:{property_id} ?answer ; "
        f"pq:P580 ?start .{kept.format('statement', 'start')}\n"
        f"  FILTER(STRSTARTS(STR(?answer), \"{WD}\"))\n"
        "  FILTER(?start < ?laterStart && ?answer != ?later)\n"
        f"  FILTER NOT EXISTS {{ wd:{subject_id} p:{property_id} ?other .\n"
        f"    ?other {ranked.format('other')}ps:{property_id} ?otherValue ; "
        f"pq:P580 ?otherStart .{kept.format('other', 'otherStart')}\n"
        f"    FILTER(STRSTARTS(STR(?otherValue), \"{WD}\"))\n"
        "    FILTER(?otherValue != ?later && ?otherStart > ?start && ?otherStart < ?laterStart) }\n"
        "}")


def span_query(subject_id: str, dates: tuple[str, str], *, statement_id: str | None = None,
               property_id: str | None = None, unit: str | None = None,
               day_only: bool = False) -> str:
    """Whole years between two dates of the subject: completed years when both are known to
    the day (precision 11), the difference of the years when both are known to the year (9);
    no row otherwise. ``dates`` are two properties of best-rank statements (an age at death:
    P569, P570), or, with ``statement_id``, two qualifiers of that statement (a term: P580,
    P582). ``?unit`` is bound when the years are said as years; ``day_only``: both known to
    the day (an age: from two years alone it is one of two numbers)."""
    checked(subject_id, ITEM, "item id")
    for prop in dates:
        checked(prop, PROPERTY, "property id")
    first, second = dates
    if statement_id is not None:
        checked(property_id, PROPERTY, "property id")
        where = (f"  VALUES ?statement {{ {statement_node(statement_id)} }}\n"
                 f"  wd:{subject_id} p:{property_id} ?statement .\n"
                 f"  ?statement pqv:{first} ?from ; pqv:{second} ?to .\n")
    else:
        where = (f"  wd:{subject_id} p:{first} ?s1 . ?s1 a wikibase:BestRank ; "
                 f"psv:{first} ?from .\n"
                 f"  wd:{subject_id} p:{second} ?s2 . ?s2 a wikibase:BestRank ; "
                 f"psv:{second} ?to .\n")
    unit_bind = ""
    columns = "?answer"
    if unit is not None:
        checked(unit, ITEM, "item id")
        unit_bind = f"  BIND(wd:{unit} AS ?unit)\n"
        columns = "?answer ?unit"
    return _with_prefixes(
        f"SELECT {columns} WHERE {{\n" + where +
        "  ?from wikibase:timeValue ?a ; wikibase:timePrecision ?pa .\n"
        "  ?to wikibase:timeValue ?b ; wikibase:timePrecision ?pb .\n"
        f"  FILTER(?pa = ?pb && {'?pa = 11' if day_only else '(?pa = 11 || ?pa = 9)'} && "
        "YEAR(?a) > 0 && YEAR(?b) > 0)\n"
        "  BIND(YEAR(?b) - YEAR(?a) - IF(?pa = 11 && (MONTH(?b) < MONTH(?a) || "
        "(MONTH(?b) = MONTH(?a) && DAY(?b) < DAY(?a))), 1, 0) AS ?answer)\n"
        f"{unit_bind}}}")
