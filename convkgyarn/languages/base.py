"""The ``Language`` base class: what every language of the rules path provides, and the
machinery they share (placeholders, tense alternations, phenomena, disfluencies, typo
records). See the package docstring for the placeholder syntax of each language.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from typing import ClassVar

from babel.lists import format_list

from convkgyarn.kg.render import Value, year_question_fits
from convkgyarn.languages import checks
from convkgyarn.languages.checks import Slot
from convkgyarn.languages.values import Calendar, render_value

SLOTS = re.compile(r"\[[^\[\]]*\]|\{[^{}]*\}")

PLACEHOLDER = re.compile(r"\[([^\[\]]+)\]")
# "{ist|war}": the present form, then the past form
TENSE = re.compile(r"\{([^{}|]*)\|([^{}|]*)\}")
MALE = frozenset({"Q6581097", "Q2449503"})  # male, trans man
FEMALE = frozenset({"Q6581072", "Q1052281"})  # female, trans woman
VOICE_PHENOMENA = ("original", "deixis", "disfluencies", "deixis_disfluencies", "ellipsis")
TEXT_PHENOMENA = ("original", "deixis", "ellipsis")
REFERENCE_MODES = ("pronoun", "noun", "zero")
# the kinds of follow-up question the English planner asks (``stages.kinds``)
FOLLOW_UP_KINDS = ("also", "before", "span", "count", "list", "pair", "where_in", "verify")
# what people ask about each kind of subject: the false starts of self-repairs
TOPICS: dict[str, tuple[str, ...]] = {
    "person": ("P569", "P19", "P106", "P27", "P26", "P166", "P69", "P570"),
    "country": ("P36", "P1082", "P38", "P37", "P35", "P6", "P30", "P2046"),
    "city": ("P17", "P1082", "P6", "P131", "P571", "P2046"),
    "region": ("P17", "P1082", "P36", "P131", "P2046"),
    "film": ("P57", "P161", "P577", "P136", "P495", "P2047"),
    "book": ("P50", "P577", "P136", "P407"),
    "music": ("P175", "P577", "P136", "P86"),
    "university": ("P571", "P17", "P131", "P2196", "P112"),
    "company": ("P571", "P112", "P159", "P17", "P169"),
    "organisation": ("P571", "P112", "P159", "P17", "P488"),
    "club": ("P641", "P571", "P115", "P17"),
    "other": ("P571", "P17", "P131", "P138"),
}


@dataclass(frozen=True)
class Subject:
    """What a template is filled with: a label in the language, and what grammar needs to
    know of the entity. ``kind`` is ``salience.broad_kind`` of its type; ``type_label``
    (English, optional) lets a language pick a finer noun ("river", "village")."""

    label: str
    human: bool = False
    gender: str | None = None  # the P21 value id
    kind: str = "other"
    type_label: str | None = None

    @property
    def sex(self) -> str | None:
        """"m" or "f" for a person of known gender, else None."""
        if not self.human:
            return None
        return "m" if self.gender in MALE else "f" if self.gender in FEMALE else None


@dataclass(frozen=True)
class Filled:
    """A filled template: the text, and the spans of what was filled in from the KG
    (names, values), which no later edit (a typo) may touch."""

    text: str
    protected: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Edit:
    """One typo: what changed (``before`` -> ``after``, a word or, for Japanese and
    Chinese, a word of the input method's choosing), where it starts in the text (``start``)
    and the index of its first changed character (``position``)."""

    operation: str
    before: str
    after: str
    position: int
    start: int

    def apply(self, text: str) -> str:
        """The edit made on the text it was found in (what ``typo`` returned)."""
        return text[:self.start] + self.after + text[self.start + len(self.before):]


Segment = tuple[str, bool]  # (text, protected)


@dataclass(frozen=True)
class FollowUpForms:
    """The stored forms of one kind of follow-up question for one key, in a language's
    placeholder syntax, ``{present|past}`` alternations unresolved: spoken forms that name
    the value ([a]), spoken forms that refer back to it ([v], "dort", "そこ", "那里") and to
    the subject, typed forms naming the subject, typed forms leaving it out. An empty
    ``back`` or ``typed_back`` falls back to ``spoken`` or ``typed``; an empty ``typed``
    means there is no typed form (the English has none)."""

    spoken: tuple[str, ...]
    back: tuple[str, ...] = ()
    typed: tuple[str, ...] = ()
    typed_back: tuple[str, ...] = ()

    @classmethod
    def one_each(cls, spoken: str, typed: str, typed_back: str) -> "FollowUpForms":
        """One spoken form, one typed and one typed leaving the subject out (a yes/no
        question about a named value)."""
        return cls((spoken,), typed=(typed,), typed_back=(typed_back,))

    def pick(self, interaction: str, tense: str, refer_back: bool) -> tuple[str, ...]:
        if interaction == "voice":
            forms = (refer_back and self.back) or self.spoken
        else:
            forms = (refer_back and self.typed_back) or self.typed
        return tuple(dict.fromkeys(resolve_tense(f, tense) for f in forms))


def seeded_rng(*parts) -> random.Random:
    blob = "\x1f".join(map(str, parts)).encode()
    return random.Random(int.from_bytes(hashlib.blake2b(blob, digest_size=8).digest(), "big"))


def resolve_tense(pattern: str, tense: str) -> str:
    """``{present|past}`` alternations resolved for a tense."""
    return TENSE.sub(lambda m: m.group(1) if tense == "present" else m.group(2), pattern)


def outside_placeholders(text: str) -> list[tuple[int, int]]:
    """Spans of the text that are not placeholders."""
    spans, last = [], 0
    for m in PLACEHOLDER.finditer(text):
        if m.start() > last:
            spans.append((last, m.start()))
        last = m.end()
    if last < len(text):
        spans.append((last, len(text)))
    return spans


def overlaps(start: int, end: int, protected) -> bool:
    return any(start < e and s < end for s, e in protected)


class Language:
    """One language of the rules path. Subclasses set the class attributes and implement
    ``slot`` (one placeholder filled), the lexicon look-ups and ``typo``."""

    code: ClassVar[str]
    name: ClassVar[str]
    calendar: ClassVar[Calendar]
    transitions: ClassVar[tuple[str, ...]]
    fillers: ClassVar[tuple[str, ...]]
    year_words: ClassVar[re.Pattern]
    # words of a question that asks for a share: a unitless fraction answers it as a
    # percentage ("Zulassungsquote": 17,5 %, never 0,175); None: the language has none
    share_words: ClassVar[re.Pattern | None] = None
    # words a question uses for the kind of its answer, and the kind every value must be
    # for them to be true ("In welcher Stadt": "settlement"; ``answer_kinds``)
    answer_kind_words: ClassVar[tuple[tuple[re.Pattern, str], ...]] = ()
    # what ``validate`` needs to know of the language (``checks``)
    english_name: ClassVar[str]
    placeholder_help: ClassVar[str]  # the placeholders, for a rejection's reason
    reference_help: ClassVar[str]  # the forms that refer back
    owner_help: ClassVar[str]  # the subject as an owner
    repairs: ClassVar[tuple[str, ...]] = ()  # self-repair markers besides the fillers
    spaced: ClassVar[bool] = True  # words between spaces (de), or none (ja, zh)
    leaves_out_subjects: ClassVar[bool] = False  # a typed follow-up may leave it out
    ellipsis_max: ClassVar[dict[str, int]] = {"voice": 8, "text": 6}
    ellipsis_unit: ClassVar[str] = "words"

    # -- values
    def render(self, value: Value, label: str | None = None, *,
               year_only: bool = False) -> str | None:
        """A value as this language writes it. ``label``: an item's label in this language
        (looked up by the caller), or an amount's unit label when CLDR has no such unit.
        None when the value cannot be said in this language: the caller leaves the fact
        out (with that reason) in every language."""
        return render_value(self.calendar, value, label, year_only=year_only)

    def asks_year(self, question: str) -> bool:
        """Whether a question asks for a year ("in welchem Jahr", "何年", "哪一年"): its
        answer is then the year alone (``render(..., year_only=True)``)."""
        return self.year_words.search(question) is not None

    def answer_kinds(self, template: str) -> tuple[str, ...]:
        """The kinds a template's own words say its answer is ("settlement", "company",
        "region"): outside its placeholders ("[S's:f.nom:Hauptstadt]", "{S}"), which name
        the subject or hold a tense's alternatives."""
        words = SLOTS.sub(" ", template)
        return tuple(kind for pattern, kind in self.answer_kind_words if pattern.search(words))

    def yes_no(self, answer: bool) -> str:
        """What a person answers to a yes/no question (a verify or "also" question), as
        the answer of the turn."""
        raise NotImplementedError

    def year_question_fits(self, value: Value) -> bool:
        """Whether a year question can be answered by this value (language-independent:
        a date known to the year or a decade)."""
        return year_question_fits(value)

    def join(self, items: list[str]) -> str:
        """Several values in one answer: "A, B und C", "A、B、C", "A、B和C" (CLDR lists)."""
        return format_list(list(items), locale=self.calendar.locale) if items else ""

    # -- filling templates
    def default_reference(self, subject: Subject) -> str | None:
        """The reference a native speaker uses for this subject in a follow-up
        ("pronoun", "noun", "zero"), or None when only the name is clear."""
        raise NotImplementedError

    def fill(self, template: str, subject: Subject, reference: str | None = None,
             value: str | Subject | None = None) -> Filled:
        """A stored template filled for ``subject``: named (``reference`` None) or referred
        to (``"pronoun"``, ``"noun"``, ``"zero"``; see ``default_reference``), with the
        statement's value for ``[a]`` (text as said, or a ``Subject`` where the language
        declines names). The result keeps the spans of names and values filled in."""
        if reference is not None and reference not in REFERENCE_MODES:
            raise ValueError(f"reference must be one of {REFERENCE_MODES} or None")
        if isinstance(value, str):
            value = Subject(value)
        parts: list[str] = []
        protected: list[tuple[int, int]] = []
        pos = 0
        last = 0
        for m in PLACEHOLDER.finditer(template):
            parts.append(template[last:m.start()])
            pos += m.start() - last
            for text, keep in self.slot(m.group(1), subject, reference, value):
                if keep and text:
                    protected.append((pos, pos + len(text)))
                parts.append(text)
                pos += len(text)
            last = m.end()
        parts.append(template[last:])
        return self.tidy(Filled("".join(parts), tuple(protected)))

    def slot(self, name: str, subject: Subject, reference: str | None,
             value: Subject | None) -> list[Segment]:
        raise NotImplementedError

    def tidy(self, filled: Filled) -> Filled:
        """Clean-up after filling (a zero reference leaves no double space); spans move
        with the text."""
        text = filled.text
        out: list[str] = []
        at: list[int] = []  # old index -> new index
        for i, ch in enumerate(text):
            at.append(len(out))
            if ch == " " and (not out or out[-1] == " " or text[i + 1:i + 2] in ("?", ",", "")):
                continue
            out.append(ch)
        at.append(len(out))
        text = "".join(out)
        spans = [(at[s], at[e]) for s, e in filled.protected if at[e] > at[s]]
        return Filled(self.capitalise(text), tuple(spans))

    def capitalise(self, text: str) -> str:
        return text

    # -- templates
    def phrased(self) -> frozenset[str]:
        """The properties this language's rules writer phrases."""
        raise NotImplementedError

    def patterns(self, property_id: str, qualifier_id: str | None, tense: str,
                 interaction: str, subject_kind: str) -> tuple[str, ...] | None:
        raise NotImplementedError

    def ellipsis(self, property_id: str, qualifier_id: str | None, tense: str,
                 interaction: str, subject_kind: str) -> list[str]:
        raise NotImplementedError

    def templates(self, property_id: str, qualifier_id: str | None, tense: str,
                  interaction: str, subject_kind: str) -> dict[str, list[str]] | None:
        """Variants per phenomenon for one fact (voice: original, deixis, disfluencies,
        deixis_disfluencies, ellipsis; text: original, deixis, ellipsis), or None when this
        language does not phrase the property: the caller leaves the fact out, with that
        reason, in every language. Original and deixis variants share the placeholders; the
        phenomenon says how the caller fills the subject (named, or a reference)."""
        patterns = self.patterns(property_id, qualifier_id, tense, interaction, subject_kind)
        if not patterns:
            return None
        deixis = self.deixis_patterns(property_id, qualifier_id, tense, interaction,
                                      subject_kind, patterns)
        patterns = list(dict.fromkeys(resolve_tense(p, tense) for p in patterns))
        deixis = list(dict.fromkeys(resolve_tense(p, tense) for p in deixis))
        out = {"original": patterns, "deixis": deixis}
        if interaction == "voice":
            alternatives = [a for a in self.alternatives(subject_kind, property_id)]
            for phen in ("disfluencies", "deixis_disfluencies"):
                out[phen] = [self.disfluent(p, seeded_rng(self.code, property_id, qualifier_id,
                                                          tense, subject_kind, phen, i),
                                            alternatives if phen == "disfluencies" else [])
                             for i, p in enumerate(
                                 patterns if phen == "disfluencies" else deixis)]
        ellipsis = [resolve_tense(p, tense) for p in
                    self.ellipsis(property_id, qualifier_id, tense, interaction,
                                              subject_kind)]
        if ellipsis:
            out["ellipsis"] = ellipsis
        return out

    def deixis_patterns(self, property_id: str, qualifier_id: str | None, tense: str,
                        interaction: str, subject_kind: str,
                        originals: tuple[str, ...]) -> tuple[str, ...]:
        """The patterns of a deixis question: the same as the original ones (the caller
        fills the subject as a reference) unless the language words them otherwise (a
        typed query "[S's:f.nom:Hauptstadt]" rather than "[S:kw] Hauptstadt")."""
        return originals

    def alternatives(self, subject_kind: str, property_id: str) -> list[str]:
        """Other questions about the same kind of subject (``TOPICS``): their beginnings
        make believable false starts for a self-repair."""
        out = []
        for pid in TOPICS.get(subject_kind, TOPICS["other"]):
            if pid == property_id:
                continue
            patterns = self.patterns(pid, None, "present", "voice", subject_kind)
            if patterns:
                out.append(resolve_tense(patterns[0], "present"))
        return out

    # -- follow-ups that build on the answer (the English ``stages.kinds``)
    def follow_up_forms(self, kind: str, key, subject_kind: str) -> FollowUpForms | None:
        """The stored forms of a kind of follow-up for a key, or None (not phrased)."""
        return None

    def follow_ups(self, kind: str, key, interaction: str, tense: str,
                   refer_back: bool = False, subject_kind: str = "other") -> tuple[str, ...]:
        """The variants of a kind of follow-up question (``FOLLOW_UP_KINDS``) for a key as
        the English tables key it: also (first property, second property); before, count,
        list, verify: the property; span: "age", "existence" or ("term", property); pair:
        (property, property before); where_in: (property, "P17"). ``refer_back`` picks the
        forms that lean on the turn before (its value as ``[v]``, "da", "その前", "那");
        fill them with a reference for the subject. Empty when the language has no such
        form (see the package docstring for what is left out and why)."""
        if kind not in FOLLOW_UP_KINDS:
            raise ValueError(f"kind must be one of {FOLLOW_UP_KINDS}, not {kind!r}")
        if interaction not in ("voice", "text"):
            raise ValueError(f"interaction must be 'voice' or 'text', not {interaction!r}")
        if tense not in ("present", "past"):
            raise ValueError(f"tense must be 'present' or 'past', not {tense!r}")
        forms = self.follow_up_forms(kind, key, subject_kind)
        return forms.pick(interaction, tense, refer_back) if forms else ()

    def follow_up(self, kind: str, key, interaction: str, tense: str,
                  refer_back: bool = False, subject_kind: str = "other") -> str | None:
        """The first of ``follow_ups`` (the form the English tables put first), or None."""
        forms = self.follow_ups(kind, key, interaction, tense, refer_back, subject_kind)
        return forms[0] if forms else None

    # -- checking templates written elsewhere (an LLM's)
    def slot_of(self, name: str) -> Slot | None:
        """What the placeholder ``[name]`` stands for in this language, or None when it is
        not one of its placeholders."""
        raise NotImplementedError

    def validate(self, template: str, phenomenon: str, interaction: str,
                 qualified: bool) -> str | None:
        """Why a template of this language cannot be stored, or None when it is fine
        (``checks.validate``: only this language's placeholders, never the answer, the
        subject where the phenomenon needs it, the language's script, ...). ``qualified``:
        the fact asks for a qualifier of a statement, whose value ``[a]`` may be named."""
        return checks.validate(self, template, phenomenon, interaction, qualified)

    def ellipsis_size(self, template: str) -> int:
        """How long an elliptic follow-up is: words (a placeholder is one), or characters
        where the language writes no spaces (a placeholder is two)."""
        if self.spaced:
            return len(checks.outside(template).split()) + \
                len(checks.placeholder_names(template))
        return len(re.sub(r"\s", "", checks.outside(template))) + \
            2 * len(checks.placeholder_names(template))

    def is_disfluent(self, template: str) -> bool:
        """Whether a question sounds disfluent: a filler, a repair marker or a restart."""
        return checks.has_marker(checks.outside(template), self.fillers + self.repairs,
                                 self.spaced) or \
            checks.has_repetition(template, self.spaced)

    def script_problem(self, template: str, interaction: str) -> str | None:
        """Why the template's words are not this language's, or None."""
        return None

    # -- spoken and typed surface
    def disfluent(self, pattern: str, rng: random.Random, alternatives: list[str]) -> str:
        raise NotImplementedError

    def with_transition(self, question: str, rng: random.Random) -> str:
        """The question as said when the conversation moves to another subject ("Okay, und
        wann ...", "では、...", "那么，...")."""
        return rng.choice(self.transitions) + question

    def typo(self, text: str, rng: random.Random,
             protected: tuple[tuple[int, int], ...] = ()) -> tuple[str, Edit | None]:
        """Exactly one typo outside ``protected`` (names and values filled in), or the text
        unchanged and None when no word may take one."""
        raise NotImplementedError
