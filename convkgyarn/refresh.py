"""Refresh a project against a new dump: only what changed costs work or LLM calls.

1. The new dump loads into a staging database beside the project (resumable, like any load).
2. Staging and project are compared per entity and per statement.
3. One transaction swaps the new snapshot in; until then the previous one stays intact.
4. Predicate selection, templates and conversations re-run; each skips inputs whose
   content hash did not change, so only changed types, new (type, predicate) pairs and
   entities whose facts changed cost anything. Conversations of unchanged entities come
   out identical, ids included.

A run killed anywhere can be re-run: the staging load resumes, the swap is atomic, and a
refresh found in state ``swapped`` continues after the swap with its stored diff.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb

from convkgyarn.config import GenerateConfig, LoadConfig, ProjectConfig
from convkgyarn.kg.load import LoadStage
from convkgyarn.kg.reader import fingerprint
from convkgyarn.llm import CostMeter
from convkgyarn.stages.assemble import CONVERSATION_SCHEMA, AssembleConversations, kg_version
from convkgyarn.stages.predicates import ExtractPredicates, SelectPredicates
from convkgyarn.stages.templates import GenerateTemplates
from convkgyarn.store import KG_TABLES, connect

log = logging.getLogger("convkgyarn.refresh")

EXIT_OK, EXIT_NOTHING, EXIT_LOCKED = 0, 10, 75
REFRESH_SCHEMA = """
CREATE TABLE IF NOT EXISTS refresh_runs (
    refresh_id VARCHAR, new_fingerprint VARCHAR, status VARCHAR, diff JSON, summary JSON,
    started_at TIMESTAMP, finished_at TIMESTAMP
);
"""
SNAPSHOT_TABLES = (*KG_TABLES, "type_predicates", "load_files")


class LockedError(Exception):
    """Another refresh (or load) holds the project database."""


class DbLock:
    """One lock per project database; a second run fails fast instead of waiting."""

    def __init__(self, db: Path) -> None:
        self.path = Path(str(db) + ".lock")
        self._fh = None

    def __enter__(self) -> "DbLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a+")
        try:
            fcntl.flock(self._fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._fh.seek(0)
            holder = self._fh.read().strip()
            self._fh.close()
            raise LockedError(f"{self.path}: another run holds this project ({holder}); "
                              "try again when it has finished") from None
        self._fh.seek(0)
        self._fh.truncate()
        self._fh.write(f"pid {os.getpid()} since {datetime.now(timezone.utc).isoformat()}")
        self._fh.flush()
        return self

    def __exit__(self, *exc) -> None:
        fcntl.flock(self._fh, fcntl.LOCK_UN)
        self._fh.close()


@dataclass
class RefreshResult:
    status: str  # done | nothing
    diff: dict[str, Any]
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        return EXIT_NOTHING if self.status == "nothing" else EXIT_OK


DIFF_SQL = {
    "entities_added": "SELECT count(*) FROM nxt.entities WHERE id NOT IN (SELECT id FROM entities)",
    "entities_removed": "SELECT count(*) FROM entities WHERE id NOT IN (SELECT id FROM nxt.entities)",
    "labels_changed": "SELECT count(*) FROM entities a JOIN nxt.entities b USING (id) "
                      "WHERE a.label IS DISTINCT FROM b.label",
    "statements_added": "SELECT count(*) FROM nxt.statements WHERE statement_id NOT IN "
                        "(SELECT statement_id FROM statements)",
    "statements_removed": "SELECT count(*) FROM statements WHERE statement_id NOT IN "
                          "(SELECT statement_id FROM nxt.statements)",
    "values_changed": "SELECT count(*) FROM statements a JOIN nxt.statements b USING "
                      "(statement_id) WHERE (a.value_id, a.value_text, a.unit_id, a.value_raw, "
                      "a.rank, a.truthy) IS DISTINCT FROM (b.value_id, b.value_text, b.unit_id, "
                      "b.value_raw, b.rank, b.truthy)",
    "qualifiers_changed": "SELECT count(*) FROM (SELECT statement_id, {q} AS q FROM qualifiers "
                          "GROUP BY 1) a FULL JOIN (SELECT statement_id, {q} AS q FROM "
                          "nxt.qualifiers GROUP BY 1) b USING (statement_id) WHERE "
                          "a.q IS DISTINCT FROM b.q AND statement_id IN (SELECT statement_id FROM "
                          "statements) AND statement_id IN (SELECT statement_id FROM "
                          "nxt.statements)",
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
}
_Q = ("list_sort(list(qualifier_property_id || '=' || coalesce(value_id, value_text, "
      "value_raw, '')))")
CHANGED_ENTITIES_SQL = f"""
SELECT count(DISTINCT id) FROM (
    SELECT id FROM nxt.entities WHERE id NOT IN (SELECT id FROM entities)
    UNION ALL SELECT id FROM entities WHERE id NOT IN (SELECT id FROM nxt.entities)
    UNION ALL SELECT a.id FROM entities a JOIN nxt.entities b USING (id)
        WHERE a.label IS DISTINCT FROM b.label
    UNION ALL SELECT entity_id FROM nxt.statements WHERE statement_id NOT IN
        (SELECT statement_id FROM statements)
    UNION ALL SELECT entity_id FROM statements WHERE statement_id NOT IN
        (SELECT statement_id FROM nxt.statements)
    UNION ALL SELECT a.entity_id FROM statements a JOIN nxt.statements b USING (statement_id)
        WHERE (a.value_id, a.value_text, a.unit_id, a.value_raw, a.rank, a.truthy)
        IS DISTINCT FROM (b.value_id, b.value_text, b.unit_id, b.value_raw, b.rank, b.truthy)
    UNION ALL SELECT coalesce(a.entity_id, b.entity_id) FROM
        (SELECT statement_id, any_value(entity_id) entity_id, {_Q} q FROM qualifiers GROUP BY 1) a
        FULL JOIN
        (SELECT statement_id, any_value(entity_id) entity_id, {_Q} q FROM nxt.qualifiers
         GROUP BY 1) b USING (statement_id) WHERE a.q IS DISTINCT FROM b.q
)
"""


def compute_diff(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    diff = {k: con.execute(sql.format(q=_Q)).fetchone()[0] for k, sql in DIFF_SQL.items()}
    diff["entities_with_changed_facts"] = con.execute(CHANGED_ENTITIES_SQL).fetchone()[0]
    return diff


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


class Refresher:
    def __init__(self, project: ProjectConfig, paths: list[Path], meter: CostMeter,
                 say=lambda msg: None) -> None:
        self.project = project
        self.paths = paths
        self.meter = meter
        self.say = say
        self.db = Path(project.db)
        self.staging = Path(str(self.db) + ".next.duckdb")
        self.times: dict[str, float] = {}

    def _timed(self, name: str, fn):
        t0 = time.perf_counter()
        out = fn()
        self.times[name] = round(self.times.get(name, 0) + time.perf_counter() - t0, 3)
        return out

    def run(self) -> RefreshResult:
        with DbLock(self.db):
            return self._run()

    def _run(self) -> RefreshResult:
        new_fp = hashlib.sha256(",".join(fingerprint(p) for p in self.paths).encode()
                                ).hexdigest()[:32]
        con = connect(self.db)
        try:
            con.execute(REFRESH_SCHEMA)
            con.execute(CONVERSATION_SCHEMA)
            pending = con.execute(
                "SELECT refresh_id, diff FROM refresh_runs WHERE new_fingerprint = ? AND status "
                "= 'swapped' ORDER BY started_at DESC LIMIT 1", [new_fp]).fetchone()
            if pending:
                self.say("resuming a refresh that was stopped after the new snapshot was "
                         "swapped in")
                refresh_id, diff = pending[0], json.loads(pending[1])
            else:
                refresh_id = f"refresh-{new_fp[:12]}-{int(time.time())}"
                diff = self._timed("load", lambda: self._stage_snapshot(con))
                changed = any(diff.values())
                self._timed("swap", lambda: self._swap(con, diff, changed, refresh_id, new_fp))
                if not changed:
                    return self._finish(con, "nothing", diff, {}, refresh_id)
            return self._finish(con, "done", diff, self._rebuild(con), refresh_id)
        finally:
            con.close()

    def _finish(self, con, status: str, diff, conversations, refresh_id: str) -> RefreshResult:
        summary = self._summary(diff, conversations, refresh_id)
        con.execute("UPDATE refresh_runs SET status = ?, summary = ?, finished_at = ? "
                    "WHERE refresh_id = ?", [status, json.dumps(summary), _now(), refresh_id])
        self.staging.unlink(missing_ok=True)
        return RefreshResult(status, diff, summary)

    def _stage_snapshot(self, con: duckdb.DuckDBPyConnection) -> dict[str, int]:
        staging = connect(self.staging)
        LoadStage(staging, LoadConfig(paths=self.paths)).run()
        # the staging DB holds exactly the new dump: drop files it no longer lists
        keep = [str(p.resolve()) for p in self.paths]
        for table in KG_TABLES:
            staging.execute(f"DELETE FROM {table} WHERE file_id IN (SELECT file_id FROM "
                            "load_files WHERE NOT list_contains(?, path))", [keep])
        staging.execute("DELETE FROM load_files WHERE NOT list_contains(?, path)", [keep])
        ExtractPredicates(staging, self.project.predicates).run()
        staging.close()
        con.execute(f"ATTACH '{self.staging}' AS nxt (READ_ONLY)")
        try:
            return compute_diff(con)
        finally:
            con.execute("DETACH nxt")

    def _swap(self, con, diff, changed: bool, refresh_id: str, new_fp: str) -> None:
        """Replace the snapshot in one transaction; the old one stays until it commits."""
        con.execute(f"ATTACH '{self.staging}' AS nxt (READ_ONLY)")
        try:
            con.execute("BEGIN")
            old = kg_version(con)  # before load_files is replaced
            for table in SNAPSHOT_TABLES:
                con.execute(f"DELETE FROM {table}")
                con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM nxt.{table}")
            # nothing changed: the KG keeps its identity, and exports keep their bytes
            version = hashlib.sha256((old + json.dumps(diff, sort_keys=True) + new_fp).encode()
                                     ).hexdigest()[:32] if changed else old
            con.execute("DELETE FROM kg_meta WHERE key = 'kg_version'")
            con.execute("INSERT INTO kg_meta VALUES ('kg_version', ?)", [version])
            log.info("kg version %s -> %s", old, version)
            con.execute("INSERT INTO refresh_runs VALUES (?, ?, 'swapped', ?, NULL, ?, NULL)",
                        [refresh_id, new_fp, json.dumps(diff), _now()])
            con.execute("COMMIT")
        finally:
            con.execute("DETACH nxt")

    def _rebuild(self, con: duckdb.DuckDBPyConnection) -> dict[str, int]:
        project, meter = self.project, self.meter
        self._timed("predicates.select", lambda: SelectPredicates(
            con, project.predicates, project.llm, meter).run())
        self._timed("templates", lambda: GenerateTemplates(
            con, project.templates, project.llm, meter).run())
        previous = con.execute(
            "SELECT arg_max(run_id, created_at), arg_max(config, created_at) FROM generation_runs "
            "WHERE config_name <> 'convquestions' GROUP BY config_name ORDER BY 1").fetchall()
        counts = {"added": 0, "updated": 0, "retired": 0, "unchanged": 0}
        for old_run, cfg_json in previous:
            cfg = GenerateConfig.model_validate_json(cfg_json)
            stage = AssembleConversations(con, cfg)
            if stage.run_id == old_run:
                counts["unchanged"] += con.execute(
                    "SELECT count(*) FROM conversations WHERE run_id = ?", [old_run]).fetchone()[0]
                continue
            self._timed("assemble", stage.run)
            old = dict(con.execute("SELECT conversation_id, entity_id FROM conversations WHERE "
                                   "run_id = ?", [old_run]).fetchall())
            new = dict(con.execute("SELECT conversation_id, entity_id FROM conversations WHERE "
                                   "run_id = ?", [stage.run_id]).fetchall())
            kept = set(old) & set(new)
            counts["unchanged"] += len(kept)
            old_entities = {e for c, e in old.items() if c not in kept}
            new_entities = {e for c, e in new.items() if c not in kept}
            counts["updated"] += len(old_entities & new_entities)
            counts["added"] += len(new_entities - old_entities)
            counts["retired"] += len(old_entities - new_entities)
        return counts

    def _summary(self, diff, conversations, refresh_id) -> dict[str, Any]:
        usage = {k: {"calls": v.calls, "cached": v.cached, "usd": round(v.usd, 6)}
                 for k, v in self.meter.usage.items()}
        return {"refresh_id": refresh_id, "changes": diff,
                "llm_calls": sum(v.calls for v in self.meter.usage.values()),
                "llm_usd": round(self.meter.spent, 6), "llm_usage": usage,
                "conversations": conversations, "seconds": self.times}
