"""German typing slips: one per query, on a content word (not a stop word, not a name or
value filled in): a dropped letter ("Hauptstadt" -> "Hauptsadt"), two letters swapped, a
neighbour on the German QWERTZ keyboard, or an umlaut or ß typed without its mark ("für"
-> "fur", "Größe" -> "Grose"), as people type on a keyboard set to another layout."""

from __future__ import annotations

import random
import re
from functools import cache

from convkgyarn.languages.base import Edit, overlaps
from convkgyarn.text import real_word

OPERATIONS = ("delete", "swap", "keyboard", "umlaut")
ROWS = ("1234567890ß", "qwertzuiopü", "asdfghjklöä", "yxcvbnm")
PLAIN = {"ä": "a", "ö": "o", "ü": "u", "ß": "s", "Ä": "A", "Ö": "O", "Ü": "U"}
STOP_WORDS = frozenset("""
der die das den dem des ein eine einer einem einen eines und oder aber in im an am auf aus
bei beim mit nach seit von vom zu zum zur für über unter um als wie wo wer was wann wen wem
wessen welche welcher welches welchem welchen ist sind war waren hat hatte haben hatten
wird wurde wurden es er sie ihn ihm ihr ihre ihren ihrem ihrer sein seine seinen seinem
seiner man sich noch schon auch nur nicht kein keine dort hier du dir dich mir mich ja
ähm äh hm also na sag mal okay gut nein
""".split())
_WORD = re.compile(r"[A-Za-zÄÖÜäöüß]+")


@cache
def neighbours() -> dict[str, str]:
    """Keys next to each key on a German QWERTZ keyboard (same row and the rows above and
    below, offset as the keys are)."""
    out: dict[str, str] = {}
    for r, row in enumerate(ROWS):
        for i, key in enumerate(row):
            near = set()
            for rr in (r - 1, r, r + 1):
                if 0 <= rr < len(ROWS):
                    for j in (i - 1, i, i + 1):
                        if 0 <= j < len(ROWS[rr]) and (rr, j) != (r, i):
                            near.add(ROWS[rr][j])
            out[key] = "".join(sorted(c for c in near if c.isalpha()))
    return out


def content_words(text: str, protected) -> list[re.Match]:
    """Words a slip may land on: content words of three letters or more, and short words
    with an umlaut or ß ("für", "über": only their mark is dropped), outside names."""
    return [m for m in _WORD.finditer(text) if len(m.group()) >= 3
            and (m.group().lower() not in STOP_WORDS or any(c in PLAIN for c in m.group()))
            and not overlaps(m.start(), m.end(), protected)]


def add_typo(text: str, rng: random.Random, protected=()) -> tuple[str, Edit | None]:
    words = content_words(text, protected)
    if not words:
        return text, None
    chosen = int(rng.random() * len(words))
    for word in words[chosen:] + words[:chosen]:
        done = _slip_in_word(text, word, rng)
        if done is not None:
            return done
    return text, None


def _slip_in_word(text: str, word: re.Match, rng: random.Random
                  ) -> tuple[str, Edit] | None:
    """One slip in ``word``; a slip that makes another real word ("Staat" -> "Saat") is
    passed over, except a dropped umlaut ("für" -> "fur"), the slip German readers see
    through most easily."""
    w, start = word.group(), word.start()
    first = int(rng.random() * len(OPERATIONS))
    umlauts = [i for i, c in enumerate(w) if c in PLAIN]
    order = OPERATIONS[first:] + OPERATIONS[:first]
    if w.lower() in STOP_WORDS:  # "für" -> "fur", nothing else
        order = ("umlaut",)
    elif umlauts and rng.random() < 0.6:  # a slip German typists make often
        order = ("umlaut",) + tuple(o for o in order if o != "umlaut")
    for op in order:
        edited, at = None, 0
        if op == "umlaut" and umlauts:
            at = rng.choice(umlauts)
            edited = w[:at] + PLAIN[w[at]] + w[at + 1:]
        elif op == "delete":
            at = rng.randrange(1, len(w))  # the first letter stays: the word is recognisable
            edited = w[:at] + w[at + 1:]
        elif op == "swap":
            spots = [i for i in range(1, len(w) - 1) if w[i].lower() != w[i + 1].lower()]
            if spots:
                at = rng.choice(spots)
                edited = w[:at] + w[at + 1] + w[at] + w[at + 2:]
        elif op == "keyboard":
            spots = [i for i in range(1, len(w)) if neighbours().get(w[i].lower())]
            if spots:
                at = rng.choice(spots)
                new = rng.choice(neighbours()[w[at].lower()])
                edited = w[:at] + (new.upper() if w[at].isupper() else new) + w[at + 1:]
        if edited is not None and edited != w and (
                op == "umlaut" or not real_word(edited.lower(), "de")):
            return (text[:start] + edited + text[word.end():],
                    Edit(op, w, edited, start + at, start))
    return None
