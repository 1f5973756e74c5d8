"""German templates filled for subjects: names with articles and cases, references by
the gender of their noun, possessives, plural subjects, every phrased property."""

from __future__ import annotations

import random
import re

import pytest

from convkgyarn.languages import Subject, language
from convkgyarn.languages.base import PLACEHOLDER

de = language("de")
GERMANY = Subject("Deutschland", kind="country", type_label="sovereign state")
SWITZERLAND = Subject("Schweiz", kind="country", type_label="sovereign state")
UK = Subject("Vereinigtes Königreich", kind="country", type_label="sovereign state")
RENNES = Subject("Rennes", kind="city", type_label="big city")
PEDRO = Subject("Pedro Pascal", human=True, gender="Q6581097", kind="person")
MERYL = Subject("Meryl Streep", human=True, gender="Q6581072", kind="person")
NOBODY = Subject("J. Doe", human=True, kind="person")
FILM = Subject("Titanic", kind="film", type_label="film")
OXFORD = Subject("Universität Oxford", kind="university", type_label="public university")
NETHERLANDS = Subject("Niederlande", kind="country", type_label="sovereign state")
KINDS = {"person": PEDRO, "country": GERMANY, "city": RENNES, "film": FILM,
         "university": OXFORD}


def fill(template, subject, reference=None, value=None):
    return de.fill(template, subject, reference, value).text


def test_capital_named_and_referred_to():
    t = "Was ist [S's:f.nom:Hauptstadt]?"
    assert fill(t, GERMANY) == "Was ist die Hauptstadt von Deutschland?"
    assert fill(t, SWITZERLAND) == "Was ist die Hauptstadt der Schweiz?"
    assert fill(t, UK) == "Was ist die Hauptstadt des Vereinigten Königreichs?"
    assert fill(t, GERMANY, "noun") == "Was ist die Hauptstadt des Landes?"
    assert fill(t, GERMANY, "pronoun") == "Was ist seine Hauptstadt?"
    assert fill(t, SWITZERLAND, "pronoun") == "Was ist ihre Hauptstadt?"  # die Schweiz
    assert fill(t, RENNES, "pronoun") == "Was ist ihre Hauptstadt?"  # die Stadt
    assert fill(t, RENNES, "noun") == "Was ist die Hauptstadt der Stadt?"


def test_possessives_agree_in_case_and_gender():
    spouse = "Wer ist [S's:m.nom:Ehepartner]?"
    assert fill(spouse, MERYL, "pronoun") == "Wer ist ihr Ehepartner?"
    assert fill(spouse, PEDRO, "pronoun") == "Wer ist sein Ehepartner?"
    assert fill("Kennst du [S's:m.akk:Ehepartner]?", MERYL, "pronoun") == \
        "Kennst du ihren Ehepartner?"
    assert fill("Wer steht an [S's:f.dat:Spitze]?", UK, "pronoun") == "Wer steht an seiner Spitze?"
    assert fill("Wer steht an [S's:f.dat:Spitze]?", UK) == \
        "Wer steht an der Spitze des Vereinigten Königreichs?"


def test_references_follow_the_gender_of_their_noun():
    t = "Wann wurde [S:nom] gegründet?"
    assert fill(t, RENNES, "pronoun") == "Wann wurde sie gegründet?"  # die Stadt
    assert fill(t, GERMANY, "pronoun") == "Wann wurde es gegründet?"  # das Land
    assert fill(t, FILM, "pronoun") == "Wann wurde er gegründet?"  # der Film
    assert fill(t, FILM, "noun") == "Wann wurde der Film gegründet?"
    assert fill(t, OXFORD, "noun") == "Wann wurde die Universität gegründet?"
    assert fill("Wo wurde [S:nom] geboren?", MERYL, "pronoun") == "Wo wurde sie geboren?"
    # a person of unknown gender is "die Person", never a guessed pronoun
    assert fill("Wo wurde [S:nom] geboren?", NOBODY, "pronoun") == "Wo wurde die Person geboren?"


def test_prepositions_contract_and_places_are_dort():
    t = "Wie viele Menschen leben [in:S]?"
    assert fill(t, UK) == "Wie viele Menschen leben im Vereinigten Königreich?"
    assert fill(t, SWITZERLAND) == "Wie viele Menschen leben in der Schweiz?"
    assert fill(t, GERMANY, "pronoun") == "Wie viele Menschen leben dort?"
    assert fill(t, GERMANY, "noun") == "Wie viele Menschen leben in dem Land?"
    assert fill("Wer spielt [in:S] mit?", FILM, "pronoun") == "Wer spielt darin mit?"
    assert fill("Wie viele Leute studieren [an:S]?", OXFORD, "pronoun") == \
        "Wie viele Leute studieren dort?"
    assert fill("Wer hat das Drehbuch [zu:S] geschrieben?", FILM, "pronoun") == \
        "Wer hat das Drehbuch dazu geschrieben?"


def test_a_plural_subject_takes_a_plural_verb():
    assert fill("Wie viele Einwohner {hat|hatte} [S:nom]?".replace("{hat|hatte}", "hat"),
                NETHERLANDS) == "Wie viele Einwohner haben die Niederlande?"
    assert fill("In welchem Staat befindet sich [S:nom]?", NETHERLANDS, "pronoun") == \
        "In welchem Staat befinden sie sich?"
    assert fill("In welchem Staat befindet sich [S:nom]?", RENNES, "pronoun") == \
        "In welchem Staat befindet sie sich?"
    assert fill("Wie viele Einwohner hat [S:nom]?", GERMANY) == \
        "Wie viele Einwohner hat Deutschland?"


def test_values_in_qualifier_questions():
    t = de.templates("P26", "P580", "present", "voice", "person")["deixis"][0]
    assert fill(t, MERYL, "pronoun", "Don Gummer") == \
        "Seit wann ist sie mit Don Gummer verheiratet?"
    t = de.templates("P26", "P580", "past", "voice", "person")["deixis"][0]
    assert fill(t, MERYL, "pronoun", "Don Gummer") == "Wann hat sie Don Gummer geheiratet?"
    t = "Wann hat [S:nom] [a:akk] bekommen?"
    assert fill(t, MERYL, "pronoun", Subject("Nobelpreis für Physik")) == \
        "Wann hat sie den Nobelpreis für Physik bekommen?"
    with pytest.raises(ValueError, match=r"\[a\]"):
        fill(t, MERYL)


def test_protected_spans_are_the_names():
    filled = de.fill("Was ist [S's:f.nom:Hauptstadt]?", SWITZERLAND)
    assert [filled.text[a:b] for a, b in filled.protected] == ["der Schweiz"]
    filled = de.fill("Seit wann ist [S:nom] mit [mit:a] verheiratet?", MERYL, None, "Don Gummer")
    assert [filled.text[a:b] for a, b in filled.protected] == ["Meryl Streep", "mit Don Gummer"]


PHENOMENA = {"voice": {"original", "deixis", "disfluencies", "deixis_disfluencies"},
             "text": {"original", "deixis"}}


@pytest.mark.parametrize("interaction", ["voice", "text"])
@pytest.mark.parametrize("tense", ["present", "past"])
def test_every_phrased_property_reads_for_every_kind(interaction, tense):
    """Every template of every phrased property fills without a placeholder left, for a
    person and things, named and referred to; spoken questions end in "?", start with a
    capital, and the three originals differ."""
    assert len(de.phrased()) >= 90
    for pid in sorted(de.phrased()):
        for kind, subject in KINDS.items():
            t = de.templates(pid, None, tense, interaction, kind)
            assert PHENOMENA[interaction] <= set(t), pid
            assert len(set(t["original"])) == 3, (pid, t["original"])
            for variants in t.values():
                for v in variants:
                    assert "{" not in v and "|" not in v, (pid, v)
                    for ref in (None, "pronoun", "noun"):
                        text = fill(v, subject, ref, "X")
                        assert not PLACEHOLDER.search(text) and "  " not in text, (pid, text)
                        if interaction == "voice":
                            assert text.endswith("?") and text[0].isupper(), (pid, text)


def test_qualifiers_of_terms_are_phrased_with_follow_ups():
    for pid in ("P6", "P35", "P26", "P39", "P54", "P108", "P69", "P166"):
        quals = ("P585",) if pid == "P166" else ("P580", "P582")
        for qid in quals:
            for interaction in ("voice", "text"):
                t = de.templates(pid, qid, "past", interaction, "person")
                assert t and t["ellipsis"], (pid, qid)
    assert de.templates("P26", "P580", "present", "voice", "person")["ellipsis"][0] == \
        "Seit wann ist das so?"
    assert de.templates("P26", "P580", "past", "voice", "person")["ellipsis"][0] == \
        "Wann hat das angefangen?"


def test_unphrased_property_is_none():
    assert de.templates("P9999999", None, "present", "voice", "person") is None
    assert de.templates("P26", "P123", "present", "voice", "person") is None


def test_ellipsis_and_disfluencies():
    t = de.templates("P36", None, "present", "voice", "country")
    assert fill(t["ellipsis"][0], GERMANY, "noun") == "Und die Hauptstadt? Weißt du die auch?"
    assert fill(t["ellipsis"][2], GERMANY, "pronoun") == "Und was ist mit seiner Hauptstadt?"
    for d in t["disfluencies"] + t["deixis_disfluencies"]:
        text = fill(d, GERMANY)
        assert re.search(r"\b(ähm|äh|also|hm|na ja|Ähm|Äh|Also|Hm|Na ja|Sag mal)\b", text), text
    # the same templates every time (seeded by the fact)
    assert t == de.templates("P36", None, "present", "voice", "country")


def test_typed_queries_are_keywords():
    t = de.templates("P36", None, "present", "text", "country")
    assert [fill(x, SWITZERLAND) for x in t["original"]] == [
        "Schweiz Hauptstadt", "Regierungssitz der Schweiz", "Schweiz Hauptort"]
    assert fill(t["deixis"][0], SWITZERLAND, "pronoun") == "Und ihre Hauptstadt?"


def test_transitions():
    rng = random.Random(3)
    out = de.with_transition("Wann wurde sie geboren?", rng)
    assert out.split(" ")[-3:] == ["wurde", "sie", "geboren?"]
    assert re.match(r"^(Okay, und|Gut,|Und|Also,) wann", out)


def test_default_references():
    assert de.default_reference(MERYL) == "pronoun"
    assert de.default_reference(NOBODY) == "noun"
    assert de.default_reference(GERMANY) == "noun"
    assert de.default_reference(Subject("Wasserstoff", kind="other")) is None


def test_a_woman_holds_a_role_under_its_feminine_name():
    t = de.templates("P6", "P580", "present", "voice", "city")["original"][0]
    mayor = Subject("Nathalie Appéré", human=True, gender="Q6581072")
    assert fill(t, RENNES, None, mayor) == \
        "Seit wann ist Nathalie Appéré die Bürgermeisterin von Rennes?"
    assert fill(t, RENNES, "noun", mayor) == \
        "Seit wann ist Nathalie Appéré die Bürgermeisterin der Stadt?"
    assert fill(t, RENNES, None, Subject("Jean Dupont", human=True, gender="Q6581097")) == \
        "Seit wann ist Jean Dupont der Bürgermeister von Rennes?"


def test_awards_and_typed_values():
    t = de.templates("P166", "P585", "past", "voice", "person")["original"][0]
    assert fill(t, MERYL, None, Subject("Oscar für die beste Hauptdarstellerin")) == \
        "Wann hat Meryl Streep den Oscar für die beste Hauptdarstellerin bekommen?"
    t = de.templates("P69", "P582", "past", "text", "person")["original"][0]
    assert fill(t, MERYL, None, Subject("Yale University")) == \
        "Meryl Streep Yale University Abschluss"  # a typed query names it bare
