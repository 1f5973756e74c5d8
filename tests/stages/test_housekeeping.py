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


# Real labels and datatypes: true facts no one would ask a friend about (issue #33).
NOT_WORTH_ASKING = [
    ("P1340", "eye color", "wikibase-item"), ("P1884", "hair color", "wikibase-item"),
    ("P552", "handedness", "wikibase-item"), ("P793", "significant event", "wikibase-item"),
    ("P706", "located on terrain feature", "wikibase-item"),
    ("P6379", "has works in the collection", "wikibase-item"),
    ("P485", "archives at", "wikibase-item"), ("P9999", "artist files at", "wikibase-item"),
    ("P5023", "activity policy in this place", "wikibase-item"),
    ("P1125", "Gini coefficient", "quantity"), ("P8476", "BTI Governance Index", "quantity"),
    ("P1081", "Human Development Index", "quantity"),
    ("P2132", "nominal GDP per capita", "quantity"), ("P2134", "total reserves", "quantity"),
    ("P2573", "number of out-of-school children", "quantity"),
    ("P4841", "total fertility rate", "quantity"), ("P1540", "male population", "quantity"),
    ("P1539", "female population", "quantity"),
    ("P9998", "rural population", "quantity"), ("P9997", "literacy rate", "quantity"),
    ("P530", "diplomatic relation", "wikibase-item"),
    ("P3823", "Ethnologue language status", "wikibase-item"),  # "1 National"
]
# ... and their neighbours that a quiz or a curious person would ask: they stay.
WORTH_ASKING = [
    ("P2048", "height", "quantity"), ("P2131", "nominal GDP", "quantity"),
    ("P2250", "life expectancy", "quantity"), ("P1174", "visitors per year", "quantity"),
    ("P1086", "atomic number", "quantity"), ("P411", "canonization status", "wikibase-item"),
    ("P423", "shooting handedness", "wikibase-item"),
    ("P3679", "stock market index", "wikibase-item"),
    ("P1109", "refractive index", "quantity"), ("P1082", "population", "quantity"),
    ("P1622", "driving side", "wikibase-item"), ("P610", "highest point", "wikibase-item"),
    ("P1636", "date of baptism in early childhood", "time"),
    ("P1098", "number of speakers", "quantity"), ("P3872", "patronage", "quantity"),
    ("P6589", "endowment", "quantity"), ("P2660", "topographic prominence", "quantity"),
]


@pytest.mark.parametrize("pid,label,datatype", NOT_WORTH_ASKING)
def test_facts_not_worth_asking_are_left_out_with_their_group(pid, label, datatype):
    why = reason(pid, label, datatype)
    assert why and why.startswith("not worth asking: "), why
    assert reason(pid, label, datatype, qualifier=True) == why  # as qualifiers too


@pytest.mark.parametrize("pid,label,datatype", WORTH_ASKING)
def test_facts_a_curious_person_asks_stay(pid, label, datatype):
    assert reason(pid, label, datatype) is None
