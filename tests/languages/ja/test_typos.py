"""Japanese input-method slips (hypothesis): one homophone conversion among real words or
one kana slip, never in a name or value, in the same script."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from convkgyarn.languages import Subject, language
from convkgyarn.languages.ja.typos import KANA_SLIPS, homophones

ja = language("ja")
KANJI = re.compile(r"^[\u4e00-\u9fff々]+$")
TEMPLATES = [t for pid in sorted(ja.phrased())[:60]
             for t in ja.templates(pid, None, "present", "voice", "country")["original"]]
NAMES = ["ドイツ", "人口研究所", "通貨基金", "メリル・ストリープ", "東京"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(TEMPLATES), st.sampled_from(NAMES), st.integers(0, 2**32),
       st.sampled_from([None, "noun", "zero"]))
def test_one_slip_outside_names(template, name, seed, reference):
    filled = ja.fill(template, Subject(name, kind="country"), reference)
    text = filled.text
    typed, edit = ja.typo(text, random.Random(seed), filled.protected)
    if edit is None:
        assert typed == text
        return
    assert typed != text and edit.apply(text) == typed
    for start, end in filled.protected:  # never in the name, which stays in place
        assert end <= edit.start or start >= edit.start + len(edit.before)
    if edit.operation == "homophone":  # a real word read the same, kanji for kanji
        assert KANJI.match(edit.before) and KANJI.match(edit.after)
        assert edit.after in homophones().words and edit.before in homophones().words
        assert homophones().read(edit.before) == homophones().read(edit.after)
    else:
        assert edit.operation == "kana" and KANA_SLIPS[edit.before] == edit.after
    assert ja.typo(text, random.Random(seed), filled.protected) == (typed, edit)


def test_classic_homophones():
    seen = {ja.typo("ドイツの人口はどのくらいですか？", random.Random(s))[0] for s in range(40)}
    assert "ドイツの人工はどのくらいですか？" in seen
    seen = {ja.typo("フランスの通貨は何ですか？", random.Random(s))[0] for s in range(40)}
    assert "フランスの通過は何ですか？" in seen


def test_the_name_is_never_converted():
    filled = ja.fill("[S:の]首都はどこですか？", Subject("人口", kind="country"))
    for seed in range(50):
        typed, _ = ja.typo(filled.text, random.Random(seed), filled.protected)
        assert typed.startswith("人口の")
