"""Japanese templates: particles in the templates, zero references, その国-style nouns,
polite spoken questions, keyword queries; every phrased property fills cleanly."""

from __future__ import annotations

import re

import pytest

from convkgyarn.languages import Subject, language
from convkgyarn.languages.base import PLACEHOLDER

ja = language("ja")
GERMANY = Subject("ドイツ", kind="country", type_label="sovereign state")
RENNES = Subject("レンヌ", kind="city", type_label="big city")
MERYL = Subject("メリル・ストリープ", human=True, gender="Q6581072", kind="person")
PEDRO = Subject("ペドロ・パスカル", human=True, gender="Q6581097", kind="person")
FILM = Subject("タイタニック", kind="film", type_label="film")
OXFORD = Subject("オックスフォード大学", kind="university", type_label="public university")
KINDS = {"person": MERYL, "country": GERMANY, "city": RENNES, "film": FILM,
         "university": OXFORD}


def fill(template, subject, reference=None, value=None):
    return ja.fill(template, subject, reference, value).text


def test_particles_go_with_the_subject():
    t = ja.templates("P36", None, "present", "voice", "country")["original"][0]
    assert fill(t, GERMANY) == "ドイツの首都はどこですか？"
    assert fill(t, GERMANY, "noun") == "その国の首都はどこですか？"
    assert fill(t, GERMANY, "zero") == "首都はどこですか？"  # the particle goes too
    t = ja.templates("P569", None, "present", "voice", "person")["original"][0]
    assert fill(t, MERYL) == "メリル・ストリープはいつ生まれましたか？"
    assert fill(t, MERYL, "zero") == "いつ生まれましたか？"
    assert fill(t, MERYL, "pronoun") == "彼女はいつ生まれましたか？"
    assert fill(t, PEDRO, "pronoun") == "彼はいつ生まれましたか？"
    assert fill("[S:は]いつ生まれましたか？", Subject("X", human=True), "pronoun") == \
        "その人はいつ生まれましたか？"


def test_references():
    assert ja.default_reference(MERYL) == "zero"
    assert ja.default_reference(GERMANY) == "noun"
    assert fill("[S:の]人口は？", RENNES, "noun") == "その都市の人口は？"
    assert fill("[S:の]監督は誰ですか？", FILM, "noun") == "その映画の監督は誰ですか？"
    assert fill("[S:の]学生数は？", OXFORD, "noun") == "その大学の学生数は？"
    river = Subject("ライン川", kind="natural", type_label="river")
    assert fill("[S:の]長さは？", river, "noun") == "その川の長さは？"


def test_tense_and_politeness():
    present = ja.templates("P36", None, "present", "voice", "country")["original"]
    past = ja.templates("P36", None, "past", "voice", "country")["original"]
    assert present[0].endswith("ですか？") and past[0].endswith("でしたか？")
    for pid in ja.phrased():
        for q in ja.templates(pid, None, "present", "voice", "person")["original"]:
            assert re.search(r"(です|ます|でした|ました)か？$", q), q


def test_qualifier_follow_ups():
    t = ja.templates("P26", "P580", "present", "voice", "person")
    assert t["ellipsis"][0] == "いつからですか？"
    assert fill(t["original"][0], MERYL, value="ドン・ガマー") == \
        "メリル・ストリープはいつドン・ガマーと結婚しましたか？"
    assert fill(t["original"][0], MERYL, "zero",
                "ドン・ガマー") == "いつドン・ガマーと結婚しましたか？"
    for pid in ("P6", "P35", "P26", "P39", "P54", "P108", "P69", "P166"):
        for qid in (("P585",) if pid == "P166" else ("P580", "P582")):
            assert ja.templates(pid, qid, "past", "text", "person"), (pid, qid)


def test_typed_queries_are_keywords():
    t = ja.templates("P36", None, "present", "text", "country")
    assert [fill(x, GERMANY) for x in t["original"]] == ["ドイツの首都", "ドイツ 首府",
                                                         "ドイツ 首都 どこ"]
    assert fill(t["deixis"][0], GERMANY, "zero") == "首都は？"


@pytest.mark.parametrize("interaction", ["voice", "text"])
@pytest.mark.parametrize("tense", ["present", "past"])
def test_every_phrased_property_fills(interaction, tense):
    assert len(ja.phrased()) >= 90
    for pid in sorted(ja.phrased()):
        for kind, subject in KINDS.items():
            t = ja.templates(pid, None, tense, interaction, kind)
            assert len(set(t["original"])) == 3, pid
            for variants in t.values():
                for v in variants:
                    assert "{" not in v, v
                    for ref in (None, "pronoun", "noun", "zero"):
                        text = fill(v, subject, ref, "X")
                        assert not PLACEHOLDER.search(text) and text.strip() == text, text
                        assert "  " not in text and text, (pid, v, ref)


def test_disfluencies():
    t = ja.templates("P36", None, "present", "voice", "country")
    for d in t["disfluencies"] + t["deixis_disfluencies"]:
        assert any(f in d for f in ("えっと", "あの", "えー", "うーん", "あのー", "いや")), d
    assert t == ja.templates("P36", None, "present", "voice", "country")
