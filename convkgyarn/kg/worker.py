"""What a parse worker process runs: a block of dump text in, Arrow tables out.

Kept apart from the loader so that a worker imports only the parser and Arrow, not the
loader's database and configuration code; the fork server imports this module once and
every worker forks from it warm (see ``warm``).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

import pyarrow as pa

from convkgyarn.kg.extract import parse_to_arrow
from convkgyarn.kg.reader import Block


@dataclass
class Parsed:
    """A parsed block, already columnar (built in the worker, cheap to pickle)."""

    tables: dict[str, pa.Table]
    lines: int
    skipped: dict[str, int]
    max_modified: str | None
    nbytes: int
    counts: dict[str, int] | None = None  # rows per table when the tables are elsewhere
    parsed_by: int = field(default_factory=os.getpid)  # the process that parsed it

    def rows(self, table: str) -> int:
        if self.counts is not None:
            return self.counts.get(table, 0)
        return self.tables[table].num_rows if table in self.tables else 0


def parse_block(block: Block, file_id: int, name: str,
                keep_types: frozenset[str] | None = None) -> Parsed:
    tables, batch = parse_to_arrow(block.lines, block.first_line_no, file_id, name,
                                   block.rejects, keep_types)
    return Parsed(tables, batch.lines, batch.skipped, batch.max_modified, block.nbytes)


def exit_with_parent(parent_pid: int) -> None:
    """Worker initializer: a worker whose parent died (even by kill -9) exits too."""
    def watch() -> None:
        while True:
            time.sleep(0.5)
            try:
                os.kill(parent_pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()
