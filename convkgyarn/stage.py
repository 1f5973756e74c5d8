"""The one base class of every pipeline stage: it owns timing, stats and logging.

A stage implements ``process()`` and returns its counters; ``run()`` times it,
records the counters in ``stage_runs`` and logs a one-line summary. Items a
stage drops go to ``dropped`` with a reason, so coverage stays measurable.
"""

from __future__ import annotations

import json
import logging
import subprocess
import time
import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

import duckdb

from convkgyarn import __version__

log = logging.getLogger("convkgyarn")


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


@dataclass
class StageReport:
    stage: str
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)


class Stage(ABC):
    name: ClassVar[str]

    def __init__(self, con: duckdb.DuckDBPyConnection, run_id: str | None = None) -> None:
        self.con = con
        self.run_id = run_id or new_run_id()
        self._dropped: list[tuple[str, str, str]] = []

    @abstractmethod
    def process(self) -> dict[str, Any]:
        """Do the stage's work and return its counters."""

    def run(self) -> StageReport:
        started = datetime.now(timezone.utc)
        t0 = time.perf_counter()
        try:
            stats = self.process()
        finally:
            self._flush_dropped()
        seconds = time.perf_counter() - t0
        self.con.execute(
            "INSERT INTO stage_runs VALUES (?, ?, ?, ?, ?, ?)",
            [self.run_id, self.name, started.replace(tzinfo=None), seconds,
             json.dumps(stats, default=str), code_version()],
        )
        log.info("%s: %.2fs %s", self.name, seconds, json.dumps(stats, default=str))
        return StageReport(self.name, seconds, stats)

    def drop(self, item: str, reason: str, detail: str = "") -> None:
        """Keep a dropped item with its reason (written in bulk when the stage ends)."""
        self._dropped.append((item, reason, detail))

    def _flush_dropped(self) -> None:
        if not self._dropped:
            return
        import pyarrow as pa

        from convkgyarn.store import insert_arrow

        items, reasons, details = zip(*self._dropped)
        # a cursor of its own: the stage's connection may hold a half-read result
        insert_arrow(self.con.cursor(), "dropped", pa.table({
            "run_id": [self.run_id] * len(items), "stage": [self.name] * len(items),
            "item": list(items), "reason": list(reasons), "detail": list(details)}))
        self._dropped.clear()
