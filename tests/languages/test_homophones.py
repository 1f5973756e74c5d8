"""Real words grouped by reading: what the Japanese and Chinese input-method typos choose
from."""

from __future__ import annotations

import random

from convkgyarn.languages.ja.typos import KANJI_RUN
from convkgyarn.languages.ja.typos import homophones as ja_homophones
from convkgyarn.languages.zh.typos import HAN_RUN
from convkgyarn.languages.zh.typos import homophones as zh_homophones


def test_japanese_words_read_alike():
    index = ja_homophones()
    assert "人工" in index.candidates("人口")  # じんこう
    assert "通過" in index.candidates("通貨")  # つうか
    assert index.read("首都") == "しゅと"
    assert all(index.read(w) == index.read("公開") for w in index.candidates("公開"))
    assert "人口" not in index.candidates("人口")


def test_chinese_words_read_alike_without_tones():
    index = zh_homophones()
    assert index.read("经济") == "jing ji"
    assert index.candidates("经济") and all(index.read(w) == "jing ji"
                                            for w in index.candidates("经济"))
    assert "首度" in index.candidates("首都")  # shou du: "capital" and "for the first time"


def test_spans_skip_protected_text_and_words_without_homophones():
    index = ja_homophones()
    text = "人口研究所の人口は？"
    spans = index.spans(text, ((0, 5),), KANJI_RUN)
    assert spans and all(start >= 5 for start, _ in spans)
    assert (6, "人口") in spans
    assert zh_homophones().spans("谁", (), HAN_RUN) == []  # one character: no word span


def test_a_slip_is_one_of_the_most_frequent_homophones():
    index = zh_homophones()
    for seed in range(20):
        typed, edit = index.slip("经济总量", random.Random(seed), (), HAN_RUN)
        if edit is not None and edit.before == "经济":
            assert edit.after in index.candidates("经济")[:3]
