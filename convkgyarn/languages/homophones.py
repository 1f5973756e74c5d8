"""Input-method slips for Japanese and Chinese: a content word converted to another real
word with the same reading (人口 -> 人工, 通貨 -> 通過; 首都 shoudu -> 手都 is no word, so it
is never offered). Candidates come from a frequency list of real words (``wordfreq``)
grouped by reading: Japanese readings from ``pykakasi``'s dictionary, Chinese pinyin
without tones from ``pypinyin`` (an input method ignores tones). The most frequent
homophones come first, as an input method offers them.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable

from convkgyarn.languages.base import Edit, overlaps

HAN = "\u4e00-\u9fff"


class Homophones:
    """Words of one language grouped by reading, and the slips they allow."""

    def __init__(self, lang: str, word: re.Pattern, read: Callable[[str], str],
                 limit: int = 40000) -> None:
        import wordfreq

        self.word = word
        self.read = read
        self.by_reading: dict[str, list[str]] = defaultdict(list)
        self.words: set[str] = set()
        count = 0
        for bucket in wordfreq.get_frequency_list(lang):
            for w in bucket:
                count += 1
                if count > limit:
                    break
                if word.fullmatch(w):
                    self.words.add(w)
                    self.by_reading[read(w)].append(w)

    def candidates(self, w: str) -> list[str]:
        """Other real words read like ``w``, most frequent first."""
        return [o for o in self.by_reading.get(self.read(w), ()) if o != w]

    def spans(self, text: str, protected, runs: re.Pattern,
              sizes: tuple[int, ...] = (2, 3, 4)) -> list[tuple[int, str]]:
        """Words of ``text`` (outside ``protected``) that have homophones: each run of
        ideographs, and the words of those sizes inside a longer run."""
        out = []
        for m in runs.finditer(text):
            run = m.group()
            for size in sorted({len(run), *sizes}, reverse=True):
                for i in range(0, len(run) - size + 1):
                    w = run[i:i + size]
                    start = m.start() + i
                    if w in self.words and not overlaps(start, start + size, protected) \
                            and self.candidates(w):
                        out.append((start, w))
        return out

    def slip(self, text: str, rng: random.Random, protected, runs: re.Pattern
             ) -> tuple[str, Edit | None]:
        spans = self.spans(text, protected, runs)
        if not spans:
            return text, None
        start, w = spans[int(rng.random() * len(spans))]
        new = rng.choice(self.candidates(w)[:3])
        first = next(i for i, (a, b) in enumerate(zip(w, new)) if a != b) \
            if any(a != b for a, b in zip(w, new)) else min(len(w), len(new))
        return (text[:start] + new + text[start + len(w):],
                Edit("homophone", w, new, start + first, start))
