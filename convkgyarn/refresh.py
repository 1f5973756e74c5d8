"""Refresh a project against a new dump: only what changed costs work or LLM calls.

A refresh is one list of stages run by the same ``Pipeline`` as ``generate``:

1. ``refresh.snapshot``: the new dump loads into a staging database beside the project
   (resumable, like any load) and is compared with the project's per entity and per
   statement (the diff predicates, each defined once in ``ENTITY_CHANGES``).
2. ``refresh.swap``: one transaction swaps the new snapshot in; until then the previous one
   stays intact. A snapshot that changed nothing ends the refresh here.
3. The generation stages (``pipeline.generation_stages``) for every current configuration;
   each skips inputs whose key did not change, so only changed types, new (type, predicate)
   pairs and entities whose facts changed cost anything. Conversations of unchanged entities
   come out identical, ids included.

A run killed anywhere can be re-run: the staging load resumes, the swap is atomic, and a
refresh found in state ``swapped`` continues after the swap with its stored diff. A new
snapshot with no entities, or one that would remove more than ``refresh.max_shrink`` of the
entities (unless allowed), is refused before anything is swapped.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from convkgyarn.config import GenerateConfig, LoadConfig
from convkgyarn.errors import EXIT_NOTHING, EXIT_OK, ConvKGYarnError, UserError
from convkgyarn.kg.reader import fingerprint
from convkgyarn.kg.snapshot import dump_date, kg_version, set_kg_version
from convkgyarn.progress import counted
from convkgyarn.stage import Context, Stage, utcnow
from convkgyarn.store import KG_TABLES, connect, insert_rows, quote_path, transaction

if TYPE_CHECKING:
    from convkgyarn.project import Project

log = logging.getLogger("convkgyarn.refresh")

# label files the user gave stay across snapshots (extra_labels is not swapped)
SNAPSHOT_TABLES = (*KG_TABLES, "type_predicates", "load_files")


@dataclass
class RefreshResult:
    status: str  # done | nothing
    diff: dict[str, Any]
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return EXIT_NOTHING if self.status == "nothing" else EXIT_OK


_Q = ("list_sort(list(qualifier_property_id || '=' || coalesce(value_id, value_text, "
      "value_raw, '')))")
# The diff predicates, each defined once: the entity of every row that differs between the
# project's snapshot (old) and the staging database attached as ``nxt`` (new). The diff
# counts their rows; the entities with changed facts are their union.
ENTITY_CHANGES = {
    "entities_added": "SELECT id FROM nxt.entities WHERE id NOT IN (SELECT id FROM entities)",
    "entities_removed": "SELECT id FROM entities WHERE id NOT IN (SELECT id FROM nxt.entities)",
    "labels_changed": "SELECT a.id FROM entities a JOIN nxt.entities b USING (id) "
                      "WHERE a.label IS DISTINCT FROM b.label",
    "statements_added": "SELECT entity_id FROM nxt.statements WHERE statement_id NOT IN "
                        "(SELECT statement_id FROM statements)",
    "statements_removed": "SELECT entity_id FROM statements WHERE statement_id NOT IN "
                          "(SELECT statement_id FROM nxt.statements)",
    "values_changed": "SELECT a.entity_id FROM statements a JOIN nxt.statements b USING "
                      "(statement_id) WHERE (a.value_id, a.value_text, a.unit_id, a.value_raw, "
                      "a.rank, a.truthy) IS DISTINCT FROM (b.value_id, b.value_text, b.unit_id, "
                      "b.value_raw, b.rank, b.truthy)",
    # of statements in both snapshots (an added or removed one is counted as such)
    "qualifiers_changed": f"SELECT coalesce(a.entity_id, b.entity_id) FROM (SELECT "
                          f"statement_id, any_value(entity_id) entity_id, {_Q} q FROM qualifiers "
                          f"GROUP BY 1) a FULL JOIN (SELECT statement_id, any_value(entity_id) "
                          f"entity_id, {_Q} q FROM nxt.qualifiers GROUP BY 1) b USING "
                          "(statement_id) WHERE a.q IS DISTINCT FROM b.q AND statement_id IN "
                          "(SELECT statement_id FROM statements) AND statement_id IN "
                          "(SELECT statement_id FROM nxt.statements)",
}
OTHER_CHANGES = {
    "new_types": "SELECT count(DISTINCT type_id) FROM nxt.entity_types WHERE type_id NOT IN "
                 "(SELECT type_id FROM entity_types)",
    "new_type_predicates": "SELECT count(*) FROM nxt.type_predicates n WHERE NOT EXISTS "
                           "(SELECT 1 FROM type_predicates o WHERE o.type_id = n.type_id AND "
                           "o.property_id = n.property_id)",
    "types_changed": "SELECT count(*) FROM (SELECT entity_id, list_sort(list(type_id)) t FROM "
                     "entity_types GROUP BY 1) a JOIN (SELECT entity_id, list_sort(list(type_id)) t "
                     "FROM nxt.entity_types GROUP BY 1) b USING (entity_id) WHERE a.t <> b.t",
    "property_labels_changed": "SELECT count(*) FROM properties a JOIN nxt.properties b USING "
                               "(id) WHERE a.label IS DISTINCT FROM b.label",
    # (id, language) rows of the kept languages added, removed or changed (label,
    # description or aliases): the KG's identity changes with them
    "language_labels_changed": "SELECT count(*) FROM entity_labels a FULL JOIN "
                               "nxt.entity_labels b USING (id, language) WHERE (a.label, "
                               "a.description, a.aliases, a.id IS NULL) IS DISTINCT FROM "
                               "(b.label, b.description, b.aliases, b.id IS NULL)",
}
DIFF_SQL = {**{k: f"SELECT count(*) FROM ({sql})" for k, sql in ENTITY_CHANGES.items()},
            **OTHER_CHANGES}
CHANGED_ENTITIES_SQL = ("SELECT count(DISTINCT e) FROM ("
                        + " UNION ALL ".join(f"SELECT * FROM ({sql}) AS {k}(e)"
                                             for k, sql in ENTITY_CHANGES.items()) + ")")


_CURRENT = """
    SELECT s.entity_id, s.property_id, s.value_type, s.value_id, s.value_text, s.unit_id,
           s.precision, coalesce(s.value_id, s.value_text || '|' || coalesce(s.unit_id, ''))
           AS k
    FROM {db}statements s
    WHERE s.truthy AND NOT EXISTS (SELECT 1 FROM {db}qualifiers q WHERE q.statement_id =
          s.statement_id AND q.qualifier_property_id = 'P582')"""
FACT_CHANGES_SQL = f"""
WITH old AS ({_CURRENT.format(db="")}),
     new AS ({_CURRENT.format(db="nxt.")}),
     o AS (SELECT entity_id, property_id, list_sort(list(DISTINCT k)) AS ks,
                  to_json(list(struct_pack(value_type := o.value_type, value_id := o.value_id,
                                           value_text := o.value_text, unit_id := o.unit_id,
                                           precision := o.precision, label := l.label,
                                           unit_label := u.label) ORDER BY k)) AS vals
           FROM old o LEFT JOIN labels l ON l.id = o.value_id
           LEFT JOIN labels u ON u.id = o.unit_id GROUP BY 1, 2),
     n AS (SELECT entity_id, property_id, list_sort(list(DISTINCT k)) AS ks FROM new
           GROUP BY 1, 2)
SELECT o.entity_id, o.property_id, o.vals FROM o JOIN n USING (entity_id, property_id)
WHERE o.ks <> n.ks ORDER BY 1, 2
"""


def fact_changes(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str]]:
    """(entity, property, old values as JSON) for every fact whose current values (best
    rank, no end time) differ between the project (old) and ``nxt`` (new) snapshots, where
    both hold some: what a model trained on the old snapshot would answer out of date."""
    return con.execute(FACT_CHANGES_SQL).fetchall()


def compute_diff(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    diff = {k: con.execute(sql).fetchone()[0] for k, sql in DIFF_SQL.items()}
    diff["entities_with_changed_facts"] = con.execute(CHANGED_ENTITIES_SQL).fetchone()[0]
    return diff


def conversation_contents(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, str]:
    """A hash of every turn of each conversation of a run (all but the run id): what a user
    of the export would see change."""
    return dict(con.execute(
        "SELECT conversation_id, md5(string_agg(CAST(to_json(t) AS VARCHAR), chr(30) "
        "ORDER BY turn)) FROM (SELECT * EXCLUDE (run_id) FROM turns WHERE run_id = ?) t "
        "GROUP BY conversation_id", [run_id]).fetchall())


class StageSnapshot(Stage):
    """Load the new dump into the staging database, extract its F(t), and diff it against
    the project's snapshot (with the facts whose current values changed)."""

    name = "refresh.snapshot"
    reads = ("entities", "entity_types", "statements", "qualifiers", "properties", "labels",
             "entity_labels", "load_files", "type_predicates")
    reads_replaced = reads  # it compares the snapshot the swap replaces after it
    skip_unchanged = False

    def __init__(self, ctx: Context, refresher: "Refresher") -> None:
        super().__init__(ctx)
        self.refresher = refresher

    def process(self) -> dict[str, Any]:
        self.refresher.diff = self.refresher._stage_snapshot(self.con)
        return dict(self.refresher.diff)


class SwapSnapshot(Stage):
    """Swap the new snapshot in, in one transaction, with its diff and fact changes."""

    name = "refresh.swap"
    reads = ("kg_meta", "load_files")
    writes = (*SNAPSHOT_TABLES, "kg_meta", "refresh_runs", "fact_changes")

    def __init__(self, ctx: Context, refresher: "Refresher") -> None:
        super().__init__(ctx)
        self.refresher = refresher

    def process(self) -> dict[str, Any]:
        r = self.refresher
        r.changed = any(r.diff.values())
        r._swap(self.con, r.diff, r.changed, r.refresh_id, r.new_fp)
        r._remove_staging()  # the diff and fact changes are stored: nothing reads it now
        return {"changed": r.changed}


TIMES = {"refresh.snapshot": "load", "refresh.swap": "swap"}  # the summary's names


class Refresher:
    def __init__(self, project: "Project", paths: list[Path], allow_shrink: bool = False,
                 workers: int = 1, engine: str = "local", spark_master: str | None = None
                 ) -> None:
        self.project = project
        self.paths = paths
        self.allow_shrink = allow_shrink
        self.workers = workers
        self.engine = engine
        self.spark_master = spark_master
        self.say = project.say
        self.db = project.db
        self.staging = Path(str(self.db) + ".next.duckdb")
        self.times: dict[str, float] = {}
        self.diff: dict[str, int] = {}
        self.changed = True
        self.refresh_id = ""
        self.new_fp = ""
        self.swapped = False
        self.changes: list[tuple[str, str, str]] = []
        self.not_rebuilt: dict[str, str] = {}  # configuration -> why it could not be made
        self.dump_dates: list[str | None] = [None, None]

    def run(self) -> RefreshResult:
        for p in self.paths:
            if not p.is_file():
                raise UserError(f"{p}: no such file" if not p.exists() else f"{p}: not a file")
        self.new_fp = hashlib.sha256(",".join(fingerprint(p) for p in self.paths).encode()
                                     ).hexdigest()[:32]
        con = self.project.con
        pending = con.execute(
            "SELECT refresh_id, diff FROM refresh_runs WHERE new_fingerprint = ? AND status "
            "= 'swapped' ORDER BY started_at DESC LIMIT 1", [self.new_fp]).fetchone()
        ctx = self.project.ctx
        if pending:
            self.say("resuming a refresh that was stopped after the new snapshot was "
                     "swapped in")
            self.refresh_id, self.diff = pending[0], json.loads(pending[1])
            self.swapped = True
            stages: list[Stage] = []
        else:
            self.refresh_id = f"refresh-{self.new_fp[:12]}-{uuid.uuid4().hex[:12]}"
            stages = [StageSnapshot(ctx, self), SwapSnapshot(ctx, self)]
        conversations = self._run(con, stages)
        if not self.changed:
            return self._finish(con, "nothing", self.diff, {}, self.refresh_id)
        return self._finish(con, "done", self.diff, conversations, self.refresh_id)

    def _run(self, con: duckdb.DuckDBPyConnection, stages: list[Stage]) -> dict[str, int]:
        """The refresh's stages, then the generation stages of every current configuration,
        as one pipeline; counts what happened to the conversations."""
        from convkgyarn.pipeline import Pipeline, generation_stages

        previous = {name: (run, GenerateConfig.model_validate_json(cfg)) for name, run, cfg in
                    con.execute("SELECT config_name, run_id, config FROM generation_runs WHERE "
                                "current AND source = 'generated' ORDER BY config_name"
                                ).fetchall()}
        old = {name: dict(con.execute(
            "SELECT conversation_id, entity_id FROM conversations WHERE run_id = ?",
            [run]).fetchall()) for name, (run, _) in previous.items()}
        old_content = {name: conversation_contents(con, run)
                       for name, (run, _) in previous.items()}
        stages = stages + generation_stages(self.project.ctx,
                                            [cfg for _, cfg in previous.values()])
        counts = {"added": 0, "updated": 0, "retired": 0, "unchanged": 0}

        def after(stage: Stage, report) -> bool:
            name = TIMES.get(stage.name, stage.name)
            self.times[name] = round(self.times.get(name, 0) + report.seconds, 3)
            if stage.name == "refresh.swap":
                self.swapped = True
                return not self.changed  # nothing changed: nothing to rebuild
            if report.stage == "assemble":
                self._count(con, report, old, old_content, counts)
            return False

        def failed(stage: Stage, exc: Exception) -> bool:
            if not self.swapped or not isinstance(exc, ConvKGYarnError):
                return False
            if stage.name == "assemble" and isinstance(exc, UserError):
                # this configuration cannot be made from the new snapshot (its type or
                # entities are gone): its previous run stays, marked as made from an
                # earlier snapshot, and the other configurations are rebuilt
                self.not_rebuilt[stage.config_name] = str(exc)
                self.say(f"note: {stage.config_name} was not rebuilt: {exc}; its previous "
                         "conversations are kept, from the earlier snapshot")
                return True
            # the project is consistent (the new snapshot, the old runs marked as made from
            # an earlier one); the refresh is recorded as swapped, so running it again
            # resumes here, asking only what is not done yet
            paths = " ".join(str(p) for p in self.paths)
            raise type(exc)(f"{exc}; the new snapshot is in place: run `convkgyarn refresh "
                            f"{paths}` again to finish (it resumes after the swap)") from exc

        # the F(t) the project extracted before is what the new one is compared with
        Pipeline(stages, available=("type_predicates",)).run(after=after, failed=failed)
        return counts

    @staticmethod
    def _count(con, report, old, old_content, counts) -> None:
        """What one configuration's new run did to its conversations."""
        name = report.stats["config"]
        before = old.get(name, {})
        if report.stats.get("unchanged"):
            counts["unchanged"] += len(before)
            return
        new = dict(con.execute("SELECT conversation_id, entity_id FROM conversations WHERE "
                               "run_id = ?", [report.stats["run_id"]]).fetchall())
        # a conversation keeps its id while it asks the same statements; what they hold
        # (a value, a label, a qualifier) may still have changed
        content = conversation_contents(con, report.stats["run_id"])
        kept = set(before) & set(new)
        same = {c for c in kept if old_content.get(name, {}).get(c) == content.get(c)}
        counts["unchanged"] += len(same)
        counts["updated"] += len(kept - same)
        old_entities = {e for c, e in before.items() if c not in kept}
        new_entities = {e for c, e in new.items() if c not in kept}
        counts["updated"] += len(old_entities & new_entities)
        counts["added"] += len(new_entities - old_entities)
        counts["retired"] += len(old_entities - new_entities)

    def _remove_staging(self) -> None:
        for path in (self.staging, Path(str(self.staging) + ".wal")):
            path.unlink(missing_ok=True)

    def _finish(self, con, status: str, diff, conversations, refresh_id: str) -> RefreshResult:
        summary = self._summary(diff, conversations, refresh_id)
        con.execute("UPDATE refresh_runs SET status = ?, summary = ?, finished_at = ? "
                    "WHERE refresh_id = ?", [status, json.dumps(summary), utcnow(), refresh_id])
        self._remove_staging()
        return RefreshResult(status, diff, summary)

    @staticmethod
    def _keep_types(con: duckdb.DuckDBPyConnection) -> list[str] | None:
        """The type filter of the current snapshot's dump loads (their union; None when any
        was loaded whole): the new snapshot keeps the same items whole."""
        rows = con.execute("SELECT keep_types FROM load_files WHERE kind = 'dump' AND "
                           "status = 'done'").fetchall()
        if not rows or any(r[0] is None for r in rows):
            return None
        return sorted({t for r in rows for t in r[0]})

    @staticmethod
    def _languages(con: duckdb.DuckDBPyConnection) -> list[str] | None:
        """The languages the current snapshot's dump loads kept besides English (their
        union; ["all"] when any kept every one; None for English only): the new snapshot
        keeps the same."""
        kept = {code for (codes,) in con.execute(
            "SELECT languages FROM load_files WHERE kind = 'dump' AND status = 'done' AND "
            "languages IS NOT NULL").fetchall() for code in codes}
        return ["all"] if "all" in kept else (sorted(kept) or None)

    def _stage_snapshot(self, con: duckdb.DuckDBPyConnection) -> dict[str, int]:
        from convkgyarn.errors import NoEntities
        from convkgyarn.kg.load import LoadStage
        from convkgyarn.stages.predicates import ExtractPredicates

        staging = connect(self.staging, memory_limit=self.project.config.memory_limit)
        try:
            ctx = Context(con=staging, config=self.project.config, meter=self.project.meter,
                          say=self.say, work_dir=self.db.parent)
            keep_types = self._keep_types(con)
            if keep_types is not None:
                self.say(f"keeping whole only items of {', '.join(keep_types)}, as the "
                         "current snapshot was loaded")
            languages = self._languages(con)
            if languages is not None:
                self.say(f"keeping labels in {', '.join(languages)} besides English, as the "
                         "current snapshot was loaded")
            try:
                LoadStage(ctx, LoadConfig(paths=self.paths, workers=self.workers,
                                          keep_types=keep_types, engine=self.engine,
                                          spark_master=self.spark_master,
                                          languages=languages)).run()
            except NoEntities as exc:  # `kg rejects` reads the project, not this staging load
                raise UserError(exc.text) from None
            # the staging DB holds exactly the new dump: drop files it no longer lists
            keep = [str(p.resolve()) for p in self.paths]
            with transaction(staging):
                for table in KG_TABLES:
                    staging.execute(f"DELETE FROM {table} WHERE file_id IN (SELECT file_id FROM "
                                    "load_files WHERE NOT list_contains(?, path))", [keep])
                staging.execute("DELETE FROM load_files WHERE NOT list_contains(?, path)", [keep])
            self._check_size(con, staging)
            ExtractPredicates(ctx).run()
        finally:
            staging.close()
        con.execute(f"ATTACH {quote_path(self.staging)} AS nxt (READ_ONLY)")
        try:
            self.changes = fact_changes(con)
            self.dump_dates = [dump_date(con, db) for db in ("", "nxt.")]
            return compute_diff(con)
        finally:
            con.execute("DETACH nxt")

    def _check_size(self, con, staging) -> None:
        """Refuse an empty snapshot, and one that removes too much without being asked to."""
        new = staging.execute("SELECT count(*) FROM entities").fetchone()[0]
        paths = ", ".join(str(p) for p in self.paths)
        if new == 0:
            rejects = staging.execute("SELECT count(*) FROM load_rejects WHERE field IS NULL"
                                      ).fetchone()[0]
            raise UserError(f"refused: {paths} holds no Wikidata entities ({rejects} lines "
                            "rejected); the project keeps its snapshot")
        old = con.execute("SELECT count(*) FROM entities").fetchone()[0]
        limit = self.project.config.refresh.max_shrink
        if old and not self.allow_shrink and (old - new) / old > limit:
            raise UserError(f"refused: {paths} has {counted(new, 'entity', 'entities')}, "
                            f"{old - new:,} fewer than "
                            f"the project's {old:,} ({(old - new) / old:.0%}, more than "
                            f"{limit:.0%}); check the dump, or run again with --allow-shrink")

    def _swap(self, con, diff, changed: bool, refresh_id: str, new_fp: str) -> None:
        """Replace the snapshot in one transaction; the old one stays until it commits."""
        con.execute(f"ATTACH {quote_path(self.staging)} AS nxt (READ_ONLY)")
        try:
            with transaction(con):
                old = kg_version(con)  # before load_files is replaced
                for table in SNAPSHOT_TABLES:
                    # a label file's rejects stay, as its labels do (extra_labels)
                    con.execute(f"DELETE FROM {table}" + (
                        " WHERE file_id IS NOT NULL" if table == "load_rejects" else ""))
                    con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM nxt.{table}")
                # nothing changed: the KG keeps its identity, and exports keep their bytes
                version = hashlib.sha256((old + json.dumps(diff, sort_keys=True) + new_fp)
                                         .encode()).hexdigest()[:32] if changed else old
                set_kg_version(con, version)
                log.info("kg version %s -> %s", old, version)
                insert_rows(con, "refresh_runs", [{
                    "refresh_id": refresh_id, "new_fingerprint": new_fp, "status": "swapped",
                    "diff": json.dumps(diff), "started_at": utcnow()}])
                now = utcnow()
                insert_rows(con, "fact_changes", [{
                    "refresh_id": refresh_id, "entity_id": e, "property_id": p,
                    "old_values": values, "old_dump_date": self.dump_dates[0],
                    "new_dump_date": self.dump_dates[1], "created_at": now}
                    for e, p, values in self.changes])
        finally:
            con.execute("DETACH nxt")

    def _summary(self, diff, conversations, refresh_id) -> dict[str, Any]:
        meter = self.project.meter
        usage = {k: {"calls": v.calls, "cached": v.cached, "usd": round(v.usd, 6)}
                 for k, v in meter.usage.items()}
        return {"refresh_id": refresh_id, "changes": diff,
                "llm_calls": sum(v.calls for v in meter.usage.values()),
                "llm_usd": round(meter.spent, 6), "llm_usage": usage,
                "conversations": conversations, "seconds": self.times,
                **({"not_rebuilt": self.not_rebuilt} if self.not_rebuilt else {})}
