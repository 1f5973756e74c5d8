"""Assemble conversations: pick an entity's facts, slot-fill templates, apply the config.

Rules: the first turn never uses deixis; a deixis turn follows a turn about the same
entity; predicates that belong together stay together (date and place of birth, a
marriage and its date); complex facts are answered with the full list; qualifier
questions name the fact's value and are answered by the qualifier's value; related
entities are introduced by name. Randomness comes from generators seeded by
(seed, entity, index): the same seed and inputs give byte-identical output, and the
facts do not depend on the interaction config when ``same_facts`` is set.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

import duckdb

from convkgyarn import __version__
from convkgyarn.config import GenerateConfig
from convkgyarn.conversations import RunRecord, store_run
from convkgyarn.errors import UserError
from convkgyarn.kg.snapshot import kg_version, type_label
from convkgyarn.stage import Stage, code_version
from convkgyarn.stages.lexicon import THING_REFERENCES
from convkgyarn.stages.typos import content_words, typo_in
from convkgyarn.store import registered
from convkgyarn.text import subject_placeholder

GENDER = {"Q6581097": ("he", "him", "his"), "Q6581072": ("she", "her", "her")}
# Predicates asked one after the other when an entity has both.
GROUPS = (("P569", "P19"), ("P570", "P20"), ("P580", "P582"), ("P577", "P2047"))
TRANSITIONS = ("Okay, and ", "Alright, now ", "And ")


@dataclass
class Statement:
    statement_id: str
    value_label: str
    value_id: str | None
    qualifiers: dict[str, list[tuple[str, str | None]]] = field(default_factory=dict)


@dataclass
class EntityFacts:
    id: str
    label: str
    gender: str | None
    types: list[str]
    human: bool
    properties: dict[str, list[Statement]]


@dataclass(frozen=True)
class PlannedTurn:
    entity: str
    property_id: str
    qualifier_id: str | None
    statement_index: int  # which statement a qualifier question is about


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


class KGView:
    """What assembly needs from the KG and the templates, loaded once in bulk."""

    def __init__(self, con: duckdb.DuckDBPyConnection, cfg: GenerateConfig, drop) -> None:
        interaction = cfg.interaction
        self.con = con
        self.max_label = cfg.max_label_chars
        self.drop = drop
        self.templates: dict[tuple, list[tuple[str, str, str]]] = defaultdict(list)
        for tid, type_id, pid, qid, phen, text, writer, model, prompt_hash in con.execute(
                "SELECT template_id, type_id, property_id, qualifier_property_id, phenomenon, "
                "text, writer, model, prompt_hash FROM templates WHERE interaction = ? "
                "ORDER BY type_id, property_id, qualifier_property_id, phenomenon, variant",
                [interaction]).fetchall():
            self.templates[(type_id, pid, qid, phen)].append(
                (tid, text, (writer, model, prompt_hash)))
        self.facts_by_type: dict[str, set[tuple[str, str | None]]] = defaultdict(set)
        for (type_id, pid, qid, _), _v in self.templates.items():
            self.facts_by_type[type_id].add((pid, qid))
        self.type_labels = {t: type_label(con, t) for t in self.facts_by_type}
        self.related = dict(con.execute(
            "SELECT entity_id, related_id FROM related_entities").fetchall())
        self._cache: dict[str, EntityFacts | None] = {}
        self._best: dict[str, tuple] = {}

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
                "SELECT e.id, e.label, g.value_id FROM entities e JOIN _wanted w ON w.id = e.id "
                "LEFT JOIN (SELECT entity_id, any_value(value_id) AS value_id FROM statements "
                "WHERE property_id = 'P21' AND truthy GROUP BY 1) g ON g.entity_id = e.id"
            ).fetchall()}
            types: dict[str, list[str]] = defaultdict(list)
            for eid, tid, via in con.execute(
                    "SELECT entity_id, type_id, via FROM entity_types JOIN _wanted w "
                    "ON w.id = entity_id ORDER BY entity_id, via DESC, type_id").fetchall():
                types[eid].append(tid)
            props: dict[str, dict[str, list[Statement]]] = defaultdict(lambda: defaultdict(list))
            by_sid: dict[str, Statement] = {}
            for eid, pid, sid, label, vid in con.execute(
                    "SELECT entity_id, property_id, statement_id, value_label, value_id "
                    "FROM statement_values JOIN _wanted w ON w.id = entity_id WHERE truthy "
                    "ORDER BY entity_id, property_id, ordinal").fetchall():
                if self._unusable(f"{eid}/{pid}", sid, label, vid):
                    continue
                st = Statement(sid, label, vid)
                props[eid][pid].append(st)
                by_sid[sid] = st
            for eid, sid, qid, label, vid in con.execute(
                    "SELECT entity_id, statement_id, qualifier_property_id, value_label, value_id "
                    "FROM qualifier_values JOIN _wanted w ON w.id = entity_id "
                    "ORDER BY statement_id, qualifier_property_id, ordinal").fetchall():
                if sid in by_sid and not self._unusable(f"{eid}/{qid}", sid, label, vid):
                    by_sid[sid].qualifiers.setdefault(qid, []).append((label, vid))
        for eid in ids:
            if eid not in info:
                self._cache[eid] = None
                continue
            label, gender = info[eid]
            if len(label) > self.max_label:
                self.drop(eid, "label too long to ask about", f"{len(label):,} characters")
                self._cache[eid] = None
                continue
            t = types.get(eid, [])
            self._cache[eid] = EntityFacts(eid, label, gender, t, "Q5" in t, dict(props[eid]))

    def _unusable(self, item: str, statement_id: str, label: str | None,
                  value_id: str | None) -> bool:
        """A value nobody should read: no English label (never a raw id) or an absurdly long
        one. It is left out of its answer, with the reason kept."""
        if label is None:
            self.drop(item, "value without an English label left out", value_id or
                      statement_id)
            return True
        if len(label) > self.max_label:
            self.drop(item, "value label too long to say", f"{len(label):,} characters")
            return True
        return False

    def entity(self, eid: str) -> EntityFacts | None:
        self.load([eid])
        return self._cache[eid]

    def best_type(self, e: EntityFacts) -> tuple[str | None, list[tuple[str, str | None]]]:
        """The entity's type with templates that covers most of its facts."""
        if e.id not in self._best:
            self._best[e.id] = self._best_type(e)
        return self._best[e.id]

    def _best_type(self, e: EntityFacts) -> tuple[str | None, list[tuple[str, str | None]]]:
        best, best_facts = None, []
        for t in e.types:
            facts = sorted((f for f in self.facts_by_type.get(t, ()) if self._has_fact(e, f)),
                           key=lambda f: (f[0], f[1] or ""))
            if len(facts) > len(best_facts):
                best, best_facts = t, facts
        return best, best_facts

    @staticmethod
    def _has_fact(e: EntityFacts, fact: tuple[str, str | None]) -> bool:
        pid, qid = fact
        stmts = e.properties.get(pid)
        if not stmts:
            return False
        return qid is None or any(qid in s.qualifiers for s in stmts)


class Assembler:
    """Turns a KG view into conversations for one configuration."""

    def __init__(self, view: KGView, cfg: GenerateConfig, drop) -> None:
        self.view = view
        self.cfg = cfg
        self.name = cfg.name
        self.drop = drop  # the stage's drop(item, reason, detail)
        self._parts: dict[str, list[str]] = {}
        self._typo_words: dict[str, list] = {}
        self._shapes: dict[str, list[tuple]] = {}

    # -- planning (which facts), independent of the interaction config under same_facts
    def blocks(self, e: EntityFacts, facts: list[tuple[str, str | None]],
               rng: random.Random) -> list[list[PlannedTurn]]:
        """The entity's facts grouped into blocks asked together, in a random order."""
        shapes = self._shapes.get(e.id)
        if shapes is None:
            shapes = self._shapes[e.id] = self._block_shapes(e, facts)
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
            stmts = [i for i, st in enumerate(e.properties[p])
                     if any(q in st.qualifiers for q in quals.get(p, ()))]
            shapes.append(([p], p, stmts, sorted(quals.get(p, ()))))
        return shapes

    def plan(self, e: EntityFacts, facts: list, turns: int, rng: random.Random) -> list[PlannedTurn]:
        chosen: list[PlannedTurn] = []
        blocks = self.blocks(e, facts, rng)
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

    # -- realisation (how each fact is asked)
    def references(self, e: EntityFacts, type_id: str) -> tuple[str, str, str]:
        if e.gender in GENDER:
            return GENDER[e.gender]
        if e.human:
            return ("this person", "this person", "this person's")
        phrase = THING_REFERENCES.get(self.view.type_labels.get(type_id, ""))
        if phrase:
            return (phrase, phrase, phrase + "'s")
        return ("it", "it", "its")

    def fill(self, template: str, e: EntityFacts, type_id: str, value: str | None) -> str:
        """Slot-fill a template (split into literal text and placeholders once, then cached)."""
        he, him, his = self.references(e, type_id)
        slots = {subject_placeholder(self.view.type_labels[type_id]): e.label, "[he]": he, "[him]": him,
                 "[his]": his, "[a]": value or ""}
        parts = self._parts.get(template)
        if parts is None:
            parts = self._parts[template] = re.split(r"(\[[^\[\]]+\])", template)
        return "".join(slots.get(p, p) if i % 2 else p for i, p in enumerate(parts))

    def typo_words(self, template: str) -> list:
        """Content words of a template, outside its placeholders (cached per template)."""
        words = self._typo_words.get(template)
        if words is None:
            spans = [m.span() for m in re.finditer(r"\[[^\[\]]+\]", template)]
            words = self._typo_words[template] = content_words(template, spans)
        return words

    def answer(self, e: EntityFacts, t: PlannedTurn) -> tuple[list[str], list[str | None], str | None, str]:
        stmts = e.properties[t.property_id]
        if t.qualifier_id is None:
            return ([s.value_label for s in stmts], [s.value_id for s in stmts],
                    None, ",".join(s.statement_id for s in stmts))
        st = stmts[t.statement_index]
        vals = st.qualifiers[t.qualifier_id]
        return [v[0] for v in vals], [v[1] for v in vals], st.value_label, st.statement_id

    def conversation(self, entity_id: str, index: int) -> dict | None:
        cfg = self.cfg
        e = self.view.entity(entity_id)
        if e is None:
            return None
        type_id, facts = self.view.best_type(e)
        if type_id is None:
            self.drop(entity_id, "no type with templates covers its facts")
            return None
        fact_key = [cfg.seed, entity_id, index, cfg.turns, cfg.related]
        if not cfg.same_facts:
            fact_key.append(self.name)
        rng_facts = random.Random(_seed("facts", *fact_key))
        rng_style = random.Random(_seed("style", self.name, cfg.seed, entity_id, index))

        related = self.view.related.get(entity_id) if cfg.related else None
        r_entity = self.view.entity(related) if related else None
        r_type, r_facts = self.view.best_type(r_entity) if r_entity else (None, [])
        n_related = min(2, cfg.turns - 2) if r_type and r_facts and cfg.turns >= 3 else 0
        plan = [(e, type_id, p) for p in self.plan(e, facts, cfg.turns - n_related, rng_facts)]
        if n_related:
            plan += [(r_entity, r_type, p)
                     for p in self.plan(r_entity, r_facts, n_related, rng_facts)]
        turns, previous_entity = [], None
        for ent, tid, pt in plan:
            turn = self.realise(ent, tid, pt, previous_entity, rng_style, len(turns) + 1)
            if turn is None:
                continue
            turns.append(turn)
            previous_entity = ent.id
        if not turns:
            self.drop(entity_id, "no turn could be realised")
            return None
        fact_set = hashlib.sha256("\x1e".join(
            f"{t['subject_id']}\x1f{t['property_id']}\x1f{t['qualifier_property_id']}\x1f"
            f"{t['statement_id']}" for t in turns).encode()).hexdigest()[:16]
        conv_id = hashlib.sha256(f"{self.name}\x1f{cfg.seed}\x1f{entity_id}\x1f{index}\x1f"
                                 f"{fact_set}".encode()).hexdigest()[:16]
        return {
            "conversation_id": conv_id, "config_name": self.name, "seed": cfg.seed,
            "entity_id": e.id, "entity_label": e.label, "entity_type": type_id,
            "entity_types": e.types,
            "related_entity_id": r_entity.id if n_related else None,
            "related_entity_label": r_entity.label if n_related else None,
            "fact_set_id": fact_set, "turns": turns,
        }

    def realise(self, e: EntityFacts, type_id: str, pt: PlannedTurn, previous: str | None,
                rng: random.Random, number: int) -> dict | None:
        cfg = self.cfg
        deixis = cfg.deixis and previous == e.id  # refers back to the entity just discussed
        if cfg.interaction == "voice":
            phen = "deixis" if deixis else "original"
            if cfg.disfluency:
                phen = "deixis_disfluencies" if deixis else "disfluencies"
        else:
            phen = "deixis" if deixis else "original"
        options = self.view.templates.get((type_id, pt.property_id, pt.qualifier_id, phen), [])
        answer, answer_ids, value, statement_id = self.answer(e, pt)
        first = rng.randrange(len(options)) if options else 0
        for tid, template, (writer, model, prompt_hash) in options[first:] + options[:first]:
            question = self.fill(template, e, type_id, value)
            if any(_contains(question, a) for a in answer):
                continue  # the question must not give its answer away
            before_typo = None
            out_phen = phen
            if cfg.interaction == "text" and cfg.typos:
                # the edit lands on a template word, never on text filled in from the KG
                typoed, edit = typo_in(template, self.typo_words(template), rng)
                if edit is not None:
                    before_typo, question = question, self.fill(typoed, e, type_id, value)
                    out_phen = "deixis_typos" if deixis else "typos"
            if cfg.interaction == "voice":
                question = question[0].upper() + question[1:]
                if previous is not None and previous != e.id:
                    prefix = rng.choice(TRANSITIONS)
                    question = prefix + question[0].lower() + question[1:]
            return {"turn": number, "question": question, "question_before_typo": before_typo,
                    "answer": answer, "answer_ids": answer_ids, "subject_id": e.id,
                    "property_id": pt.property_id, "qualifier_property_id": pt.qualifier_id,
                    "statement_id": statement_id, "phenomenon": out_phen, "template_id": tid,
                    "writer": writer, "model": model, "prompt_hash": prompt_hash}
        self.drop(f"{e.id}/{pt.property_id}/{pt.qualifier_id or ''}",
                  f"no {phen} template avoids the answer")
        return None


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
        blob = json.dumps([__version__, self.config.model_dump(mode="json"), inputs,
                           kg_version(self.con), related], sort_keys=True)
        return f"gen-{self.config_name}-{hashlib.sha256(blob.encode()).hexdigest()[:12]}"

    def unchanged(self) -> int | None:
        """Conversations of the stored current run when it has exactly this run's inputs."""
        row = self.con.execute("SELECT conversations FROM generation_runs WHERE run_id = ? "
                               "AND current", [self.run_id]).fetchone()
        return row[0] if row else None

    def entities(self, view: KGView) -> list[str]:
        cfg = self.config
        if cfg.entities:
            return list(cfg.entities)
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
        view = KGView(self.con, cfg, self.drop)
        assembler = Assembler(view, cfg, self.drop)
        pool = self.entities(view)
        view.load(pool)
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
            if not produced or cfg.entities:
                break
            index += 1
        if not convs:
            raise UserError(self.why_empty(view))
        self.store(convs)
        return {"config": self.config_name, "conversations": len(convs),
                "turns": sum(len(c["turns"]) for c in convs), "dropped": len(self._dropped),
                "run_id": self.run_id}

    def why_empty(self, view: KGView) -> str:
        cfg = self.config
        if cfg.entities:
            missing = [e for e in cfg.entities if view.entity(e) is None]
            if missing:
                return f"no conversations: {', '.join(missing)} not in the KG"
            return (f"no conversations: {', '.join(cfg.entities)} have no facts with "
                    "templates (see `convkgyarn drops`)")
        if cfg.types:
            return (f"no conversations: no entities of type {', '.join(cfg.types)} with facts "
                    "to ask about (see `convkgyarn predicates show TYPE`)")
        return "no conversations: no entity has facts with templates (see `convkgyarn drops`)"

    def store(self, convs: list[dict]) -> None:
        con = self.con
        dump_date = con.execute("SELECT max(dump_date) FROM load_files WHERE status = 'done'"
                                ).fetchone()[0]
        writers = dict(con.execute(
            "SELECT writer || coalesce(':' || model, ''), count(*) FROM templates GROUP BY 1"
        ).fetchall())
        conv_cols = ["conversation_id", "config_name", "seed", "entity_id", "entity_label",
                     "entity_type", "entity_types", "related_entity_id",
                     "related_entity_label", "fact_set_id", "ordinal"]
        turns = [{"conversation_id": c["conversation_id"], **t} for c in convs
                 for t in c["turns"]]
        run = RunRecord(self.run_id, self.config_name, self.config.model_dump(mode="json"),
                        self.config.seed, kg_version=kg_version(con), dump_date=dump_date,
                        code_version=code_version(), writers=writers)
        store_run(con, run, [{k: c[k] for k in conv_cols} for c in convs], turns,
                  keep_previous=self.keep_previous)
