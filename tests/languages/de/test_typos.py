"""German typing slips (hypothesis): exactly one edit on one content word, never in a
protected span (a name or value filled in), German letters only, reproducible."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from convkgyarn.languages import Subject, language
from convkgyarn.languages.de.typos import STOP_WORDS, neighbours

de = language("de")
GERMAN_LETTERS = set("abcdefghijklmnopqrstuvwxyzäöüßABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜ")
words = st.sampled_from("Hauptstadt Einwohner Währung für Größe Staatsoberhaupt geboren "
                        "Regierungschef Amtssprache Kontinent wann welche die der Straße "
                        "Ehepartner ähm".split())
names = st.sampled_from(["Schweiz", "Vereinigtes Königreich", "Meryl Streep", "Malmö",
                         "Düsseldorf", "Pedro Pascal"])


@st.composite
def questions(draw):
    """A question with a name filled in from the KG somewhere in it."""
    before = draw(st.lists(words, min_size=0, max_size=5))
    after = draw(st.lists(words, min_size=0, max_size=5))
    template = " ".join(before + ["[S:nom]"] + after) + "?"
    return de.fill(template, Subject(draw(names), kind="country"))


@settings(max_examples=300, deadline=None)
@given(questions(), st.integers(0, 2**32))
def test_one_edit_outside_protected_spans(filled, seed):
    text, protected = filled.text, filled.protected
    typed, edit = de.typo(text, random.Random(seed), protected)
    if edit is None:
        assert typed == text
        assert all(w.lower() in STOP_WORDS or len(w) < 3 for w in
                   "".join(c if c.isalpha() else " " for c in text[:protected[0][0]] +
                           text[protected[0][1]:]).split())
        return
    assert typed != text and edit.apply(text) == typed
    assert text[edit.start:edit.start + len(edit.before)] == edit.before
    assert len(edit.before) >= 3
    assert edit.before.lower() not in STOP_WORDS or edit.operation == "umlaut"
    for start, end in protected:  # the name is untouched and where it was
        assert end <= edit.start or start >= edit.start + len(edit.before)
        shift = 0 if end <= edit.start else len(edit.after) - len(edit.before)
        assert typed[start + shift:end + shift] == text[start:end]
    assert set(edit.after) <= GERMAN_LETTERS
    assert edit.after[0] == edit.before[0] or edit.operation == "umlaut"
    assert abs(len(edit.after) - len(edit.before)) <= 1
    # reproducible from the generator
    assert de.typo(text, random.Random(seed), protected) == (typed, edit)


def test_short_words_lose_only_their_umlaut():
    for seed in range(30):
        typed, edit = de.typo("für Ihn", random.Random(seed))
        assert (typed, edit.operation) == ("fur Ihn", "umlaut")


def test_the_classic_slips():
    seen = {de.typo("Hauptstadt", random.Random(s))[0] for s in range(300)}
    assert "Hauptsadt" in seen  # a dropped letter
    assert "fur" in {de.typo("für", random.Random(s))[0] for s in range(50)}
    assert "Strase" in {de.typo("Straße", random.Random(s))[0] for s in range(50)}


def test_qwertz_neighbours():
    assert "z" in neighbours()["t"] and "y" not in neighbours()["t"]
    assert "ö" in neighbours()["l"] and "ä" in neighbours()["ö"]


def test_nothing_to_edit():
    text = "wer ist der"
    assert de.typo(text, random.Random(0)) == (text, None)
    filled = de.fill("[S:nom]?", Subject("Hauptstadt"))
    assert de.typo(filled.text, random.Random(0), filled.protected) == (filled.text, None)


def test_a_slip_never_makes_another_real_word_but_a_dropped_umlaut():
    from convkgyarn.text import real_word

    typed = {de.typo("Staat", random.Random(s))[0] for s in range(300)}
    assert "Saat" not in typed and "Stat" not in typed and len(typed) > 5
    assert all(not real_word(t.lower(), "de") for t in typed)
    assert "fur" in {de.typo("für", random.Random(s))[0] for s in range(50)}
