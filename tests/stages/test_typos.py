"""Property-based tests of the typo transform: exactly one paper edit, in a content word."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from convkgyarn.stages.typos import _neighbours, add_typo, content_words
from convkgyarn.text import real_word

WORDS = st.sampled_from(
    "the capital of france birthday actor director spouse when population genre awards "
    "married Obama Liverpool cast runtime is of a film series".split())


def classify(src: str, dst: str) -> tuple[str, int] | None:
    """Which single edit turns src into dst (independent of the implementation)."""
    if len(dst) == len(src) - 1:
        for i in range(len(src)):
            if src[:i] + src[i + 1:] == dst:
                return "delete", i
    if len(dst) == len(src):
        diff = [i for i in range(len(src)) if src[i] != dst[i]]
        if len(diff) == 2 and diff[1] == diff[0] + 1 and src[diff[0]] == dst[diff[1]] \
                and src[diff[1]] == dst[diff[0]]:
            return "swap", diff[0]
        if len(diff) == 1:
            i = diff[0]
            if dst[i].lower() in _neighbours().get(src[i].lower(), []):
                return "qwerty", i
    return None


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, min_size=1, max_size=8), st.integers(0, 2**32), st.booleans())
@example(words=["cast"], seed=5, question_mark=False)  # each random edit made a word
def test_exactly_one_edit_in_a_content_word(words, seed, question_mark):
    text = " ".join(words) + ("?" if question_mark else "")
    out, typo = add_typo(text, random.Random(seed))
    if not content_words(text):
        assert out == text and typo is None
        return
    kind = classify(text, out)
    assert kind is not None, (text, out)
    op, pos = kind
    hit = [m for m in content_words(text) if m.start() <= pos < m.end()]
    assert hit, (text, out)  # inside a content word, not a stop word
    edited = out[hit[0].start():hit[0].end() + len(out) - len(text)]
    assert not real_word(edited.lower()), (text, out)  # a reader sees it is a slip
    assert out.endswith("?") == question_mark  # punctuation kept


@settings(deadline=None)
@given(st.integers(0, 2**32))
def test_protected_spans_are_never_touched_and_edits_are_reproducible(seed):
    text = "birth date of Barack Obama"
    protected = [(14, 26)]
    out, typo = add_typo(text, random.Random(seed), protected)
    assert out.endswith("Barack Obama")
    assert add_typo(text, random.Random(seed), protected) == (out, typo)


def test_casing_is_kept():
    for seed in range(50):
        out, typo = add_typo("Liverpool Population", random.Random(seed))
        assert out[0] == "L" and out.split()[1][0] == "P"


def test_a_typo_never_makes_another_real_word():
    """"Laos sea of government" and "county of Nizhny Novgorod" asked something else: the
    reader, and a model, would take the slip at its word."""
    for text, real in (("Laos seat of government", "sea"), ("country of Nizhny", "county"),
                       ("What form of government", "from"), ("cast member", "cat")):
        outs = {add_typo(text, random.Random(seed))[0] for seed in range(300)}
        assert len(outs) > 10
        for out in outs:
            assert not any(real_word(w.lower()) and w.lower() not in text.lower().split()
                           for w in out.split()), out
        assert not any(real in out.lower().split() for out in outs)

