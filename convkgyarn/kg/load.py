"""Load Wikidata dumps into DuckDB: streaming, parallel parsing, Arrow bulk writes.

Idempotence and resumption rest on one rule: every row carries the ``file_id``
of the file it came from. A load first deletes that file's rows, then inserts
block by block, and only marks the file ``done`` at the very end. A load killed
midway leaves the file ``loading``; the next run deletes its partial rows and
starts over, ending in the same state as an uninterrupted load. An entity
loaded again from another file replaces the older copy (last load wins).
"""

from __future__ import annotations

import json
import multiprocessing
import re
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from convkgyarn.config import LoadConfig
from convkgyarn.kg.extract import parse_lines
from convkgyarn.kg.reader import Block, DumpError, fingerprint, iter_blocks
from convkgyarn.stage import Stage, code_version
from convkgyarn.store import KG_TABLES, insert_arrow

_DATE_IN_NAME = re.compile(r"(20\d\d)(\d\d)(\d\d)")

ProgressFn = Callable[[int, int], None]  # (bytes, entities) done so far in this file


@dataclass
class FileReport:
    path: str
    status: str  # loaded | unchanged
    lines: int = 0
    bytes: int = 0
    entities: int = 0
    rejects: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    dump_date: str | None = None


@dataclass
class Parsed:
    """A parsed block, already columnar (built in the worker, cheap to pickle)."""

    tables: dict[str, pa.Table]
    lines: int
    skipped: dict[str, int]
    max_modified: str | None
    nbytes: int

    def rows(self, table: str) -> int:
        return self.tables[table].num_rows if table in self.tables else 0


def _parse_block(block: Block, file_id: int, name: str) -> Parsed:
    batch = parse_lines(block.lines, block.first_line_no, file_id, name)
    return Parsed(batch.to_arrow(), batch.lines, batch.skipped, batch.max_modified, block.nbytes)


def _parsed(blocks: Iterator[Block], file_id: int, name: str, workers: int) -> Iterator[Parsed]:
    """Parse blocks in order, in this process or in a pool with bounded look-ahead."""
    if workers <= 1:
        for block in blocks:
            yield _parse_block(block, file_id, name)
        return
    # forkserver: never fork a process that holds DuckDB's threads and locks.
    ctx = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        pending: list[Future[Parsed]] = []
        for block in blocks:
            pending.append(pool.submit(_parse_block, block, file_id, name))
            if len(pending) >= 2 * workers:
                yield pending.pop(0).result()
        for fut in pending:
            yield fut.result()


def clear_file(con: duckdb.DuckDBPyConnection, file_id: int) -> None:
    """Remove every row a source (file or SPARQL query) loaded, before loading it again."""
    for table in KG_TABLES:
        con.execute(f"DELETE FROM {table} WHERE file_id = ?", [file_id])
    con.execute("DELETE FROM load_files WHERE file_id = ?", [file_id])


def keep_last_copies(con: duckdb.DuckDBPyConnection, file_id: int) -> None:
    """Last load wins: drop older copies of the entities and properties this source loaded."""
    for table, col in (("entities", "id"), ("entity_types", "entity_id"),
                       ("statements", "entity_id"), ("qualifiers", "entity_id")):
        con.execute(
            f"DELETE FROM {table} WHERE file_id <> ? AND {col} IN "
            "(SELECT id FROM entities WHERE file_id = ?)", [file_id, file_id])
    con.execute(
        "DELETE FROM properties WHERE file_id <> ? AND id IN "
        "(SELECT id FROM properties WHERE file_id = ?)", [file_id, file_id])


def _dump_date(max_modified: str | None, path: Path) -> str | None:
    if max_modified:
        return max_modified[:10]
    m = _DATE_IN_NAME.search(path.name)
    return f"{m[1]}-{m[2]}-{m[3]}" if m else None


class LoadStage(Stage):
    """Load one or more dump files into the KG tables."""

    name = "kg.load"

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        config: LoadConfig,
        run_id: str | None = None,
        progress: ProgressFn | None = None,
    ) -> None:
        super().__init__(con, run_id)
        self.config = config
        self.progress = progress
        self.files: list[FileReport] = []

    def process(self) -> dict[str, Any]:
        for path in self.config.paths:
            self.files.append(self.load_file(Path(path)))
        if self.config.labels:
            self.load_labels(Path(self.config.labels))
        return {
            "files": len(self.files),
            "loaded": sum(f.status == "loaded" for f in self.files),
            "entities": sum(f.entities for f in self.files),
            "rejects": sum(f.rejects for f in self.files),
            "bytes": sum(f.bytes for f in self.files),
        }

    def load_file(self, path: Path) -> FileReport:
        con = self.con
        key = str(path.resolve())
        if not path.is_file():
            raise DumpError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
        fp = fingerprint(path)
        row = con.execute(
            "SELECT file_id, fingerprint, status, entities, rejects, dump_date FROM load_files "
            "WHERE path = ?", [key]).fetchone()
        if row and row[2] == "done" and row[1] == fp and not self.config.force:
            return FileReport(key, "unchanged", entities=row[3], rejects=row[4], dump_date=row[5])
        if row:
            file_id = row[0]
        else:
            file_id = con.execute("SELECT coalesce(max(file_id), 0) + 1 FROM load_files").fetchone()[0]
        con.execute("BEGIN")
        clear_file(con, file_id)
        con.execute(
            "INSERT INTO load_files (file_id, path, fingerprint, status, started_at, code_version)"
            " VALUES (?, ?, ?, 'loading', ?, ?)",
            [file_id, key, fp, datetime.now(timezone.utc).replace(tzinfo=None), code_version()],
        )
        con.execute("COMMIT")

        report = FileReport(key, "loaded")
        max_modified: str | None = None
        blocks = iter_blocks(path, self.config.block_bytes)
        pending: dict[str, list[pa.Table]] = {}
        pending_bytes = 0

        def flush() -> None:
            # Few large inserts: DuckDB ingests one big Arrow table far faster than many small.
            nonlocal pending_bytes
            con.execute("BEGIN")
            for table, parts in pending.items():
                insert_arrow(con, table, pa.concat_tables(parts))
            con.execute("COMMIT")
            pending.clear()
            pending_bytes = 0

        for batch in _parsed(blocks, file_id, str(path), self.config.workers):
            for table, data in batch.tables.items():
                pending.setdefault(table, []).append(data)
            pending_bytes += batch.nbytes
            if pending_bytes >= self.config.flush_bytes:
                flush()
            report.lines += batch.lines
            report.entities += batch.rows("entities")
            report.rejects += batch.rows("load_rejects")
            for reason, n in batch.skipped.items():
                report.skipped[reason] = report.skipped.get(reason, 0) + n
            if batch.max_modified and (max_modified is None or batch.max_modified > max_modified):
                max_modified = batch.max_modified
            report.bytes += batch.nbytes
            if self.progress:
                self.progress(report.bytes, report.entities)

        flush()
        report.dump_date = _dump_date(max_modified, path)
        con.execute("BEGIN")
        duplicates = con.execute(
            "SELECT count(*) - count(DISTINCT id) FROM entities WHERE file_id = ?", [file_id]
        ).fetchone()[0]
        if duplicates:
            # An entity repeated within the file: its last line wins, as across files.
            report.skipped["duplicate entity line (later line kept)"] = duplicates
            report.entities -= duplicates
            for table, col in (("entity_types", "entity_id"), ("statements", "entity_id"),
                               ("qualifiers", "entity_id"), ("entities", "id")):
                con.execute(
                    f"DELETE FROM {table} t WHERE file_id = ? AND line_no < "
                    f"(SELECT max(line_no) FROM entities e WHERE e.file_id = ? AND e.id = t.{col})",
                    [file_id, file_id])
        keep_last_copies(con, file_id)
        con.execute(
            "UPDATE load_files SET status = 'done', finished_at = ?, lines = ?, bytes = ?, "
            "entities = ?, rejects = ?, skipped = ?, dump_date = ? WHERE file_id = ?",
            [datetime.now(timezone.utc).replace(tzinfo=None), report.lines, report.bytes,
             report.entities, report.rejects, json.dumps(report.skipped), report.dump_date,
             file_id],
        )
        con.execute("COMMIT")
        return report

    def load_labels(self, path: Path) -> int:
        """Supplementary English labels ({id: label} JSON) for values outside the dump."""
        if not path.is_file():
            raise DumpError(f"{path}: no such labels file")
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DumpError(f"{path}: not a JSON object of id -> label ({exc})") from exc
        if not isinstance(data, dict):
            raise DumpError(f"{path}: not a JSON object of id -> label")
        rows = [(k, v) for k, v in data.items() if isinstance(v, str)]
        self.con.execute("BEGIN")
        self.con.execute("DELETE FROM extra_labels WHERE source = ?", [str(path.resolve())])
        insert_arrow(self.con, "extra_labels", pa.table({
            "id": [r[0] for r in rows], "label": [r[1] for r in rows],
            "source": [str(path.resolve())] * len(rows)}))
        self.con.execute("COMMIT")
        return len(rows)
