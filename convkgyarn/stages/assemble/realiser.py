"""The realiser: what a planned turn is answered with, and the question it is asked with.

``start()`` computes a planned turn's answer (a fact's values in their tense, or a count,
yes/no or "before" answer computed from the KG) and makes the turn; the phenomenon
transforms then choose how it is asked; ``phrase()`` fills a template of that phenomenon
(the first variant, from a seeded start, that does not give the answer away and fits it)
and adds the turn's SPARQL and, with ``--answer-style sentence``, its sentence. Each returns
a ``Drop`` with its reason where the turn cannot be made.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from convkgyarn.config import GenerateConfig
from convkgyarn.kg.queries import (
    before_query, count_query, span_query, turn_query, verify_query)
from convkgyarn.kg.rdf import time_order
from convkgyarn.kg.render import (Value, first_year, machine, parse_time, render,
                                   year_question_fits)
from convkgyarn.stages import kinds, lexicon, phrasing, salience
from convkgyarn.stages.assemble.facts import answer_statements, shares_value, start
from convkgyarn.stages.assemble.records import (
    Answer, Drop, EntityFacts, PlannedTurn, TemplateOption, Turn)
from convkgyarn.stages.assemble.view import KGView
from convkgyarn.stages.assemble.wording import (
    GENDER, UNKNOWN_PERSON, awkward_possessive, contains, named, possessive, possessive_as_of,
    pronoun, references, thing_noun, with_article, with_offices, without_deixis, work_named)
from convkgyarn.stages.naming import short_name, surname
from convkgyarn.stages.rules_writer import render_pattern
from convkgyarn.text import Fact

if TYPE_CHECKING:
    from convkgyarn.stages.assemble.transforms import TurnContext

PLACEHOLDER_SPLIT = re.compile(r"(\[[^\[\]]+\])")
YEAR_QUESTION = re.compile(r"\byears?\b", re.I)
# follow-ups that say a statement still holds ("since when?", "since when has it been ...",
# a typed "Karl Dönitz head of state of Nazi Germany since" of a reign that ended)
STILL_HOLDS = re.compile(r"\bsince when\b|\b(has|have) (that|it|this) been\b|"
                         r"\bsince\W*$", re.I)
DOUBLED = re.compile(r"\b(\w+) \1\b", re.I)
PRESENT_LOOKING = re.compile(r"\b(is|are)\b|'s\b(?! (birth|death|date|place))", re.I)
# of a living person, "was he known for" says he is known no more ("What sport was Steve
# Clarkson known for?" of a retired player, ``facts.career_over``): another variant first
KNOWN_NO_MORE = re.compile(r"\bwas\b[^?]* known for\b", re.I)
# a question that says there are several ("who are the heads of state", "what were the
# official languages"): read as wrong when one value answers it
# "Who are the heads of state of Mali?" for one: a plural noun after "are"/"were", through a
# filler ("Who are, uhm, its heads of state?") or a name ("were the Kingdom of Prussia's
# neighbours?")
PLURAL_FOR_ONE = re.compile(r"\b(are|were)\b([^?]*?[\s,])?(the|its|his|her|their|"
                            r"[a-z]+['’]s?) ([a-z]+ )?[a-z]+s( of\b|\?|$)", re.I)
# "What is the official language of Belgium?" "Dutch, French, German.": a template that says
# there is one language (its own words, not a name filled in), read as wrong when several
# answer it
ONE_LANGUAGE = re.compile(r"\blanguage\b", re.I)
# "What did Constantine the Great do for a living?" "Politician, military personnel,
# sovereign.": a wage earner's words, read as anachronistic of someone born before
# PAID_WORK_YEAR (a critic of 0.8.24); "What was his occupation?" fits any age
PAID_WORK = re.compile(r"\b(for a living|job)\b", re.I)
PAID_WORK_YEAR = 1700
# a question for a day ("What was his date of birth?"): a worse fit for a date known only
# to its year or coarser ("1823") than "When was he born?"
DAY_QUESTION = re.compile(r"\b(date|day|birthday)\b", re.I)
MAX_TEXT_WORDS = 10
# the value just named, said as a pronoun after a preposition takes its object form
OBJECT_PRONOUN = {subject: object_ for subject, object_, _ in GENDER.values()}
AFTER_PREPOSITION = re.compile(r"\b(before|after|than|to|with|for|of|by|from) \[v\]")
# "Do you know when ...?" reads as a template after the first turn (a critique of our spoken
# conversations): such a variant goes last there
DO_YOU_KNOW = re.compile(r"^(and )?do you know\b|, do you know\?$", re.I)
# A question about a person's genres that calls them music, asked only of a person whose
# every occupation is in music (``makes_music``): Douglas Adams, a writer who also played
# the guitar, wrote science fiction, comedy and satire
GENRE, OCCUPATION = "P136", "P106"
MUSIC_WORDS = re.compile(r"\bmusic\b", re.I)
MUSIC_OCCUPATION = re.compile(
    r"\b(singer|musician|guitarist|bassist|drummer|pianist|keyboardist|organist|rapper|"
    r"songwriter|composer|vocalist|disc jockey|dj|violinist|cellist|saxophonist|"
    r"trumpeter|conductor|record producer|music producer|lyricist|multi-instrumentalist|"
    r"harpist|percussionist)\b", re.I)


def follows_its_statement(turn: Turn, previous: Turn | None) -> bool:
    """A qualifier question right after the turn that answered its statement with one
    value, or right after another qualifier of that statement ("Since when?" "Until
    when?"): it refers back ("When was that?") instead of restating the value."""
    pt = turn.planned
    if pt.qualifier_id is None or pt.kind != "fact" or previous is None or \
            previous.subject.id != turn.subject.id or previous.planned.kind != "fact" or \
            previous.planned.property_id != pt.property_id:
        return False
    if previous.planned.qualifier_id is not None:
        return previous.statement_id == turn.answer.statement_id and \
            previous.planned.statement_index == pt.statement_index
    return (turn.answer.statement_id in (previous.statement_id or "").split(",")
            and len(previous.answer.values) == 1)


def said_as_holding_then(options: list[TemplateOption], tense: str) -> list[TemplateOption]:
    """The forms that fit a statement in its tense: of one that has ended, none that says it
    still holds ("Since when?", "Since when has Schleicher led ...?": qualifier templates
    are present only)."""
    return options if tense != "past" else \
        [o for o in options if not STILL_HOLDS.search(o.text)]


def dated(value: Value) -> tuple[int, int | None, int | None, int] | None:
    """A time value as (year, month, day, precision), None before the common era or when
    its text is not a date."""
    parsed = parse_time(value.label or "")
    if parsed is None or parsed[3]:
        return None
    return parsed[0], parsed[1], parsed[2], value.precision or 0


LEAD_WORD_MAX = 2  # questions of a conversation opening with one word before others go first
# words before a question's own first word: transitions, the disfluent openers and repairs
# (``phrasing.OPENERS``, ``REPAIRS``: "Er, what is ...", "Sorry, what ...") and "and"
LEAD_FILLERS = frozenset({"okay", "alright", "and", "so", "well", "um", "uh", "uhm", "hmm",
                          "er", "oh", "sorry"})
SPOKEN_LEADS = {"what's": "what", "who's": "who", "where's": "where", "when's": "when",
                "how's": "how"}


OPENING_FILLERS = frozenset({"okay", "alright", "um", "uh", "so"})  # not a frame's words


def _words(question: str, fillers: frozenset[str]) -> list[str]:
    """A question's words, lower-cased, without the fillers given."""
    return [w for w in re.findall(r"[a-z']+", question.lower()) if w not in fillers]


def occupation_labels(e: EntityFacts) -> list[str]:
    """The labels of the person's occupations the KG names with one."""
    return [st.value.label for st in e.properties.get(OCCUPATION, ())
            if st.value is not None and st.value.label]


def makes_music(e: EntityFacts) -> bool:
    """Whether every occupation of the person the KG names (with a label) is in music
    ("singer", "guitarist", "singer-songwriter"), so their genres are music's."""
    jobs = occupation_labels(e)
    return bool(jobs) and all(MUSIC_OCCUPATION.search(job) for job in jobs)


def sings(e: EntityFacts) -> bool:
    """Whether an occupation of the person the KG names is in music: their voice type
    (P412) is worth a question ("What range did James Joyce sing in?" "Tenor." is not)."""
    return any(MUSIC_OCCUPATION.search(job) for job in occupation_labels(e))


def lead_word(question: str) -> str:
    """The word a question opens with once its fillers and its "and" are set aside ("And
    what's its population?": "what"), as a reader hears a conversation repeat one pattern
    (issue #33: three questions in five opening with "What" in 37% of voice-deixis
    conversations on real-entities-dev, 21% of ConvQuestions')."""
    words = _words(question, LEAD_FILLERS)
    return SPOKEN_LEADS.get(words[0], words[0]) if words else ""


def opening(question: str) -> tuple[str, ...]:
    """The first two words of a question, as a reader hears its frame ("and what's",
    "what is", "when was")."""
    return tuple(_words(question, OPENING_FILLERS)[:2])


# A where-in follow-up names the subject only when its name is this short ("Where is Ochota
# in Poland?"); a longer one between "Where is" and the country reads as a form (three
# blind raters' lowest fluency on a held-out set: "Where is the National Museum in Warsaw
# in Poland?"), and the fact is asked plainly ("Where is ... located?")
WHERE_IN_NAME_WORDS = 2
# Places no country is divided into: a sea or a range is where a thing lies, never "which
# part of France" it is in
NOT_A_PART = re.compile(r"\b(ocean|sea|gulf|bay|lake|river|strait|channel|mountains|range|"
                        r"alps|archipelago|islands?)\b", re.I)
PART_WORD = re.compile(r"\bpart\b", re.I)
PAIR_SHARE = 0.6  # the share of pair follow-ups asked about the event ("Where was that?")


def where_in(turn: Turn, previous: Turn | None) -> tuple[str, str] | None:
    """(property, "P17") when the turn asks a narrower place of a thing right after the one
    country it is in ("Which part of Poland is it in?"), in the present tense."""
    pt = turn.planned
    if previous is None or pt.kind != "fact" or pt.qualifier_id is not None or \
            turn.answer.tense != "present" or previous.planned.kind != "fact" or \
            previous.planned.qualifier_id is not None or \
            previous.subject.id != turn.subject.id or len(previous.answer.values) != 1 or \
            turn.subject.human:
        return None
    key = (pt.property_id, previous.planned.property_id)
    return key if key in kinds.WHERE_IN else None


def pair_of(turn: Turn, previous: Turn | None) -> tuple[str, str] | None:
    """(property, the property before it) when the turn asks the second of a pair about the
    event the previous turn named ("When was he born?" then "Where was that?"); else None."""
    pt = turn.planned
    if previous is None or pt.kind != "fact" or pt.qualifier_id is not None or \
            previous.planned.kind != "fact" or previous.planned.qualifier_id is not None or \
            previous.subject.id != turn.subject.id:
        return None
    pair = (pt.property_id, previous.planned.property_id)
    return pair if pair in kinds.PAIR_FOLLOW_UPS else None


def follows_its_count(turn: Turn, previous: Turn | None) -> bool:
    """A list question right after the count of the same fact ("How many children does she
    have?" "Two." "What are their names?")."""
    pt = turn.planned
    return previous is not None and pt.kind == "fact" and pt.qualifier_id is None and \
        previous.planned.kind == "count" and previous.subject.id == turn.subject.id and \
        previous.planned.property_id == pt.property_id


def seeded(*parts) -> int:
    """A 64-bit seed from any parts (blake2b of their text): the same parts give the same
    choices on every machine and in every release."""
    blob = "\x1f".join(map(str, parts)).encode()
    return int.from_bytes(hashlib.blake2b(blob, digest_size=8).digest(), "big")


def born_before(e: EntityFacts, year: int) -> bool:
    """Whether a person's birth, as the KG dates it, is known and before ``year`` (every
    birth date it holds, to whatever precision)."""
    if not e.human:
        return False
    years = [first_year(st.value.label or "") for st in e.properties.get("P569", ())
             if st.value.kind == "time"]
    return bool(years) and all(y is not None and y < year for y in years)


class Realiser:
    """Answers and questions for one configuration, over one batch's view."""

    def __init__(self, view: KGView, cfg: GenerateConfig) -> None:
        self.view = view
        self.cfg = cfg
        self._parts: dict[str, list[str]] = {}
        self._slots: dict[tuple, dict[str, str]] = {}
        # slots whose subject is said by a family name: (that name as a word, the name in
        # full, said where the question or its answer has the word)
        self._in_full: dict[tuple, tuple[re.Pattern, str]] = {}
        # a work's name as ``work_named`` said it not: its noun, and the name without it
        self._work_names: dict[tuple, tuple[str, str]] = {}
        self._queries: dict[tuple, tuple[str, str]] = {}
        self._kind_templates: dict[tuple, list[TemplateOption]] = {}

    # -- what is asked: values, tense
    def start(self, e: EntityFacts, type_id: str, pt: PlannedTurn, number: int,
              hop_from: int | None) -> Turn | Drop:
        """The turn with its answer, before it is phrased."""
        if pt.kind != "fact":
            ans = self.kind_answer(e, pt)
            if ans is None:
                return Drop(f"{e.id}/{pt.property_id}/{pt.kind}", f"no {pt.kind} question "
                            "fits the fact (no candidate, count or single predecessor)")
            return Turn(number, e, type_id, pt, ans, hop_from)
        change = self.view.change(e.id, pt.property_id)
        ans = self.answer(e, pt, change)
        if not ans.values:
            return Drop(f"{e.id}/{pt.property_id}", "no value answers the fact")
        if self.view.refreshes is not None and (ans.tense != "present" or not ans.outdated):
            return Drop(f"{e.id}/{pt.property_id}", "changed fact not askable as a probe",
                        "its values have all ended" if ans.tense != "present"
                        else "no earlier value differs from the current ones")
        return Turn(number, e, type_id, pt, ans, hop_from, change=change)

    def answer(self, e: EntityFacts, t: PlannedTurn, change=None) -> Answer:
        stmts = e.properties[t.property_id]
        if t.qualifier_id is not None:
            st = stmts[t.statement_index]
            return Answer(st.qualifiers[t.qualifier_id], st.statement_id,
                          "past" if st.ended or e.gone else "present", st.value)
        chosen, tense = answer_statements(e, stmts)
        current = [s for s in stmts if s.current]
        # two statements may hold the same value (with different qualifiers): said once
        values = (chosen[0].value,) if len(chosen) == 1 else \
            tuple(dict.fromkeys(s.value for s in chosen))
        outdated: list[Value] = []
        if tense == "present" and (change or len(current) < len(stmts)):
            # what held before: ended or superseded statements, the older snapshot of a probe;
            # each exact value once, and none that holds now
            said = {frozenset(machine(v).items()) for v in values}
            for v in [s.value for s in stmts if not s.current and s.unsayable is None] + \
                    list(change.old_values if change else ()):
                exact = frozenset(machine(v).items())
                if exact not in said:
                    outdated.append(v)
                    said.add(exact)
        sid = chosen[0].statement_id if len(chosen) == 1 else \
            ",".join(s.statement_id for s in chosen)
        return Answer(values, sid, tense, left_out=len(stmts) - len(chosen),
                      outdated=tuple(outdated))

    def kind_answer(self, e: EntityFacts, pt: PlannedTurn) -> Answer | None:
        """The answer of a count, verify or before question, computed from the KG (None
        when the fact does not support one: no candidate, no unique predecessor). Its
        choices are seeded by the fact, so every configuration asks the same."""
        rng = random.Random(seeded("kind", self.cfg.seed, e.id, pt.property_id, pt.kind))
        stmts = e.properties[pt.property_id]
        tense = "past" if e.gone else "present"
        if pt.kind == "verify" and pt.after is not None:  # "also": is the value just named
            # among the answers?
            chosen, tense = answer_statements(e, stmts)
            if pt.past or (pt.after, pt.property_id) not in kinds.ALSO_NOW:
                # "Was he also the head of state?" after a term that ended; "Did she also
                # work there?": ever, so every statement
                chosen, tense = list(stmts), "past"
            held = [s for s in chosen if s.value.value_id == pt.slot.value_id]
            if held:
                return Answer((Value("string", "yes"),), held[0].statement_id, tense, pt.slot)
            # "no": the statements that hold others are its evidence
            return Answer((Value("string", "no"),), ",".join(s.statement_id for s in chosen),
                          tense, pt.slot)
        if pt.kind == "span":
            return self.span(e, pt)
        if pt.kind == "count":  # every item it holds now; in the past, every one it held
            every, now = self.view.item_counts.get((e.id, pt.property_id), (0, 0))
            if e.gone or not now:
                tense, now = "past", every
            if not now:
                return None
            sids = ",".join(s.statement_id for s in stmts
                            if tense == "past" or not s.ended)
            return Answer((Value("quantity", str(now)),), sids, tense)
        if pt.kind == "verify":
            current = [s for s in stmts if not s.ended and s.value.value_id]
            if e.gone or not current:
                tense, current = "past", [s for s in stmts if s.value.value_id]
            current = [s for s in current if s.unsayable is None]  # the question names it
            if not current:
                return None
            if rng.random() < 0.5:
                st = current[int(rng.random() * len(current))]
                return Answer((Value("string", "yes"),), st.statement_id, tense, st.value)
            held = {s.value.value_id for s in stmts} | self.view.below_best.get(
                (e.id, pt.property_id), set())
            false = self.view.false_candidate(pt.property_id, held | {e.id}, rng, e.id,
                                                tense)
            if false is None:
                return None
            return Answer((Value("string", "no"),), "", tense, false)
        if pt.slot is not None:  # "Who was mayor before her?": the holder just named
            return self.predecessor(e, pt)
        # before: a statement with a start time, and the one that started last before it
        dated = [(begin, s) for s in stmts if s.value.value_id
                 for begin in [start(s)] if begin is not None]
        refs = [(begin, s) for begin, s in dated if s.unsayable is None
                and not shares_value(stmts, s)  # "before Trump": his first term or second?
                and any(other < begin and o.value != s.value for other, o in dated)]
        if not refs:
            return None
        begin, ref = refs[int(rng.random() * len(refs))]
        earlier = [(b, o) for b, o in dated if b < begin and o.value != ref.value]
        latest = max(b for b, _ in earlier)
        before = [o for b, o in earlier if b == latest]
        if len({o.value for o in before}) != 1 or before[0].unsayable is not None:
            return None  # two values started the same day, or one nobody can say
        return Answer((before[0].value,), ",".join(o.statement_id for o in before), "past",
                      ref.value)

    def span(self, e: EntityFacts, pt: PlannedTurn) -> Answer | None:
        """How long something lasted, from two of the subject's own dates
        (``kinds.SPANS``, ``kinds.TERM_SPANS``): an age at death, the years a state
        existed, the length of a term; None unless each date is one value known to the day
        or each to the year (``kinds.span_years``)."""
        if pt.span == "term":
            st = e.properties[pt.property_id][pt.statement_index]
            begin, end = st.qualifiers.get("P580", ()), st.qualifiers.get("P582", ())
            sids = st.statement_id
            unit = None
        else:
            (p_start, _), (p_end, _), *_, unit = kinds.SPANS[pt.span]
            starts, ends = e.properties.get(p_start, ()), e.properties.get(p_end, ())
            if len(starts) != 1 or len(ends) != 1:
                return None
            begin, end = (starts[0].value,), (ends[0].value,)
            sids = f"{starts[0].statement_id},{ends[0].statement_id}"
        if len(begin) != 1 or len(end) != 1 or begin[0].kind != "time" or \
                end[0].kind != "time":
            return None
        years = kinds.span_years(*(dated(v) for v in (begin[0], end[0]))) \
            if dated(begin[0]) and dated(end[0]) else None
        if years is None or (pt.span == "age" and begin[0].precision != 11):
            return None  # an age from two years alone is one of two numbers
        if years < 1:  # "So how many years was Ivan Silayev in office?" "0."
            return None
        value = Value("quantity", str(years), None, None, *(unit or (None, None)))
        return Answer((value,), sids, "past", pt.slot)

    def predecessor(self, e: EntityFacts, pt: PlannedTurn) -> Answer | None:
        """Who held the property right before the value the turn before named: among the
        subject's statements of any rank but deprecated with one start time
        (``view.successions``), the value that started last before the named one's start,
        if exactly one did and it can be said (the turn's query states the same rule)."""
        held = [(time_order(begin) if begin else None, sid, v, why) for sid, v, begin, why
                in self.view.successions.get((e.id, pt.property_id), ())]  # as SPARQL orders
        held = [h for h in held if h[0] is not None]
        mine = [h for h in held if h[2].value_id == pt.slot.value_id]
        if len(mine) != 1:
            return None  # no start, or held twice: "before her" is unclear
        begin, ref_sid = mine[0][0], mine[0][1]
        earlier = [h for h in held if h[0] < begin and h[2].value_id != pt.slot.value_id]
        if not earlier:
            return None
        latest = max(h[0] for h in earlier)
        before = [h for h in earlier if h[0] == latest]
        if len({h[2].value_id for h in before}) != 1 or before[0][3] is not None:
            return None  # two started the same day, or one nobody can say
        return Answer((before[0][2],), ",".join(h[1] for h in before), "past", pt.slot,
                      reference=ref_sid)

    # -- how it is asked
    def phrase(self, turn: Turn, ctx: TurnContext) -> Turn | Drop:
        """The question from a template of the turn's phenomenon: the first variant, from a
        seeded start, that does not give the answer away, fits a year question's answer and
        (text) is short enough."""
        if turn.planned.kind != "fact":
            return self._phrase_kind(turn)
        e, type_id, pt, ans = turn.subject, turn.type_id, turn.planned, turn.answer
        phen = turn.phenomenon
        where = where_in(turn, ctx.previous) if self.cfg.interaction == "voice" else None
        if where is not None:  # "Which part of Poland is it in?"
            found = self._where_in(turn, where, ctx)
            if found is not None:
                return found
        pair = pair_of(turn, ctx.previous) if self.cfg.interaction == "voice" else None
        if pair is not None and ctx.rng.random() < PAIR_SHARE:  # "Where was that?"
            options = [o for o in self._follow(turn) if o.text.rstrip("?").split(" ")[-1]
                       in ("that", "happen")]
            if options:
                option = options[ctx.rng.randrange(len(options))]
                return self._phrased(turn, option, option.text,
                                     tuple(render(v, option.text) for v in ans.values), False)
        if follows_its_count(turn, ctx.previous) and self.cfg.interaction == "voice":
            options = [o for o in self._follow(turn) if "[" not in o.text]
            if options:
                option = options[ctx.rng.randrange(len(options))]
                return self._phrased(turn, option, option.text, tuple(
                    render(v, option.text) for v in ans.values), False)
        if follows_its_statement(turn, ctx.previous):
            options = self.anaphoric(turn)
            if options:
                option = options[ctx.rng.randrange(len(options))]
                return self._phrased(turn, option, option.text, tuple(
                    render(v, option.text) for v in ans.values), False)
        if pt.qualifier_id is not None and pt.kind == "fact" and shares_value(
                e.properties[pt.property_id], e.properties[pt.property_id][pt.statement_index]):
            # "Since when?" right after "Which offices does he hold?" "President." asks of
            # the current term; "When did he become President?" also of an earlier one
            return Drop(f"{e.id}/{pt.property_id}/{pt.qualifier_id}", "qualifier not asked: "
                        "several statements hold the value the question names",
                        ans.slot_value.value_id if ans.slot_value else ans.statement_id)
        options = self.view.ellipsis(type_id, pt.property_id, pt.qualifier_id, ans.tense,
                                     with_reference=self.cfg.deixis) if phen == "ellipsis" \
            else self.view.options(type_id, pt.property_id, pt.qualifier_id, ans.tense, phen)
        if turn.reference_noun and ans.tense == "past" and phen.startswith("deixis"):
            # a thing that has ended, by its noun: "the capital of the country", never "the
            # country's capital"; named where no variant can say it so
            said_of = [o for o in options if possessive_as_of(o.text) is not None]
            if not said_of:
                phen = without_deixis(phen)
                turn = replace(turn, phenomenon=phen, reference_noun=False, there_clear=False)
                said_of = self.view.options(type_id, pt.property_id, pt.qualifier_id,
                                            ans.tense, phen)
            options = said_of
        if phen != "ellipsis" and not phen.startswith("deixis") and awkward_possessive(e.label):
            options = self.view.without_possessive(type_id, options)
        if pt.qualifier_id is not None:
            options = said_as_holding_then(options, ans.tense)
        first = ctx.rng.randrange(len(options)) if options else 0
        options = options[first:] + options[:first]
        if ctx.previous is not None and len(options) > 1:
            # "And what's its population?" "And what's its official language?": a variant
            # that opens as the question before did goes last, and "Do you know ...?" after
            # it; then "And ...?" right after "And ...?" (three in a row read as a list);
            # then one opening with a word LEAD_WORD_MAX earlier questions opened with
            frame = opening(ctx.previous.question)
            after_and = ctx.previous.question.lower().startswith("and ")
            options = sorted(options, key=lambda o: (
                bool(DO_YOU_KNOW.search(o.text)), opening(o.text) == frame,
                after_and and o.text.lower().startswith("and "),
                ctx.lead_words.get(lead_word(o.text), 0) >= LEAD_WORD_MAX))
        slot_person = self._slot_person(ans, pt)
        doubled = None  # "When was Max Born born?": another variant if there is one
        plural = None  # "Who are the heads of state of Mali?" for one: another if there is
        # an answer that has ended is asked without "X's" where a variant can (a reader, and
        # a checker, hear "Chile's head of government" as the present one)
        ended = ans.tense == "past" and pt.qualifier_id is None and any(
            s.ended for s in e.properties.get(pt.property_id, ()))
        for option in options:
            question = self.fill(option.text, e, type_id, ans.tense, ans.slot_value,
                                 slot_person, noun=turn.reference_noun,
                                 there=turn.there_clear, later=turn.later_mention)
            said = tuple(render(v, question) for v in ans.values)
            if any(contains(question, a) for a in {*said, *(v.label or "" for v in
                                                            ans.values)}):
                continue  # the question must not give its answer away
            if YEAR_QUESTION.search(question) and \
                    not all(year_question_fits(v) for v in ans.values):
                continue  # a "what year" question needs an answer that is a year
            if len(set(said)) < len(said):
                continue  # "What year was the German Reich established?" "1871, 1871."
            if not self.view.words_fit(option.text, pt.property_id, ans.values):
                continue  # "In which city was he born?" "Derbyshire."
            if pt.property_id == GENRE and e.human and MUSIC_WORDS.search(option.text) and \
                    not makes_music(e):
                continue  # "What kind of music did Douglas Adams make?" "Satire."
            if self.cfg.interaction == "text" and len(question.split()) > MAX_TEXT_WORDS:
                continue
            if DOUBLED.search(question) and not DOUBLED.search(e.label) and \
                    not phen.endswith("disfluencies"):
                doubled = doubled or (option, question, said)
                continue
            if (len(ans.values) == 1 and PLURAL_FOR_ONE.search(question)) or \
                    (len(ans.values) > 1 and ONE_LANGUAGE.search(option.text)) or \
                    (pt.property_id == OCCUPATION and PAID_WORK.search(option.text) and
                     born_before(e, PAID_WORK_YEAR)) or \
                    (ended and PRESENT_LOOKING.search(question)) or \
                    (ended and e.human and not e.gone and KNOWN_NO_MORE.search(question)) or \
                    (DAY_QUESTION.search(question) and all(
                        v.kind == "time" and (v.precision or 11) < 11 for v in ans.values)):
                plural = plural or (option, question, said)
                continue
            return self._phrased(turn, option, question, said, slot_person)
        if plural is not None:
            return self._phrased(turn, *plural, slot_person)
        if doubled is not None:
            return self._phrased(turn, *doubled, slot_person)
        return Drop(f"{e.id}/{pt.property_id}/{pt.qualifier_id or ''}",
                    f"no {phen} template fits the answer")

    def anaphoric(self, turn: Turn) -> list[TemplateOption]:
        """Follow-ups that refer to the statement just answered ("When was that?", "Since
        when?"): the fact's stored elliptic templates (``lexicon.ELLIPSIS_QUALIFIED``; they
        name nothing), said with a filler in a disfluent configuration."""
        pt, ans, phen = turn.planned, turn.answer, turn.phenomenon
        options = self.view.ellipsis(turn.type_id, pt.property_id, pt.qualifier_id,
                                     ans.tense, with_reference=False)
        options = options or self._anaphoric_forms(pt.property_id, pt.qualifier_id, ans.tense)
        options = said_as_holding_then(options, ans.tense)
        options = [o for o in options if not YEAR_QUESTION.search(o.text)
                   or (all(year_question_fits(v) for v in ans.values) and
                       len({render(v, o.text) for v in ans.values}) == len(ans.values))]
        if not phen.endswith("disfluencies"):
            return options
        key = ("anaphoric", turn.type_id, pt.property_id, pt.qualifier_id, ans.tense, phen)
        found = self._kind_templates.get(key)
        if found is None:
            found = self._kind_templates[key] = [
                replace(o, text=phrasing.disfluent(o.text, random.Random(seeded(*key, i))))
                for i, o in enumerate(options)]
        return found

    def _where_in(self, turn: Turn, key: tuple[str, str], ctx: TurnContext) -> Turn | None:
        """A narrower place asked within the country just answered (``kinds.WHERE_IN``),
        the country filled in as [a]; None when no form fits the answer."""
        e, ans, phen = turn.subject, turn.answer, turn.phenomenon
        if any(NOT_A_PART.search(render(v)) for v in ans.values):
            return None  # "In which part of France is it?" "Indian Ocean."
        country = ctx.previous.answer.values[0]
        deixis = phen.startswith("deixis")
        if not deixis and len(e.label.split()) > WHERE_IN_NAME_WORDS:
            return None  # "Where is Lady Margaret Hall in the United Kingdom?": asked plainly
        options = [o for o in self._follow(turn) if "[v]" in o.text and
                   (("[he]" in o.text) == deixis)]
        if not all("region" in self.view.kinds_of(v) for v in ans.values):
            # only a region is a part of a country ("Which part of France is it in?"
            # "Isère."); a town, or a place the KG holds no types of, is where in it:
            # "Where is it in the United Kingdom?" "Oxford.", "Where is Ochota in Poland?"
            # "Warsaw." (link-grammar parses no "Where in Poland is ...?"); a word, as a
            # disfluent form may part the two ("Which part, uh, of ...")
            options = [o for o in options if not PART_WORD.search(o.text)]
        if not options:
            return None
        option = options[ctx.rng.randrange(len(options))]
        # "it", never "the city": the question names the country just answered, so "it"
        # cannot be read as that country ("Where is it in Germany?", not "Where is the city
        # in Germany?", which reads as a question about some city of Germany)
        question = self.fill(option.text, e, turn.type_id, ans.tense, None, False,
                             noun=False, there=turn.there_clear, later=turn.later_mention)
        at = question.index("[v]")
        question = question.replace("[v]", with_article(render(country), question[:at][-6:],
                                                        False), 1)
        said = tuple(render(v, question) for v in ans.values)
        if any(contains(question, a) for a in said):
            return None
        return self._phrased(turn, option, question, said, False)

    def _follow(self, turn: Turn) -> list[TemplateOption]:
        """The fact's stored follow-ups (phenomenon ``follow``: "where was that?", "which
        part of [a] is it in?", "what are their names?"), said with a filler in a disfluent
        configuration (the template stays the stored one)."""
        pt, phen = turn.planned, turn.phenomenon
        options = self.view.options(turn.type_id, pt.property_id, None, turn.answer.tense,
                                    "follow")
        if not phen.endswith("disfluencies"):
            return options
        key = ("follow", turn.type_id, pt.property_id, turn.answer.tense, phen)
        found = self._kind_templates.get(key)
        if found is None:
            found = self._kind_templates[key] = [
                replace(o, text=phrasing.disfluent(o.text, random.Random(seeded(*key, i))))
                for i, o in enumerate(options)]
        return found

    def _anaphoric_forms(self, property_id: str, qualifier_id: str, tense: str
                         ) -> list[TemplateOption]:
        """The built-in forms, where the templates hold none (an LLM writer need not write
        elliptic variants): the rules writer's own, under an id of their text."""
        key = ("anaphoric-forms", property_id, qualifier_id, tense, self.cfg.interaction)
        found = self._kind_templates.get(key)
        if found is None:
            forms = lexicon.anaphoric_forms(property_id, qualifier_id, tense)
            texts = forms[0 if self.cfg.interaction == "voice" else 1] if forms else ()
            found = self._kind_templates[key] = [
                TemplateOption(hashlib.sha256(json.dumps([*key, text]).encode()).hexdigest()
                               [:16], text, "rules", None, None) for text in texts]
        return found

    def _phrase_kind(self, turn: Turn) -> Turn | Drop:
        e, pt, ans = turn.subject, turn.planned, turn.answer
        slot_person = self._slot_person(ans, pt)
        # "Did he also write the screenplay?": the value just named said as "he" or "she"
        # (or "there" in the form), where the configuration refers back and it is clear
        back = None
        if pt.kind == "span" and (pt.span != "term" or self.cfg.interaction != "voice"):
            # "How old was he when he died?"; typed, "[a] years in office"
            back = "" if turn.phenomenon.startswith("deixis") and (
                self.cfg.interaction == "voice" or pt.span == "term") else None
        elif pt.after is not None and self.cfg.interaction != "voice":
            # a typed "also" query refers to the subject by its deixis form, naming [a]
            back = "" if turn.phenomenon.startswith("deixis") else None
        elif pt.slot is not None and turn.phenomenon.startswith("deixis"):
            if slot_person:  # "he" or "she" (a person of unknown gender is named, and so
                back = pronoun(self.view.gender_of(ans.slot_value))  # is one whose pronoun
                if self.view.someone(e) and back == pronoun(e.gender):  # the subject's too:
                    back = None  # "Who was he married to before him?")
                if back is None and pt.kind == "span":  # "So how many years was Mikhail
                    back = render(ans.slot_value)  # Gorbachev in office?", not "... head
                    # of state of it?"
            elif (pt.after in kinds.ALSO_PLACES if pt.after is not None
                  else pt.property_id in kinds.BEFORE_THINGS):
                back = ""  # a place or team: the form says "there" or "that"
        refer_back = back is not None
        options = self.kind_templates(turn.type_id, pt, ans.tense, turn.phenomenon,
                                      refer_back)
        if not options:
            return Drop(f"{e.id}/{pt.property_id}/{pt.kind}",
                        f"no {pt.kind} question pattern for the fact")
        if turn.reference_noun and ans.tense == "past" and \
                turn.phenomenon.startswith("deixis") and \
                possessive_as_of(options[0].text) is None:
            # "who was [his] head of state before [a]?" of a state that has ended: never
            # "the country's", which reads as the present; the subject is named
            return self._phrase_kind(replace(turn, phenomenon=without_deixis(turn.phenomenon),
                                             reference_noun=False, there_clear=False))
        question = self.fill(options[0].text, e, turn.type_id, ans.tense, ans.slot_value,
                             slot_person, noun=turn.reference_noun, there=turn.there_clear,
                             later=turn.later_mention)
        if refer_back and back:
            if back in OBJECT_PRONOUN:  # "Who was he married to before her?", never "before
                question = AFTER_PREPOSITION.sub(  # she"
                    lambda m: f"{m.group(1)} {OBJECT_PRONOUN[back]}", question)
            question = question.replace("[v]", back)  # a label, never a pattern
        if self.cfg.interaction == "text" and len(question.split()) > MAX_TEXT_WORDS:
            return Drop(f"{e.id}/{pt.property_id}/{pt.kind}",
                        f"the {pt.kind} query would be too long to type")
        said = tuple(render(v, question) for v in ans.values)
        if pt.kind == "before" and any(contains(question, a) for a in said):
            return Drop(f"{e.id}/{pt.property_id}/{pt.kind}",
                        f"the {pt.kind} question would give its answer away")
        return self._phrased(turn, options[0], question, said, slot_person)

    def _phrased(self, turn: Turn, template: TemplateOption, question: str,
                 said: tuple[str, ...], slot_person: bool) -> Turn:
        """The turn with its question, and what it carries beside it: its SPARQL query and,
        with sentence answers, its sentence (neither depends on how the question is said).
        A deixis template whose reference was filled with the name (``names_reference``)
        made no deixis: the turn is recorded as the phenomenon without it."""
        question = self.said_with_offices(turn, question)
        query_id, sparql = self.query(turn.subject, turn.planned, turn.answer)
        sentence = self.sentence(turn, said) if self.cfg.answer_style == "sentence" else None
        phen = turn.phenomenon
        if phen.startswith("deixis") and self.names_reference(turn.subject) and any(
                ref in template.text for ref in (
                    ("[he]", "[him]", "[his]") if self.cfg.interaction == "voice"
                    else ("[he]", "[him]"))):
            phen = without_deixis(phen)
        return replace(turn, template=template, question=question, said=said,
                       slot_person=slot_person, query_id=query_id, sparql=sparql,
                       sentence=sentence, phenomenon=phen)

    def said_with_offices(self, turn: Turn, text: str) -> str:
        """A question or template with the subject's offices ("Who is the president of
        Mali?", not "the head of state"; ``wording.with_offices``), in the present tense
        only: an office named today may not be what it was called then."""
        offices = self.view.offices.get(turn.subject.id)
        if offices and turn.answer.tense == "present":
            return with_offices(text, offices)
        return text

    @staticmethod
    def names_reference(e) -> bool:
        """Whether a reference to the subject is its name: a person of unknown gender."""
        return bool(e.human) and references(True, e.gender, None, "present") == UNKNOWN_PERSON

    def _slot_person(self, ans: Answer, pt: PlannedTurn) -> bool:
        return ans.slot_value is not None and self.view.is_person(ans.slot_value,
                                                                  pt.property_id)

    def kind_templates(self, type_id: str, pt: PlannedTurn, tense: str,
                       phen: str, refer_back: bool = False) -> list[TemplateOption]:
        """Templates of a kind of question: the curated pattern, with its deixis and
        disfluent forms, made once per (type, property, kind, tense, phenomenon; for an
        "also" question the property before it, and whether it refers back)."""
        key = (type_id, pt.property_id, pt.kind, tense, phen, pt.after, pt.span, refer_back)
        found = self._kind_templates.get(key)
        if found is None:
            cfg = self.cfg
            deixis = phen.startswith("deixis")
            if pt.after is not None:  # "also": its curated forms, the spoken one referring
                pattern = kinds.also_pattern(pt.after, pt.property_id, cfg.interaction,
                                             tense, refer_back)  # back when it can
                deixis = deixis and not refer_back  # a form that refers back says [he]
            elif pt.kind == "before" and pt.slot is not None:
                pattern = kinds.before_pattern(pt.property_id, cfg.interaction, refer_back)
                deixis = deixis and not refer_back
            elif pt.kind == "span":
                pattern = kinds.span_pattern(pt.span, pt.property_id, cfg.interaction,
                                             refer_back)
                deixis = deixis and not refer_back
            else:
                pattern = kinds.pattern(pt.kind, pt.property_id, cfg.interaction, tense)
            interaction = cfg.interaction
            if pt.kind == "verify" and deixis and interaction == "text":
                # a typed yes/no query cannot point back in keywords ("his citizen of
                # Australia?", "its in Algeria?"): it is typed as the question is said
                interaction = "voice"  # ("is he a citizen of Australia?")
                pattern = kinds.pattern(pt.kind, pt.property_id, interaction, tense)
            found = []
            if pattern:
                text = render_pattern(pattern, self.view.placeholder(type_id), deixis,
                                      interaction)
                if phen.endswith("disfluencies"):
                    text = phrasing.disfluent(text, random.Random(seeded("kind", *key)))
                tid = hashlib.sha256(json.dumps(["kind", *key, text]).encode()).hexdigest()[:16]
                found = [TemplateOption(tid, text, "rules", None, None)]
            self._kind_templates[key] = found
        return found

    def fill(self, template: str, e: EntityFacts, type_id: str, tense: str,
             value: Value | None, value_is_person: bool = False, once: bool = False,
             noun: bool = False, later: bool = False, there: bool = False) -> str:
        """Slot-fill a template (split into literal text and placeholders once, then cached;
        ``once``: a template used once, such as one with a typo, is not cached). ``noun``:
        a thing is "the city" rather than "it" (``transforms.deixis``); ``later``: the
        subject was named before, so a spoken question may use its short name ("John
        Ramsden" for "Sir John Ramsden, 5th Baronet"). A place said "it" after "in" is
        "there", and so is "the country" with ``there`` (the answer before was no place)."""
        key = (e.id, type_id, tense, noun, later)
        slots = self._slots.get(key)
        if slots is None:
            he, him, his = references(self.view.someone(e), e.gender,
                                      self.view.type_labels.get(type_id), tense, noun, e.label)
            family = None
            if self.cfg.interaction == "voice":
                label = (short_name(e.label, e.human) or e.label) if later else e.label
                if later and e.human:
                    family = surname(label, self.view.family_names.get(e.id))
                name = named(family or label, e.human)
                if not later:  # "the film Cluny Brown": a work's title says not what it is
                    worked = work_named(name, self.view.type_labels.get(type_id), e.human)
                    if worked != name:  # ... unless the question says "film" itself
                        self._work_names[key] = (thing_noun(
                            self.view.type_labels.get(type_id)), name)
                    name = worked
            else:
                name = e.label
            full = None  # what a family name said for the subject becomes when it is not
            # enough ("When did Smith marry Anna Smith?")
            if family:
                full = named(label, e.human)
            if self.names_reference(e):  # "Where was this person born?" reads as a form:
                # a person of unknown gender is named ("Where was Nəbiyev born?"; a search
                # query keeps "their": "their employer")
                if self.cfg.interaction == "voice":
                    short = short_name(e.label, True) or e.label
                    last = surname(short, self.view.family_names.get(e.id))
                    he = him = named(last or short, True)
                    his = possessive(he)
                    if last:
                        family, full = family or last, named(short, True)
                else:
                    he = him = e.label
            slots = self._slots[key] = {self.view.placeholder(type_id): name,
                                        "[he]": he, "[him]": him, "[his]": his}
            if self.cfg.interaction == "voice" and not e.human and salience.broad_kind(
                    self.view.type_labels.get(type_id), False) in salience.PLACES:
                slots["there"] = "there"  # a place said "it" after "in" is "there"
            if family:
                self._in_full[key] = (re.compile(rf"\b{re.escape(family)}\b", re.I), full)
        in_full = self._in_full.get(key)
        if in_full and (in_full[0].search(template) or (
                value is not None and in_full[0].search(render(value)))):
            # never "When was Born born?", "How many years was McCartney married to Paul
            # McCartney?": the name in full, where it stands for the subject or refers to it
            slots = {**slots, self.view.placeholder(type_id): in_full[1]}
            if self.names_reference(e) and self.cfg.interaction == "voice":
                slots.update({"[he]": in_full[1], "[him]": in_full[1],
                              "[his]": possessive(in_full[1])})
        parts = self._parts.get(template)
        if parts is None:
            parts = PLACEHOLDER_SPLIT.split(template)
            if not once:
                self._parts[template] = parts
        literal = "".join(parts[::2])  # the template's own words
        if noun and slots["[he]"].startswith("the "):
            if re.search(rf"\b{re.escape(slots['[he]'][4:])}\b", literal, re.I):
                # "What kind of film is it?", never "What kind of film is the film?" (and
                # of a state that has ended, "its head of state", never "... of it")
                slots = {**slots, "[he]": "it", "[him]": "it", "[his]": "its"}
            elif tense == "past" and (said_of := possessive_as_of(template)) not in (
                    None, template):
                # "the capital of the country", never "the country's capital"
                parts = self._parts.get(said_of) or PLACEHOLDER_SPLIT.split(said_of)
                if not once:
                    self._parts[said_of] = parts
        work = self._work_names.get(key)
        if work and re.search(rf"\b{re.escape(work[0])}\b", literal, re.I):
            # "What kind of film is Thor?", never "What kind of film is the film Thor?"
            slots = {**slots, self.view.placeholder(type_id): work[1]}
        out = []
        for i, p in enumerate(parts):
            if i % 2 == 0:
                if p.startswith("'s") and out and out[-1].endswith("s") and \
                        not out[-1].endswith("ss"):
                    p = "'" + p[2:]  # "Emirates' headquarters", not "Emirates's"
                out.append(p)
            elif p == "[a]":  # a value the question names: exact, never "1.44 billion"
                text = render(value, in_words=False) if value is not None else ""
                out.append(with_article(text, "".join(out)[-6:], value_is_person))
            elif p == "[him]" and "there" in slots and out and out[-1].endswith(" in ") and \
                    (slots[p] == "it" or (there and noun and slots[p].startswith("the "))):
                out[-1] = out[-1][:-3]  # "How many people live there?", not "live in it?"
                out.append("there")
            else:
                out.append(slots.get(p, p))
        return "".join(out)

    # -- what the turn carries beside its question
    def query(self, e: EntityFacts, pt: PlannedTurn, ans: Answer) -> tuple[str, str]:
        """The id and text of the turn's SPARQL query (made once per fact: facts recur)."""
        if pt.kind == "fact":
            kind = ans.values[0].kind
            key = (e.id, pt.property_id, pt.qualifier_id, ans.tense, kind,
                   ans.statement_id if pt.qualifier_id else None)
            found = self._queries.get(key)
            if found is None:
                text = turn_query(e.id, pt.property_id, kind, ans.tense,
                                  qualifier_id=pt.qualifier_id, statement_id=ans.statement_id)
                found = self._queries[key] = (hashlib.sha256(text.encode()).hexdigest()[:20],
                                              text)
            return found
        if pt.kind == "count":
            text = count_query(e.id, pt.property_id, ans.tense)
        elif pt.kind == "verify":
            text = verify_query(e.id, pt.property_id, ans.slot_value.value_id, ans.tense)
        elif pt.kind == "span":
            if pt.span == "term":
                st = e.properties[pt.property_id][pt.statement_index]
                text = span_query(e.id, ("P580", "P582"), statement_id=st.statement_id,
                                  property_id=pt.property_id)
            else:
                (p_start, _), (p_end, _), *_, unit = kinds.SPANS[pt.span]
                text = span_query(e.id, (p_start, p_end), unit=unit[0] if unit else None,
                                  day_only=pt.span == "age")
        elif ans.reference:  # the follow-up: holders of any rank but deprecated
            text = before_query(e.id, pt.property_id, ans.reference, any_rank=True)
        else:
            ref = next(s.statement_id for s in e.properties[pt.property_id]
                       if s.value == ans.slot_value and start(s) is not None)
            text = before_query(e.id, pt.property_id, ref)
        return hashlib.sha256(text.encode()).hexdigest()[:20], text

    def sentence(self, turn: Turn, said: tuple[str, ...]) -> str:
        """With ``--answer-style sentence``: the answer as one grounded sentence."""
        e, pt, ans, type_id = turn.subject, turn.planned, turn.answer, turn.type_id
        labels = self.view.run.property_labels
        fact = Fact(type_id, self.view.type_labels.get(type_id) or "entity", pt.property_id,
                    labels.get(pt.property_id, pt.property_id), None, pt.qualifier_id,
                    labels.get(pt.qualifier_id) if pt.qualifier_id else None)
        counted = kinds.COUNT[pt.property_id][1] if pt.kind == "count" else None
        slot = render(ans.slot_value) if ans.slot_value is not None else None
        # a name takes its article in running text ("is in the Netherlands", "a member of
        # the Democratic Party"); people never do (``spoken_name``): "married to Gabrielle
        # Union", never "the Gabrielle Union"
        people = [self.view.is_person(v, pt.property_id) for v in ans.values] \
            if len(ans.values) == len(said) else [False] * len(said)
        said = tuple(named(v, person) if v[:1].isupper() else v
                     for v, person in zip(said, people))
        text = kinds.sentence(pt.kind, named(e.label, e.human), fact, list(said),
                              tense=ans.tense, slot=slot,
                              precisions=tuple(v.precision for v in ans.values),
                              counted=counted)
        return text[0].upper() + text[1:]
