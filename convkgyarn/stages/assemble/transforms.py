"""One transform per phenomenon, each ``Turn -> Turn`` (or a ``Drop`` with its reason), in
the spirit of datatrove's pipeline steps.

A turn goes through them in this order (``PHRASING``, then the realiser fills the template,
then ``SURFACE``)::

    deixis -> disfluency -> ellipsis -> [realiser.phrase] -> typos -> transitions

The first three choose which templates the turn is phrased from (its ``phenomenon``: the
template writers wrote a question per phenomenon); the last two change the question as
typed or spoken. A transform that does not apply returns the turn unchanged. Their order is
part of the output: each draws from the conversation's style generator only when it
applies, so reordering them, or drawing where none was drawn, changes conversations.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from convkgyarn.config import GenerateConfig
from convkgyarn.stages.assemble.records import Drop, EntityFacts, Turn
from convkgyarn.stages.assemble.realiser import Realiser
from convkgyarn.stages.assemble.view import KGView
from convkgyarn.stages.assemble.wording import TRANSITIONS, pronoun, subject_noun
from convkgyarn.stages.typos import content_words, typo_in


@dataclass(frozen=True)
class TurnContext:
    """What a transform may read besides the turn: the configuration, the batch's view, the
    realiser (to fill a template again), the turn before, the style generator and the words
    the earlier questions opened with."""

    cfg: GenerateConfig
    view: KGView
    realiser: Realiser
    previous: Turn | None
    rng: random.Random
    # how many of the conversation's earlier questions open with each word ("what": 2)
    lead_words: Mapping[str, int] = field(default_factory=dict)
    # the transition the conversation's latest question that opened with one used
    last_transition: str | None = None


Transform = Callable[[Turn, TurnContext], "Turn | Drop"]


# -- who could "he", "she" or "this city" point at
def ambiguous(e: EntityFacts, previous: Turn | None, view: KGView) -> bool:
    """Would "he", "she" or "this person" point at a person in the previous answer rather
    than at ``e``? (Only a person known to be of the other gender is safe.)"""
    if not view.someone(e) or previous is None:
        return False
    mine = pronoun(e.gender)
    prop = previous.asked_property
    for value in previous.hop_values:
        if value.value_id == e.id or not view.is_person(value, prop):
            continue
        theirs = pronoun(view.gender_of(value))
        if mine is None or theirs is None or theirs == mine:
            return True
    return False


# Properties whose values are never places: after one, "there" can only be the place the
# conversation is about ("What money is used in Malta?" "Euro." "Which languages are
# official there?", where a reader found "in the country" three times over); "it" could
# still be the euro or the language ("When did it come into being?")
NOT_A_PLACE_ANSWERS = frozenset({"P38", "P37", "P1412", "P103", "P2936", "P140", "P106",
                                 "P136", "P2348", "P135", "P101", "P412", "P641", "P421",
                                 "P122", "P1303", "P21", "P35", "P6", "P1082", "P2046",
                                 "P571", "P2044"})


# Answers that are never a place nor a body (a currency, a language, a faith, a job, a
# genre, a form of government, an anthem) ...
ABSTRACT_ANSWERS = frozenset({"P38", "P37", "P1412", "P103", "P2936", "P140", "P106", "P136",
                              "P135", "P101", "P412", "P641", "P421", "P122", "P1303", "P21",
                              "P85"})
# ... and properties only a place or a polity holds: after such an answer, "its" in a
# question about one of these can only mean the place the conversation is about ("What
# money is used in Malta?" "Euro." "Who is its prime minister?"; 0.8.28 said "the
# country" again, three times in a conversation: "the country's currency", "the
# country's prime minister"). Not an official language: a church has one.
PLACE_ONLY = frozenset({"P36", "P6", "P35", "P1082", "P2046", "P610", "P1589", "P47", "P38",
                        "P2131", "P2132", "P4010", "P150", "P85", "P194", "P2250"})


def it_ambiguous(e: EntityFacts, previous: Turn | None, view: KGView) -> bool:
    """Would "it" point at a thing the previous turn answered rather than at the thing
    ``e``? ("Where is Oxford Brookes?" "Oxford." "When was it founded?": Oxford or the
    university?) Only people, dates, numbers and ``e`` itself are safe answers."""
    if view.someone(e) or previous is None:
        return False
    prop = previous.asked_property
    return any(v.value_id is not None and v.value_id != e.id and not view.is_person(v, prop)
               for v in previous.hop_values)


def points_clearly(turn: Turn, previous: Turn, view: KGView) -> tuple[bool, bool]:
    """A hop's first turn about the previous answer: can "he", "she", "it" or "the city"
    point at its subject rather than at the previous subject? Only when the subject was the
    previous answer alone and the two cannot be taken for each other (people of different
    genders; a person and a thing; things called by different plain nouns). Returns
    (clear, by noun): a thing after a thing is "the city", never "it"."""
    e, before = turn.subject, previous.subject
    if [v.value_id for v in previous.hop_values] != [e.id]:
        return False, False
    mine_someone, theirs_someone = view.someone(e), view.someone(before)
    if mine_someone or theirs_someone:
        if not (mine_someone and theirs_someone):
            return True, False
        mine, theirs = pronoun(e.gender), pronoun(before.gender)
        return mine is not None and theirs is not None and mine != theirs, False
    mine = subject_noun(view.type_labels.get(turn.type_id), e.label)
    b_type = view.best_type(before)[0]
    theirs = subject_noun(view.type_labels.get(b_type), before.label) if b_type else None
    return mine is not None and mine != theirs, True


def elliptic_fits(turn: Turn, previous: Turn | None, view: KGView) -> bool:
    """Leaving the subject out is clear only right after a turn about the same subject
    whose answer could not be taken for it: no person of the subject's gender for a
    person; no item at all (only dates, numbers, people) for a thing. A date asked of a
    statement follows that very statement ("Who is her spouse?" "When was that?")."""
    e = turn.subject
    if previous is None or previous.subject.id != e.id:
        return False
    if turn.planned.qualifier_id is not None:
        return previous.statement_id == turn.answer.statement_id
    if view.someone(e):
        return not ambiguous(e, previous, view)
    prop = previous.asked_property
    return all(v.value_id is None or view.is_person(v, prop) for v in previous.hop_values)


# -- the transforms
def deixis(turn: Turn, ctx: TurnContext) -> Turn:
    """Refer to the subject ("he", "it", "the city") where that is unambiguous: after a
    turn about the same subject, or on a hop's first turn that points clearly at the
    previous answer. A thing is "it" unless the previous answer names another thing "it"
    could mean; then "the city" (its plain noun), or its name when it has none."""
    previous = ctx.previous
    if not ctx.cfg.deixis or previous is None:
        return turn
    noun = there = False
    if previous.subject.id == turn.subject.id:
        clear = not ambiguous(turn.subject, previous, ctx.view)
        if clear and it_ambiguous(turn.subject, previous, ctx.view) and not (
                previous.asked_property in ABSTRACT_ANSWERS and turn.planned.kind == "fact"
                and turn.asked_property in PLACE_ONLY):
            # "the city"; in the past never "the country's" (it reads as the present: "What
            # was the country's capital?"), but "the capital of the country", "there", or
            # the name where no variant can say it so (``Realiser.phrase``)
            noun = True
            there = previous.asked_property in NOT_A_PLACE_ANSWERS
            clear = subject_noun(ctx.view.type_labels.get(turn.type_id),
                                 turn.subject.label) is not None
    elif turn.hop_from == previous.number:
        clear, noun = points_clearly(turn, previous, ctx.view)
    else:
        clear = False
    return replace(turn, phenomenon="deixis", reference_noun=noun, there_clear=there) \
        if clear else turn


def disfluency(turn: Turn, ctx: TurnContext) -> Turn:
    """Spoken with fillers, restarts and repairs (voice only)."""
    if ctx.cfg.interaction != "voice" or not ctx.cfg.disfluency:
        return turn
    return replace(turn, phenomenon="deixis_disfluencies" if turn.phenomenon == "deixis"
                   else "disfluencies")


def ellipsis(turn: Turn, ctx: TurnContext) -> Turn:
    """Leave the subject out ("The spouse?") on a share of the follow-ups where that is
    clear, when the fact has such a question."""
    cfg, previous = ctx.cfg, ctx.previous
    if turn.planned.kind != "fact" or not cfg.ellipsis or previous is None or \
            previous.subject.id != turn.subject.id:
        return turn
    if not ctx.rng.random() < cfg.ellipsis_share or \
            not elliptic_fits(turn, previous, ctx.view):
        return turn
    pt = turn.planned
    if not ctx.view.ellipsis(turn.type_id, pt.property_id, pt.qualifier_id, turn.answer.tense,
                             with_reference=cfg.deixis):
        return turn
    return replace(turn, phenomenon="ellipsis")


TYPO_PHENOMENA = {"deixis": "deixis_typos", "ellipsis": "ellipsis_typos"}
_PLACEHOLDER = re.compile(r"\[[^\[\]]+\]")


def typos(turn: Turn, ctx: TurnContext) -> Turn:
    """One typo (text only) on a word of the template, never on text filled in from the KG;
    the question before it is kept."""
    if ctx.cfg.interaction != "text" or not ctx.cfg.typos:
        return turn
    # as the realiser said it ("Mali president"), then the typo
    template = ctx.realiser.said_with_offices(turn, turn.template.text)
    spans = [m.span() for m in _PLACEHOLDER.finditer(template)]
    typoed, edit = typo_in(template, content_words(template, spans), ctx.rng)
    if edit is None:
        return turn
    ans = turn.answer
    question = ctx.realiser.fill(typoed, turn.subject, turn.type_id, ans.tense,
                                 ans.slot_value, turn.slot_person, once=True,
                                 noun=turn.reference_noun, later=turn.later_mention,
                                 there=turn.there_clear)
    return replace(turn, question=question, question_before_typo=turn.question,
                   phenomenon=TYPO_PHENOMENA.get(turn.phenomenon, "typos"))


AND = "And "


def transitions(turn: Turn, ctx: TurnContext) -> Turn:
    """Spoken questions start with a capital, and with a transition when the subject
    changes: "And" on to the answer just given (nothing after an "And"), "Okay," or
    "Alright," anywhere else, never the one the conversation used last."""
    if ctx.cfg.interaction != "voice":
        return turn
    question = turn.question[0].upper() + turn.question[1:]
    if ctx.previous is not None and ctx.previous.subject.id != turn.subject.id:
        # never the transition the conversation used last ("Alright, which awards did
        # Barack Obama win?" "Alright, what is the capital of the United States?"), nor
        # the word the question before opened with
        # A question about the answer just given goes on from it: "And" ("Which party is
        # he a member of?" "The Reform Party." "And who chairs it?"), or nothing after an
        # "And"; "Okay," and "Alright," mark a turn elsewhere, back to the subject included
        # (a blind head-to-head, 0.8.17: "Okay, who chairs it?" read as less fluent)
        onward = turn.hop_from is not None and \
            turn.subject.id in {v.value_id for v in ctx.previous.answer.values}
        if onward:
            choices = [AND] if ctx.last_transition != AND and \
                not ctx.previous.question.startswith(AND) else [""]
        else:
            choices = [t for t in TRANSITIONS if t != AND and t != ctx.last_transition and
                       not ctx.previous.question.startswith(t)] or [""]
        prefix = ctx.rng.choice(choices)
        if prefix and not (prefix == AND and question.lower().startswith("and ")):
            question = prefix + question[0].lower() + question[1:]  # never "And and what's"
    return replace(turn, question=question)


PHRASING: tuple[Transform, ...] = (deixis, disfluency, ellipsis)
SURFACE: tuple[Transform, ...] = (typos, transitions)


def realise(turn: Turn | Drop, ctx: TurnContext) -> Turn | Drop:
    """A started turn through the phrasing transforms, the realiser and the surface
    transforms; the first drop ends it."""
    for step in (*PHRASING, ctx.realiser.phrase, *SURFACE):
        if isinstance(turn, Drop):
            return turn
        turn = step(turn, ctx)
    return turn
