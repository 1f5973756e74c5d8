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
from collections.abc import Callable
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

        return build_client(self.con, self.config.llm, stage, prompt_hash, self.meter, model,
                            say=self.say)


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

    def _flush_dropped(self) -> None:
        if not self._dropped:
            return
        from convkgyarn.store import insert_rows

        now = utcnow()
        rows = [{"run_id": self.run_id, "stage": self.name, **d, "created_at": now}
                for d in self._dropped]
        # a cursor of its own: the stage's connection may hold a half-read result
        insert_rows(self.con.cursor(), "dropped", rows)
        self._dropped.clear()
