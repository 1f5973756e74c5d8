"""Chinese (Simplified): no spaces; a subject is named, 他/她/它, or "这个国家"-style with
the measure word its noun takes (这座城市, 这部电影, 这所大学, 这家公司, 这本书, 这首歌);
a follow-up may leave it out (``[S]`` at the start, ``[S的]``)."""

from __future__ import annotations

import random
import re

from convkgyarn.languages.base import PLACEHOLDER, Edit, Language, Segment, Slot, Subject
from convkgyarn.languages.values import Calendar
from convkgyarn.languages.zh import kinds, lexicon, text, typos

KIND_NOUNS = {"country": "这个国家", "city": "这座城市", "region": "这个地区",
              "film": "这部电影", "series": "这部剧", "music": "这首歌", "book": "这本书",
              "artwork": "这件作品", "game": "这款游戏", "band": "这支乐队",
              "club": "这家俱乐部", "university": "这所大学", "company": "这家公司",
              "event": "这次活动", "building": "这座建筑", "organisation": "这个组织",
              "element": "这种元素", "case": "这起案件", "person": "这个人"}
TYPE_NOUNS = {"village": "这个村子", "town": "这座小镇", "river": "这条河", "mountain": "这座山",
              "lake": "这个湖", "island": "这座岛", "album": "这张专辑", "painting": "这幅画",
              "museum": "这座博物馆", "church": "这座教堂", "station": "这个车站",
              "stadium": "这座体育场", "bridge": "这座桥", "castle": "这座城堡",
              "war": "这场战争", "battle": "这场战役", "election": "这次选举",
              "party": "这个政党", "school": "这所学校", "college": "这所学院",
              "novel": "这部小说", "song": "这首歌", "single": "这首单曲", "team": "这支球队",
              "street": "这条街", "road": "这条路", "avenue": "这条大街", "square": "这个广场"}
PRONOUNS = {"m": "他", "f": "她"}


class Chinese(Language):
    code = "zh"
    name = "中文"
    calendar = Calendar("zh", year="{n}年", decade="{n}年代", century="{n}世纪",
                        millennium="第{n}个千年", day="{y}年{m}月{d}日", month="{y}年{m}月",
                        era_before=True, space_units=False)
    transitions = ("那么，", "好的，", "另外，", "接下来，")
    fillers = ("嗯", "那个", "呃", "就是")
    year_words = re.compile(r"哪一年|哪年|什么年份")
    share_words = re.compile(r"录取率|录取比例|百分之|百分比")  # never any 率 (生育率)
    answer_kind_words = ((re.compile(r"城市|城镇"), "settlement"),
                         (re.compile(r"母公司|哪家公司"), "company"),
                         (re.compile(r"地区"), "region"))
    english_name = "Chinese"
    placeholder_help = "[S], [S的]; [a] for a qualifier's statement value"
    reference_help = "[S] or [S的]"
    owner_help = "[S的]"
    repairs = ("不对", "我是说", "我的意思是", "哦", "……")
    spaced = False
    leaves_out_subjects = True
    ellipsis_max = {"voice": 14, "text": 12}
    ellipsis_unit = "characters"

    def noun(self, subject: Subject) -> str | None:
        if subject.human:
            return "这个人"
        head = (subject.type_label or "").strip().lower().split(" of ")[0].split()
        if head and head[-1] in TYPE_NOUNS and subject.kind not in ("country", "person"):
            return TYPE_NOUNS[head[-1]]
        return KIND_NOUNS.get(subject.kind)

    def default_reference(self, subject: Subject) -> str | None:
        if subject.human:
            return "pronoun" if subject.sex else "noun"
        return "noun" if self.noun(subject) else "pronoun"

    def fill(self, template, subject, reference=None, value=None):
        """As ``Language.fill``. A zero reference leaves out ``[S的]`` anywhere and ``[S]``
        only at the start of a question; elsewhere the subject is referred to as usual."""
        if reference == "zero":
            template = re.sub(r"^\[S\]", "", template).replace("[S的]", "")
            reference = self.default_reference(subject)
        return super().fill(template, subject, reference, value)

    def slot(self, name: str, subject: Subject, reference: str | None,
             value: Subject | None) -> list[Segment]:
        if name == "a":
            if value is None:
                raise ValueError("this template names the statement's value ([a]): give value=")
            return [(value.label, True)]
        if name == "v":  # the value the turn before named, referred back to
            if value is None:
                raise ValueError("this template refers back to the value ([v]): give value=")
            if not value.human:
                return [("那里", False)]  # a place or institution, after 在
            if value.sex is None:  # no guess at a pronoun: named
                return [(value.label, True)]
            return [(PRONOUNS[value.sex], False)]
        if name not in ("S", "S的"):
            raise ValueError(f"unknown Chinese placeholder [{name}]")
        owner = "的" if name == "S的" else ""
        if reference is None:
            return [(subject.label, True), (owner, False)]
        if reference == "noun" and self.noun(subject):
            return [(self.noun(subject) + owner, False)]
        if subject.human:
            word = PRONOUNS.get(subject.sex or "", "这个人")
        else:
            word = "它"
        return [(word + owner, False)]

    def slot_of(self, name: str) -> Slot | None:
        if name == "a":
            return Slot("a")
        if name in ("S", "S的"):
            return Slot("S", owner=name == "S的")
        return None

    def script_problem(self, template: str, interaction: str) -> str | None:
        from convkgyarn.languages.checks import HAN, HANGUL, KANA, said_words

        words = said_words(template)
        if KANA.search(words):
            return "kana in a Chinese question (reads as Japanese)"
        if HANGUL.search(words) or not HAN.search(words):
            return "not written in Chinese"
        return None

    # -- templates
    def phrased(self) -> frozenset[str]:
        return frozenset(lexicon.VOICE) & frozenset(text.TEXT_NOUNS)

    @staticmethod
    def nouns(property_id: str, subject_kind: str) -> tuple[str, ...]:
        return text.TEXT_NOUNS_BY_KIND.get((property_id, subject_kind)) or \
            text.TEXT_NOUNS[property_id]

    def patterns(self, property_id, qualifier_id, tense, interaction, subject_kind):
        if qualifier_id:
            if interaction == "text":
                return text.TEXT_QUALIFIED.get((property_id, qualifier_id))
            return lexicon.QUALIFIED_BY_KIND.get((property_id, qualifier_id, subject_kind)) \
                or lexicon.VOICE_QUALIFIED.get((property_id, qualifier_id))
        if property_id not in self.phrased():
            return None
        if interaction == "text":
            n1, n2, n3 = self.nouns(property_id, subject_kind)[:3]
            return (f"[S]{n1}", f"[S的]{n2}", f"[S]{n3}")
        return lexicon.VOICE_BY_KIND.get((property_id, subject_kind)) or \
            lexicon.VOICE[property_id]

    def deixis_patterns(self, property_id, qualifier_id, tense, interaction, subject_kind,
                        originals):
        if interaction != "text":
            return originals
        if qualifier_id:  # a typed follow-up leaves the subject out
            return [re.sub(r"^\[S\]", "", p) for p in originals]
        n1, n2, n3 = self.nouns(property_id, subject_kind)[:3]
        return (f"[S的]{n1}", f"那{n2}呢", f"[S]{n3}")

    def ellipsis(self, property_id, qualifier_id, tense, interaction, subject_kind):
        spoken = interaction == "voice"
        if qualifier_id:
            forms = (tense == "present" and lexicon.ELLIPSIS_QUALIFIED_PRESENT.get(
                qualifier_id)) or lexicon.ELLIPSIS_QUALIFIED.get(qualifier_id)
            return list(forms[0 if spoken else 1]) if forms else []
        if property_id not in text.TEXT_NOUNS or property_id in text.NO_ELLIPSIS:
            return []
        noun = self.nouns(property_id, subject_kind)[0]
        if spoken:
            return [f"那{noun}呢？", f"{noun}呢？", f"[S的]{noun}呢？"]
        return [f"{noun}呢", f"{noun}？", f"那[S的]{noun}呢"]

    # -- follow-ups that build on the answer
    def follow_up_forms(self, kind, key, subject_kind):
        by_kind = kinds.BY_KIND.get(kind, {}).get((key, subject_kind))
        return by_kind or kinds.TABLES[kind].get(key)

    def yes_no(self, answer: bool) -> str:
        """"是的"/"不是": Mandarin answers a yes/no question by echoing its verb, and every
        yes/no form here asks with 是 (是…吗, 是…的吗, 是不是…)."""
        return "是的" if answer else "不是"

    # -- surface
    def disfluent(self, pattern: str, rng: random.Random, alternatives: list[str]) -> str:
        """A filler ("嗯，..."), a restart ("首都，呃，首都是哪里？") or a self-repair
        ("人口……不对，首都是哪里？")."""
        filler = rng.choice(self.fillers)
        op = rng.choice(["filler", "restart"] + (["repair"] if alternatives else []))
        if op == "restart":  # "英国，嗯，英国是什么时候建立的？"
            lead = PLACEHOLDER.match(pattern)
            # the placeholder it starts with, else its first words up to a placeholder
            said = lead.group() if lead else pattern.split("[", 1)[0][:2]
            return f"{said}，{filler}，{pattern}"
        if op == "repair":
            alt = PLACEHOLDER.sub("", rng.choice(alternatives)).lstrip("的")
            m = re.match(r"^(.{2,5}?)(是|有|在|什么|哪|多少|谁)", alt)
            if m:
                return f"{m.group(1)}……不对，{pattern}"
        return f"{filler}，{pattern}"

    def typo(self, text_: str, rng: random.Random, protected=()) -> tuple[str, Edit | None]:
        return typos.add_typo(text_, rng, tuple(protected))
