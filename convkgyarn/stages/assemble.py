"""Assemble conversations: pick an entity's facts, slot-fill templates, apply the config.

Shared by the rules and the LLM path (templates differ, slot filling and rendering do not).

Rules: the first turn never uses deixis; a deixis turn follows a turn about the same
entity, and names the entity again when the previous answer could be read as its referent
(a person of the same gender, or of unknown gender); predicates that belong together stay
together (date and place of birth, a marriage and its dates); complex facts are answered
with the full list; qualifier questions name the fact's value and are answered by the
qualifier's value; related entities are introduced by name.

Values: only values with an English label are used (never a raw id); answers are written
for people (``convkgyarn.kg.render``) with the exact values kept beside them
(``answer_values``). Tense comes from the data: a fact whose statements all ended, or of a
subject that died or was dissolved, is asked in the past; one with current and ended
statements is asked in the present about the current ones only.

Randomness comes from generators seeded by (seed, entity, index): the same seed and inputs
give byte-identical output, and the facts do not depend on the interaction config when
``same_facts`` is set.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import duckdb
import orjson

from convkgyarn import __version__
from convkgyarn.config import GenerateConfig
from convkgyarn.conversations import RunRecord, store_run
from convkgyarn.errors import UserError
from convkgyarn.kg.rdf import time_order
from convkgyarn.kg.queries import before_query, count_query, turn_query, verify_query
from convkgyarn.kg.render import Value, machine, render, unsayable, year_question_fits
from convkgyarn.kg.snapshot import kg_version, type_label
from convkgyarn.memory import gc_paused
from convkgyarn.stage import Stage, code_version
from convkgyarn.stages import kinds, phrasing
from convkgyarn.stages.lexicon import THING_REFERENCES
from convkgyarn.stages.rules_writer import render_pattern
from convkgyarn.text import Fact
from convkgyarn.stages.phrasing import value_kind
from convkgyarn.stages.typos import content_words, typo_in
from convkgyarn.store import registered
from convkgyarn.text import subject_placeholder

GENDER = {"Q6581097": ("he", "him", "his"), "Q6581072": ("she", "her", "her"),
          "Q2449503": ("he", "him", "his"), "Q1052281": ("she", "her", "her")}
GONE = ("P570", "P576")  # date of death; dissolved, abolished or demolished
END = "P582"
POINT_IN_TIME = "P585"
# Predicates asked one after the other when an entity has both.
GROUPS = (("P569", "P19"), ("P570", "P20"), ("P580", "P582"), ("P577", "P2047"))
TRANSITIONS = ("Okay, and ", "Alright, now ", "And ")
MAX_TEXT_WORDS = 10
YEAR_QUESTION = re.compile(r"\byears?\b", re.I)
MAX_TEXT_SUBJECT_WORDS = 6


@dataclass
class Statement:
    statement_id: str
    value: Value
    ended: bool = False
    superseded: bool = False  # a measurement with a later one beside it (see _supersede)
    qualifiers: dict[str, list[Value]] = field(default_factory=dict)
    unsayable: str | None = None  # why its value cannot be said (no English label, ...)

    @property
    def current(self) -> bool:
        return not (self.ended or self.superseded)

    @property
    def label(self) -> str:
        return self.value.label or ""


@dataclass
class EntityFacts:
    id: str
    label: str
    gender: str | None
    types: list[str]
    human: bool
    gone: bool  # died, or dissolved / abolished / demolished
    properties: dict[str, list[Statement]]


@dataclass(frozen=True)
class PlannedTurn:
    entity: str
    property_id: str
    qualifier_id: str | None
    statement_index: int  # which statement a qualifier question is about
    kind: str = "fact"  # or count, verify, before (convkgyarn.stages.kinds)


def _supersede(con: duckdb.DuckDBPyConnection,
               props: dict[str, dict[str, list[Statement]]]) -> None:
    """Mark measurements that a later one replaced: an amount whose point in time (P585)
    is earlier than another best-rank statement's of the same property ("What is the
    population of X?" asks for the latest count, not every census: Wikidata often leaves
    a series at normal rank). Dates, not ranks, decide, and over every best-rank statement,
    kept or not: the same rule as ``queries.turn_query``'s, so the turn's SPARQL returns
    exactly its answer. Items with a date (an award and its year) are events: all hold."""
    dates: dict[tuple[str, str], dict[str, list[tuple]]] = defaultdict(lambda: defaultdict(list))
    for eid, pid, sid, text in con.execute(
            "SELECT q.entity_id, q.property_id, q.statement_id, q.value_text FROM qualifiers q "
            "JOIN _wanted w ON w.id = q.entity_id JOIN statements s ON s.statement_id = "
            "q.statement_id AND s.truthy WHERE q.qualifier_property_id = ? AND q.value_type = "
            "'time' AND q.value_text IS NOT NULL", [POINT_IN_TIME]).fetchall():
        order = time_order(text)
        if order is not None:
            dates[(eid, pid)][sid].append(order)
    for (eid, pid), by_statement in dates.items():
        if len(by_statement) < 2:
            continue
        for st in props.get(eid, {}).get(pid, ()):
            own = by_statement.get(st.statement_id)
            if own and st.value.kind == "quantity":
                later = [d for sid, ds in by_statement.items() if sid != st.statement_id
                         for d in ds]
                st.superseded = bool(later) and min(own) < max(later)


@dataclass
class Answer:
    values: list[Value]
    statement_id: str
    tense: str
    slot_value: Value | None = None  # [a]: the statement's value, in qualifier questions
    left_out: int = 0  # ended values not asked about in a present-tense question
    outdated: list[Value] = field(default_factory=list)  # what held before, not now


@dataclass
class FactChange:
    """A fact a refresh changed: the values it held in the older snapshot."""

    refresh_id: str
    old_values: list[Value]
    old_dump_date: str | None
    new_dump_date: str | None


def load_changes(con: duckdb.DuckDBPyConnection, since: str) -> dict[tuple[str, str], FactChange]:
    """The facts changed since a snapshot: ``since`` is a refresh id (or its start), "last"
    (the latest refresh), or a dump date (every refresh from a snapshot dumped that day or
    later). Over several refreshes a fact keeps its oldest values."""
    refreshes = con.execute(
        "SELECT r.refresh_id, min(f.old_dump_date) FROM refresh_runs r JOIN fact_changes f "
        "USING (refresh_id) WHERE r.status IN ('done', 'swapped') GROUP BY 1, r.started_at "
        "ORDER BY r.started_at").fetchall()
    if since == "last":
        chosen = [r for r, _ in refreshes[-1:]]
    elif re.fullmatch(r"\d{4}-?\d\d-?\d\d", since):
        day = since.replace("-", "")
        chosen = [r for r, old in refreshes if (old or "").replace("-", "")[:8] >= day]
    else:
        chosen = [r for r, _ in refreshes if r == since or r.startswith(since)]
    if not chosen:
        known = ", ".join(r for r, _ in refreshes[-3:]) or "none yet"
        raise UserError(f"no refresh with changed facts matches --changed-since {since} "
                        f"(latest: {known}); run `convkgyarn refresh NEW_DUMP` first")
    out: dict[tuple[str, str], FactChange] = {}
    for refresh_id, eid, pid, values, old_date, new_date in con.execute(
            "SELECT f.refresh_id, entity_id, property_id, old_values, old_dump_date, "
            "new_dump_date FROM fact_changes f JOIN refresh_runs r USING (refresh_id) "
            "WHERE list_contains(?, f.refresh_id) ORDER BY r.started_at", [chosen]).fetchall():
        old = [Value(v["value_type"], v["label"] if v["value_id"] else v["value_text"],
                     v["value_id"], v["precision"], v["unit_id"], v["unit_label"])
               for v in json.loads(values)]
        if (eid, pid) in out:  # an older refresh already gave the oldest values
            out[(eid, pid)].new_dump_date = new_date
            continue
        out[(eid, pid)] = FactChange(refresh_id, old, old_date, new_date)
    return out


PLACEHOLDER_SPLIT = re.compile(r"(\[[^\[\]]+\])")


def _start(statement: Statement) -> str | None:
    """A statement's start time (``P580``) as comparable text, as SPARQL compares it
    (unknown month or day as the first); None without exactly one, or before year 1."""
    starts = [q for q in statement.qualifiers.get("P580", ()) if q.kind == "time"]
    if len(starts) != 1 or not starts[0].label or starts[0].label.startswith("-"):
        return None
    return re.sub(r"-00(?=[-T])", "-01", starts[0].label.lstrip("+"))


def answer_statements(e: "EntityFacts", stmts: list[Statement]) -> tuple[list[Statement], str]:
    """The statements whose values answer a fact, and its tense: what holds now (not ended,
    not superseded) in the present; everything, in the past, when nothing holds now or the
    subject is gone. The same rule as the turn's SPARQL (``queries.turn_query``)."""
    current = [s for s in stmts if s.current]
    if e.gone or not current:
        return stmts, "past"
    return current, "present"


def _seed(*parts: Any) -> int:
    blob = "\x1f".join(map(str, parts)).encode()
    return int.from_bytes(hashlib.blake2b(blob, digest_size=8).digest(), "big")


def _contains(question: str, label: str) -> bool:
    """Whether the label appears in the question as whole words (case-insensitive)."""
    if len(label) < 2:
        return False
    q, needle = question.lower(), label.lower()
    start = q.find(needle)
    while start >= 0:
        end = start + len(needle)
        if (start == 0 or not q[start - 1].isalnum()) and (end == len(q) or not q[end].isalnum()):
            return True
        start = q.find(needle, start + 1)
    return False


DEFINITE_NAMES = re.compile(
    r"^(United (States|Kingdom|Arab Emirates)|Netherlands|Philippines|Bahamas|Gambia|Maldives|"
    r"Comoros|Seychelles|Marshall Islands|Solomon Islands|Holy See|Soviet Union|"
    r"European Union|(Czech|Dominican|Central African) Republic|(Democratic )?Republic of|"
    r"People's Republic|Kingdom of|Federal Republic|Russian Federation)\b")


def named(label: str, human: bool) -> str:
    """A subject's name in a spoken question: a few country names take "the" ("the United
    States of America", "the Netherlands"); search queries leave it out."""
    return f"the {label}" if not human and DEFINITE_NAMES.match(label) else label


@lru_cache(maxsize=1 << 16)
def awkward_possessive(label: str) -> bool:
    """Long names, or names with commas or brackets, read badly as "X's": use "of X"."""
    return len(label.split()) >= 4 or any(c in label for c in ",()")


ROLE_NOUNS = re.compile(r"^(member|deputy|representative|senator|judge|justice|officer|"
                        r"delegate|minister|ambassador|councillor|trustee|fellow|professor)\b")


def with_article(label: str, before: str, person: bool) -> str:
    """A value in running text: a common noun ("euro", "mayor of Paris") takes "the", a role
    one of many ("member of the Bundestag") "a"; a proper name none; never "the the"."""
    if person or not label:
        return label
    if re.search(r"\b(the|a|an)$", before.rstrip(), re.I):
        return label[4:] if label.lower().startswith("the ") else label
    if label[0].islower() and not label[:2].isupper() and not label.lower().startswith("the "):
        return ("a " if ROLE_NOUNS.match(label) else "the ") + label
    return label


class KGView:
    """What assembly needs from the KG and the templates, loaded once in bulk."""

    def __init__(self, con: duckdb.DuckDBPyConnection, cfg: GenerateConfig, drop) -> None:
        self.con = con
        self.max_label = cfg.max_label_chars
        self.max_values = cfg.max_answer_values
        self.drop = drop
        self._namesakes: dict[str, tuple[str, int]] | None = None
        self.templates: dict[tuple, list[tuple[str, str, tuple]]] = defaultdict(list)
        for tid, type_id, pid, qid, tense, phen, text, writer, model, prompt_hash in con.execute(
                "SELECT template_id, type_id, property_id, qualifier_property_id, tense, "
                "phenomenon, text, writer, model, prompt_hash FROM templates "
                "WHERE interaction = ? ORDER BY type_id, property_id, qualifier_property_id, "
                "tense, phenomenon, variant", [cfg.interaction]).fetchall():
            self.templates[(type_id, pid, qid, tense, phen)].append(
                (tid, text, (writer, model, prompt_hash)))
        self.facts_by_type: dict[str, set[tuple[str, str | None]]] = defaultdict(set)
        for (type_id, pid, qid, _, _), _v in self.templates.items():
            self.facts_by_type[type_id].add((pid, qid))
        self.type_labels = {t: type_label(con, t) for t in self.facts_by_type}
        self.property_labels = dict(con.execute(
            "SELECT id, label FROM property_info WHERE label IS NOT NULL").fetchall())
        self.person_values = {r[0] for r in con.execute(
            "SELECT DISTINCT entity_id FROM entity_types WHERE type_id = 'Q5'").fetchall()}
        # properties whose values are people (by the KG where it knows, else by the label)
        self.person_properties = {pid for pid, dtype, label, share, n in con.execute(
            "SELECT p.id, p.datatype, p.label, avg(CAST(s.value_id IN (SELECT entity_id FROM "
            "entity_types WHERE type_id = 'Q5') AS DOUBLE)) FILTER (WHERE s.value_id IN "
            "(SELECT id FROM entities)), count(*) FILTER (WHERE s.value_id IN (SELECT id FROM "
            "entities)) FROM property_info p JOIN statements s ON s.property_id = p.id "
            "WHERE p.datatype = 'wikibase-item' GROUP BY 1, 2, 3").fetchall()
            if value_kind(dtype, label or "", share if n and n >= 3 else None) == "person"}

        self.genders = {}
        # (entity, property) -> distinct items of its best-rank statements: all, not ended
        self.item_counts: dict[tuple[str, str], tuple[int, int]] = {}
        self.related = dict(con.execute(
            "SELECT entity_id, related_id FROM related_entities").fetchall())
        self._cache: dict[str, EntityFacts | None] = {}
        self._best: dict[str, tuple] = {}
        self._askable: dict[tuple, bool] = {}
        self._placeholders: dict[str, str] = {}
        self._pools: dict[str, list[Value]] = {}
        self._plain: dict[tuple, list] = {}

    def false_candidate(self, property_id: str, held: set[str],
                        rng: random.Random) -> Value | None:
        """A plausible wrong value for a yes/no question: a value other entities hold for the
        same property (with an English label), not one the subject ever held."""
        pool = self._pools.get(property_id)
        if pool is None:
            pool = self._pools[property_id] = [Value("wikibase-item", label, vid) for vid, label
                                               in self.con.execute(
                "SELECT DISTINCT value_id, value_label FROM statement_values WHERE "
                "property_id = ? AND truthy AND value_id IS NOT NULL AND value_label IS NOT "
                "NULL AND length(value_label) <= ? ORDER BY value_id LIMIT 5000",
                [property_id, self.max_label]).fetchall()]
        choices = [v for v in pool if v.value_id not in held]
        return choices[int(rng.random() * len(choices))] if choices else None

    def ellipsis(self, type_id: str, pid: str, qid: str | None, tense: str,
                 with_reference: bool) -> list:
        """A fact's elliptic follow-ups ("[his] spouse?", "the spouse?"); without deixis
        only those with no reference at all."""
        key = (type_id, pid, qid, tense, "ellipsis")
        options = self.templates.get(key) or self.templates.get(key[:3] + ("present",
                                                                            "ellipsis"), [])
        if with_reference:
            return options
        found = self._plain.get(key)
        if found is None:
            found = self._plain[key] = [o for o in options if "[" not in o[1]]
        return found

    def without_possessive(self, type_id: str, options: list) -> list:
        """The templates that do not say "[subject]'s" (all of them if none is left)."""
        key = (type_id, id(options))
        found = self._plain.get(key)
        if found is None:
            mark = self.placeholder(type_id) + "'s"
            found = self._plain[key] = [o for o in options if mark not in o[1]] or options
        return found

    def placeholder(self, type_id: str) -> str:
        found = self._placeholders.get(type_id)
        if found is None:
            found = self._placeholders[type_id] = subject_placeholder(
                self.type_labels.get(type_id) or "entity")
        return found

    def better_known_namesake(self, entity_id: str) -> tuple[str, int] | None:
        """Another entity of the KG with the same English name (any case) and at least as
        many sitelinks, with its sitelinks; None when this one is the best known of its name.
        Computed once, in joins linear in the KG (a name borne by 100,000 items, as
        "Editorial" is, must not pair them all)."""
        if self._namesakes is None:
            self._namesakes = {eid: (other, n) for eid, other, n in self.con.execute(
                "WITH named AS (SELECT id, lower(label) AS name, coalesce(sitelinks, 0) AS "
                "sitelinks FROM entities WHERE label IS NOT NULL), "
                "shared AS (SELECT name, max(sitelinks) AS top FROM named GROUP BY name "
                "HAVING count(*) > 1), "
                "leaders AS (SELECT n.name, count(*) AS k, min(n.id) AS first_id, max(n.id) AS "
                "last_id FROM named n JOIN shared s ON s.name = n.name AND n.sitelinks = s.top "
                "GROUP BY n.name) "
                "SELECT a.id, CASE WHEN a.id = l.first_id THEN l.last_id ELSE l.first_id END, "
                "s.top FROM named a JOIN shared s USING (name) JOIN leaders l USING (name) "
                "WHERE a.sitelinks < s.top OR l.k > 1").fetchall()}
        return self._namesakes.get(entity_id)

    def candidates(self, types: list[str] | None) -> list[str]:
        wanted = list(self.facts_by_type) if not types else [t for t in types
                                                              if t in self.facts_by_type]
        if not wanted:
            return []
        rows = self.con.execute(
            "SELECT DISTINCT entity_id FROM entity_types WHERE list_contains(?, type_id) "
            "ORDER BY 1", [wanted]).fetchall()
        return [r[0] for r in rows]

    def load(self, ids: list[str]) -> None:
        """Bulk-load the facts of many entities at once."""
        ids = [i for i in ids if i not in self._cache]
        if not ids:
            return
        con = self.con
        with registered(con, "_wanted", {"id": ids}):
            info = {r[0]: r[1:] for r in con.execute(
                "SELECT e.id, e.label, g.value_id, EXISTS (SELECT 1 FROM statements d WHERE "
                "d.entity_id = e.id AND list_contains(?, d.property_id)) FROM entities e "
                "JOIN _wanted w ON w.id = e.id LEFT JOIN (SELECT entity_id, any_value(value_id) "
                "AS value_id FROM statements WHERE property_id = 'P21' AND truthy GROUP BY 1) g "
                "ON g.entity_id = e.id", [list(GONE)]).fetchall()}
            types: dict[str, list[str]] = defaultdict(list)
            for eid, tid in con.execute(
                    "SELECT entity_id, type_id FROM entity_types JOIN _wanted w "
                    "ON w.id = entity_id ORDER BY entity_id, via DESC, type_id").fetchall():
                types[eid].append(tid)
            props: dict[str, dict[str, list[Statement]]] = defaultdict(lambda: defaultdict(list))
            by_sid: dict[str, Statement] = {}
            for (eid, pid, sid, vtype, label, vid, precision, unit, unit_label,
                 ended) in con.execute(
                    "SELECT s.entity_id, s.property_id, s.statement_id, s.value_type, "
                    "CASE WHEN s.value_id IS NOT NULL THEN s.value_label ELSE "
                    "coalesce(s.value_text, s.value_raw) END, s.value_id, s.precision, "
                    "s.unit_id, s.unit_label, EXISTS (SELECT 1 FROM qualifiers q WHERE "
                    "q.statement_id = s.statement_id AND q.qualifier_property_id = ?) "
                    "FROM statement_values s JOIN _wanted w ON w.id = s.entity_id "
                    "WHERE s.truthy ORDER BY s.entity_id, s.property_id, s.ordinal",
                    [END]).fetchall():
                value = Value(vtype, label, vid, precision, unit, unit_label)
                if vid == eid:  # the subject itself is never its own answer (nor the query's)
                    self.drop(f"{eid}/{pid}", "value names the subject itself", sid)
                    continue
                st = Statement(sid, value, bool(ended),
                               unsayable=self._unsayable(value, info.get(eid, (None,))[0]))
                props[eid][pid].append(st)
                by_sid[sid] = st
            qualifier_values: dict[tuple[str, str, str], list[Value]] = defaultdict(list)
            for eid, sid, qid, vtype, label, vid, precision, unit, unit_label in con.execute(
                    "SELECT q.entity_id, q.statement_id, q.qualifier_property_id, q.value_type, "
                    "CASE WHEN q.value_id IS NOT NULL THEN q.value_label ELSE "
                    "coalesce(q.value_text, q.value_raw) END, q.value_id, q.precision, "
                    "q.unit_id, q.unit_label FROM qualifier_values q JOIN _wanted w "
                    "ON w.id = q.entity_id ORDER BY q.statement_id, q.qualifier_property_id, "
                    "q.ordinal").fetchall():
                if sid in by_sid and vid != eid:
                    qualifier_values[(eid, sid, qid)].append(
                        Value(vtype, label, vid, precision, unit, unit_label))
            for (eid, sid, qid), values in qualifier_values.items():
                st = by_sid[sid]
                why = next(filter(None, (self._unsayable(v, info.get(eid, (None,))[0])
                                         for v in values)), None)
                if why is None:
                    st.qualifiers[qid] = values
                else:  # a qualifier is asked with all its values or not at all
                    self.drop(f"{eid}/{qid}", f"qualifier not asked: {why}",
                              f"statement {sid}")
            _supersede(con, props)
            for eid, pid, every, current in con.execute(
                    "SELECT s.entity_id, s.property_id, count(DISTINCT s.value_id), "
                    "count(DISTINCT s.value_id) FILTER (WHERE NOT EXISTS (SELECT 1 FROM "
                    "qualifiers q WHERE q.statement_id = s.statement_id AND "
                    "q.qualifier_property_id = ?)) FROM statements s JOIN _wanted w ON w.id = "
                    "s.entity_id WHERE s.truthy AND s.value_id LIKE 'Q%' AND "
                    "list_contains(?, s.property_id) GROUP BY 1, 2",
                    [END, list(kinds.COUNT)]).fetchall():
                self.item_counts[(eid, pid)] = (every, current)
            for vid, gender in con.execute(
                    "SELECT entity_id, any_value(value_id) FROM statements WHERE property_id = "
                    "'P21' AND truthy AND entity_id IN (SELECT value_id FROM statements s JOIN "
                    "_wanted w ON w.id = s.entity_id WHERE value_id IS NOT NULL) GROUP BY 1"
                    ).fetchall():
                self.genders[vid] = gender
        for eid in ids:
            if eid not in info:
                self._cache[eid] = None
                continue
            label, gender, gone = info[eid]
            if len(label) > self.max_label:
                self.drop(eid, "label too long to ask about", f"{len(label):,} characters")
                self._cache[eid] = None
                continue
            t = types.get(eid, [])
            self._cache[eid] = EntityFacts(eid, label, gender, t, "Q5" in t, bool(gone),
                                           dict(props[eid]))

    def _unsayable(self, value: Value, subject_label: str | None) -> str | None:
        """Why a value cannot be said to a user, or None: no English label (never a raw id),
        an amount whose unit has no label, an absurdly long label, or an item bearing the
        subject's own name (Lisbon lies in Lisbon municipality's "Lisbon"). A fact with such
        a value among its answers is not asked at all: its gold answer would miss a value."""
        if (why := unsayable(value)) is not None:  # unknown, blank, no date, no number
            return why
        if value.label is None:
            return "a value without an English label"
        if value.unit_id and not value.unit_label:
            return "a unit without an English label"
        if len(value.label) > self.max_label:
            return "a value label too long to say"
        if value.value_id and subject_label and \
                value.label.casefold() == subject_label.casefold():
            return "a value that bears the subject's name"
        return None

    def answered_items(self, ids: list[str]) -> list[str]:
        """Items the entities' statements name that are subjects of a type with templates:
        where a conversation with hops may move."""
        with registered(self.con, "_from", {"id": ids}):
            return [r[0] for r in self.con.execute(
                "SELECT DISTINCT s.value_id FROM statements s JOIN _from f ON f.id = "
                "s.entity_id JOIN entity_types t ON t.entity_id = s.value_id WHERE s.truthy "
                "AND list_contains(?, t.type_id) ORDER BY 1",
                [list(self.facts_by_type)]).fetchall()]

    def entity(self, eid: str) -> EntityFacts | None:
        self.load([eid])
        return self._cache[eid]

    def best_type(self, e: EntityFacts) -> tuple[str | None, list[tuple[str, str | None]]]:
        """The entity's type with templates that covers most of its facts (a type with an
        English label first among equals)."""
        if e.id not in self._best:
            self._best[e.id] = self._best_type(e)
        return self._best[e.id]

    def _best_type(self, e: EntityFacts) -> tuple[str | None, list[tuple[str, str | None]]]:
        best, best_facts, best_key = None, [], (-1, False)
        for t in e.types:
            facts = sorted((f for f in self.facts_by_type.get(t, ()) if self._has_fact(e, f)),
                           key=lambda f: (f[0], f[1] or ""))
            key = (len(facts), self.type_labels.get(t) is not None)
            if key > best_key and facts:
                best, best_facts, best_key = t, facts, key
        return best, best_facts

    def _has_fact(self, e: EntityFacts, fact: tuple[str, str | None]) -> bool:
        key = (e.id, *fact)
        found = self._askable.get(key)
        if found is None:  # decided (and a drop recorded) once per fact, whatever its types
            found = self._askable[key] = self._askable_fact(e, fact)
        return found

    def _askable_fact(self, e: EntityFacts, fact: tuple[str, str | None]) -> bool:
        """Whether the fact can be asked with a complete gold answer: every value that
        answers it can be said, and there are at most ``max_answer_values`` of them (a
        fact is never truncated). A qualifier fact needs a statement whose value can be
        said (the question names it) holding the qualifier."""
        pid, qid = fact
        stmts = e.properties.get(pid)
        if not stmts:
            return False
        if qid is not None:
            return any(qid in s.qualifiers and s.unsayable is None for s in stmts)
        chosen, _ = answer_statements(e, stmts)
        why = next((s.unsayable for s in chosen if s.unsayable), None)
        if why is not None:
            self.drop(f"{e.id}/{pid}", f"not asked: {why} (the answer would be incomplete)",
                      next(s.value.value_id or s.statement_id for s in chosen if s.unsayable))
            return False
        n = len({s.value for s in chosen})
        if n > self.max_values:
            self.drop(f"{e.id}/{pid}", "too many values for one answer (generate."
                      "max_answer_values)", f"{n} values")
            return False
        return True

    def is_person(self, value: Value, property_id: str | None = None) -> bool:
        """A person by the KG, or (for a value the KG does not hold) by its property."""
        if value.value_id in self.person_values:
            return True
        return property_id in self.person_properties and value.value_id is not None

    def gender_of(self, value: Value) -> str | None:
        return self.genders.get(value.value_id)


class Assembler:
    """Turns a KG view into conversations for one configuration."""

    def __init__(self, view: KGView, cfg: GenerateConfig, drop,
                 changes: dict[tuple[str, str], FactChange] | None = None) -> None:
        self.view = view
        self.cfg = cfg
        self.name = cfg.name
        self.drop = drop  # the stage's drop(item, reason, detail)
        self.changes = changes  # stale-knowledge probes: only these facts are asked
        self._parts: dict[str, list[str]] = {}
        self._typo_words: dict[str, list] = {}
        self._machine: dict[tuple, str] = {}
        self._query_ids: dict[tuple, str] = {}
        self.queries: dict[str, str] = {}  # query id -> SPARQL text
        self._shapes: dict[str, list[tuple]] = {}
        self._slots: dict[tuple, dict[str, str]] = {}
        self._kind_templates: dict[tuple, list] = {}

    # -- planning (which facts), independent of the interaction config under same_facts
    def blocks(self, e: EntityFacts, facts: list[tuple[str, str | None]],
               rng: random.Random, cached: bool = True) -> list[list[PlannedTurn]]:
        """The entity's facts grouped into blocks asked together, in a random order
        (``cached``: ``facts`` are all the entity's facts, so its blocks can be kept)."""
        shapes = self._shapes.get(e.id) if cached else None
        if shapes is None:
            shapes = self._block_shapes(e, facts)
            if cached:
                self._shapes[e.id] = shapes
        blocks = []
        for members, qual_prop, stmts, quals in shapes:
            block = [PlannedTurn(e.id, p, None, 0) for p in members]
            if stmts:
                # a marriage and its dates: one statement, its qualifiers right after
                i = stmts[int(rng.random() * len(stmts))]
                block += [PlannedTurn(e.id, qual_prop, q, i) for q in quals
                          if q in e.properties[qual_prop][i].qualifiers]
            blocks.append(block)
        rng.shuffle(blocks)
        return blocks

    def _block_shapes(self, e: EntityFacts, facts: list[tuple[str, str | None]]) -> list[tuple]:
        """(main properties, qualified property, its statements with qualifiers, qualifiers)."""
        mains = [p for p, q in facts if q is None]
        quals: dict[str, list[str]] = defaultdict(list)
        for p, q in facts:
            if q is not None:
                quals[p].append(q)
        used: set[str] = set()
        shapes: list[tuple] = []
        for group in GROUPS:
            members = [p for p in group if p in mains]
            if len(members) > 1:
                shapes.append((members, None, [], []))
                used.update(members)
        for p in mains:
            if p in used:
                continue
            stmts = [i for i, st in enumerate(e.properties[p]) if st.unsayable is None
                     and any(q in st.qualifiers for q in quals.get(p, ()))]
            shapes.append(([p], p, stmts, sorted(quals.get(p, ()))))
        return shapes

    def plan(self, e: EntityFacts, facts: list, turns: int, rng: random.Random,
             cached: bool = True) -> list[PlannedTurn]:
        chosen: list[PlannedTurn] = []
        blocks = self.blocks(e, facts, rng, cached)
        for block in blocks:
            if len(chosen) + len(block) <= turns:
                chosen += block
            if len(chosen) == turns:
                return chosen
        for block in blocks:  # fill the rest with the head of a block that did not fit
            if block[0] not in chosen:
                chosen += block[:turns - len(chosen)]
            if len(chosen) == turns:
                break
        return chosen

    # -- what is asked: values, tense
    def answer(self, e: EntityFacts, t: PlannedTurn) -> Answer | None:
        stmts = e.properties[t.property_id]
        if t.qualifier_id is not None:
            st = stmts[t.statement_index]
            return Answer(list(st.qualifiers[t.qualifier_id]), st.statement_id,
                          "past" if st.ended or e.gone else "present", st.value)
        chosen, tense = answer_statements(e, stmts)
        current = [s for s in stmts if s.current]
        # two statements may hold the same value (with different qualifiers): said once
        values = [chosen[0].value] if len(chosen) == 1 else \
            list(dict.fromkeys(s.value for s in chosen))
        outdated: list[Value] = []
        change = self.changes.get((e.id, t.property_id)) if self.changes else None
        if tense == "present" and (change or len(current) < len(stmts)):
            # what held before: ended or superseded statements, the older snapshot of a probe
            now = [machine(v) for v in values]
            for v in [s.value for s in stmts if not s.current and s.unsayable is None] + \
                    (change.old_values if change else []):
                if machine(v) not in now and all(machine(v) != machine(o) for o in outdated):
                    outdated.append(v)
        sid = chosen[0].statement_id if len(chosen) == 1 else \
            ",".join(s.statement_id for s in chosen)
        return Answer(values, sid, tense, left_out=len(stmts) - len(chosen), outdated=outdated)

    # -- how it is asked
    def references(self, e: EntityFacts, type_id: str, tense: str) -> tuple[str, str, str]:
        if e.human:  # a gender on a non-human (real data has some) is no pronoun
            return GENDER.get(e.gender, ("this person", "this person", "their"))
        label = self.view.type_labels.get(type_id) or ""
        phrase = THING_REFERENCES.get(label) or (f"this {label}" if label and
                                                 len(label.split()) <= 2 else None)
        if phrase and tense == "present":
            return (phrase, phrase, phrase + "'s")
        if phrase:  # "this city's" reads as the present: "its" for what has ended
            return (phrase, phrase, "its")
        return ("it", "it", "its")

    def fill(self, template: str, e: EntityFacts, type_id: str, tense: str,
             value: Value | None, value_is_person: bool = False, once: bool = False) -> str:
        """Slot-fill a template (split into literal text and placeholders once, then cached;
        ``once``: a template used once, such as one with a typo, is not cached)."""
        key = (e.id, type_id, tense)
        slots = self._slots.get(key)
        if slots is None:
            he, him, his = self.references(e, type_id, tense)
            name = named(e.label, e.human) if self.cfg.interaction == "voice" else e.label
            slots = self._slots[key] = {self.view.placeholder(type_id): name,
                                        "[he]": he,
                                        "[him]": him, "[his]": his}
        parts = self._parts.get(template)
        if parts is None:
            parts = PLACEHOLDER_SPLIT.split(template)
            if not once:
                self._parts[template] = parts
        out = []
        for i, p in enumerate(parts):
            if i % 2 == 0:
                out.append(p)
            elif p == "[a]":
                text = render(value) if value is not None else ""
                out.append(with_article(text, "".join(out)[-6:], value_is_person))
            else:
                out.append(slots.get(p, p))
        return "".join(out)

    def query(self, e: EntityFacts, pt: PlannedTurn, ans: Answer) -> str:
        """The id of the turn's SPARQL query (made once per fact: facts recur)."""
        kind = ans.values[0].kind
        key = (e.id, pt.property_id, pt.qualifier_id, ans.tense, kind,
               ans.statement_id if pt.qualifier_id else None)
        query_id = self._query_ids.get(key)
        if query_id is None:
            text = turn_query(e.id, pt.property_id, kind, ans.tense,
                              qualifier_id=pt.qualifier_id, statement_id=ans.statement_id)
            query_id = self._query_ids[key] = hashlib.sha256(text.encode()).hexdigest()[:20]
            self.queries[query_id] = text
        return query_id

    def change_json(self, e: EntityFacts, pt: PlannedTurn, change: FactChange) -> str:
        """When a probe's fact changed: between which dumps, and since when its current
        values hold where the KG says (their start time)."""
        since = sorted({machine(q)["time"] for s in e.properties[pt.property_id]
                        if not s.ended for q in s.qualifiers.get("P580", ())
                        if q.kind == "time"})
        return orjson.dumps({"refresh_id": change.refresh_id,
                             "old_dump_date": change.old_dump_date,
                             "new_dump_date": change.new_dump_date,
                             "current_since": since or None}).decode()

    def machine_json(self, values: list[Value]) -> str:
        """The exact values as stored JSON (cached: the same facts recur across turns)."""
        key = tuple(values)
        text = self._machine.get(key)
        if text is None:
            text = self._machine[key] = orjson.dumps([machine(v) for v in values]).decode()
        return text

    def typo_words(self, template: str) -> list:
        """Content words of a template, outside its placeholders (cached per template)."""
        words = self._typo_words.get(template)
        if words is None:
            spans = [m.span() for m in re.finditer(r"\[[^\[\]]+\]", template)]
            words = self._typo_words[template] = content_words(template, spans)
        return words

    def conversation(self, entity_id: str, index: int) -> dict | None:
        cfg = self.cfg
        e = self.view.entity(entity_id)
        if e is None:
            return None
        type_id, facts = self.view.best_type(e)
        if type_id is None:
            self.drop(entity_id, "no type with templates covers its facts")
            return None
        least = min(cfg.min_turns, cfg.turns)
        if self.changes is not None:  # probes: the changed facts, however few
            facts = [(p, q) for p, q in facts if q is None and (e.id, p) in self.changes]
            least = 1
        if len(facts) < least:
            self.drop(entity_id, f"fewer askable facts than generate.min_turns ({cfg.min_turns})",
                      f"{len(facts)} askable facts")
            return None
        namesake = None if cfg.homonyms or cfg.entities else \
            self.view.better_known_namesake(entity_id)
        if namesake is not None:
            self.drop(entity_id, "a better-known entity bears its name (generate.homonyms)",
                      f"{namesake[0]}, {namesake[1]:,} sitelinks")
            return None
        if cfg.interaction == "text" and len(e.label.split()) > MAX_TEXT_SUBJECT_WORDS:
            self.drop(entity_id, "label too long for a search query",
                      f"{len(e.label.split())} words")
            return None
        fact_key = [cfg.seed, entity_id, index, cfg.turns, cfg.related]
        if cfg.hops:
            fact_key += ["hops", cfg.topics, cfg.hop_share]
        if cfg.kinds:
            fact_key += ["kinds", *cfg.kinds, cfg.kind_share]
        if not cfg.same_facts:
            fact_key.append(self.name)
        rng_facts = random.Random(_seed("facts", *fact_key))
        # hops and kinds draw from their own generator (made only when they are on)
        rng_hops = random.Random(_seed("hops", *fact_key)) if cfg.hops or cfg.kinds else None
        rng_style = random.Random(_seed("style", self.name, cfg.seed, entity_id, index))

        related = self.view.related.get(entity_id) if cfg.related and \
            self.changes is None else None
        r_entity = self.view.entity(related) if related else None
        r_type, r_facts = self.view.best_type(r_entity) if r_entity else (None, [])
        n_related = min(2, cfg.turns - 2) if r_type and r_facts and cfg.turns >= 3 else 0
        plan = [(e, type_id, p, None)
                for p in self.plan(e, facts, cfg.turns - n_related, rng_facts)]
        if n_related:
            plan += [(r_entity, r_type, p, None)
                     for p in self.plan(r_entity, r_facts, n_related, rng_facts)]
        turns = self.walk(e, plan, rng_hops, rng_style, {e.id} | ({r_entity.id} if n_related
                                                                 else set()))
        if len(turns) < least:
            self.drop(entity_id, "too few turns could be realised", f"{len(turns)} turns")
            return None
        fact_set = hashlib.sha256("\x1e".join(
            f"{t['subject_id']}\x1f{t['property_id']}\x1f{t['qualifier_property_id']}\x1f"
            f"{t['statement_id']}" for t in turns).encode()).hexdigest()[:16]
        conv_id = hashlib.sha256(f"{self.name}\x1f{cfg.seed}\x1f{entity_id}\x1f{index}\x1f"
                                 f"{fact_set}".encode()).hexdigest()[:16]
        short = None
        if len(turns) < cfg.turns:
            short = (f"{len(facts)} askable facts" if len(facts) < cfg.turns - n_related
                     else f"{len(plan) - len(turns)} planned turns could not be phrased")
        return {
            "conversation_id": conv_id, "config_name": self.name, "seed": cfg.seed,
            "entity_id": e.id, "entity_label": e.label, "entity_type": type_id,
            "entity_types": e.types,
            "related_entity_id": r_entity.id if n_related else None,
            "related_entity_label": r_entity.label if n_related else None,
            "fact_set_id": fact_set, "turns_asked": cfg.turns, "short_reason": short,
            "turns": turns,
        }

    def walk(self, e: EntityFacts, plan: list[tuple], rng_hops: random.Random | None,
             rng_style: random.Random, topics: set[str]) -> list[dict]:
        """Realise the planned turns in order. With hops, an answer naming an item with facts
        of its own may lead to two or three turns about it, then back to the plan; when the
        plan runs out, the conversation moves to an item answered earlier, or back to a topic
        with facts not yet asked. At most ``topics`` entities, never a fact twice."""
        cfg = self.cfg
        if not cfg.hops and not cfg.kinds:  # the plan as it is: no fact recurs in it
            return self._walk_plan(plan, rng_style)
        queue = deque(plan)
        turns: list[dict] = []
        previous = None
        asked: set[tuple] = set()
        came_from: dict[str, int | None] = {t: None for t in topics}
        max_topics = cfg.topics + len(topics) - 1  # a related entity is a topic of its own
        while len(turns) < cfg.turns:
            if not queue:
                if not cfg.hops:
                    break
                queue.extend(self.refill(turns, topics, came_from, asked, max_topics,
                                         rng_hops))
                if not queue:
                    break
            ent, tid, pt, hop_from = queue.popleft()
            fact = (ent.id, pt.property_id, pt.qualifier_id)
            if fact in asked:
                continue
            if cfg.kinds and pt.qualifier_id is None and rng_hops.random() < cfg.kind_share:
                fits = [k for k in cfg.kinds if kinds.pattern(k, pt.property_id, "voice",
                                                              "present")]
                if fits:
                    pt = replace(pt, kind=fits[int(rng_hops.random() * len(fits))])
            asked.add(fact)  # tried: asked now, or never askable
            turn = self.realise(ent, tid, pt, previous, rng_style, len(turns) + 1, hop_from)
            if turn is None:
                continue
            if hop_from is not None and set(turn["answer_ids"]) <= topics:
                continue  # "this city's country?" "the country we came from": nothing new
            turns.append(turn)
            previous = (ent, turn)
            left = cfg.turns - len(turns)
            if not cfg.hops or len(topics) >= max_topics or left < 2:
                continue
            target = self.hop_target(turn, topics, rng_hops)
            if target is None or rng_hops.random() >= cfg.hop_share:
                continue
            h_entity, h_type, h_facts = target
            back = 1 if any(q[0].id != h_entity.id for q in queue) else 0
            size = min(rng_hops.choice((2, 2, 3)), left - back)
            if size < 2:
                continue
            hop = [(h_entity, h_type, p, turn["turn"])
                   for p in self.plan(h_entity, h_facts, size, rng_hops)]
            queue.extendleft(reversed(hop))
            topics.add(h_entity.id)
            came_from[h_entity.id] = turn["turn"]
        return turns

    def _walk_plan(self, plan: list[tuple], rng_style: random.Random) -> list[dict]:
        turns: list[dict] = []
        previous = None
        for ent, tid, pt, _ in plan:
            if len(turns) == self.cfg.turns:
                break
            turn = self.realise(ent, tid, pt, previous, rng_style, len(turns) + 1)
            if turn is not None:
                turns.append(turn)
                previous = (ent, turn)
        return turns

    def refill(self, turns: list[dict], topics: set[str], came_from: dict, asked: set,
               max_topics: int, rng: random.Random) -> list[tuple]:
        """The plan ran out: turns about an item answered earlier (the latest first) while
        topics are left, else more about a topic with facts not yet asked."""
        left = self.cfg.turns - len(turns)
        if len(topics) < max_topics:
            for turn in reversed(turns):
                target = self.hop_target(turn, topics, rng, least=1)
                if target is not None:
                    h_entity, h_type, h_facts = target
                    topics.add(h_entity.id)
                    came_from[h_entity.id] = turn["turn"]
                    return [(h_entity, h_type, p, turn["turn"])
                            for p in self.plan(h_entity, h_facts, min(left, 4), rng)]
        for turn in reversed(turns):
            ent = self.view.entity(turn["subject_id"])
            t_type, t_facts = self.view.best_type(ent)
            rest = [f for f in t_facts if (ent.id, *f) not in asked]
            if rest:
                return [(ent, t_type, p, came_from.get(ent.id))
                        for p in self.plan(ent, rest, left, rng, cached=False)]
        return []

    def hop_target(self, turn: dict, topics: set[str], rng: random.Random, least: int = 2):
        """An item the turn answered that the conversation can move to: in the KG, not yet a
        topic, with templates for at least ``least`` of its facts. One of several values is
        picked at random."""
        items = [v for v in turn["_values"] if v.value_id and v.value_id not in topics]
        if not items:
            return None
        value = items[int(rng.random() * len(items))]
        target = self.view.entity(value.value_id)
        if target is None:
            return None
        h_type, h_facts = self.view.best_type(target)
        if h_type is None or len(h_facts) < least:
            return None
        return target, h_type, h_facts

    def _points_clearly(self, e: EntityFacts, type_id: str, previous, tense: str) -> bool:
        """A hop's first turn about the previous answer ``e``: would "he", "she", "it" or
        "this city" point at ``e`` rather than at the previous subject? Only when ``e`` was
        the previous answer alone and the two cannot be taken for each other (people of
        different genders; a person and a thing; things of different named types)."""
        before, turn = previous
        if [v.value_id for v in turn["_values"]] != [e.id]:
            return False
        if e.human or before.human:
            if not (e.human and before.human):
                return True
            mine = GENDER.get(e.gender, (None,))[0]
            theirs = GENDER.get(before.gender, (None,))[0]
            return mine is not None and theirs is not None and mine != theirs
        mine = self.references(e, type_id, tense)[0]
        b_type = self.view.best_type(before)[0]
        theirs = self.references(before, b_type, tense)[0] if b_type else "it"
        return mine != "it" and mine != theirs

    def _elliptic_fits(self, e: EntityFacts, pt: PlannedTurn, ans: Answer, previous) -> bool:
        """Leaving the subject out is clear only right after a turn about the same subject
        whose answer could not be taken for it: no person of the subject's gender for a
        person; no item at all (only dates, numbers, people) for a thing. A date asked of a
        statement follows that very statement ("Who is her spouse?" "When was that?")."""
        if previous is None or previous[0].id != e.id:
            return False
        turn = previous[1]
        if pt.qualifier_id is not None:
            return turn["statement_id"] == ans.statement_id
        if e.human:
            return not self._ambiguous(e, previous)
        prop = turn["property_id"] if turn["qualifier_property_id"] is None else None
        return all(v.value_id is None or self.view.is_person(v, prop) for v in turn["_values"])

    # -- more kinds of question: how many, yes or no, who came before
    def kind_answer(self, e: EntityFacts, pt: PlannedTurn) -> Answer | None:
        """The answer of a count, verify or before question, computed from the KG (None
        when the fact does not support one: no candidate, no unique predecessor). Its
        choices are seeded by the fact, so every configuration asks the same."""
        rng = random.Random(_seed("kind", self.cfg.seed, e.id, pt.property_id, pt.kind))
        stmts = e.properties[pt.property_id]
        tense = "past" if e.gone else "present"
        if pt.kind == "count":  # every item it holds now; in the past, every one it held
            every, now = self.view.item_counts.get((e.id, pt.property_id), (0, 0))
            if e.gone or not now:
                tense, now = "past", every
            if not now:
                return None
            sids = ",".join(s.statement_id for s in stmts
                            if tense == "past" or not s.ended)
            return Answer([Value("quantity", str(now))], sids, tense)
        if pt.kind == "verify":
            current = [s for s in stmts if not s.ended and s.value.value_id]
            if e.gone or not current:
                tense, current = "past", [s for s in stmts if s.value.value_id]
            current = [s for s in current if s.unsayable is None]  # the question names it
            if not current:
                return None
            if rng.random() < 0.5:
                st = current[int(rng.random() * len(current))]
                return Answer([Value("string", "yes")], st.statement_id, tense, st.value)
            held = {s.value.value_id for s in stmts}
            false = self.view.false_candidate(pt.property_id, held | {e.id}, rng)
            if false is None:
                return None
            return Answer([Value("string", "no")], "", tense, false)
        # before: a statement with a start time, and the one that started last before it
        dated = [(start, s) for s in stmts if s.value.value_id
                 for start in [_start(s)] if start is not None]
        refs = [(start, s) for start, s in dated if s.unsayable is None
                and any(other < start and o.value != s.value for other, o in dated)]
        if not refs:
            return None
        start, ref = refs[int(rng.random() * len(refs))]
        earlier = [(b, o) for b, o in dated if b < start and o.value != ref.value]
        latest = max(b for b, _ in earlier)
        before = [o for b, o in earlier if b == latest]
        if len({o.value for o in before}) != 1 or before[0].unsayable is not None:
            return None  # two values started the same day, or one nobody can say
        return Answer([before[0].value], ",".join(o.statement_id for o in before), "past",
                      ref.value, outdated=[])

    def kind_templates(self, type_id: str, pt: PlannedTurn, tense: str, phen: str) -> list:
        """Templates of a kind of question: the curated pattern, with its deixis and
        disfluent forms, made once per (type, property, kind, tense, phenomenon)."""
        key = (type_id, pt.property_id, pt.kind, tense, phen)
        found = self._kind_templates.get(key)
        if found is None:
            cfg = self.cfg
            pattern = kinds.pattern(pt.kind, pt.property_id, cfg.interaction, tense)
            found = []
            if pattern:
                deixis = phen.startswith("deixis")
                text = render_pattern(pattern, self.view.placeholder(type_id), deixis,
                                      cfg.interaction)
                if phen.endswith("disfluencies"):
                    text = phrasing.disfluent(text, random.Random(_seed("kind", *key)))
                tid = hashlib.sha256(json.dumps(["kind", *key, text]).encode()).hexdigest()[:16]
                found = [(tid, text, ("rules", None, None))]
            self._kind_templates[key] = found
        return found

    def realise_kind(self, e: EntityFacts, type_id: str, pt: PlannedTurn, previous,
                     rng: random.Random, number: int, hop_from: int | None) -> dict | None:
        ans = self.kind_answer(e, pt)
        if ans is None:
            self.drop(f"{e.id}/{pt.property_id}/{pt.kind}", f"no {pt.kind} question fits "
                      "the fact (no candidate, count or single predecessor)")
            return None
        _, phen = self.phenomenon(e, type_id, previous, hop_from, ans.tense)
        options = self.kind_templates(type_id, pt, ans.tense, phen)
        if not options:
            return None
        template = options[0][1]
        slot_person = ans.slot_value is not None and self.view.is_person(ans.slot_value,
                                                                         pt.property_id)
        question = self.fill(template, e, type_id, ans.tense, ans.slot_value, slot_person)
        rendered = [render(v, question) for v in ans.values]
        if pt.kind == "before" and any(_contains(question, a) for a in rendered):
            return None
        question, before_typo, out_phen = self.surface(question, template, e, type_id, ans,
                                                       slot_person, phen, previous, rng)
        return self.record(number, question, before_typo, rendered, e, type_id, pt, ans,
                           out_phen, options[0], hop_from, self.kind_query(e, pt, ans),
                           values=ans.values if pt.kind == "before" else [])

    def phenomenon(self, e: EntityFacts, type_id: str, previous, hop_from: int | None,
                   tense: str) -> tuple[bool, str]:
        """Whether the turn follows one about the same subject, and how it is asked: with
        deixis where a reference is unambiguous (same subject), or points clearly at the
        previous answer (a hop's first turn); disfluent when the config says so."""
        cfg = self.cfg
        same = previous is not None and previous[0].id == e.id
        deixis = cfg.deixis and (not self._ambiguous(e, previous) if same else
                                 previous is not None and hop_from == previous[1]["turn"] and
                                 self._points_clearly(e, type_id, previous, tense))
        phen = "deixis" if deixis else "original"
        if cfg.interaction == "voice" and cfg.disfluency:
            phen = "deixis_disfluencies" if deixis else "disfluencies"
        return same, phen

    def surface(self, question: str, template: str, e: EntityFacts, type_id: str, ans: Answer,
                slot_person: bool, phen: str, previous, rng: random.Random
                ) -> tuple[str, str | None, str]:
        """The question as typed (one typo, on a template word, never on text filled in from
        the KG) or spoken (capitalised; a transition when the subject changes): the
        question, the question before its typo, and the phenomenon recorded."""
        cfg = self.cfg
        before_typo, out_phen = None, phen
        if cfg.interaction == "text" and cfg.typos:
            typoed, edit = typo_in(template, self.typo_words(template), rng)
            if edit is not None:
                before_typo = question
                question = self.fill(typoed, e, type_id, ans.tense, ans.slot_value,
                                     slot_person, once=True)
                out_phen = {"deixis": "deixis_typos", "ellipsis": "ellipsis_typos"}.get(
                    phen, "typos")
        if cfg.interaction == "voice":
            question = question[0].upper() + question[1:]
            if previous is not None and previous[0].id != e.id:
                prefix = rng.choice(TRANSITIONS)
                question = prefix + question[0].lower() + question[1:]
        return question, before_typo, out_phen

    def record(self, number: int, question: str, before_typo: str | None, rendered: list[str],
               e: EntityFacts, type_id: str, pt: PlannedTurn, ans: Answer, phen: str,
               template: tuple, hop_from: int | None, query_id: str, values: list[Value],
               change: FactChange | None = None) -> dict:
        """One turn's row (``_values``: the items a hop may move to; not stored)."""
        tid, _, (writer, model, prompt_hash) = template
        return {"turn": number, "question": question, "question_before_typo": before_typo,
                "answer": rendered, "answer_ids": [v.value_id for v in ans.values],
                "answer_values": self.machine_json(ans.values), "query_id": query_id,
                "outdated_answer": [render(v, question) for v in ans.outdated],
                "outdated_values": self.machine_json(ans.outdated) if ans.outdated else None,
                "change": self.change_json(e, pt, change) if change else None,
                "subject_id": e.id, "property_id": pt.property_id,
                "qualifier_property_id": pt.qualifier_id,
                "statement_id": ans.statement_id or None, "phenomenon": phen,
                "template_id": tid, "writer": writer, "model": model,
                "prompt_hash": prompt_hash, "tense": ans.tense, "left_out": ans.left_out,
                "hop_from": hop_from, "question_kind": pt.kind,
                "answer_sentence": self.sentence(pt.kind, e, type_id, pt, ans, rendered)
                if self.cfg.answer_style == "sentence" else None,
                "_values": values}

    def kind_query(self, e: EntityFacts, pt: PlannedTurn, ans: Answer) -> str:
        if pt.kind == "count":
            text = count_query(e.id, pt.property_id, ans.tense)
        elif pt.kind == "verify":
            text = verify_query(e.id, pt.property_id, ans.slot_value.value_id, ans.tense)
        else:
            ref = next(s.statement_id for s in e.properties[pt.property_id]
                       if s.value == ans.slot_value and _start(s) is not None)
            text = before_query(e.id, pt.property_id, ref)
        query_id = hashlib.sha256(text.encode()).hexdigest()[:20]
        self.queries[query_id] = text
        return query_id

    def sentence(self, kind: str, e: EntityFacts, type_id: str, pt: PlannedTurn, ans: Answer,
                 rendered: list[str]) -> str | None:
        """With ``--answer-style sentence``: the answer as one grounded sentence."""
        if self.cfg.answer_style != "sentence":
            return None
        labels = self.view.property_labels
        fact = Fact(type_id, self.view.type_labels.get(type_id) or "entity", pt.property_id,
                    labels.get(pt.property_id, pt.property_id), None, pt.qualifier_id,
                    labels.get(pt.qualifier_id) if pt.qualifier_id else None)
        counted = kinds.COUNT[pt.property_id][1] if kind == "count" else None
        slot = render(ans.slot_value) if ans.slot_value is not None else None
        text = kinds.sentence(kind, named(e.label, e.human), fact, rendered, tense=ans.tense,
                              slot=slot, precisions=tuple(v.precision for v in ans.values),
                              counted=counted)
        return text[0].upper() + text[1:]

    def _ambiguous(self, e: EntityFacts, previous) -> bool:
        """Would "he", "she" or "this person" point at a person in the previous answer rather
        than at ``e``? (Only a person known to be of the other gender is safe.)"""
        if not e.human or previous is None:
            return False
        mine = GENDER.get(e.gender, (None,))[0]
        prop = previous[1]["property_id"] if previous[1]["qualifier_property_id"] is None \
            else None
        for value in previous[1]["_values"]:
            if value.value_id == e.id or not self.view.is_person(value, prop):
                continue
            theirs = GENDER.get(self.view.gender_of(value), (None,))[0]
            if mine is None or theirs is None or theirs == mine:
                return True
        return False

    def realise(self, e: EntityFacts, type_id: str, pt: PlannedTurn, previous,
                rng: random.Random, number: int, hop_from: int | None = None) -> dict | None:
        cfg = self.cfg
        if pt.kind != "fact":
            return self.realise_kind(e, type_id, pt, previous, rng, number, hop_from)
        ans = self.answer(e, pt)
        if not ans.values:
            return None
        change = self.changes.get((e.id, pt.property_id)) if self.changes else None
        if self.changes is not None and (ans.tense != "present" or not ans.outdated):
            self.drop(f"{e.id}/{pt.property_id}", "changed fact not askable as a probe",
                      "its values have all ended" if ans.tense != "present"
                      else "no earlier value differs from the current ones")
            return None
        same, phen = self.phenomenon(e, type_id, previous, hop_from, ans.tense)
        deixis = phen.startswith("deixis")
        options = []
        if cfg.ellipsis and same and rng.random() < cfg.ellipsis_share and \
                self._elliptic_fits(e, pt, ans, previous):
            options = self.view.ellipsis(type_id, pt.property_id, pt.qualifier_id, ans.tense,
                                         with_reference=cfg.deixis)
            if options:
                phen, deixis = "ellipsis", False
        options = options or self.view.templates.get(
            (type_id, pt.property_id, pt.qualifier_id, ans.tense, phen)) or \
            self.view.templates.get((type_id, pt.property_id, pt.qualifier_id, "present", phen),
                                    [])
        if phen != "ellipsis" and not deixis and awkward_possessive(e.label):
            options = self.view.without_possessive(type_id, options)
        first = rng.randrange(len(options)) if options else 0
        slot_person = ans.slot_value is not None and self.view.is_person(ans.slot_value,
                                                                         pt.property_id)
        for option in options[first:] + options[:first]:
            template = option[1]
            question = self.fill(template, e, type_id, ans.tense, ans.slot_value, slot_person)
            rendered = [render(v, question) for v in ans.values]
            if any(_contains(question, a) for a in {*rendered, *(v.label or "" for v in
                                                                   ans.values)}):
                continue  # the question must not give its answer away
            if YEAR_QUESTION.search(question) and \
                    not all(year_question_fits(v) for v in ans.values):
                continue  # a "what year" question needs an answer that is a year
            if cfg.interaction == "text" and len(question.split()) > MAX_TEXT_WORDS:
                continue
            question, before_typo, out_phen = self.surface(
                question, template, e, type_id, ans, slot_person, phen, previous, rng)
            return self.record(number, question, before_typo, rendered, e, type_id, pt, ans,
                               out_phen, option, hop_from, self.query(e, pt, ans), ans.values,
                               change)
        self.drop(f"{e.id}/{pt.property_id}/{pt.qualifier_id or ''}",
                  f"no {phen} template fits the answer")
        return None


@lru_cache(maxsize=1)
def assembly_code_hash() -> str:
    """The assembly code itself (this module, kinds, rendering, queries, typos): a changed release
    makes a new run even when its version number did not change."""
    here = Path(__file__).parent
    blob = b"".join(p.read_bytes() for p in (here / "assemble.py", here / "typos.py",
                                             here / "kinds.py", here / "rules_writer.py",
                                             here / "lexicon.py", here / "phrasing.py",
                                             here.parent / "kg" / "render.py",
                                             here.parent / "kg" / "queries.py"))
    return hashlib.sha256(blob).hexdigest()[:16]


class AssembleConversations(Stage):
    """Generate conversations for one configuration and store them as its current run."""

    name = "assemble"
    reads = ("templates",)
    writes = ("generation_runs", "conversations", "turns")

    def __init__(self, ctx, config: GenerateConfig, keep_previous: bool = False) -> None:
        super().__init__(ctx, config)
        self.config_name = config.name
        self.keep_previous = keep_previous

    def deterministic_run_id(self) -> str:
        """Same code release, config, seed and inputs (KG, templates, related entities) ->
        same run id: the run is then already stored, and exports are byte-identical."""
        inputs = self.con.execute(
            "SELECT coalesce(string_agg(template_id, ',' ORDER BY template_id), '') FROM templates"
        ).fetchone()[0]
        related = self.con.execute(
            "SELECT coalesce(string_agg(entity_id || '>' || related_id, ',' ORDER BY entity_id),"
            " '') FROM related_entities").fetchone()[0] if self.config.related else ""
        blob = json.dumps([__version__, assembly_code_hash(), self.config.model_dump(mode="json"),
                           inputs, kg_version(self.con), related], sort_keys=True)
        return f"gen-{self.config_name}-{hashlib.sha256(blob.encode()).hexdigest()[:12]}"

    def unchanged(self) -> int | None:
        """Conversations of the stored current run when it has exactly this run's inputs."""
        row = self.con.execute("SELECT conversations FROM generation_runs WHERE run_id = ? "
                               "AND current", [self.run_id]).fetchone()
        return row[0] if row else None

    def entities(self, view: KGView, changes=None) -> list[str]:
        cfg = self.config
        if cfg.entities:
            return list(cfg.entities)
        if changes is not None:
            with_changes = {e for e, _ in changes}
            return sorted((e for e in view.candidates(cfg.types) if e in with_changes),
                          key=lambda e: _seed("entity", cfg.seed, e))
        # A stable order per entity (not a shuffle of the whole pool): entities added to the
        # KG later do not reorder the others, so their conversations keep their ids.
        return sorted(view.candidates(cfg.types), key=lambda e: _seed("entity", cfg.seed, e))

    def process(self) -> dict[str, Any]:
        cfg = self.config
        self.run_id = self.deterministic_run_id()
        stored = self.unchanged()
        if stored is not None:
            return {"config": self.config_name, "conversations": stored, "unchanged": True,
                    "run_id": self.run_id}
        with gc_paused():
            return self._assemble(cfg)

    def _assemble(self, cfg: GenerateConfig) -> dict[str, Any]:
        view = KGView(self.con, cfg, self.drop)
        changes = load_changes(self.con, cfg.changed_since) if cfg.changed_since else None
        assembler = Assembler(view, cfg, self.drop, changes)
        pool = self.entities(view, changes)
        view.load(pool)
        if cfg.hops:  # the items their answers name, in bulk rather than one by one
            view.load(view.answered_items(pool))
        convs: list[dict] = []
        index = 0
        while len(convs) < cfg.conversations and pool:
            produced = 0
            for eid in pool:
                conv = assembler.conversation(eid, index)
                if conv is not None:
                    conv["ordinal"] = len(convs)
                    convs.append(conv)
                    produced += 1
                    if len(convs) >= cfg.conversations:
                        break
            if not produced or cfg.entities or changes is not None:
                break  # probes: each changed fact once
            index += 1
        if not convs:
            raise UserError(self.why_empty(view))
        t0 = time.perf_counter()
        self.store(convs, assembler.queries)
        return {"config": self.config_name, "conversations": len(convs),
                "store_seconds": round(time.perf_counter() - t0, 2),
                "turns": sum(len(c["turns"]) for c in convs),
                "short": sum(c["short_reason"] is not None for c in convs),
                "dropped": len(self._dropped), "run_id": self.run_id}

    def why_empty(self, view: KGView) -> str:
        cfg = self.config
        if cfg.changed_since:
            return (f"no conversations: none of the facts changed since {cfg.changed_since} "
                    "can be asked now (see `convkgyarn drops --stage assemble`)")
        if cfg.entities:
            missing = [e for e in cfg.entities if view.entity(e) is None]
            if missing:
                return f"no conversations: {', '.join(missing)} not in the KG"
            return (f"no conversations: {', '.join(cfg.entities)} have no facts with "
                    "templates (see `convkgyarn drops`)")
        if cfg.types:
            return (f"no conversations: no entities of type {', '.join(cfg.types)} with facts "
                    "to ask about (see `convkgyarn predicates show TYPE`)")
        reasons = {}
        for d in self._dropped:
            reasons[d["reason"]] = reasons.get(d["reason"], 0) + 1
        top = "; ".join(f"{n:,} x {reason}" for reason, n in
                        sorted(reasons.items(), key=lambda x: -x[1])[:3])
        hint = (" (give --labels with English labels of the values)"
                if any("English label" in r for r in reasons) else "")
        return (f"no conversations: no entity has {cfg.min_turns} askable facts; left out: "
                f"{top}{hint} (see `convkgyarn drops`)")

    def store(self, convs: list[dict], queries: dict[str, str]) -> None:
        con = self.con
        dump_date = con.execute("SELECT max(dump_date) FROM load_files WHERE status = 'done'"
                                ).fetchone()[0]
        writers = dict(con.execute(
            "SELECT writer || coalesce(':' || model, ''), count(*) FROM templates GROUP BY 1"
        ).fetchall())
        conv_cols = ["conversation_id", "config_name", "seed", "entity_id", "entity_label",
                     "entity_type", "entity_types", "related_entity_id",
                     "related_entity_label", "fact_set_id", "ordinal", "turns_asked",
                     "short_reason"]
        turns = []
        for c in convs:
            for t in c["turns"]:
                t.pop("_values", None)
                t["conversation_id"] = c["conversation_id"]
                turns.append(t)
        run = RunRecord(self.run_id, self.config_name, self.config.model_dump(mode="json"),
                        self.config.seed, kg_version=kg_version(con), dump_date=dump_date,
                        code_version=code_version(), writers=writers)
        store_run(con, run, [{k: c[k] for k in conv_cols} for c in convs], turns,
                  keep_previous=self.keep_previous, queries=queries)
