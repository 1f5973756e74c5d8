"""Chinese input-method slips (hypothesis): a wrong candidate with the same toneless
pinyin among real words, or a classic same-reading character, never in a name or value;
Han characters stay Han characters."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from pypinyin import lazy_pinyin

from convkgyarn.languages import Subject, language
from convkgyarn.languages.zh.typos import homophones

zh = language("zh")
HAN = re.compile(r"^[\u4e00-\u9fff]+$")
TEMPLATES = [t for pid in sorted(zh.phrased())[:60]
             for t in zh.templates(pid, None, "present", "voice", "country")["original"]]
NAMES = ["德国", "经济研究所", "公式大学", "梅丽尔·斯特里普", "北京"]


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(TEMPLATES), st.sampled_from(NAMES), st.integers(0, 2**32),
       st.sampled_from([None, "noun", "pronoun"]))
def test_one_slip_outside_names(template, name, seed, reference):
    filled = zh.fill(template, Subject(name, kind="country"), reference)
    text = filled.text
    typed, edit = zh.typo(text, random.Random(seed), filled.protected)
    if edit is None:
        assert typed == text
        return
    assert typed != text and edit.apply(text) == typed
    for start, end in filled.protected:
        assert end <= edit.start or start >= edit.start + len(edit.before)
    assert HAN.match(edit.before) and HAN.match(edit.after)
    assert lazy_pinyin(edit.before) == lazy_pinyin(edit.after)  # same reading, no tones
    if edit.operation == "homophone":
        assert edit.after in homophones().words
    assert zh.typo(text, random.Random(seed), filled.protected) == (typed, edit)
    assert " " not in typed


def test_a_wrong_candidate_is_a_real_word():
    seen = {zh.typo("这个国家的经济总量有多大？", random.Random(s))[1].after
            for s in range(60)}
    assert seen & {"经纪", "京畿", "经济"} - {"经济"}
