"""The curated lexicon (issue #33): questions a person would ask a friend, search queries
that are genuinely different, label-shaped fallbacks that rarely say "do you know"."""

from __future__ import annotations

import json
import re

import pytest

from convkgyarn.stages import lexicon
from convkgyarn.stages.phrasing import past_patterns, voice_patterns
from convkgyarn.stages.rules_writer import RulesWriter
from convkgyarn.stages.templates import validate
from convkgyarn.text import Fact

FRAME = re.compile(r"\b(do you know|can you tell me)\b")
CURATED = sorted(set(lexicon.VOICE) | set(lexicon.TEXT) | set(lexicon.TEXT_NOUNS))
TYPES = ["human", "film", "country", "big city", "painting", "company"]


def test_the_lexicon_covers_the_common_properties():
    assert len(CURATED) >= 250
    assert set(lexicon.VOICE) == set(lexicon.TEXT) | set(lexicon.TEXT_NOUNS)


@pytest.mark.parametrize("key", sorted(lexicon.VOICE) + sorted(lexicon.VOICE_BY_KIND) +
                         sorted(lexicon.VOICE_QUALIFIED))
def test_three_different_questions_with_one_frame_at_most(key):
    table = lexicon.VOICE if isinstance(key, str) else (
        lexicon.VOICE_BY_KIND if key in lexicon.VOICE_BY_KIND else lexicon.VOICE_QUALIFIED)
    variants = table[key]
    assert len(set(variants)) == 3
    assert sum(bool(FRAME.search(v)) for v in variants) <= 1, variants
    for past in past_patterns(variants) if isinstance(key, str) or len(key) == 2 and \
            key[1] not in ("P580", "P582", "P585", "P453", "P1686") else ():
        assert not re.search(r"\b(is|are)\b", past), past


@pytest.mark.parametrize("label,kind", [
    ("heritage designation", "thing"), ("residence", "place"), ("relative", "person"),
    ("located in time zone", "thing"), ("owned by", "thing"), ("named after", "thing"),
    ("capital of", "place"), ("participant in", "thing"), ("follows", "thing"),
    ("shares border with", "place"), ("number of platform tracks", "count"),
    ("date of official opening", "time"), ("educated at", "place"),
])
def test_label_shaped_questions_rarely_say_do_you_know(label, kind):
    for variants in (voice_patterns(label, kind), past_patterns(voice_patterns(label, kind))):
        assert sum(bool(FRAME.search(v)) for v in variants) <= 1, variants


@pytest.mark.parametrize("pid", CURATED)
def test_every_curated_template_is_valid_and_text_never_pads(pid):
    labels = {"P27": "country of citizenship"}
    w = RulesWriter()
    for type_label in TYPES:
        for tense in ("present", "past"):
            fact = Fact("Q1", type_label, pid, labels.get(pid, "curated"), "wikibase-item",
                        tense=tense)
            for interaction in ("voice", "text"):
                for phen, variants in w.write(fact, interaction).items():
                    assert variants and len(set(variants)) == len(variants)
                    for text in variants:
                        assert validate(fact, interaction, phen, text) is None, (phen, text)
                        if interaction == "text":
                            assert not re.match(r"(and|so)\b", text), text
                            assert "[his] [" not in text and " of [him]" not in text or \
                                "[a]" in text, text


@pytest.mark.parametrize("pid,expected", [
    ("P2032", "when did [person] stop working?"), ("P937", "where did [person] work?"),
    ("P641", "what sport does [person] play?"), ("P57", "who directed [film]?"),
    ("P1619", "when did [person] open?"), ("P103", "what is [person]'s native language?"),
])
def test_short_direct_questions(pid, expected):
    subject = expected.split("[")[1].split("]")[0]
    fact = Fact("Q1", subject, pid, "x", "wikibase-item")
    assert RulesWriter().write(fact, "voice")["original"][0] == expected


def test_questions_by_kind_of_subject():
    w = RulesWriter()
    book = Fact("Q1", "novel", "P577", "publication date", "time")
    assert w.write(book, "voice")["original"][0] == "when was [novel] published?"
    case = Fact("Q1", "legal case", "P577", "publication date", "time")
    assert "decided" in w.write(case, "voice")["original"][0]


@pytest.mark.parametrize("subject_type", ["film", "novel", "painting", "album"])
def test_a_genre_query_fits_any_kind_of_work(subject_type):
    """"Cluny Brown music genre" "romantic comedy": a film's genre was searched as music."""
    fact = Fact("Q1", subject_type, "P136", "genre", "wikibase-item")
    written = RulesWriter().write(fact, "text")
    for q in written["original"] + written["deixis"]:
        assert "music" not in q, q


def test_deixis_in_search_queries_is_a_possessive(shared_data):
    """"[his] capital", never "capital of [him]" (filled "capital of this country")."""
    labels = json.loads((shared_data / "wikidata" / "property-labels-en.json").read_text())
    w = RulesWriter()
    for pid in sorted(set(lexicon.TEXT_NOUNS) | set(lexicon.TEXT)):
        fact = Fact("Q1", "country", pid, labels.get(pid, {}).get("label", "x"),
                    "wikibase-item")
        for q in w.write(fact, "text")["deixis"]:
            assert "[him]" not in q, q


@pytest.mark.parametrize("pid", ["P5822", "P61", "P1365"])
def test_a_question_reads_right_for_the_answers_it_has(pid):
    """"How many applicants does Oxford admit?" "0.175" (a rate), "Who found Brazil?" (read
    as "founded"), "What was replaced by the country?": no variant says these."""
    wrong = {"P5822": "how many", "P61": "who found ", "P1365": "was replaced by"}[pid]
    assert not any(wrong in v for v in lexicon.VOICE[pid]), lexicon.VOICE[pid]


def test_an_award_s_date_is_asked_when_and_a_measure_s_as_of_when():
    """"Paris Jackson awards" "as of when?" asked an award as if it were a population: an
    award or a nomination happened in a year; an amount was measured as of one."""
    for pid in ("P166", "P1411"):
        spoken, typed = lexicon.anaphoric_forms(pid, "P585", "past")
        assert not [f for f in spoken + typed if "as of" in f], (pid, spoken, typed)
    spoken, typed = lexicon.anaphoric_forms("P1082", "P585", "present")
    assert "as of when?" in typed


def test_a_search_query_says_a_noun_after_its():
    """"its year dissolved" (r65's raters: a stilted keyword fragment): the dissolution's
    queries name it with nouns, "its dissolution year"."""
    w = RulesWriter()
    fact = Fact("Q1", "country", "P576", "dissolved, abolished or demolished date", "time")
    queries = w.write(fact, "text")
    assert any("dissolution year" in q for q in queries["deixis"]), queries["deixis"]
    assert not any("year dissolved" in q for qs in queries.values() for q in qs), queries
