"""The typed records assembly passes between its steps.

Every record is frozen: a step makes a new one (``dataclasses.replace``) rather than change
the one it was given, so a step can be read, tested and reordered on its own. The flow is

    EntityFacts (view) -> PlannedTurn (planner) -> Answer (realiser) -> Turn (realiser,
    then one transform per phenomenon) -> Conversation (planner) -> rows (stage)

and a step that cannot go on returns a ``Drop`` with its reason instead of a record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import orjson

from convkgyarn.kg.render import Value, machine, render


# Why a conversation is shorter than asked (``conversations.short_reason``, "why: N"; the
# quality report groups by the words before the count): too few askable facts (N: how
# many), planned turns left out while it was realised (N: how many), fewer facts planned
# than turns, refills included (N: how many)
SHORT_ASKABLE = "fewer askable facts than turns"
SHORT_LEFT_OUT = "planned turns left out (no phrasing fits, or an earlier answer says it)"
SHORT_PLANNED = "fewer facts planned than turns"


@dataclass(frozen=True, slots=True)
class Statement:
    """One best-rank statement of an entity's property, with its qualifiers' values."""

    statement_id: str
    value: Value
    ended: bool = False
    superseded: bool = False  # a measurement with a later one beside it (facts.superseded)
    qualifiers: Mapping[str, tuple[Value, ...]] = field(default_factory=dict)
    unsayable: str | None = None  # why its value cannot be said (no English label, ...)

    @property
    def current(self) -> bool:
        return not (self.ended or self.superseded)

    @property
    def label(self) -> str:
        return self.value.label or ""


@dataclass(frozen=True, slots=True)
class EntityFacts:
    """An entity as assembly sees it: its name, gender, types and best-rank statements."""

    id: str
    label: str
    gender: str | None
    types: tuple[str, ...]
    human: bool
    gone: bool  # died, or dissolved / abolished / demolished
    properties: Mapping[str, tuple[Statement, ...]]
    sitelinks: int = 0  # how well known it is (Wikipedia articles about it)


@dataclass(frozen=True, slots=True)
class PlannedTurn:
    """A fact the planner chose to ask: a property of an entity, or a qualifier of one of
    its statements."""

    entity: str
    property_id: str
    qualifier_id: str | None
    statement_index: int  # which statement a qualifier question is about
    kind: str = "fact"  # or count, verify, before (convkgyarn.stages.kinds)
    # an "also" question (kind verify): the value the turn before answered with, and that
    # turn's property ("Who directed it?" "Did he also write the screenplay?")
    slot: Value | None = None
    after: str | None = None
    past: bool = False  # that turn was asked in the past tense: so is this one
    span: str | None = None  # kind span: which (kinds.SPANS, or "term")


@dataclass(frozen=True, slots=True)
class FactChange:
    """A fact a refresh changed: the values it held in the older snapshot."""

    refresh_id: str
    old_values: tuple[Value, ...]
    old_dump_date: str | None
    new_dump_date: str | None


@dataclass(frozen=True, slots=True)
class Answer:
    """What a planned turn is answered with, and in which tense it is asked."""

    values: tuple[Value, ...]
    statement_id: str
    tense: str
    slot_value: Value | None = None  # [a]: the statement's value, in qualifier questions
    left_out: int = 0  # ended values not asked about in a present-tense question
    outdated: tuple[Value, ...] = ()  # what held before, not now
    reference: str | None = None  # "before" follow-up: the statement of the holder named


@dataclass(frozen=True, slots=True)
class TemplateOption:
    """One stored template variant (or a curated kind pattern) a question may be made from."""

    template_id: str
    text: str
    writer: str
    model: str | None
    prompt_hash: str | None


@dataclass(frozen=True, slots=True)
class Drop:
    """A step's refusal: what was left out (``item``), why, and a detail."""

    item: str
    reason: str
    detail: str = ""


@dataclass(frozen=True, slots=True)
class LocalTurn:
    """A turn said in a language besides English (issue #35): the same planned fact and
    answer values, the question and the answer as that language says them, and the stored
    template (``local_templates``) or curated form they come from."""

    language: str
    question: str
    said: tuple[str, ...]
    template: TemplateOption
    question_before_typo: str | None = None
    outdated: tuple[str, ...] = ()  # the values that held before, as said
    # per answer value, the language of the label it is said with ("de", or "en" where
    # German has none: the fallback chain); None for a date, an amount, a yes or a no
    said_languages: tuple[str | None, ...] = ()


@dataclass(frozen=True, slots=True)
class Turn:
    """A turn as it goes through the realiser and the transforms, then becomes a row.

    Before the realiser phrases it, ``question`` is empty and ``phenomenon`` says which
    templates it will be phrased from (deixis, disfluency and ellipsis choose them); after,
    ``question`` is the text, and typos and transitions change it."""

    number: int
    subject: EntityFacts
    type_id: str
    planned: PlannedTurn
    answer: Answer
    hop_from: int | None = None
    phenomenon: str = "original"
    template: TemplateOption | None = None
    question: str = ""
    question_before_typo: str | None = None
    said: tuple[str, ...] = ()  # the answer values as said (rendered for the question)
    slot_person: bool = False  # [a] names a person (no article before it)
    query_id: str = ""
    sparql: str = ""
    sentence: str | None = None  # --answer-style sentence
    change: FactChange | None = None  # stale-knowledge probes
    reference_noun: bool = False  # deixis says "the city", not "it" (transforms.deixis)
    there_clear: bool = False  # ... and "there" for "in the city": no place was answered
    later_mention: bool = False  # the subject was named before: its short name will do
    # the turn in the configuration's other languages (generate --language), by code
    locales: Mapping[str, LocalTurn] = field(default_factory=dict)

    # -- what the planner reads of an earlier turn
    @property
    def subject_id(self) -> str:
        return self.subject.id

    @property
    def statement_id(self) -> str | None:
        return self.answer.statement_id or None

    @property
    def answer_ids(self) -> tuple[str | None, ...]:
        return tuple(v.value_id for v in self.answer.values)

    @property
    def hop_values(self) -> tuple[Value, ...]:
        """The values a conversation may move to from here (a count or yes/no answer
        names none)."""
        return self.answer.values if self.planned.kind in ("fact", "before") else ()

    @property
    def asked_property(self) -> str | None:
        """The property whose values answer the turn (None for a qualifier's values)."""
        return self.planned.property_id if self.planned.qualifier_id is None else None

    def row(self, conversation_id: str) -> dict[str, Any]:
        """The stored columns of the turn (``turns``)."""
        ans, t = self.answer, self.template
        return {"conversation_id": conversation_id, "turn": self.number,
                "question": self.question, "question_before_typo": self.question_before_typo,
                "answer": list(self.said), "answer_ids": list(self.answer_ids),
                "answer_languages": ["en" if said_by_label(v, self.planned.kind) else None
                                     for v in ans.values],
                "answer_values": machine_json(ans.values), "query_id": self.query_id,
                # the values that held before are said as the answer is: for the question
                # before its typo ("admision rate" still asks for a share); an amount to the
                # unit, never in words ("1.41 billion" could be this year's figure too)
                "outdated_answer": [render(v, self.question_before_typo or self.question,
                                           in_words=False) for v in ans.outdated],
                "outdated_values": machine_json(ans.outdated) if ans.outdated else None,
                "change": self.change_json() if self.change else None,
                "subject_id": self.subject.id, "property_id": self.planned.property_id,
                "qualifier_property_id": self.planned.qualifier_id,
                "statement_id": self.statement_id, "phenomenon": self.phenomenon,
                "template_id": t.template_id, "writer": t.writer, "model": t.model,
                "prompt_hash": t.prompt_hash, "tense": ans.tense, "left_out": ans.left_out,
                "hop_from": self.hop_from, "question_kind": self.planned.kind,
                "answer_sentence": self.sentence}

    def local_row(self, conversation_id: str, language: str) -> dict[str, Any]:
        """The stored columns of the turn as said in ``language`` (English: ``row``)."""
        row = self.row(conversation_id)
        if language == "en":
            return row
        local, t = self.locales[language], self.locales[language].template
        row.update({"question": local.question,
                    "question_before_typo": local.question_before_typo,
                    "answer": list(local.said), "outdated_answer": list(local.outdated),
                    "answer_languages": list(local.said_languages),
                    "template_id": t.template_id, "writer": t.writer, "model": t.model,
                    "prompt_hash": t.prompt_hash, "answer_sentence": None})
        return row

    def change_json(self) -> str:
        """When a probe's fact changed: between which dumps, and since when its current
        values hold where the KG says (their start time)."""
        change = self.change
        since = sorted({machine(q)["time"]
                        for s in self.subject.properties[self.planned.property_id]
                        if not s.ended for q in s.qualifiers.get("P580", ())
                        if q.kind == "time"})
        return orjson.dumps({"refresh_id": change.refresh_id,
                             "old_dump_date": change.old_dump_date,
                             "new_dump_date": change.new_dump_date,
                             "current_since": since or None}).decode()


def said_by_label(value: Value, kind: str) -> bool:
    """Whether an answer value is said by a label, which ``answer_languages`` records the
    language of: an item; not a date, an amount, nor a yes/no question's yes or no."""
    return bool(value.value_id) and kind != "verify"


def machine_json(values: tuple[Value, ...]) -> str:
    """Exact values as stored JSON."""
    return orjson.dumps([machine(v) for v in values]).decode()


@dataclass(frozen=True, slots=True)
class Conversation:
    """One conversation about a subject (and the entities it moved to)."""

    conversation_id: str
    config_name: str
    seed: int
    subject: EntityFacts
    entity_type: str
    related: EntityFacts | None
    fact_set_id: str
    turns_asked: int
    short_reason: str | None
    turns: tuple[Turn, ...]
    # generate --language: the subject's and the related entity's labels per language
    labels: Mapping[str, tuple[str, str | None]] = field(default_factory=dict)

    def local_id(self, language: str) -> str:
        """The conversation's id in a language: English keeps the plan's id; each other
        language's is derived from it (the same fact set, another conversation)."""
        if language == "en":
            return self.conversation_id
        return hashlib.sha256(f"{self.conversation_id}\x1f{language}".encode()
                              ).hexdigest()[:16]

    def row(self, ordinal: int, language: str = "en") -> dict[str, Any]:
        """The stored columns of the conversation (``conversations``) in a language."""
        label, related = self.labels.get(language) or (
            self.subject.label, self.related.label if self.related else None)
        return {"conversation_id": self.local_id(language), "config_name": self.config_name,
                "seed": self.seed, "entity_id": self.subject.id,
                "entity_label": label, "entity_type": self.entity_type,
                "entity_types": list(self.subject.types),
                "related_entity_id": self.related.id if self.related else None,
                "related_entity_label": related,
                "fact_set_id": self.fact_set_id, "ordinal": ordinal,
                "turns_asked": self.turns_asked, "short_reason": self.short_reason,
                "language": language, "plan_id": self.conversation_id}
