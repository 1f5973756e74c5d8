"""Rules over an entity's facts, the same on every path: which statements answer a fact and
in which tense, which values can be said, which measurements a later one superseded, and
whether a fact can be asked with a complete gold answer.

Each rule is also stated by the turn's SPARQL (``convkgyarn.kg.queries``): a turn's query
returns exactly its answer on the snapshot it came from.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from convkgyarn.kg.render import Value
from convkgyarn.kg.render import unsayable as unsayable_value
from convkgyarn.stages.assemble.records import Drop, EntityFacts, Statement

GONE = ("P570", "P576")  # date of death; dissolved, abolished or demolished
END = "P582"
START = "P580"
POINT_IN_TIME = "P585"
HUMAN = "Q5"


def answer_statements(e: EntityFacts, stmts: tuple[Statement, ...] | list[Statement]
                      ) -> tuple[list[Statement], str]:
    """The statements whose values answer a fact, and its tense: what holds now (not ended,
    not superseded) in the present; everything, in the past, when nothing holds now or the
    subject is gone. The same rule as the turn's SPARQL (``queries.turn_query``)."""
    current = [s for s in stmts if s.current]
    if e.gone or not current:
        return list(stmts), "past"
    return current, "present"


BIRTH = "P569"
# A sportsperson's playing career: the sport, the position, the teams, the league, the
# country played for, the class. Of a
# living person born CAREER_YEARS or more before the KG's dump it is over, though the KG
# seldom ends these statements (Steve Clarke, born 1963 and a manager since, "plays" as a
# defender in the Premier League): they are said in the past tense, every statement ever
# held, as for the dead ("What position did he play?"); the past of a 41-year-old still
# playing is as true.
PLAYING_CAREER = frozenset({"P641", "P413", "P54", "P118", "P1532", "P2094"})
CAREER_YEARS = 40
_YEAR = re.compile(r"^(-?)(\d{1,9})(?=-|$)")


def year_of(text: str | None) -> int | None:
    """The year a stored date or a dump date begins with ("1963-08-29": 1963, "-427": -427;
    None for anything else)."""
    m = _YEAR.match(text or "")
    return None if m is None else int(m.group(1) + m.group(2))


def career_over(living_person: bool, born: str | None, dump_year: int | None) -> bool:
    """Whether a living person's playing career (``PLAYING_CAREER``) is said in the past:
    born ``CAREER_YEARS`` or more before the dump's year. No birth date or no dump date:
    no (the KG's own end dates still decide)."""
    year = year_of(born)
    return living_person and year is not None and dump_year is not None and \
        dump_year - year >= CAREER_YEARS


def value_key(value: Value) -> str | tuple:
    """What a value is, whatever statement holds it: an item's id, else its stored text with
    its type, unit and precision (Australia's retirement age 65 years and 66.5 years)."""
    return value.value_id or (value.value_type, value.label, value.unit_id, value.precision)


def unsayable(value: Value, subject_label: str | None, max_label: int) -> str | None:
    """Why a value cannot be said to a user, or None: no English label (never a raw id),
    an amount whose unit has no label, an absurdly long label, or an item bearing the
    subject's own name (Lisbon lies in Lisbon municipality's "Lisbon"). A fact with such
    a value among its answers is not asked at all: its gold answer would miss a value."""
    if (why := unsayable_value(value)) is not None:  # unknown, blank, no date, no number
        return why
    if value.label is None:
        return "a value without an English label"
    if value.unit_id and not value.unit_label:
        return "a unit without an English label"
    if len(value.label) > max_label:
        return "a value label too long to say"
    if value.value_id and subject_label and \
            value.label.casefold() == subject_label.casefold():
        return "a value that bears the subject's name"
    return None


def superseded(stmts: list[tuple[str, Value, bool]], dates: dict[str, list[tuple]]) -> set[str]:
    """The statements (id, value, ended) of one (entity, property) that a later measurement
    replaced: an amount whose point in time (P585) is earlier than another best-rank
    statement's ("What is the population of X?" asks for the latest count, not every census:
    Wikidata often leaves a series at normal rank). ``dates`` holds the points in time of
    every best-rank statement of the property, kept or not: the same rule as
    ``queries.turn_query``'s. Items with a date (an award and its year) are events: all
    hold."""
    out: set[str] = set()
    if len(dates) < 2:
        return out
    for sid, value, _ in stmts:
        own = dates.get(sid)
        if own and value.kind == "quantity":
            later = [d for other, ds in dates.items() if other != sid for d in ds]
            if later and min(own) < max(later):
                out.add(sid)
    return out


def start(statement: Statement) -> str | None:
    """A statement's start time (``P580``) as comparable text, as SPARQL compares it
    (unknown month or day as the first); None without exactly one, or before year 1."""
    starts = [q for q in statement.qualifiers.get(START, ()) if q.kind == "time"]
    if len(starts) != 1:
        return None
    return comparable_time(starts[0].label)


def comparable_time(text: str | None) -> str | None:
    """A stored time as comparable text (unknown month or day as the first), None before
    year 1."""
    if not text or text.startswith("-"):
        return None
    return re.sub(r"-00(?=[-T])", "-01", text.lstrip("+"))


# What a name can say: named after, field of work ("the Van Gogh Museum's field" "Vincent
# van Gogh"), main subject ("A History of France" "France"), a state's executive body ("Who
# forms Brazil's government?" "The Federal Government of Brazil"; "Australian Government")
NAME_SAYS = frozenset({"P138", "P101", "P921", "P208", "P37"})
# Where a thing is, what it is part of or the capital of, when its name says all of it:
# "Where is Siena in Italy?" "Province of Siena."; "Where is Amsterdam in the Netherlands?"
# "Amsterdam."; "Which country was the Imperial German Navy based in?" "German Empire."
# (a reader's finds, issue #33); not one shared word ("Manchester United F.C.": the United
# Kingdom; "1st arrondissement of Lyon" for a museum in Lyon says more)
WHERE_NAME_SAYS = frozenset({"P131", "P159", "P276", "P740", "P17", "P361", "P1376"})
# Words two names share without saying anything of each other: the kind of thing ("Van Gogh
# Museum", "Lincoln College"), particles and titles ("van", "of", "Saint").
COMMON_WORDS = frozenset("""
    a an and at de del della der des di du el en for het in la le les of on the to van von
    y zu saint st san santa sankt mount lake river city town county state republic
    kingdom university college school museum church cathedral abbey station airport
    bridge park street square house hall palace castle tower institute academy society
    company club team library hospital theatre theater island islands north south east
    west new old great little upper lower fort port saint's united empire federal federation
    province region district department municipality oblast prefecture canton governorate
    voivodeship arrondissement borough metropolitan commune people democratic
""".split())


# How a country's name becomes its adjective: Australia-n, Brazil-ian, Japan-ese, Ital(y)-ian
DEMONYM_ENDS = ("", "n", "an", "ian", "ese", "ish", "i")  # "" for Lao(s), German(y)
# Properties whose value a country's adjective can say: its government ("Australian
# Government") and its official language ("What is the official language of Estonia?"
# "Estonian." asks what the name says; Malta's Maltese and English are still asked). Only
# these: for a name in general an ending is no proof ("Julian" is not Julia Creek's,
# "Martini" not Saint Martin's).
DEMONYM_SAYS = frozenset({"P208", "P37", "P17"})
# A club's name that says its sport (P641) is association football: "Oxford City F.C.",
# "AFC Ajax", "Real Madrid CF" ("Which sport does it compete in?" "Association football.");
# not "Port Adelaide FC"'s Australian rules football
SPORT = "P641"
ASSOCIATION_FOOTBALL = "Q2736"
FOOTBALL_IN_NAME = re.compile(r"(?<!\w)(a\.?f\.?c\.?|f\.?c\.?|c\.?f\.?|football|fútbol|"
                              r"futbol|futebol|calcio|voetbal|fußball|fussball)(?!\w)", re.I)


def _words(text: str) -> set[str]:
    """The words of a name that name something (not ``COMMON_WORDS``, numbers, short ones)."""
    return {w for w in re.findall(r"\w+", text.casefold())
            if len(w) > 2 and w not in COMMON_WORDS and not w.isdigit()}


def _adjectives(names: set[str]) -> set[str]:
    """Words and the adjectives a country's name makes of them ("australia": "australian")."""
    return names | {stem + end for n in names if len(n) >= 4 for stem in (n, n[:-1])
                    for end in DEMONYM_ENDS}


def name_holds(subject: str, value: str, demonym: bool = False) -> bool:
    """Whether a subject's name says every word of a value that names something ("Siena":
    "Province of Siena"; with ``demonym``, "Imperial German Navy": "German Empire", by the
    adjective either way); a value with no such word is not said."""
    said = _words(value)
    named = _adjectives(_words(subject)) if demonym else _words(subject)
    return bool(said) and all(w in named or (demonym and _adjectives({w}) & named)
                              for w in said)


def name_says(subject: str, value: str, demonym: bool = False) -> bool:
    """Whether a subject's name already says what it is named after (or works on, or is
    about): the two share a word that names something ("What is the Van Gogh Museum named
    after?" "Vincent van Gogh"; "Lincoln College" after the Diocese of Lincoln). Such a
    question asks nothing a reader does not know from the name; words every other name has
    ("museum", "van") do not count. With ``demonym``, a word of the value that is a word of
    the name made an adjective counts too ("Australian Government" for Australia, "Chinese"
    for China, "Italian" for Italy)."""
    named, said = _words(subject), _words(value)
    if demonym:  # "australian" from "australia", "italian" from "ital(y)"
        named = _adjectives(named)
    return bool(named & said)


# Values that say a subject has none of what the property asks: "What was its state
# religion?" "Secular state." (a reader's "odd" question, issue #33)
NONE_OF_IT = {"P3075": frozenset({"Q859563"})}  # official religion: secular state


# Measures of which a thing has one at a time and in whole: several best-rank amounts are
# each of another year or part ("How many people lived in the Polish-Lithuanian
# Commonwealth?" "7,500,000, 11,000,000, 12,300,000"; Cluny's elevation "226 metres, 574
# metres", its lowest and highest point), which the question cannot say: not asked. An
# amount a later census superseded is already left out (``superseded``); a set of amounts
# (oxidation states) is asked.
ONE_MEASURE = frozenset({
    "P1082", "P2046", "P2044", "P2048", "P2043", "P2049", "P2067", "P2386", "P2120",
    "P2131", "P2139", "P2295", "P2403", "P1128", "P2196", "P1174", "P2250", "P1081",
    "P4010", "P2219", "P3529", "P2052", "P2047", "P2660", "P1198", "P5822", "P2927",
    "P2573", "P1083", "P1101", "P1092", "P2130", "P2142", "P2218", "P2226", "P2299",
    "P6125", "P4841", "P2997", "P1539", "P1540", "P6343", "P6344", "P1098", "P3872",
    "P6589"})


def shares_value(stmts: tuple[Statement, ...] | list[Statement], st: Statement,
                 current_only: bool = False) -> bool:
    """Whether another statement of the property holds the statement's value: Max Born was
    nominated for the Nobel Prize in Physics twelve times and worked at Göttingen twice, so
    "When was he nominated for it?" or "When did he start working there?" has several
    answers, and one statement's qualifier would be an incomplete gold answer. A question
    about such a statement's qualifiers is not asked. With ``current_only``, only
    statements that hold now count: "Which offices does he hold?" "President." "Since
    when?" asks about the current term alone, whatever terms ended before."""
    return sum(1 for o in stmts if o.value == st.value and (o.current or not current_only)) > 1


def askable(e: EntityFacts, fact: tuple[str, str | None], max_values: int,
            ended_below: Collection = ()) -> tuple[bool, Drop | None]:
    """Whether the fact can be asked with a complete gold answer: every value that answers
    it can be said, and there are at most ``max_values`` of them (a fact is never
    truncated). In the past tense every value it held answers, so a fact whose ended
    statements below the best rank (``ended_below``, their ``value_key``s) held a value the
    best-rank ones do not is not asked: "Who was the head of state of the Soviet Union?"
    "Mikhail Gorbachev." would mark Brezhnev wrong (a turn's query reads the best rank).
    A qualifier fact needs a statement holding the qualifier whose value can be said (the
    question names it) and that no other statement holds (``shares_value``).
    What a subject is named after, works on or is about is not asked when its name says it
    (``name_says``). A fact left out for its values comes with its drop."""
    pid, qid = fact
    stmts = e.properties.get(pid)
    if not stmts:
        return False, None
    if qid is not None:
        holders = [s for s in stmts if qid in s.qualifiers and s.unsayable is None]
        if holders and all(shares_value(stmts, s, s.current and not e.gone) for s in holders):
            return False, Drop(f"{e.id}/{pid}/{qid}", "qualifier not asked: several "
                               "statements hold the value the question names",
                               holders[0].value.value_id or holders[0].statement_id)
        return bool(holders), None
    chosen, tense = answer_statements(e, stmts)
    if tense == "past" and (missing := set(ended_below) - {value_key(s.value) for s in chosen}):
        return False, Drop(f"{e.id}/{pid}", "not asked: in the past tense an ended statement "
                           "below the best rank held another value (the answer would be "
                           "incomplete)", ", ".join(sorted(k if isinstance(k, str) else str(k[1])
                                                           for k in missing)))
    if pid in NAME_SAYS | WHERE_NAME_SAYS and chosen and all(
            s.value.label and (name_holds if pid in WHERE_NAME_SAYS else name_says)(
                e.label, s.value.label, pid in DEMONYM_SAYS) for s in chosen):
        return False, Drop(f"{e.id}/{pid}", "not asked: the subject's name says it",
                           ", ".join(sorted({s.value.label for s in chosen})))
    if pid == SPORT and chosen and FOOTBALL_IN_NAME.search(e.label) and all(
            s.value.value_id == ASSOCIATION_FOOTBALL for s in chosen):
        return False, Drop(f"{e.id}/{pid}", "not asked: the subject's name says it",
                           ", ".join(sorted({s.value.label or "" for s in chosen})))
    if pid in NONE_OF_IT and chosen and all(s.value.value_id in NONE_OF_IT[pid]
                                            for s in chosen):
        return False, Drop(f"{e.id}/{pid}", "not asked: the value says there is none",
                           ", ".join(sorted({s.value.label or "" for s in chosen})))
    why = next((s.unsayable for s in chosen if s.unsayable), None)
    if why is not None:
        return False, Drop(f"{e.id}/{pid}", f"not asked: {why} (the answer would be "
                           "incomplete)", next(s.value.value_id or s.statement_id
                                               for s in chosen if s.unsayable))
    n = len({s.value for s in chosen})
    if n > 1 and pid in ONE_MEASURE and all(s.value.kind == "quantity" for s in chosen):
        return False, Drop(f"{e.id}/{pid}", "not asked: several amounts of one measure, "
                           "each of another time or part the question cannot say",
                           ", ".join(sorted({s.value.label or "" for s in chosen})))
    if n > max_values:
        return False, Drop(f"{e.id}/{pid}", "too many values for one answer (generate."
                           "max_answer_values)", f"{n} values")
    return True, None
