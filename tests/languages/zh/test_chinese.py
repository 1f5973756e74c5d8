"""Chinese templates: no spaces, pronouns 他/她/它, references with their measure words,
zero references at the start, every phrased property fills cleanly."""

from __future__ import annotations

import pytest

from convkgyarn.languages import Subject, language
from convkgyarn.languages.base import PLACEHOLDER

zh = language("zh")
GERMANY = Subject("德国", kind="country", type_label="sovereign state")
RENNES = Subject("雷恩", kind="city", type_label="big city")
MERYL = Subject("梅丽尔·斯特里普", human=True, gender="Q6581072", kind="person")
PEDRO = Subject("佩德罗·帕斯卡", human=True, gender="Q6581097", kind="person")
FILM = Subject("泰坦尼克号", kind="film", type_label="film")
OXFORD = Subject("牛津大学", kind="university", type_label="public university")
KINDS = {"person": MERYL, "country": GERMANY, "city": RENNES, "film": FILM,
         "university": OXFORD}


def fill(template, subject, reference=None, value=None):
    return zh.fill(template, subject, reference, value).text


def test_measure_words():
    t = zh.templates("P571", None, "present", "voice", "city")["original"][0]
    assert fill(t, RENNES, "noun") == "这座城市是什么时候建立的？"
    assert fill("[S的]导演是谁？", FILM, "noun") == "这部电影的导演是谁？"
    assert fill("[S]有多少学生？", OXFORD, "noun") == "这所大学有多少学生？"
    assert fill("[S的]首都是哪里？", GERMANY, "noun") == "这个国家的首都是哪里？"
    assert fill("[S]是谁唱的？", Subject("月亮代表我的心", kind="music"), "noun") == \
        "这首歌是谁唱的？"
    assert fill("[S]是谁写的？", Subject("红楼梦", kind="book"), "noun") == "这本书是谁写的？"
    assert fill("[S]是谁创立的？", Subject("华为", kind="company"), "noun") == \
        "这家公司是谁创立的？"


def test_pronouns_and_zero():
    t = "[S]是什么时候出生的？"
    assert fill(t, MERYL, "pronoun") == "她是什么时候出生的？"
    assert fill(t, PEDRO, "pronoun") == "他是什么时候出生的？"
    assert fill(t, GERMANY, "pronoun") == "它是什么时候出生的？"
    assert fill(t, MERYL, "zero") == "是什么时候出生的？"
    assert fill("[S的]首都是哪里？", GERMANY, "zero") == "首都是哪里？"
    # [S] inside the question is not left out: the reference a speaker uses instead
    assert fill("谁执导了[S]？", FILM, "zero") == "谁执导了这部电影？"
    assert zh.default_reference(MERYL) == "pronoun"
    assert zh.default_reference(Subject("某人", human=True)) == "noun"


def test_no_spaces_and_tense():
    for pid in zh.phrased():
        for tense in ("present", "past"):
            for q in zh.templates(pid, None, tense, "voice", "country")["original"]:
                text = fill(q, GERMANY)
                assert " " not in text and text.endswith("？"), text
    assert fill(zh.templates("P35", None, "past", "voice", "country")["original"][0],
                GERMANY) == "德国的国家元首曾是谁？"


def test_qualifier_questions():
    t = zh.templates("P26", "P580", "present", "voice", "person")
    assert fill(t["original"][0], MERYL, value="唐·加默") == \
        "梅丽尔·斯特里普和唐·加默是什么时候结婚的？"
    assert fill(t["original"][0], MERYL, "zero", "唐·加默") == "和唐·加默是什么时候结婚的？"
    assert t["ellipsis"][0] == "从什么时候开始？"
    for pid in ("P6", "P35", "P26", "P39", "P54", "P108", "P69", "P166"):
        for qid in (("P585",) if pid == "P166" else ("P580", "P582")):
            assert zh.templates(pid, qid, "past", "voice", "person"), (pid, qid)


def test_typed_queries():
    t = zh.templates("P36", None, "present", "text", "country")
    assert [fill(x, GERMANY) for x in t["original"]] == ["德国首都", "德国的首都名称",
                                                         "德国首都是哪里"]
    assert fill(t["deixis"][1], GERMANY, "noun") == "那首都名称呢"


@pytest.mark.parametrize("interaction", ["voice", "text"])
@pytest.mark.parametrize("tense", ["present", "past"])
def test_every_phrased_property_fills(interaction, tense):
    assert len(zh.phrased()) >= 90
    for pid in sorted(zh.phrased()):
        for kind, subject in KINDS.items():
            t = zh.templates(pid, None, tense, interaction, kind)
            assert len(set(t["original"])) == 3, pid
            for variants in t.values():
                for v in variants:
                    for ref in (None, "pronoun", "noun", "zero"):
                        text = fill(v, subject, ref, "X")
                        assert not PLACEHOLDER.search(text) and " " not in text, text
                        assert not text.startswith("的"), text


def test_disfluencies():
    t = zh.templates("P36", None, "present", "voice", "country")
    for d in t["disfluencies"]:
        assert any(f in d for f in ("嗯", "那个", "呃", "就是", "不对")), d


def test_a_restart_never_cuts_a_placeholder():
    """"在[，就是，在[S]之前..." was a restart of the first two characters of a question
    that starts with one character and a placeholder: it repeats "在" now."""
    from convkgyarn.languages.base import PLACEHOLDER

    for pid in sorted(zh.phrased()):
        for kind in ("person", "film", "country"):
            t = zh.templates(pid, None, "past", "voice", kind)
            for text in t["disfluencies"] + t["deixis_disfluencies"]:
                rest = PLACEHOLDER.sub("", text)
                assert "[" not in rest and "]" not in rest, (pid, text)
    restarts = [d for d in zh.templates("P155", None, "present", "voice", "person")[
        "deixis_disfluencies"] if d.startswith("在，")]
    assert restarts == ["在，就是，在[S]之前的是什么？"]
