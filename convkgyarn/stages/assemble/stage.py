"""The assembly stage: subjects in their seeded order, batch by batch, into one stored run.

Streaming: memory and time grow with the conversations asked for, not with the KG. The
subjects' order is computed in DuckDB (a temporary table of positions); each batch takes the
next subjects, loads their facts, templates and lookups (``view.KGView``), makes their
conversations (``planner.Planner``) and stages them (``conversations.RunStaging``); the run
becomes current in one transaction at the end, as a whole. What a batch holds is bounded by
``assembly.batch_subjects``.

Same output whatever the batch size: a conversation depends only on its subject, its pass
over the subjects, the configuration and the KG. A conversation that needs an entity its
batch has not loaded (an item two hops away) is made again once the batch has loaded every
entity its conversations missed. Conversations are kept in the subjects' order up to the
number asked for, and the drops recorded are those of the conversations kept (each entity's
own drops once per run), exactly as if the subjects were visited one by one.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import duckdb
import pyarrow as pa
from duckdb import sqltypes

from convkgyarn import __version__
from convkgyarn.config import AssemblyConfig, GenerateConfig
from convkgyarn.conversations import RunRecord, RunStaging
from convkgyarn.errors import UserError
from convkgyarn.kg.snapshot import dump_date, kg_version
from convkgyarn.memory import gc_paused
from convkgyarn.progress import StepProgress
from convkgyarn.stage import Stage, code_version
from convkgyarn.stages.assemble.identity import assembly_code_hash
from convkgyarn.stages.assemble.planner import PROFILE_REASON, Planner
from convkgyarn.stages.assemble.records import Conversation, Drop
from convkgyarn.stages.assemble.view import KGView, Missing, RunLookups, Trace
from convkgyarn.store import registered


def profiles_left_out(reasons: Iterable[str]) -> bool:
    """Whether a run's drop reasons left out subjects for a stock profile
    (``generate.profiles``): the short-run note and the empty-run error say so."""
    return any(r.startswith(PROFILE_REASON) for r in reasons)


FIRST_YIELD = 0.5  # conversations per subject assumed before the first batch says
MIN_BATCH = 64  # subjects: fewer would spend more on each batch's queries than on its work


UNITS = {"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "KIB": 2 ** 10, "MIB": 2 ** 20,
         "GIB": 2 ** 30, "TIB": 2 ** 40}


def size_bytes(text: str) -> float:
    """"512MB" -> 512e6 (the sizes the config's pattern accepts)."""
    number, unit = re.fullmatch(r"\s*([\d.]+)\s*([A-Za-z]+)\s*", text).groups()
    return float(number) * UNITS[unit.upper()]


@contextmanager
def memory_capped(con: duckdb.DuckDBPyConnection, project_limit: str,
                  limit: str) -> Iterator[None]:
    """DuckDB's memory cap lowered to ``limit`` for the block (when below the project's),
    then set back to the project's. Both are validated sizes ("512MB"): SET takes no
    parameters."""
    if size_bytes(limit) >= size_bytes(project_limit):
        yield
        return
    con.execute(f"SET memory_limit = '{limit.strip()}'")
    try:
        yield
    finally:
        con.execute(f"SET memory_limit = '{project_limit.strip()}'")


def chosen_refreshes(con: duckdb.DuckDBPyConnection, since: str) -> list[str]:
    """The refreshes whose changed facts probes ask: ``since`` is a refresh id (or its
    start), "last" (the latest refresh), or a dump date (every refresh from a snapshot
    dumped that day or later)."""
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
    return chosen


class Subjects:
    """The run's subjects in their order: ``--entity`` as given, else every entity of a type
    with templates (probes: with a changed fact) in a stable order per entity (a key from a
    hash of the seed and its id, weighted by its sitelinks unless ``subjects = "uniform"``;
    not a shuffle of the whole pool: entities added to the KG later do not reorder the
    others, so their conversations keep their ids). Computed in DuckDB into a
    temporary table of positions, read a slice at a time.

    A subject that can make no conversation in any pass (no type with templates, too few
    askable facts, a better-known namesake, ...) is skipped by the next passes; its drop is
    recorded again for each pass, as if it had been visited (``skipped``)."""

    TABLE = "_assembly_subjects"
    SKIPPED = "_assembly_skipped"
    ORDER = "convkgyarn_subject_order"

    def __init__(self, con: duckdb.DuckDBPyConnection, cfg: GenerateConfig,
                 refreshes: list[str] | None) -> None:
        self.con = con
        con.execute(f"CREATE OR REPLACE TEMP TABLE {self.SKIPPED} (position BIGINT, "
                    "item VARCHAR, reason VARCHAR, detail VARCHAR)")
        if cfg.entities:
            with registered(con, "_listed", {"position": list(range(len(cfg.entities))),
                                             "entity_id": list(cfg.entities)}):
                con.execute(f"CREATE OR REPLACE TEMP TABLE {self.TABLE} AS SELECT * FROM "
                            "_listed ORDER BY position")
            return
        prefix = f"entity\x1f{cfg.seed}\x1f"

        def order(ids: pa.Array) -> pa.Array:  # as planner.seeded("entity", seed, id)
            blake2b = hashlib.blake2b
            return pa.array([int.from_bytes(blake2b((prefix + e).encode(), digest_size=8)
                                            .digest(), "big") for e in ids.to_pylist()],
                            type=pa.uint64())

        types, params = "", [cfg.interaction]
        if cfg.types:  # only these of the types with templates
            types, params = " AND list_contains(?, type_id)", params + [list(cfg.types)]
        changed = ""
        if refreshes is not None:
            changed = (" AND entity_id IN (SELECT entity_id FROM fact_changes WHERE "
                       "list_contains(?, refresh_id))")
            params.append(refreshes)
        con.create_function(self.ORDER, order, [sqltypes.VARCHAR], sqltypes.UBIGINT,
                            type="arrow")
        try:
            con.execute(
                f"CREATE OR REPLACE TEMP TABLE {self.TABLE} AS SELECT row_number() OVER "
                f"(ORDER BY {self.order_key(cfg)}, c.entity_id) - 1 AS position, c.entity_id "
                "FROM (SELECT DISTINCT entity_id FROM entity_types WHERE type_id IN (SELECT "
                f"type_id FROM templates WHERE interaction = ?{types}){changed}) c "
                "LEFT JOIN entities e ON e.id = c.entity_id ORDER BY position", params)
        finally:
            con.remove_function(self.ORDER)

    @classmethod
    def order_key(cls, cfg: GenerateConfig) -> str:
        """The SQL sort key of a subject (ascending). Uniform: its seeded hash. Popular: a
        weighted random order (Efraimidis and Spirakis' keys ``u ** (1 / w)``, sorted from
        the largest, with ``u`` the seeded hash in (0, 1) and ``w`` = sitelinks + 1): each
        next subject is drawn with a chance proportional to its weight among those left. It
        stays a property of the entity alone, so entities added later never reorder the
        others."""
        if cfg.subjects == "uniform":
            return f"{cls.ORDER}(c.entity_id)"
        u = f"(({cls.ORDER}(c.entity_id)::DOUBLE + 0.5) / 18446744073709551616.0)"
        return f"-ln({u}) / (coalesce(e.sitelinks, 0) + 1)"

    @property
    def count(self) -> int:
        return self.con.execute(f"SELECT count(*) FROM {self.TABLE}").fetchall()[0][0]

    def slice(self, start: int, size: int) -> list[tuple[int, str]]:
        """Up to ``size`` subjects (position, id) from ``start`` on, not skipped."""
        return self.con.execute(
            f"SELECT position, entity_id FROM {self.TABLE} WHERE position >= ? AND position "
            f"NOT IN (SELECT position FROM {self.SKIPPED}) ORDER BY position LIMIT ?",
            [start, size]).fetchall()

    def skip(self, left_out: list[tuple[int, list[Drop]]]) -> None:
        """Subjects no pass can make a conversation of, with the drops a visit records."""
        rows = [(pos, d.item, d.reason, d.detail) for pos, drops in left_out
                for d in drops or [Drop(None, None)]]
        if rows:
            with registered(self.con, "_left_out", dict(zip(
                    ("position", "item", "reason", "detail"), map(list, zip(*rows))))):
                self.con.execute(f"INSERT INTO {self.SKIPPED} SELECT * FROM _left_out")

    def skipped(self, start: int, end: int | None) -> list[Drop]:
        """The drops of the skipped subjects from ``start`` to ``end`` (None: the last)."""
        return [Drop(*r) for r in self.con.execute(
            f"SELECT item, reason, detail FROM {self.SKIPPED} WHERE position >= ? AND "
            "position <= coalesce(?, position) AND item IS NOT NULL ORDER BY position",
            [start, end]).fetchall()]

    def close(self) -> None:
        for table in (self.TABLE, self.SKIPPED):
            try:
                self.con.execute(f"DROP TABLE IF EXISTS {table}")
            except duckdb.Error:  # an aborted transaction: the error that aborted it matters
                pass


class Batch:
    """The conversations of a slice of subjects, in their order, each with its trace."""

    def __init__(self, con: duckdb.DuckDBPyConnection, cfg: GenerateConfig, run: RunLookups,
                 refreshes: list[str] | None) -> None:
        self.cfg = cfg
        self.view = KGView(con, cfg, run, refreshes)
        self.planner = Planner(self.view, cfg)
        self.reloads = 0  # loads of entities conversations missed

    def prepare(self, subjects: list[str]) -> None:
        """Load what the subjects' conversations need, in bulk: the subjects, their related
        entities, and (with hops) the items their facts name."""
        view = self.view
        view.load(subjects, subjects=True)
        view.load([view.related[s] for s in subjects if s in view.related] + view.answered)

    def run(self, subjects: list[str], index: int) -> list[tuple[Trace, Conversation | None]]:
        """Make every subject's conversation (the subjects are prepared); one that needs an
        entity not loaded yet is made again once the entities all of them missed are
        loaded."""
        results: list[tuple[Trace, Conversation | None] | None] = [None] * len(subjects)
        pending = list(range(len(subjects)))
        while pending:
            missed: set[str] = set()
            again = []
            for i in pending:
                self.view.trace = Trace()
                try:
                    conv = self.planner.conversation(subjects[i], index)
                except Missing as miss:
                    missed.add(miss.entity_id)
                    again.append(i)
                    continue
                results[i] = (self.view.trace, conv)
            if missed:
                self.view.load(sorted(missed))
                self.reloads += 1
            pending = again
        return results


class DropLog:
    """The drops of the conversations kept: each entity's own drops (its values, its facts)
    the first time a kept conversation used it, and the conversation's own. An entity's own
    drops that planning adds later (an award not dated alone, found while its own
    conversation is planned, after another conversation named it) are recorded with the
    next kept conversation that uses it, each once."""

    def __init__(self, stage: Stage) -> None:
        self.stage = stage
        self.loaded: dict[str, int] = {}  # entity -> how many of its own drops are recorded
        self.typed: set[str] = set()
        self.reasons: Counter = Counter()
        self.count = 0

    def replay(self, drops: list[Drop]) -> None:
        """Drops recorded again for subjects a pass skips."""
        for d in drops:
            self.stage.drop(d.item, d.reason, d.detail)
            self.reasons[d.reason] += 1
        self.count += len(drops)

    def record(self, trace: Trace, view: KGView) -> None:
        drops: list[Drop] = []
        for eid in sorted(trace.entities):
            own = view.load_drops.get(eid, ())
            drops += own[self.loaded.get(eid, 0):]
            self.loaded[eid] = len(own)
        for eid in sorted(trace.typed - self.typed):
            drops += view.type_drops.get(eid, ())
        self.typed |= trace.typed
        for d in drops + trace.drops:
            self.stage.drop(d.item, d.reason, d.detail)
            self.reasons[d.reason] += 1
        self.count += len(drops) + len(trace.drops)


class AssembleConversations(Stage):
    """Generate conversations for one configuration and store them as its current run."""

    name = "assemble"
    writes = ("generation_runs", "conversations", "turns", "turn_queries")

    @property
    def reads(self) -> tuple[str, ...]:  # type: ignore[override]
        """The templates and the KG (with what a refresh changed), and the related entities
        when the configuration asks for them."""
        return ("templates", "entities", "entity_types", "kg_meta", "labels", "class_labels",
                "load_files", "property_info", "qualifiers", "statements", "refresh_runs",
                "fact_changes") + (("related_entities",) if self.config.related else ()) + (
                    ("local_templates", "labels_by_language")
                    if self.config.languages != ["en"] else ())

    def __init__(self, ctx, config: GenerateConfig, keep_previous: bool = False) -> None:
        super().__init__(ctx, config)
        self.config_name = config.name
        self.keep_previous = keep_previous
        self._staging: RunStaging | None = None  # set while a run is being assembled
        self.assembly: AssemblyConfig = ctx.config.assembly

    @property
    def scope(self) -> str:
        return self.config_name

    def code_hash(self) -> str:
        """Every module the assembly package imports (not only this module's closure)."""
        return assembly_code_hash()

    def deterministic_run_id(self) -> str:
        """Same code release, config, seed and inputs (KG, templates, related entities) ->
        same run id: the run is then already stored, and exports are byte-identical."""
        inputs = self.con.execute(
            "SELECT coalesce(string_agg(template_id, ',' ORDER BY template_id), '') FROM templates"
        ).fetchall()[0][0]
        if self.config.languages != ["en"]:  # and the templates of its other languages
            inputs += "|" + self.con.execute(
                "SELECT coalesce(string_agg(template_id, ',' ORDER BY template_id), '') FROM "
                "local_templates WHERE list_contains(?, language)",
                [self.config.languages]).fetchall()[0][0]
        related = self.con.execute(
            "SELECT coalesce(string_agg(entity_id || '>' || related_id, ',' ORDER BY entity_id),"
            " '') FROM related_entities").fetchall()[0][0] if self.config.related else ""
        blob = json.dumps([__version__, self.decisive_key(), inputs, kg_version(self.con),
                           related], sort_keys=True)
        return f"gen-{self.config_name}-{hashlib.sha256(blob.encode()).hexdigest()[:12]}"

    def unchanged(self) -> int | None:
        """Conversations of the stored current run when it has exactly this run's inputs."""
        rows = self.con.execute("SELECT conversations FROM generation_runs WHERE run_id = ? "
                                "AND current", [self.run_id]).fetchall()
        return rows[0][0] if rows else None

    def process(self) -> dict[str, Any]:
        self.run_id = self.deterministic_run_id()
        stored = self.unchanged()
        if stored is not None:
            return {"config": self.config_name, "conversations": stored, "unchanged": True,
                    "run_id": self.run_id}
        # the run's objects hold no reference cycles: the collector's passes over them
        # would only cost time (a seventh of it, measured)
        with memory_capped(self.con, self.ctx.config.memory_limit,
                           self.assembly.memory_limit), gc_paused():
            return self._assemble(self.config)

    def _assemble(self, cfg: GenerateConfig) -> dict[str, Any]:
        con = self.con
        refreshes = chosen_refreshes(con, cfg.changed_since) if cfg.changed_since else None
        lookups = RunLookups(con, cfg)
        log = DropLog(self)
        subjects = Subjects(con, cfg, refreshes)
        staging = RunStaging(con, self.run_record())
        self._staging = staging
        stats = Counter()
        try:
            self._batches(cfg, subjects, lookups, refreshes, log, staging, stats)
            self._flush_dropped()
            if not staging.conversations:
                staging.store_drops()  # nothing made: the drops say why
                raise UserError(self.why_empty(lookups, refreshes, log))
            t0 = time.perf_counter()
            staging.commit(self.keep_previous)
            stats["store_seconds"] += time.perf_counter() - t0
            self.report_progress(StepProgress(f"assemble {self.config_name}",
                                              staging.plans, cfg.conversations,
                                              "conversations", finished=True,
                                              note=self.why_fewer(cfg, staging.plans,
                                                                  refreshes, log.reasons)
                                              or self.entities_missing()))
        except BaseException:
            self._dropped.clear()  # a run that did not finish records no drops of its own
            raise
        finally:
            self._staging = None
            staging.close()
            subjects.close()
            lookups.close()
        return {"config": self.config_name, "conversations": staging.conversations,
                "store_seconds": round(stats["store_seconds"], 2), "turns": staging.turns,
                "short": stats["short"], "dropped": log.count, "batches": stats["batches"],
                "reloads": stats["reloads"], "subjects": stats["subjects"],
                "run_id": self.run_id}

    def _batches(self, cfg: GenerateConfig, subjects: Subjects, lookups: RunLookups,
                 refreshes: list[str] | None, log: DropLog, staging: RunStaging,
                 stats: Counter) -> None:
        """Pass over the subjects (again, with the next index, while each pass makes some)
        until the conversations asked for are made."""
        wanted, index, position, made, seen = cfg.conversations, 0, 0, 0, 0
        # a pool that fits in one batch is loaded once, and every pass reads it again
        whole = subjects.count <= self.assembly.batch_subjects
        batch = None
        while staging.plans < wanted:
            left = wanted - staging.plans
            rate = staging.plans / seen if seen and staging.plans else \
                FIRST_YIELD
            size = min(self.assembly.batch_subjects,
                       max(MIN_BATCH, math.ceil(left / rate * 1.2)))
            rows = subjects.slice(position, size)
            if not rows:  # the end of a pass
                log.replay(subjects.skipped(position, None))
                if not made or cfg.entities or refreshes is not None:
                    break  # probes: each changed fact once
                index, position, made = index + 1, 0, 0
                continue
            ids = [eid for _, eid in rows]
            if batch is None or not whole:
                batch = Batch(self.con, cfg, lookups, refreshes)
                batch.prepare([e for _, e in subjects.slice(0, subjects.count)]
                              if whole else ids)
            reloads = batch.reloads
            kept: list[Conversation] = []
            left_out: list[tuple[int, list[Drop]]] = []
            end = rows[-1][0]
            for (pos, _), (trace, conv) in zip(rows, batch.run(ids, index)):
                seen += 1
                log.record(trace, batch.view)
                if trace.lasting:
                    left_out.append((pos, trace.drops))
                if conv is not None:
                    kept.append(conv)
                    if staging.plans + len(kept) == wanted:
                        end = pos
                        break
            log.replay(subjects.skipped(position, end))  # visited, as if in order
            subjects.skip(left_out)
            position = end + 1
            made += len(kept)
            t0 = time.perf_counter()
            self.stage_rows(staging, kept)
            stats["store_seconds"] += time.perf_counter() - t0
            stats["batches"] += 1
            stats["reloads"] += batch.reloads - reloads
            stats["subjects"] += len(ids)
            self.report_progress(StepProgress(f"assemble {self.config_name}",
                                              staging.plans, wanted, "conversations"))
            stats["short"] += sum(c.short_reason is not None for c in kept)
            self._flush_dropped()  # staged batch by batch, stored with the run

    def _flush_dropped(self) -> None:
        """While a run is assembled its drops are staged with its rows (memory stays bounded,
        and they become visible with the run, in its transaction)."""
        if self._staging is None:
            super()._flush_dropped()
            return
        self._staging.add_drops(self.drop_rows())
        self._dropped.clear()

    def stage_rows(self, staging: RunStaging, kept: list[Conversation]) -> None:
        """Each plan's conversation in each of the configuration's languages (its rows in
        the order of the languages asked for)."""
        convs, turns, queries = [], [], {}
        for n, conv in enumerate(kept):
            for language in self.config.languages:
                convs.append(conv.row(staging.plans + n, language))
                cid = conv.local_id(language)
                for t in conv.turns:
                    turns.append(t.local_row(cid, language))
            for t in conv.turns:
                queries[t.query_id] = t.sparql
        staging.add(convs, turns, queries, plans=len(kept))

    def run_record(self) -> RunRecord:
        con = self.con
        writers = dict(con.execute(
            "SELECT writer || coalesce(':' || model, ''), count(*) FROM templates GROUP BY 1"
        ).fetchall())
        return RunRecord(self.run_id, self.config_name, self.config.model_dump(mode="json"),
                         self.config.seed, kg_version=kg_version(con), dump_date=dump_date(con),
                         code_version=code_version(), writers=writers)

    def entities_missing(self) -> str:
        """The --entity ids the KG does not hold, said beside the count (a newcomer's Q1339
        was left out without a word when another id made a conversation)."""
        asked = list(self.config.entities)
        if not asked:
            return ""
        found = {r[0] for r in self.con.execute(
            "SELECT id FROM entities WHERE list_contains(?, id)", [asked]).fetchall()}
        missing = [e for e in asked if e not in found]
        return f"{', '.join(missing)} not in the KG" if missing else ""

    @staticmethod
    def why_fewer(cfg: GenerateConfig, made: int, refreshes: list[str] | None,
                  reasons: Iterable[str] = ()) -> str:
        """Why a run made fewer plans than asked, said beside its count (not an error: the KG
        holds no more); with the little-known people and places left out for a stock profile
        named, as a KG of researchers' records loses most of its subjects so (``reasons``:
        the run's drop reasons)."""
        if made >= cfg.conversations or cfg.entities or refreshes is not None:
            return ""
        profiles = (" Little-known people and places with nothing to ask but a stock profile "
                    "were left out; --profiles keeps them." if profiles_left_out(reasons)
                    else "")
        if cfg.new_fact_share:
            return ("fewer than asked: the subjects have no new facts for more (another "
                    "conversation would mostly repeat one before it: generate.new_fact_share; "
                    f"`convkgyarn drops --stage assemble`).{profiles}")
        return ("fewer than asked: no subject can make another conversation "
                f"(`convkgyarn drops --stage assemble` says why).{profiles}")

    def why_empty(self, lookups: RunLookups, refreshes: list[str] | None,
                  log: DropLog) -> str:
        cfg = self.config
        from convkgyarn.kg.languages import project_languages

        kept = project_languages(self.con)
        unloaded = [c for c in cfg.languages if c != "en" and not any(
            k == c or k.startswith(c + "-") for k in kept)]
        if unloaded:
            flags = " ".join(f"--language {c}" for c in unloaded)
            return (f"no conversations: the KG has no labels in {', '.join(unloaded)}, so no "
                    f"subject has a name in it; load them with `convkgyarn kg load DUMP "
                    f"{flags}` (and --labels files with labels in those languages)")
        if cfg.changed_since:
            return (f"no conversations: none of the facts changed since {cfg.changed_since} "
                    "can be asked now (see `convkgyarn drops --stage assemble`)")
        if cfg.entities:
            view = KGView(self.con, cfg, lookups, refreshes)
            view.load(list(cfg.entities))
            missing = [e for e in cfg.entities if view.entity(e) is None]
            if missing:
                return f"no conversations: {', '.join(missing)} not in the KG"
            return (f"no conversations: {', '.join(cfg.entities)} have no facts with "
                    "templates (see `convkgyarn drops`)")
        profiles = profiles_left_out(log.reasons)
        if cfg.types and not profiles:
            return (f"no conversations: no entities of type {', '.join(cfg.types)} with facts "
                    "to ask about (see `convkgyarn predicates show TYPE`)")
        top = "; ".join(f"{n:,} x {reason}" for reason, n in
                        sorted(log.reasons.items(), key=lambda x: -x[1])[:3])
        if not top and not self.con.execute(
                "SELECT count(*) FROM templates WHERE interaction = ?",
                [cfg.interaction]).fetchone()[0]:
            # nothing reached the planner: no type had the entities to pick predicates from
            return ("no conversations: no type has predicates to ask: a type needs "
                    "predicates.min_type_entities entities (3 by default) and none has as "
                    "many; for a KG this small set `[predicates] min_type_entities = 1` in "
                    "convkgyarn.toml")
        hint = (" (give --value-labels with English labels of the values)"
                if any("English label" in r for r in log.reasons) else "")
        if profiles:  # a KG of little-known people: the rule, not the facts, left them out
            return (f"no conversations: left out: {top}{hint}; --profiles keeps little-known "
                    "people and places with a stock profile (see `convkgyarn drops`)")
        if not top:
            return (f"no conversations: no entity has {cfg.min_turns} askable facts (see "
                    "`convkgyarn drops`)")
        return (f"no conversations: no entity has {cfg.min_turns} askable facts; left out: "
                f"{top}{hint} (see `convkgyarn drops`)")
