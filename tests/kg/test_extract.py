"""Statements and truthiness as the module docstring of ``kg.extract`` defines them, checked
against a plain-dict reading of random claim groups (lone claims take a fast path in the
parser; groups of several do not: both must give the same rows)."""

from __future__ import annotations

import gc

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from convkgyarn.kg.extract import parse_lines, parse_to_arrow

RANKS = ("preferred", "normal", "deprecated", "unusual-rank")
SNAKTYPES = ("value", "novalue", "somevalue")


def _claim(prop: str, n: int, rank: str, snaktype: str, with_id: bool, qualifier: bool) -> dict:
    snak = {"snaktype": snaktype, "property": prop, "datatype": "wikibase-item"}
    if snaktype == "value":
        snak["datavalue"] = {"type": "wikibase-entityid",
                             "value": {"entity-type": "item", "id": f"Q{100 + n}"}}
    claim = {"mainsnak": snak, "type": "statement", "rank": rank}
    if with_id:
        claim["id"] = f"Q1${prop}-{n}"
    if qualifier:
        claim["qualifiers"] = {"P580": [{"snaktype": "value", "property": "P580",
                                         "datatype": "time", "datavalue": {
                                             "type": "time", "value": {
                                                 "time": "+2001-02-03T00:00:00Z",
                                                 "precision": 11}}}]}
    return claim


claim_specs = st.tuples(st.sampled_from(RANKS), st.sampled_from(SNAKTYPES), st.booleans(),
                        st.booleans())
groups = st.dictionaries(st.sampled_from(["P31", "P106", "P17", "P50"]),
                         st.lists(claim_specs, min_size=1, max_size=4), min_size=1)


def _expected(claims: dict) -> list[tuple]:
    """(statement_id, property, rank, value_id, truthy, qualified, ordinal) by the definitions."""
    rows = []
    for prop, group in claims.items():
        kept = [c for c in group
                if c["rank"] != "deprecated" and c["mainsnak"]["snaktype"] == "value"]
        best = "preferred" if any(c["rank"] == "preferred" for c in kept) else "normal"
        for ordinal, c in enumerate(kept):
            rows.append((c.get("id") or f"Q1${prop}${ordinal}", prop, c["rank"],
                         c["mainsnak"]["datavalue"]["value"]["id"], c["rank"] == best,
                         "qualifiers" in c, ordinal))
    return rows


@settings(max_examples=300, deadline=None)
@given(groups)
def test_statement_rows_follow_the_definitions(spec):
    claims, n = {}, 0
    for prop, group in spec.items():
        claims[prop] = []
        for rank, snaktype, with_id, qualifier in group:
            claims[prop].append(_claim(prop, n, rank, snaktype, with_id, qualifier))
            n += 1
    entity = {"id": "Q1", "type": "item", "labels": {"en": {"language": "en", "value": "x"}},
              "claims": claims}
    batch = parse_lines([orjson.dumps(entity)], 1, 1, "test")
    got = [(r[0], r[2], r[3], r[6], r[11], r[12], r[13])
           for r in batch.rows_by_table["statements"]]
    assert got == _expected(claims)
    dropped = sum(len(g) for g in claims.values()) - len(got)
    assert batch.skipped.get("claim deprecated or not a value", 0) == dropped
    assert len(batch.rows_by_table["qualifiers"]) == sum(r[5] for r in got)


def test_parsing_leaves_the_cycle_collector_as_it_found_it():
    line = orjson.dumps({"id": "Q1", "type": "item",
                         "labels": {"en": {"language": "en", "value": "x"}}})
    assert gc.isenabled()
    parse_lines([line, b"{broken"], 1, 1, "test")
    assert gc.isenabled()
    gc.disable()
    try:
        parse_lines([line], 1, 1, "test")
        assert not gc.isenabled()
    finally:
        gc.enable()


def _entity_with_qualified_claims(n: int) -> bytes:
    claims = {f"P{p}": [_claim(f"P{p}", p * 10 + i, "normal", "value", True, i % 2 == 0)
                        for i in range(3)] for p in range(1, n + 1)}
    return orjson.dumps({"id": f"Q{n}", "type": "item",
                         "labels": {"en": {"language": "en", "value": f"item {n}"}},
                         "claims": claims})


def test_a_block_parsed_to_arrow_leaves_the_cycle_collector_nothing_to_scan():
    """A load parses thousands of statements per block. The collector must stay paused until
    their row tuples are gone: resumed earlier, it ran about every 700 objects that Arrow's
    conversion allocates and scanned the live tuples (measured: 7-15% of parse time)."""
    lines = [_entity_with_qualified_claims(n) for n in range(1, 60)]
    expected = parse_lines(lines, 1, 1, "test").to_arrow()
    assert expected["statements"].num_rows > 5_000
    scanned = []  # objects in the youngest generation as each collection starts

    def record(phase: str, info: dict) -> None:
        if phase == "start":
            scanned.append(len(gc.get_objects(generation=0)))

    gc.collect()
    gc.callbacks.append(record)
    try:
        tables, batch = parse_to_arrow(lines, 1, 1, "test")
    finally:
        gc.callbacks.remove(record)
    assert gc.isenabled()
    assert sum(scanned) < 1_000, scanned
    assert tables.keys() == expected.keys()
    assert all(tables[t].equals(expected[t]) for t in tables)
    assert batch.lines == len(lines) and batch.skipped == {}
