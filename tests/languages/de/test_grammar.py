"""German names with their articles and cases, plural verbs."""

from __future__ import annotations

import pytest

from convkgyarn.languages.de.grammar import declined, name, plural_verb, possessive


@pytest.mark.parametrize("label,nom,dat,gen,in_", [
    ("Deutschland", "Deutschland", "Deutschland", "Deutschlands", "in Deutschland"),
    ("Schweiz", "die Schweiz", "der Schweiz", "der Schweiz", "in der Schweiz"),
    ("Irak", "der Irak", "dem Irak", "des Irak", "im Irak"),
    ("Vereinigtes Königreich", "das Vereinigte Königreich", "dem Vereinigten Königreich",
     "des Vereinigten Königreichs", "im Vereinigten Königreich"),
    ("Vereinigte Arabische Emirate", "die Vereinigten Arabischen Emirate",
     "den Vereinigten Arabischen Emiraten", "der Vereinigten Arabischen Emirate",
     "in den Vereinigten Arabischen Emiraten"),
    ("Niederlande", "die Niederlande", "den Niederlanden", "der Niederlande",
     "in den Niederlanden"),
    ("USA", "die USA", "den USA", "der USA", "in den USA"),
    ("Universität Oxford", "die Universität Oxford", "der Universität Oxford",
     "der Universität Oxford", "in der Universität Oxford"),
    ("Technische Universität München", "die Technische Universität München",
     "der Technischen Universität München", "der Technischen Universität München",
     "in der Technischen Universität München"),
    ("Harvard University", "die Harvard University", "der Harvard University",
     "der Harvard University", "in der Harvard University"),
    ("Kölner Dom", "der Kölner Dom", "dem Kölner Dom", "des Kölner Doms", "im Kölner Dom"),
    ("Weimarer Republik", "die Weimarer Republik", "der Weimarer Republik",
     "der Weimarer Republik", "in der Weimarer Republik"),
    ("Heiliges Römisches Reich", "das Heilige Römische Reich", "dem Heiligen Römischen Reich",
     "des Heiligen Römischen Reichs", "im Heiligen Römischen Reich"),
    ("Nobelpreis für Physik", "der Nobelpreis für Physik", "dem Nobelpreis für Physik",
     "des Nobelpreises für Physik", "im Nobelpreis für Physik"),
    ("Rennes", "Rennes", "Rennes", "Rennes'", "in Rennes"),
    ("Frankreich", "Frankreich", "Frankreich", "Frankreichs", "in Frankreich"),
    ("Hamburg", "Hamburg", "Hamburg", "Hamburgs", "in Hamburg"),
])
def test_names_in_every_case(label, nom, dat, gen, in_):
    n = name(label)
    assert (n.phrase("nom"), n.phrase("dat"), n.phrase("gen"), n.after("in")) == \
        (nom, dat, gen, in_)


def test_people_never_take_an_article():
    assert name("Pedro Pascal", human=True).phrase("dat") == "Pedro Pascal"
    assert name("Schweiz", human=True).phrase("nom") == "Schweiz"


def test_contractions():
    assert name("Vereinigtes Königreich").after("von") == "vom Vereinigten Königreich"
    assert name("Universität Oxford").after("zu") == "zur Universität Oxford"
    assert name("Irak").after("zu") == "zum Irak"


@pytest.mark.parametrize("singular,plural", [
    ("hat", "haben"), ("ist", "sind"), ("liegt", "liegen"), ("gehörte", "gehörten"),
    ("befindet", "befinden"), ("lag", "lagen"), ("Hat", "Haben"), ("wurde", "wurden"),
    ("grenzt", "grenzen"), ("spricht", "sprechen"), ("dauert", "dauern"),
    ("arbeitete", "arbeiteten"), ("entstand", "entstanden"),
    ("haben", "haben"), ("wann", "wann")])  # not a singular verb: as it is
def test_plural_verbs(singular, plural):
    assert plural_verb(singular) == plural


def test_possessives_agree_with_the_possessed_noun():
    assert possessive("m", "f", "nom") == "seine"
    assert possessive("f", "m", "akk") == "ihren"
    assert possessive("n", "m", "dat") == "seinem"
    assert possessive("pl", "pl", "nom") == "ihre"
    assert possessive("f", "n", "nom") == "ihr"


@pytest.mark.parametrize("noun,gender,case,after,said", [
    ("höchste Erhebung", "f", "dat", "article", "höchsten Erhebung"),
    ("höchste Erhebung", "f", "nom", "article", "höchste Erhebung"),
    ("politische Ämter", "pl", "nom", "article", "politischen Ämter"),
    ("politische Ämter", "pl", "dat", "possessive", "politischen Ämtern"),
    ("höchste Berg", "m", "nom", "possessive", "höchster Berg"),
    ("Ämter", "pl", "dat", "article", "Ämtern"),
    ("Eltern", "pl", "dat", "article", "Eltern"),
    ("Hauptstadt", "f", "dat", "article", "Hauptstadt"),
])
def test_owned_nouns_are_declined(noun, gender, case, after, said):
    assert declined(noun, gender, case, after) == said


def test_follow_ups_decline_what_they_ask_about():
    from convkgyarn.languages import Subject, language

    de = language("de")
    spoken = de.templates("P1589", None, "present", "voice", "country")["ellipsis"]
    assert "Und wie ist es mit der tiefsten Stelle?" in spoken
    typed = de.templates("P39", None, "present", "text", "person")["ellipsis"]
    assert typed[0] == "und was ist mit den Ämtern?"
    schweiz = Subject("Schweiz", kind="country")
    assert de.fill("Was ist mit [S's:f.dat:höchste Erhebung]?", schweiz).text == \
        "Was ist mit der höchsten Erhebung der Schweiz?"
    assert de.fill("[S's:pl.nom:politische Ämter]", schweiz, "pronoun").text == \
        "ihre politischen Ämter"
