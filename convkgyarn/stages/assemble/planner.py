"""The planner: which facts a conversation asks, in which order, about which entities.

A conversation is a pure function of its subject, its index (the pass over the subjects),
the configuration and the KG: its generators are seeded by those alone, and it reads the KG
only through the batch's view. That is what lets the stage make conversations batch by
batch, and make one again after its batch loaded an entity it missed, with the same result.

Facts are asked in blocks that belong together (date and place of birth, a marriage and its
dates), in a seeded order. With hops, an answer naming an item with facts of its own may
lead to two or three turns about it, then back to the plan; when the plan runs out, the
conversation moves to an item answered earlier, or back to a topic with facts not yet
asked: at most ``topics`` entities, never a fact twice.
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict, deque
from dataclasses import replace

from convkgyarn.config import GenerateConfig
from convkgyarn.stages import kinds
from convkgyarn.stages.assemble import transforms
from convkgyarn.stages.assemble.records import (
    Conversation, Drop, EntityFacts, PlannedTurn, Turn)
from convkgyarn.stages.assemble.realiser import Realiser, seeded
from convkgyarn.stages.assemble.view import KGView

# Predicates asked one after the other when an entity has both.
GROUPS = (("P569", "P19"), ("P570", "P20"), ("P580", "P582"), ("P577", "P2047"))
MAX_TEXT_SUBJECT_WORDS = 6

Fact = tuple[str, str | None]  # (property, qualifier or None)
Step = tuple[EntityFacts, str, PlannedTurn, "int | None"]  # entity, type, turn, hop_from


class Planner:
    """Conversations of one configuration over one batch's view."""

    def __init__(self, view: KGView, cfg: GenerateConfig) -> None:
        self.view = view
        self.cfg = cfg
        self.name = cfg.name
        self.realiser = Realiser(view, cfg)
        self._shapes: dict[tuple, list[tuple]] = {}

    def drop(self, item: str, reason: str, detail: str = "") -> None:
        self.view.trace.drops.append(Drop(item, reason, detail))

    def left_out(self, item: str, reason: str, detail: str = "") -> None:
        """A subject that makes no conversation in any pass: the stage skips it in the next
        passes, and records this drop for it again as if it had been visited."""
        self.drop(item, reason, detail)
        self.view.trace.lasting = True

    # -- one conversation
    def conversation(self, entity_id: str, index: int) -> Conversation | None:
        cfg, view = self.cfg, self.view
        e = view.entity(entity_id)
        if e is None:
            view.trace.lasting = True
            return None
        type_id, facts = view.best_type(e)
        if type_id is None:
            self.left_out(entity_id, "no type with templates covers its facts")
            return None
        least = min(cfg.min_turns, cfg.turns)
        if view.refreshes is not None:  # probes: the changed facts, however few
            facts = [(p, q) for p, q in facts if q is None and view.change(e.id, p)]
            least = 1
        if len(facts) < least:
            self.left_out(entity_id, f"fewer askable facts than generate.min_turns "
                          f"({cfg.min_turns})", f"{len(facts)} askable facts")
            return None
        namesake = view.namesakes.get(entity_id)
        if namesake is not None:
            self.left_out(entity_id, "a better-known entity bears its name (generate.homonyms)",
                          f"{namesake[0]}, {namesake[1]:,} sitelinks")
            return None
        if cfg.interaction == "text" and len(e.label.split()) > MAX_TEXT_SUBJECT_WORDS:
            self.left_out(entity_id, "label too long for a search query",
                          f"{len(e.label.split())} words")
            return None
        fact_key = [cfg.seed, entity_id, index, cfg.turns, cfg.related]
        if cfg.hops:
            fact_key += ["hops", cfg.topics, cfg.hop_share]
        if cfg.kinds:
            fact_key += ["kinds", *cfg.kinds, cfg.kind_share]
        if not cfg.same_facts:
            fact_key.append(self.name)
        rng_facts = random.Random(seeded("facts", *fact_key))
        # hops and kinds draw from their own generator (made only when they are on)
        rng_hops = random.Random(seeded("hops", *fact_key)) if cfg.hops or cfg.kinds else None
        rng_style = random.Random(seeded("style", self.name, cfg.seed, entity_id, index))

        related = view.related.get(entity_id) if cfg.related and \
            view.refreshes is None else None
        r_entity = view.entity(related) if related else None
        r_type, r_facts = view.best_type(r_entity) if r_entity else (None, [])
        n_related = min(2, cfg.turns - 2) if r_type and r_facts and cfg.turns >= 3 else 0
        plan: list[Step] = [(e, type_id, p, None)
                            for p in self.plan(e, facts, cfg.turns - n_related, rng_facts)]
        if n_related:
            plan += [(r_entity, r_type, p, None)
                     for p in self.plan(r_entity, r_facts, n_related, rng_facts)]
        turns = self.walk(plan, rng_hops, rng_style,
                          {e.id} | ({r_entity.id} if n_related else set()))
        if len(turns) < least:
            self.drop(entity_id, "too few turns could be realised", f"{len(turns)} turns")
            return None
        fact_set = hashlib.sha256("\x1e".join(
            f"{t.subject.id}\x1f{t.planned.property_id}\x1f{t.planned.qualifier_id}\x1f"
            f"{t.statement_id}" for t in turns).encode()).hexdigest()[:16]
        conv_id = hashlib.sha256(f"{self.name}\x1f{cfg.seed}\x1f{entity_id}\x1f{index}\x1f"
                                 f"{fact_set}".encode()).hexdigest()[:16]
        short = None
        if len(turns) < cfg.turns:
            short = (f"{len(facts)} askable facts" if len(facts) < cfg.turns - n_related
                     else f"{len(plan) - len(turns)} planned turns could not be phrased")
        return Conversation(conv_id, self.name, cfg.seed, e, type_id,
                            r_entity if n_related else None, fact_set, cfg.turns, short,
                            tuple(turns))

    # -- planning (which facts), independent of the interaction config under same_facts
    def blocks(self, e: EntityFacts, facts: list[Fact], rng: random.Random,
               cached: bool = True) -> list[list[PlannedTurn]]:
        """The entity's facts grouped into blocks asked together, in a random order
        (``cached``: the blocks' shapes are kept for these facts)."""
        key = (e.id, tuple(facts))
        shapes = self._shapes.get(key) if cached else None
        if shapes is None:
            shapes = self._block_shapes(e, facts)
            if cached:
                self._shapes[key] = shapes
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

    def _block_shapes(self, e: EntityFacts, facts: list[Fact]) -> list[tuple]:
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

    def plan(self, e: EntityFacts, facts: list[Fact], turns: int, rng: random.Random,
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

    # -- the conversation as it goes
    def walk(self, plan: list[Step], rng_hops: random.Random | None,
             rng_style: random.Random, topics: set[str]) -> list[Turn]:
        """Realise the planned turns in order; with hops (or kinds) the conversation may move
        and refill its plan as it goes."""
        cfg = self.cfg
        if not cfg.hops and not cfg.kinds:  # the plan as it is: no fact recurs in it
            return self._walk_plan(plan, rng_style)
        queue = deque(plan)
        turns: list[Turn] = []
        previous: Turn | None = None
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
            if hop_from is not None and set(turn.answer_ids) <= topics:
                continue  # "this city's country?" "the country we came from": nothing new
            turns.append(turn)
            previous = turn
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
            hop = [(h_entity, h_type, p, turn.number)
                   for p in self.plan(h_entity, h_facts, size, rng_hops)]
            queue.extendleft(reversed(hop))
            topics.add(h_entity.id)
            came_from[h_entity.id] = turn.number
        return turns

    def _walk_plan(self, plan: list[Step], rng_style: random.Random) -> list[Turn]:
        turns: list[Turn] = []
        previous: Turn | None = None
        for ent, tid, pt, _ in plan:
            if len(turns) == self.cfg.turns:
                break
            turn = self.realise(ent, tid, pt, previous, rng_style, len(turns) + 1)
            if turn is not None:
                turns.append(turn)
                previous = turn
        return turns

    def realise(self, e: EntityFacts, type_id: str, pt: PlannedTurn, previous: Turn | None,
                rng: random.Random, number: int, hop_from: int | None = None) -> Turn | None:
        """One planned turn through the realiser and the transforms (None: dropped)."""
        ctx = transforms.TurnContext(self.cfg, self.view, self.realiser, previous, rng)
        turn = transforms.realise(self.realiser.start(e, type_id, pt, number, hop_from), ctx)
        if isinstance(turn, Drop):
            self.view.trace.drops.append(turn)
            return None
        return turn

    def refill(self, turns: list[Turn], topics: set[str], came_from: dict, asked: set,
               max_topics: int, rng: random.Random) -> list[Step]:
        """The plan ran out: turns about an item answered earlier (the latest first) while
        topics are left, else more about a topic with facts not yet asked."""
        left = self.cfg.turns - len(turns)
        if len(topics) < max_topics:
            for turn in reversed(turns):
                target = self.hop_target(turn, topics, rng, least=1)
                if target is not None:
                    h_entity, h_type, h_facts = target
                    topics.add(h_entity.id)
                    came_from[h_entity.id] = turn.number
                    return [(h_entity, h_type, p, turn.number)
                            for p in self.plan(h_entity, h_facts, min(left, 4), rng)]
        for turn in reversed(turns):
            ent = self.view.entity(turn.subject.id)
            t_type, t_facts = self.view.best_type(ent)
            rest = [f for f in t_facts if (ent.id, *f) not in asked]
            if rest:
                return [(ent, t_type, p, came_from.get(ent.id))
                        for p in self.plan(ent, rest, left, rng, cached=False)]
        return []

    def hop_target(self, turn: Turn, topics: set[str], rng: random.Random, least: int = 2):
        """An item the turn answered that the conversation can move to: in the KG, not yet a
        topic, with templates for at least ``least`` of its facts. One of several values is
        picked at random."""
        items = [v for v in turn.hop_values if v.value_id and v.value_id not in topics]
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
