"""Japanese: particles belong to the templates (``[S:は]``, ``[S:の]``); a subject is
named, left out (the zero reference a Japanese follow-up uses), 彼/彼女 sparingly, or
"その国"-style; spoken questions are polite (です/ます), typed queries keywords."""

from __future__ import annotations

import random
import re

from convkgyarn.languages.base import PLACEHOLDER, Edit, Language, Segment, Slot, Subject
from convkgyarn.languages.ja import kinds, lexicon, text, typos
from convkgyarn.languages.values import Calendar

KIND_NOUNS = {"country": "国", "city": "都市", "region": "地域", "film": "映画",
              "series": "番組", "music": "曲", "book": "本", "artwork": "作品",
              "game": "ゲーム", "band": "バンド", "club": "クラブ", "university": "大学",
              "company": "会社", "event": "イベント", "building": "建物",
              "organisation": "組織", "element": "元素", "case": "事件", "person": "人"}
TYPE_NOUNS = {"village": "村", "town": "町", "river": "川", "mountain": "山", "lake": "湖",
              "island": "島", "album": "アルバム", "painting": "絵", "museum": "博物館",
              "church": "教会", "station": "駅", "stadium": "スタジアム", "bridge": "橋",
              "castle": "城", "war": "戦争", "battle": "戦い", "election": "選挙",
              "party": "政党", "school": "学校", "college": "カレッジ", "novel": "小説",
              "song": "曲", "single": "曲", "team": "チーム", "street": "通り", "road": "道路",
              "avenue": "通り", "square": "広場"}
# the particles a subject or value placeholder may carry
PARTICLES = frozenset("は が の を に で と も へ から まで より には では とは にも での への "
                      "からの として としての について".split())
_KANJI_ONLY = re.compile(r"^[\u4e00-\u9fff々]+$")
# the start of a question up to its first particle: what a restart repeats
_CHUNK = re.compile(r"^(\[[^\]]+\])?([^\[\]、？。]{1,6}?(は|が|の|を|に|で|と|から))")


class Japanese(Language):
    code = "ja"
    name = "日本語"
    calendar = Calendar("ja", year="{n}年", decade="{n}年代", century="{n}世紀",
                        millennium="{n}千年紀", day="{y}年{m}月{d}日", month="{y}年{m}月",
                        era_before=True, space_units=False)
    transitions = ("では、", "じゃあ、", "次に、", "ところで、")
    fillers = ("えっと", "あの", "えー", "うーん", "あのー")
    year_words = re.compile(r"何年(?!間)")
    share_words = re.compile(r"合格率|入学許可率|割合|パーセント")  # never any 率 (出生率)
    answer_kind_words = ((re.compile(r"町|都市"), "settlement"),
                         (re.compile(r"親会社|どの会社"), "company"),
                         (re.compile(r"地域|地方"), "region"))
    english_name = "Japanese"
    placeholder_help = ("[S:は] [S:が] [S:の] [S:を] [S:に] [S:で] [S:と] ..., [S] in typed "
                        "queries; [a] [a:と] [a:を] ... for a qualifier's statement value")
    reference_help = "the subject with its particle: [S:は] [S:が] [S:の] ..."
    owner_help = "[S:の]"
    repairs = ("ええと", "えーと", "あ、いや", "いや、", "じゃなくて", "すみません", "ごめん", "…")
    spaced = False
    leaves_out_subjects = True
    ellipsis_max = {"voice": 16, "text": 12}
    ellipsis_unit = "characters"

    def noun(self, subject: Subject) -> str | None:
        if subject.human:
            return "人"
        head = (subject.type_label or "").strip().lower().split(" of ")[0].split()
        if head and head[-1] in TYPE_NOUNS and subject.kind not in ("country", "person"):
            return TYPE_NOUNS[head[-1]]
        return KIND_NOUNS.get(subject.kind)

    def default_reference(self, subject: Subject) -> str | None:
        if subject.human:
            return "zero"  # Japanese leaves a person it is talking about unsaid
        return "noun" if self.noun(subject) else "zero"

    def slot(self, name: str, subject: Subject, reference: str | None,
             value: Subject | None) -> list[Segment]:
        head, _, particle = name.partition(":")
        if head == "a":
            if value is None:
                raise ValueError("this template names the statement's value ([a]): give value=")
            return [(value.label, True), (particle, False)]
        if head == "v":  # the value the turn before named, referred back to
            if value is None:
                raise ValueError("this template refers back to the value ([v]): give value=")
            if not value.human:
                return [("そこ" + particle, False)]  # a place or institution: "そこで"
            if value.sex is None:  # no guess at a pronoun: named
                return [(value.label, True), (particle, False)]
            return [({"m": "彼", "f": "彼女"}[value.sex] + particle, False)]
        if head != "S":
            raise ValueError(f"unknown Japanese placeholder [{name}]")
        if reference is None:
            return [(subject.label, True), (particle, False)]
        if reference == "zero":
            return []
        if reference == "pronoun":
            if subject.human:
                word = {"m": "彼", "f": "彼女"}.get(subject.sex or "", "その人")
            else:
                word = "それ"
            return [(word + particle, False)]
        noun = self.noun(subject)
        if noun is None:  # no noun: the zero reference
            return []
        return [(f"その{noun}{particle}", False)]

    def slot_of(self, name: str) -> Slot | None:
        head, colon, particle = name.partition(":")
        if head not in ("S", "a") or (colon and particle not in PARTICLES):
            return None
        if head == "a":
            return Slot("a")
        # "[S]" bare is a typed keyword; with zero reference it would vanish with nothing
        # to carry the sentence, so a deixis question takes the particle form
        return Slot("S", typed=not colon, reference=bool(colon), owner=particle == "の")

    def script_problem(self, template: str, interaction: str) -> str | None:
        from convkgyarn.languages.checks import HAN, HANGUL, KANA, outside, said_words

        # a typed query may be a keyword and the particle of its placeholder ("[S:の]CEO");
        # a spoken question says more than its particles, and in kana
        words = outside(template) if interaction == "voice" else said_words(template)
        if HANGUL.search(words) or not (KANA.search(words) or HAN.search(words)):
            return "not written in Japanese"
        if interaction == "voice" and not KANA.search(words):
            return "a spoken Japanese question without kana (reads as Chinese)"
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
            # a bare kanji keyword reads as Chinese: one keyword query, the others with kana
            n1, n2, n3 = self.nouns(property_id, subject_kind)[:3]
            last = f"[S] {n3}" if " " in n3 or not _KANJI_ONLY.match(n3) else f"[S:の]{n3}は？"
            return (f"[S:の]{n1}", f"[S] {n2}", last)
        return lexicon.VOICE_BY_KIND.get((property_id, subject_kind)) or \
            lexicon.VOICE[property_id]

    def deixis_patterns(self, property_id, qualifier_id, tense, interaction, subject_kind,
                        originals):
        if interaction != "text":
            return originals
        if qualifier_id:  # a typed follow-up leaves the subject out
            return [p.replace("[S] ", "") for p in originals]
        n1, n2, n3 = self.nouns(property_id, subject_kind)[:3]
        # a bare kanji noun reads as Chinese as much as Japanese: typed follow-ups keep a kana
        return (f"[S:の]{n1}は？", f"[S:の]{n2}って？", f"じゃあ{n3}は")

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
            return [f"{noun}は？", f"それから、{noun}は？", f"じゃあ、[S:の]{noun}は？"]
        return [f"{noun}は？", f"{noun}は", f"[S:の]{noun}は？"]

    # -- follow-ups that build on the answer
    def follow_up_forms(self, kind, key, subject_kind):
        by_kind = kinds.BY_KIND.get(kind, {}).get((key, subject_kind))
        return by_kind or kinds.TABLES[kind].get(key)

    def yes_no(self, answer: bool) -> str:
        return "はい" if answer else "いいえ"

    # -- surface
    def disfluent(self, pattern: str, rng: random.Random, alternatives: list[str]) -> str:
        """A filler ("えっと、..."), a restart ("首都は、あの、首都はどこですか？") or a
        self-repair ("人口は…あ、いや、首都は...")."""
        filler = rng.choice(self.fillers)
        op = rng.choice(["filler", "restart"] + (["repair"] if alternatives else []))
        chunk = _CHUNK.match(pattern)
        if op == "restart" and chunk:
            lead, said = chunk.group(1) or "", chunk.group(2)
            return f"{lead}{said}、{filler}、{said}{pattern[chunk.end():]}"
        if op == "repair":
            alt = PLACEHOLDER.sub("", rng.choice(alternatives))
            m = re.match(r"^([^、？。]{1,6}?(は|が|の|を|に))", alt)
            if m:
                return f"{m.group(1)}…あ、いや、{pattern}"
        return f"{filler}、{pattern}"

    def typo(self, text_: str, rng: random.Random, protected=()) -> tuple[str, Edit | None]:
        return typos.add_typo(text_, rng, tuple(protected))
