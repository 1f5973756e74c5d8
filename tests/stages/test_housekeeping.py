"""The rules pre-filter: housekeeping never reaches a conversation, useful facts do."""

from __future__ import annotations

import json

import pytest

from convkgyarn.stages.housekeeping import reason

# (id, label, datatype) as Wikidata has them
HOUSEKEEPING = [
    ("P2093", "author name string", "string"), ("P304", "page(s)", "string"),
    ("P478", "volume", "string"), ("P433", "issue", "string"),
    ("P2860", "cites work", "wikibase-item"), ("P1476", "title", "monolingualtext"),
    ("P281", "postal code", "string"), ("P473", "local dialing code", "string"),
    ("P1464", "category for people born here", "wikibase-item"),
    ("P910", "topic's main category", "wikibase-item"),
    ("P1151", "topic's main Wikimedia portal", "wikibase-item"),
    ("P2184", "history of topic", "wikibase-item"),
    ("P1906", "office held by head of state", "wikibase-item"),
    ("P1343", "described by source", "wikibase-item"),
    ("P1889", "different from", "wikibase-item"), ("P735", "given name", "wikibase-item"),
    ("P1433", "published in", "wikibase-item"), ("P921", "main subject", "wikibase-item"),
    ("P214", "VIAF ID", "external-id"), ("P18", "image", "commonsMedia"),
    ("P9999", "category for maps", "wikibase-item"), ("P9998", "Wikimedia outline", None),
    ("P163", "flag", "wikibase-item"), ("P26", None, "wikibase-item"),
]
USEFUL = [
    ("P26", "spouse", "wikibase-item"), ("P569", "date of birth", "time"),
    ("P1082", "population", "quantity"), ("P57", "director", "wikibase-item"),
    ("P131", "located in the administrative territorial entity", "wikibase-item"),
    ("P138", "named after", "wikibase-item"), ("P1411", "nominated for", "wikibase-item"),
    ("P1113", "number of episodes", "quantity"), ("P2046", "area", "quantity"),
    ("P85", "anthem", "wikibase-item"), ("P421", "located in time zone", "wikibase-item"),
]


@pytest.mark.parametrize("pid,label,datatype", HOUSEKEEPING)
def test_housekeeping_is_left_out_with_a_reason(pid, label, datatype):
    assert reason(pid, label, datatype)


@pytest.mark.parametrize("pid,label,datatype", USEFUL)
def test_useful_facts_are_kept(pid, label, datatype):
    assert reason(pid, label, datatype) is None


def test_the_property_entities_own_classes_count(shared_data):
    labels = json.loads((shared_data / "wikidata" / "property-labels-en.json").read_text())
    assert reason("P1", labels.get("P214", {}).get("label", "x"), "wikibase-item",
                  classes=["Q19847637"])
    assert reason("P1", "something", "wikibase-item",
                  class_labels=["Wikidata property for authority control"])
