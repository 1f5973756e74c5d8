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

from convkgyarn.kg.bz2blocks import Bz2Range, decode_range
from convkgyarn.kg.extract import Keep, parse_to_arrow
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


def parse_block(block: Block, file_id: int, name: str, keep: Keep | None = None) -> Parsed:
    tables, batch = parse_to_arrow(block.lines, block.first_line_no, file_id, name,
                                   block.rejects, keep)
    return Parsed(tables, batch.lines, batch.skipped, batch.max_modified, block.nbytes)


@dataclass
class ParsedRange:
    """A decoded bz2 range (see ``bz2blocks``): its lines that begin and end inside it,
    parsed and numbered from 2 as if ``head`` were line 1 (the loader renumbers them),
    and the pieces of the lines it shares with its neighbours."""

    parsed: Parsed | None  # None when the range holds no whole line
    head: bytes  # the text up to and including the first newline; all of it if none
    tail: bytes  # the text after the last newline
    newlines: int


def parse_bz2_range(r: Bz2Range, file_id: int, name: str,
                    keep: Keep | None = None) -> ParsedRange:
    return split_range_text(decode_range(r), file_id, name, keep)


def split_range_text(text: bytes, file_id: int, name: str,
                     keep: Keep | None = None) -> ParsedRange:
    """A range's text cut into its shared pieces and its parsed whole lines."""
    first = text.find(b"\n")
    if first < 0:
        return ParsedRange(None, text, b"", 0)
    last = text.rfind(b"\n")
    inner = Block(2, text[first + 1:last + 1])
    return ParsedRange(parse_block(inner, file_id, name, keep), text[:first + 1],
                       text[last + 1:], text.count(b"\n"))


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
