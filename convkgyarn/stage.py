"""The one base class of every pipeline stage, and the context stages share.

A stage is built as ``Stage(ctx)`` or ``Stage(ctx, config)`` (its own typed config, by
default the matching section of the project config), declares the tables it ``reads`` and
``writes``, and implements ``process()``, which returns its counters. ``run()`` owns the
rest: timing, recording the counters in ``stage_runs``, logging one line, and writing
everything the stage dropped (with a reason) to ``dropped`` in one bulk insert, so
coverage is queryable in one place (the ``drops`` view).
"""

from __future__ import annotations

import json
import logging
import subprocess
import time
import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import duckdb

from convkgyarn import __version__

log = logging.getLogger("convkgyarn")
Say = Callable[[str], None]


@cache
def code_version() -> str:
    """Package version plus the git commit when run from a checkout."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
            capture_output=True, text=True, timeout=5, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        sha = ""
    return f"{__version__}+{sha}" if sha else __version__


def new_run_id() -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


def utcnow() -> datetime:
    """Timestamps are stored as naive UTC."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


@dataclass
class Context:
    """What every stage of one command shares: the database, the typed config, the LLM
    spending meter, where to say things to the user, and where files go."""

    con: duckdb.DuckDBPyConnection
    config: Any  # ProjectConfig (typed in convkgyarn.config; imported lazily there)
    meter: Any = None  # CostMeter
    say: Say = field(default=lambda message: None)
    work_dir: Path = Path("outputs")

    def client(self, stage: str, prompt_hash: str, model: str | None = None):
        """The LLM client for one stage, or None on the rules path: built only here."""
        from convkgyarn.llm import build_client

        # progress follows whoever says things for this context, now or later
        return build_client(self.con, self.config.llm, stage, prompt_hash, self.meter, model,
                            say=lambda message: self.say(message))


@dataclass
class StageReport:
    stage: str
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)
    run_id: str = ""


class Stage(ABC):
    name: ClassVar[str]
    reads: ClassVar[tuple[str, ...]] = ()  # tables that must be filled before it runs
    writes: ClassVar[tuple[str, ...]] = ()

    def __init__(self, ctx: Context, config: Any = None) -> None:
        self.ctx = ctx
        self.con = ctx.con
        self.config = config if config is not None else self.default_config(ctx)
        self.run_id = new_run_id()
        self._dropped: list[dict[str, Any]] = []

    def default_config(self, ctx: Context) -> Any:
        """The stage's section of the project config (None for stages without one)."""
        return None

    @abstractmethod
    def process(self) -> dict[str, Any]:
        """Do the stage's work and return its counters."""

    @property
    def dry_run(self) -> bool:
        """An estimate: LLM requests are counted, not sent; the stage writes only to the
        temporary tables the dry run gives it, and its run and drops are not recorded."""
        return bool(getattr(self.ctx.config.llm, "dry_run", False))

    def run(self) -> StageReport:
        started = utcnow()
        t0 = time.perf_counter()
        if self.dry_run:
            stats = self.process()
            return StageReport(self.name, time.perf_counter() - t0, stats, self.run_id)
        try:
            stats = self.process()
        finally:
            self._flush_dropped()
        seconds = time.perf_counter() - t0
        self.con.execute(
            "INSERT INTO stage_runs (run_id, stage, started_at, seconds, stats, code_version) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [self.run_id, self.name, started, seconds, json.dumps(stats, default=str),
             code_version()])
        log.info("%s: %.2fs %s", self.name, seconds, json.dumps(stats, default=str))
        return StageReport(self.name, seconds, stats, self.run_id)

    def drop(self, item: str, reason: str, detail: str = "", **context: Any) -> None:
        """Keep a dropped item with its reason (written in bulk when the stage ends)."""
        self._dropped.append({"item": item, "reason": reason, "detail": detail,
                              "context": json.dumps(context, default=str) if context else None})

    def replace_drops(self, con: duckdb.DuckDBPyConnection) -> None:
        """Delete the earlier drops this run's drops replace (in the transaction that inserts
        them), so that ``drops`` describes the current state and an identical re-run changes
        nothing. By default, when this run dropped anything: the drops recorded under this
        run id (a stage whose run id is deterministic, like assembly's generation run,
        records each run's drops once; a run found unchanged drops nothing and keeps them).
        Stages that redo their work in parts replace the drops of the parts they redid."""
        if self._dropped:
            con.execute("DELETE FROM dropped WHERE run_id = ?", [self.run_id])

    def replace_drops_by_key(self, con: duckdb.DuckDBPyConnection, key_sql: str,
                             redone: Iterable[str], current: Iterable[str] | None) -> None:
        """The drops of a stage that works per key (``key_sql``: an expression over
        ``{item}``, such as its type id ``split_part({item}, '/', 1)``): the earlier drops of every key this run worked on go (its new
        ones replace them); of keys it skipped as unchanged, only those of the latest run that
        worked on each stay (earlier releases recorded them again on every run); and with
        ``current`` given, keys no longer current go."""
        from convkgyarn.store import registered

        key = key_sql.format(item="item")
        with registered(con, "_redone", {"key": sorted(set(redone))}) as view:
            con.execute(f"DELETE FROM dropped WHERE stage = ? AND {key} IN "
                        f"(SELECT key FROM {view})", [self.name])
        con.execute(
            f"DELETE FROM dropped d WHERE stage = ? AND run_id < (SELECT max(x.run_id) FROM "
            f"dropped x WHERE x.stage = d.stage AND {key_sql.format(item='x.item')} = "
            f"{key_sql.format(item='d.item')})", [self.name])
        if current is not None:
            with registered(con, "_current", {"key": sorted(set(current))}) as view:
                con.execute(f"DELETE FROM dropped WHERE stage = ? AND {key} NOT IN "
                            f"(SELECT key FROM {view})", [self.name])

    def drop_rows(self) -> list[dict[str, Any]]:
        """The drops kept so far as rows of the ``dropped`` table."""
        now = utcnow()
        return [{"run_id": self.run_id, "stage": self.name, **d, "created_at": now}
                for d in self._dropped]

    def _flush_dropped(self) -> None:
        from convkgyarn.store import insert_rows, transaction

        rows = self.drop_rows()
        # a cursor of its own: the stage's connection may hold a half-read result
        with transaction(self.con.cursor()) as cur:
            self.replace_drops(cur)
            insert_rows(cur, "dropped", rows)
        self._dropped.clear()
