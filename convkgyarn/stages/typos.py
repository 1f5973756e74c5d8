"""One meaningful typo per query, as the paper's three TextAttack edits: delete a character,
swap two neighbouring characters, or replace a character by a QWERTY neighbour.

The edit lands on a content word (not a stop word, not text filled in from the KG),
keeps punctuation and casing, never makes another real word ("seat" -> "sea": the query
would ask something else), and is reproducible from the random generator given.
QWERTY neighbours come from nlpaug's keyboard model.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import cache

from convkgyarn.text import STOP_WORDS, real_word

OPERATIONS = ("delete", "swap", "qwerty")
_WORD = re.compile(r"[A-Za-z]+")


@dataclass(frozen=True)
class Typo:
    operation: str
    word: str
    position: int  # index in the text of the edited character


@cache
def _neighbours() -> dict[str, list[str]]:
    """nlpaug's English QWERTY map, read from its resource file (importing nlpaug itself
    would pull in pandas and more, seconds of start-up for one table)."""
    import importlib.util
    import json
    from pathlib import Path

    spec = importlib.util.find_spec("nlpaug")
    if spec is None or spec.origin is None:
        raise RuntimeError("nlpaug is not installed: it provides the QWERTY neighbour map")
    path = Path(spec.origin).parent / "res" / "char" / "keyboard" / "en.json"
    model = json.loads(path.read_text(encoding="utf-8"))
    return {k: [c for c in v if c.isalpha() and c.islower() and c != k] for k, v in model.items()
            if k.isalpha() and k.islower()}


def content_words(text: str, protected: list[tuple[int, int]] = ()) -> list[re.Match]:
    """Words a typo may touch: at least 3 letters, not stop words, outside protected spans."""
    out = []
    for m in _WORD.finditer(text):
        if len(m.group()) < 3 or m.group().lower() in STOP_WORDS:
            continue
        if any(m.start() < end and start < m.end() for start, end in protected):
            continue
        out.append(m)
    return out


def add_typo(text: str, rng: random.Random,
             protected: list[tuple[int, int]] = ()) -> tuple[str, Typo | None]:
    """Return the text with exactly one typo, or unchanged (None) if no content word exists."""
    return typo_in(text, content_words(text, protected), rng)


def typo_in(text: str, words: list[re.Match], rng: random.Random) -> tuple[str, Typo | None]:
    """One typo in one of the given content words of ``text`` (see ``content_words``).

    An edit that makes another real word ("seat" -> "sea") is not a typo a reader sees
    through: the next operation is tried, then the next word; None if every edit of every
    word makes a real word."""
    if not words:
        return text, None
    chosen = int(rng.random() * len(words))
    for word in words[chosen:] + words[:chosen]:
        edited = _typo_in_word(word.group(), rng)
        if edited is not None:
            new, op, i = edited
            return (text[:word.start()] + new + text[word.end():],
                    Typo(op, word.group(), word.start() + i))
    return text, None


def _typo_in_word(w: str, rng: random.Random) -> tuple[str, str, int] | None:
    """``w`` with one edit that is no real word, the operation and the edited index; the
    operations are tried from a random one on."""
    first = int(rng.random() * len(OPERATIONS))
    for op in OPERATIONS[first:] + OPERATIONS[:first]:
        c = None
        if op == "delete":
            i = rng.randrange(1, len(w))  # keep the first letter: the word stays recognisable
        elif op == "swap":
            spots = _swap_spots(w)
            if not spots:
                continue
            i = rng.choice(spots)
        else:  # qwerty
            spots = [i for i in range(1, len(w)) if _neighbours().get(w[i].lower())]
            if not spots:
                continue
            i = rng.choice(spots)
            c = rng.choice(_neighbours()[w[i].lower()])
        new = _edited(w, op, i, c)
        if not real_word(new.lower()):
            return new, op, i
    # each random edit made a word ("cast": "cat", "cats", "vast"): every other edit in
    # order, with no more draws (what the random ones found stays as it was)
    swaps = set(_swap_spots(w))
    for i in range(1, len(w)):
        for op, c in (("delete", None), *((("swap", None),) if i in swaps else ()),
                      *(("qwerty", c) for c in _neighbours().get(w[i].lower(), ()))):
            new = _edited(w, op, i, c)
            if not real_word(new.lower()):
                return new, op, i
    return None


def _swap_spots(w: str) -> list[int]:
    """Where two letters can trade places (never the first letter, never a doubled one)."""
    return [i for i in range(1, len(w) - 1) if w[i].lower() != w[i + 1].lower()]


def _edited(w: str, op: str, i: int, c: str | None = None) -> str:
    """``w`` with one edit at ``i``: a letter deleted, two swapped, or one struck as its
    keyboard neighbour ``c``."""
    if op == "delete":
        return w[:i] + w[i + 1:]
    if op == "swap":
        return w[:i] + w[i + 1] + w[i] + w[i + 2:]
    return w[:i] + (c.upper() if w[i].isupper() else c) + w[i + 1:]
