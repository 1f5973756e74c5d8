"""Chinese typing slips: a pinyin input method's wrong candidate for a word read the same
without tones (经济 -> 经纪, 首都 -> 首度), from real words
(``wordfreq``) grouped by ``pypinyin``; or a classic single-character confusion of the
same reading (在/再, 的/得, 那/哪)."""

from __future__ import annotations

import random
import re
from functools import cache

from convkgyarn.languages.base import Edit, overlaps
from convkgyarn.languages.homophones import HAN, Homophones

HAN_RUN = re.compile(f"[{HAN}]+")
HAN_WORD = re.compile(f"[{HAN}]{{2,4}}")
# characters typists swap for another of the same reading (each pair checked by pypinyin)
CLASSIC = {"在": "再", "再": "在", "的": "得", "得": "的", "那": "哪", "哪": "那", "做": "作",
           "作": "做", "已": "以", "以": "已", "像": "象"}


def _toneless(word: str) -> str:
    from pypinyin import lazy_pinyin

    return " ".join(lazy_pinyin(word))


@cache
def homophones() -> Homophones:
    return Homophones("zh", HAN_WORD, _toneless)


def add_typo(text: str, rng: random.Random, protected=()) -> tuple[str, Edit | None]:
    """One slip outside ``protected``: a wrong word candidate when one exists (four times
    in five), else a classic single-character confusion."""
    if rng.random() < 0.8:
        typed, edit = homophones().slip(text, rng, protected, HAN_RUN)
        if edit is not None:
            return typed, edit
    spots = [i for i, c in enumerate(text) if c in CLASSIC
             and not overlaps(i, i + 1, tuple(protected))
             and _toneless(c) == _toneless(CLASSIC[c])]
    if not spots:
        return homophones().slip(text, rng, protected, HAN_RUN)
    i = rng.choice(spots)
    return text[:i] + CLASSIC[text[i]] + text[i + 1:], Edit("character", text[i],
                                                            CLASSIC[text[i]], i, i)
