"""Japanese typing slips: an input method's wrong conversion of a content word to a
homophone (人口 -> 人工, 通貨 -> 通過, 受賞 -> 授賞), or a kana slip (a voicing mark
added or lost: か/が, a small っ typed large)."""

from __future__ import annotations

import random
import re
from functools import cache

from convkgyarn.languages.base import Edit, overlaps
from convkgyarn.languages.homophones import HAN, Homophones

KANJI_RUN = re.compile(f"[{HAN}々]+")
KANJI_WORD = re.compile(f"[{HAN}々]{{2,4}}")
_VOICED = dict(zip("かきくけこさしすせそたちつてとはひふへほ",
               "がぎぐげござじずぜぞだぢづでどばびぶべぼ"))
KANA_SLIPS = {**_VOICED, **{v: k for k, v in _VOICED.items()}, "っ": "つ", "ゃ": "や",
              "ゅ": "ゆ", "ょ": "よ"}
# particles and endings a slip would make look like a grammar error, not a typo
FIXED = re.compile(r"ですか|ますか|でした|ました|です|ます|でしょう")


@cache
def _reader():
    import pykakasi

    kks = pykakasi.kakasi()
    return lambda w: "".join(part["hira"] for part in kks.convert(w))


@cache
def homophones() -> Homophones:
    return Homophones("ja", KANJI_WORD, _reader())


def add_typo(text: str, rng: random.Random, protected=()) -> tuple[str, Edit | None]:
    """One slip outside ``protected``: a homophone conversion when a word allows one (four
    times in five), else a kana slip."""
    if rng.random() < 0.8:
        typed, edit = homophones().slip(text, rng, protected, KANJI_RUN)
        if edit is not None:
            return typed, edit
    fixed = [m.span() for m in FIXED.finditer(text)]
    spots = [i for i, c in enumerate(text) if c in KANA_SLIPS and i > 0
             and not overlaps(i, i + 1, tuple(protected) + tuple(fixed))
             and "\u3040" <= text[i - 1] <= "\u309f"]  # inside a kana word, not its first kana
    if not spots:
        return homophones().slip(text, rng, protected, KANJI_RUN)
    i = rng.choice(spots)
    new = KANA_SLIPS[text[i]]
    return text[:i] + new + text[i + 1:], Edit("kana", text[i], new, i, i)
