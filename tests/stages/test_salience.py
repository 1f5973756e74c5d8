"""The salience ranking (issue #33): what a person asks first about an entity of each kind,
and which facts may open a conversation."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from convkgyarn.stages.salience import (
    PERSON_OPENERS,
    OPENER_MIN, TIERS, broad_kind, good_opener, ranked, salience)


@pytest.mark.parametrize("type_label,first,later", [
    ("human", "P106", "P1412"),              # what she does before the languages she speaks
    ("film actor", "P800", "P3373"),         # known for before siblings
    ("film", "P57", "P2047"),                # the director before the running time
    ("country", "P36", "P463"),              # the capital before memberships
    ("sovereign state", "P38", "P421"),      # the currency before the time zone
    ("big city", "P17", "P190"),             # the country before twin towns
    ("company", "P112", "P414"),             # the founder before the stock exchange
    ("public university", "P571", "P2936"),  # founded before the language used
    ("song", "P175", "P826"),                # the performer before the key
    ("painting", "P170", "P186"),            # the painter before the material
    ("mountain", "P2044", "P706"),           # the height before the terrain feature
    ("country", "P35", "P1082"),             # its head of state before its population
    ("country", "P38", "P2046"),             # its currency before its area
    ("association football club", "P118", "P1448"),
])
def test_the_identifying_fact_comes_first(type_label, first, later):
    assert salience(first, None, type_label) > salience(later, None, type_label)
    assert ranked([(later, None, "thing"), (first, None, "thing")], type_label)[0][0] == first


@pytest.mark.parametrize("type_label,pid,kind", [
    ("human", "P106", "thing"), ("politician", "P39", "thing"), ("film", "P57", "person"),
    ("country", "P36", "place"), ("country", "P35", "person"), ("big city", "P17", "place"),
    ("novel", "P50", "person"), ("company", "P159", "place"), ("mountain", "P2044", "quantity"),
    ("research institute", "P571", "time"),
])
def test_good_openers(type_label, pid, kind):
    assert good_opener(pid, None, type_label, kind)


@pytest.mark.parametrize("type_label,pid,qid,kind", [
    ("human", "P1412", None, "thing"),        # "What languages did X speak?" never opens
    ("human", "P3373", None, "person"), ("country", "P463", None, "thing"),
    ("country", "P421", None, "thing"), ("big city", "P361", None, "thing"),
    ("human", "P26", "P580", "time"),          # a qualifier is a follow-up by nature
    ("country", "P36", "P580", "time"), ("human", "P570", None, "time"),
    ("sovereign state", "P1622", None, "thing"),
    # "How many inhabitants does Laos have?" opened "a fixed country fact sheet" (r60)
    ("country", "P1082", None, "quantity"), ("country", "P2046", None, "quantity"),
])
def test_never_openers(type_label, pid, qid, kind):
    assert not good_opener(pid, qid, type_label, kind)


def test_counts_and_yes_no_questions_never_open():
    assert good_opener("P36", None, "country")
    assert not good_opener("P36", None, "country", question_kind="verify")


def test_unlisted_properties_follow_the_generic_rule():
    # a person-valued fact beats a plain thing; bookkeeping-shaped labels sink
    assert salience("P9999", None, "film", "person") > salience("P9998", None, "film", "thing")
    assert salience("P9997", None, "film", "thing", property_label="legal form") < \
        salience("P9998", None, "film", "thing")
    # a person's property with an unknown type is ranked as a person's
    assert salience("P106", None, None) == TIERS["person"]["P106"]


def test_occupation_types_are_people_and_buildings_are_not():
    assert broad_kind("association football player") == "person"
    assert broad_kind("film actor") == "person"
    assert broad_kind("water tower") == "building"
    assert broad_kind("college town") == "city"
    assert broad_kind("academic department") == "organisation"
    assert broad_kind(None) == "other"


@given(pid=st.sampled_from(sorted({p for t in TIERS.values() for p in t}) + ["P9999"]),
       qid=st.sampled_from([None, "P580", "P582", "P585"]),
       type_label=st.sampled_from(["human", "film", "country", "big city", "company", None,
                                   "mountain", "song", "x"]),
       kind=st.sampled_from(["person", "place", "time", "count", "quantity", "thing"]))
def test_scores_are_bounded_and_qualifiers_rank_below_their_fact(pid, qid, type_label, kind):
    score = salience(pid, qid, type_label, kind)
    assert 0 <= score <= 100
    if qid:
        assert score <= salience(pid, None, type_label, kind)
        assert not good_opener(pid, qid, type_label, kind)
    if good_opener(pid, None, type_label, kind) and pid not in PERSON_OPENERS:
        assert salience(pid, None, type_label, kind) >= OPENER_MIN
