"""Load Wikidata dumps into DuckDB: streaming, parallel parsing, Arrow bulk writes.

Idempotence and resumption rest on one rule: every row carries the ``file_id``
of the file it came from. A load first deletes that file's rows, then inserts
block by block, and only marks the file ``done`` at the very end. A load killed
midway leaves the file ``loading``: every command that reads the KG refuses to use it
until the file is loaded again, which deletes the partial rows and starts over, ending in
the same state as an uninterrupted load. An entity loaded again from another file
replaces the older copy (last load wins). The bundled sample never mixes with a user's
data: loading anything else first removes it.

A type filter (``keep_types``) keeps whole only the items of the types conversations are
about; every other item keeps its entity row and types (answers that name it keep their
label) and no statements. The filter is recorded per file: the same file loaded with another
filter is loaded again, and ``refresh`` reuses it. The languages kept besides English
(``--language``: labels, descriptions and aliases in ``entity_labels``) are part of a file's
identity the same way (``load_files.languages``).
"""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
import queue
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from convkgyarn.config import LoadConfig
from convkgyarn.errors import NoEntities
from convkgyarn.kg.extract import TABLES, Keep, schema_of
from convkgyarn.kg.label_files import LabelFile, read_labels
from convkgyarn.kg.languages import kept_languages
from convkgyarn.kg import bz2blocks, reader
from convkgyarn.kg.bz2blocks import RangeError
from convkgyarn.kg.reader import Block, DumpError, fingerprint, iter_blocks, layout
from convkgyarn.kg.snapshot import bump_kg_version
from convkgyarn.kg.worker import (Parsed, ParsedRange, exit_with_parent, parse_block,
                                  parse_bz2_range)
from convkgyarn.progress import counted
from convkgyarn.stage import Stage, code_version, utcnow
from convkgyarn.store import KG_TABLES, insert_arrow, insert_rows, transaction

log = logging.getLogger("convkgyarn.load")
_DATE_IN_NAME = re.compile(r"(20\d\d)(\d\d)(\d\d)")

ProgressFn = Callable[[int, int], None]  # (bytes, entities) done so far in this file


@dataclass
class FileReport:
    path: str
    status: str  # loaded | unchanged
    lines: int = 0
    bytes: int = 0
    entities: int = 0
    properties: int = 0
    rejects: int = 0  # rejected lines (nothing of them loaded)
    rejected_values: int = 0  # values left out of entities that loaded
    skipped: dict[str, int] = field(default_factory=dict)
    dump_date: str | None = None
    timings: dict[str, float] = field(default_factory=dict)

    def restart(self) -> None:
        """Forget the counts of an attempt whose rows were discarded."""
        fresh = FileReport(self.path, self.status)
        self.__dict__.update(fresh.__dict__)


def _parsed(blocks: Iterator[Block], file_id: int, name: str, workers: int,
            keep: Keep | None = None) -> Iterator[Parsed]:
    """Parse blocks with ``workers`` parsers in all: this process and ``workers - 1`` worker
    processes, with bounded look-ahead.

    This process parses a block whenever the workers have enough queued (and, until the
    pool has started on its helper thread, every block: the fork server's imports took ~1 s
    before a first result). Measured on 2 cores against two worker processes and this one
    only reading and collecting: 13% less time and 1-2 fewer CPU-seconds per 543 MB, since
    half the blocks are neither shipped nor returned and one fewer process starts.
    Results come back in no set order. Order does not matter to the tables: every row
    carries its line number, and the last line of an entity wins by it."""
    return _in_parallel(parse_block, blocks, (file_id, name, keep), workers,
                        ordered=False)


def _parsed_bz2(path: Path, range_bytes: int, file_id: int, name: str, workers: int,
                keep: Keep | None = None) -> Iterator[Parsed]:
    """Parse a bz2 file of lines in ranges of compressed bytes that the parsers decode
    themselves (``bz2blocks``), so decompression scales with the workers; the lines that
    cross ranges are joined and parsed here. Raises ``RangeError`` if a range does not
    decode (then only a sequential read can tell a chance magic number from corruption)."""
    lines = _RangeLines(file_id, name, keep)
    tasks = bz2blocks.ranges(str(path), path.stat().st_size, range_bytes)
    for piece in _in_parallel(parse_bz2_range, iter(tasks), (file_id, name, keep),
                              workers, ordered=True):
        yield from lines.add(piece)
    yield from lines.finish()


class _RangeLines:
    """Line numbers and the lines shared by neighbouring ranges, fed the ranges in order.

    Numbers and rejects match the sequential reader's: ``line_no`` is the number of the
    line that the pending ``carry`` begins, and a line still without its end past
    ``reader.MAX_LINE_BYTES`` is rejected and skipped to its newline."""

    def __init__(self, file_id: int, name: str, keep: Keep | None) -> None:
        self.args = (file_id, name, keep)
        self.line_no = 1
        self.carry: list[bytes] = []
        self.carry_bytes = 0
        self.skipping = False

    def add(self, piece: ParsedRange) -> Iterator[Parsed]:
        if piece.newlines == 0:
            if not self.skipping:
                self._keep(piece.head)
                if self.carry_bytes > reader.MAX_LINE_BYTES:
                    start = b"".join(self.carry[:200])  # (pieces are never empty)
                    yield parse_block(reader.runaway_line(self.line_no, start), *self.args)
                    self.carry, self.carry_bytes, self.skipping = [], 0, True
            return
        if self.skipping:
            self.skipping = False  # the runaway line ends here
        else:
            self._keep(piece.head)
            yield parse_block(Block(self.line_no, b"".join(self.carry)), *self.args)
        if piece.parsed is not None:
            yield _renumbered(piece.parsed, self.line_no - 1)
        self.line_no += piece.newlines
        self.carry, self.carry_bytes = [], 0
        self._keep(piece.tail)

    def finish(self) -> Iterator[Parsed]:
        rest = b"".join(self.carry)
        if rest.strip() and not self.skipping:
            yield parse_block(Block(self.line_no, rest), *self.args)

    def _keep(self, text: bytes) -> None:
        if text:
            self.carry.append(text)
            self.carry_bytes += len(text)


def _renumbered(parsed: Parsed, offset: int) -> Parsed:
    """``parsed`` with ``offset`` added to every line number."""
    if offset:
        for table, data in parsed.tables.items():
            at = data.schema.get_field_index("line_no")
            if at >= 0:
                column = data.column(at)
                shifted = pc.add(column, pa.scalar(offset, column.type))
                parsed.tables[table] = data.set_column(at, "line_no", shifted)
    return parsed


def _in_parallel(fn: Callable[..., Any], tasks: Iterator[Any], args: tuple, workers: int,
                 ordered: bool) -> Iterator[Any]:
    """``fn(task, *args)`` for every task, run by this process and ``workers - 1`` worker
    processes (see ``_parsed``); in the tasks' order if ``ordered``."""
    children = workers - 1
    if children < 1:
        for task in tasks:
            yield fn(task, *args)
        return
    # forkserver: never fork a process that holds DuckDB's threads and locks.
    ctx = multiprocessing.get_context("forkserver")
    # Workers fork from a server that has imported the parser once (and warmed Arrow),
    # instead of each importing it anew: measured 1.8 s before the first parsed block.
    ctx.set_forkserver_preload(["convkgyarn.kg.warm"])
    pool = ProcessPoolExecutor(max_workers=children, mp_context=ctx,
                               initializer=exit_with_parent, initargs=(os.getpid(),))
    started = threading.Event()

    def start() -> None:
        try:  # one task per worker: the pool spawns its processes on submit
            for fut in [pool.submit(os.getpid) for _ in range(children)]:
                fut.result()
        except BaseException:  # noqa: BLE001 - the next submit raises it in the caller
            pass
        finally:
            started.set()

    threading.Thread(target=start, name="kg-pool-start", daemon=True).start()
    look_ahead = _BLOCKS_QUEUED_PER_WORKER * children
    try:
        pending: deque[Future] = deque()
        for task in tasks:
            # in order, results done here wait behind the workers': a bounded wait
            while pending and (pending[0].done() or len(pending) > 2 * look_ahead):
                yield pending.popleft().result()
            in_flight = sum(not f.done() for f in pending) if ordered else len(pending)
            if started.is_set() and in_flight < look_ahead:
                pending.append(pool.submit(fn, task, *args))
            elif ordered:
                pending.append(done := Future())
                done.set_result(fn(task, *args))
            else:
                yield fn(task, *args)
        for fut in pending:
            yield fut.result()
    finally:
        started.wait()
        pool.shutdown(wait=True, cancel_futures=True)


# Blocks queued per worker before this process parses one itself: 3 measured a little
# faster than 2 (the workers idled less), 4 no faster than 3.
_BLOCKS_QUEUED_PER_WORKER = 3


class _Writer:
    """Streams parsed blocks into DuckDB: one INSERT per table for the whole file, each fed
    by an Arrow stream from a bounded queue and run on its own thread and cursor (DuckDB
    works without the GIL, so parsing never waits for it).

    Why one streaming INSERT rather than a commit every few blocks: DuckDB compresses and
    writes a large insert's row groups to disk as they fill, while small inserts pile up
    uncompressed in the buffer pool until a checkpoint writes them all at the end (measured
    on 1 and 2 GB dumps: 15-40% faster, a lower memory peak, and no checkpoint tail).
    Insertion order is not preserved, which lets DuckDB write row groups in parallel; no
    table depends on row order (every row carries its line number). Each row group is
    compressed and written as soon as it fills (``write_buffer_row_group_count = 1``), on
    the writer's threads while the parse goes on: by default DuckDB buffers five, and on a
    dump of a few hundred MB every row group waited for the end of the stream, a serial
    tail of ~1 s per 543 MB (measured: 0.25-0.30 s with the setting, 0.84-1.23 s without).

    A file's rows are committed only when its whole stream has been read: a load that
    fails or is stopped leaves none of the tables half-written by this writer (the file
    stays ``loading`` either way). Only this writer's threads touch the database until
    ``finish`` or ``stop`` returns."""

    _END = object()
    _SETTINGS = {"checkpoint_threshold": "'1TB'", "preserve_insertion_order": "false",
                 "write_buffer_row_group_count": "1"}

    def __init__(self, con: duckdb.DuckDBPyConnection, tables: tuple[str, ...] = TABLES
                 ) -> None:
        self.con = con
        self.error: BaseException | None = None
        for name, value in self._SETTINGS.items():
            con.execute(f"SET {name} = {value}")
        schemas = {table: schema_of(table) for table in tables}
        self.queues: dict[str, queue.Queue] = {t: queue.Queue(maxsize=8) for t in tables}
        self.cursors = {t: con.cursor() for t in tables}  # one connection per thread
        self.threads = [threading.Thread(target=self._insert, args=(t, schemas[t]),
                                         name=f"kg-writer-{t}", daemon=True) for t in tables]
        for thread in self.threads:
            thread.start()

    def __enter__(self) -> _Writer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()  # after finish: closes the cursors; on an error: aborts the inserts

    def put(self, batch: Parsed) -> None:
        """Hand a parsed block to the inserts; waits while they are behind (bounded
        memory); raises the inserts' error, if any."""
        for table, data in batch.tables.items():
            self._put(self.queues[table], data)

    def finish(self) -> None:
        """End every stream, wait for the inserts to commit, then checkpoint; re-raises
        the writer's error, if any."""
        for q in self.queues.values():
            self._put(q, self._END)
        self._join()
        if self.error is not None:
            raise self.error
        self.con.execute("CHECKPOINT")

    def stop(self) -> None:
        """Abort the inserts (on any error or interrupt in the reading thread): each stream
        raises, so its INSERT rolls back. Idempotent; restores the settings."""
        if any(t.is_alive() for t in self.threads):
            self.error = self.error or _Stopped()
            for q in self.queues.values():
                while True:
                    try:
                        q.put_nowait(self.error)
                        break
                    except queue.Full:
                        try:
                            q.get_nowait()
                        except queue.Empty:
                            pass
            self._join()
        for cursor in self.cursors.values():
            cursor.close()
        self.cursors = {}
        for name in self._SETTINGS:
            try:
                self.con.execute(f"RESET {name}")
            except duckdb.Error:
                pass

    def _put(self, q: queue.Queue, item: Any) -> None:
        while self.error is None:
            try:
                q.put(item, timeout=0.2)
                return
            except queue.Full:
                continue
        raise self.error

    def _join(self) -> None:
        for thread in self.threads:
            while thread.is_alive():
                thread.join(timeout=0.2)

    def _batches(self, q: queue.Queue) -> Iterator[pa.RecordBatch]:
        while True:
            item = q.get()
            if item is self._END:
                return
            if isinstance(item, BaseException):
                raise item
            yield from item.to_batches()

    def _insert(self, table: str, schema: pa.Schema) -> None:
        try:
            stream = pa.RecordBatchReader.from_batches(schema, self._batches(self.queues[table]))
            insert_arrow(self.cursors[table], table, stream)
        except BaseException as exc:  # noqa: BLE001 - handed to the reading thread
            # Without its traceback: that would keep this frame's cursor alive past exit.
            self.error = self.error or exc.with_traceback(None)


class _Stopped(Exception):
    """The reading thread stopped the writer (its own error is the one that matters)."""


def clear_file(con: duckdb.DuckDBPyConnection, file_id: int) -> None:
    """Remove every row a source (file or SPARQL query) loaded, before loading it again."""
    for table in KG_TABLES:
        con.execute(f"DELETE FROM {table} WHERE file_id = ?", [file_id])
    con.execute("DELETE FROM load_files WHERE file_id = ?", [file_id])


def keep_last_copies(con: duckdb.DuckDBPyConnection, file_id: int) -> None:
    """Last load wins: drop older copies of the entities and properties this source loaded
    (an entity's labels in other languages go with its older copy, whatever this source
    kept of them)."""
    for table, col in (("entities", "id"), ("entity_types", "entity_id"),
                       ("statements", "entity_id"), ("qualifiers", "entity_id")):
        con.execute(
            f"DELETE FROM {table} WHERE file_id <> ? AND {col} IN "
            "(SELECT id FROM entities WHERE file_id = ?)", [file_id, file_id])
    con.execute(
        "DELETE FROM properties WHERE file_id <> ? AND id IN "
        "(SELECT id FROM properties WHERE file_id = ?)", [file_id, file_id])
    if con.execute("SELECT EXISTS (SELECT 1 FROM entity_labels WHERE file_id <> ?)",
                   [file_id]).fetchone()[0]:  # (English-only projects skip the scan)
        con.execute(
            "DELETE FROM entity_labels WHERE file_id <> $f AND id IN (SELECT id FROM entities "
            "WHERE file_id = $f UNION ALL SELECT id FROM properties WHERE file_id = $f UNION "
            "ALL SELECT id FROM entity_labels WHERE file_id = $f)", {"f": file_id})


def _keep_last_labels(con: duckdb.DuckDBPyConnection, file_id: int) -> None:
    """An entity repeated within a file keeps the labels of its last line only (the last line
    may lack a language an earlier one had)."""
    con.execute(
        "DELETE FROM entity_labels t WHERE file_id = $f AND line_no < (SELECT max(line_no) FROM "
        "(SELECT id, line_no FROM entities WHERE file_id = $f UNION ALL SELECT id, line_no FROM "
        "entity_labels WHERE file_id = $f) e WHERE e.id = t.id)", {"f": file_id})


def next_file_id(con: duckdb.DuckDBPyConnection) -> int:
    return con.execute("SELECT coalesce(max(file_id), 0) + 1 FROM load_files").fetchone()[0]


def remove_sample(con: duckdb.DuckDBPyConnection) -> int:
    """Remove the bundled sample's rows; returns how many entities it had."""
    rows = con.execute("SELECT file_id, coalesce(entities, 0) FROM load_files "
                       "WHERE kind = 'sample'").fetchall()
    if not rows:
        return 0
    with transaction(con):
        for file_id, _ in rows:
            clear_file(con, file_id)
        bump_kg_version(con, "removed the bundled sample")
    return sum(n for _, n in rows)


def _dump_date(max_modified: str | None, path: Path) -> str | None:
    if max_modified:
        return max_modified[:10]
    m = _DATE_IN_NAME.search(path.name)
    return f"{m[1]}-{m[2]}-{m[3]}" if m else None


# A label file as read: its path, scope (None, or "values" for --value-labels), what it
# holds, and its fingerprint when it was read
ReadLabels = tuple[Path, "str | None", LabelFile, str]


def read_label_files(labels, value_labels, languages: list[str] | None) -> list[ReadLabels]:
    """Every label file read and checked (one with no usable label refused, a one-line
    error) in the languages a load keeps (``kept_languages``), with its scope and its
    fingerprint then: what ``LoadStage.store_labels`` stores."""
    return [(path, scope, read_labels(path, languages), fingerprint(path))
            for paths, scope in ((labels, None), (value_labels, "values"))
            for path in map(Path, paths)]


class LoadStage(Stage):
    """Load one or more dump files (and label files) into the KG tables."""

    name = "kg.load"
    writes = ("load_files", *KG_TABLES, "extra_labels", "kg_meta")

    def __init__(self, ctx, config: LoadConfig, progress: ProgressFn | None = None,
                 label_files: list[ReadLabels] | None = None) -> None:
        super().__init__(ctx, config)
        # what entity_labels keeps: a file's identity, with its type filter
        self.languages = kept_languages(config.languages)
        self.progress = progress
        # the config's label files as a caller read them already (``read_label_files``:
        # a SPARQL load checks them before the endpoint is queried), else read in process
        self.label_files = label_files
        self.files: list[FileReport] = []
        self.labels_loaded = 0
        self.sample_removed = 0

    def process(self) -> dict[str, Any]:
        # label files are read (and a malformed one refused) before any dump: a bad labels
        # file fails in a second, not after an hour's load
        label_files = self.label_files if self.label_files is not None else \
            read_label_files(self.config.labels, self.config.value_labels, self.languages)
        if self.config.kind != "sample" and self.config.paths:  # (label files alone are no
            self.sample_removed = remove_sample(self.con)         # data that mixes with it)
            if self.sample_removed:
                self.ctx.say(f"removed the bundled sample ({self.sample_removed} entities) "
                             "from this project: it never mixes with your data")
        for path in self.config.paths:
            self.files.append(self.load_file(Path(path)))
        for label_file in label_files:
            self.labels_loaded += self.store_labels(*label_file)
        stats = {
            "files": len(self.files),
            "loaded": sum(f.status == "loaded" for f in self.files),
            "entities": sum(f.entities for f in self.files),
            "rejects": sum(f.rejects for f in self.files),
            "rejected_values": sum(f.rejected_values for f in self.files),
            "bytes": sum(f.bytes for f in self.files),
            "labels": self.labels_loaded,
            "languages": self.languages,
        }
        for f in self.files:
            if f.entities == 0 and f.properties == 0:
                raise self._no_entities(f)
        return stats

    def _no_entities(self, f: FileReport) -> NoEntities:
        """The error for a file that loaded nothing, naming its first rejected line."""
        where = f"no Wikidata entities in {f.path}: "
        if not f.rejects:
            return NoEntities(where + ("the file is empty" if not f.lines
                                       else "no entity on any line"))
        line, reason = self.con.execute(
            "SELECT r.line_no, coalesce(r.field || ': ', '') || r.reason FROM load_rejects r "
            "JOIN load_files l USING (file_id) WHERE l.path = ? ORDER BY r.line_no LIMIT 1",
            [str(Path(f.path).resolve())]).fetchone() or (None, None)
        lines = "1 line" if f.rejects == 1 else f"{f.rejects:,} lines"
        return NoEntities(where + f"{lines} rejected" + (
            f" (line {line}: {reason})" if line is not None else ""),
            hint=", see `convkgyarn kg rejects`" if f.rejects > 1 else "")

    def load_file(self, path: Path) -> FileReport:
        con = self.con
        key = str(path.resolve())
        if not path.is_file():
            raise DumpError(f"{path}: no such file" if not path.exists() else f"{path}: not a file")
        fp = fingerprint(path)
        keep_types, languages = self.config.keep_types, self.languages
        row = con.execute(
            "SELECT file_id, fingerprint, status, entities, rejects, dump_date, keep_types, "
            "languages FROM load_files WHERE path = ?", [key]).fetchone()
        if (row and row[2] == "done" and row[1] == fp and row[6] == keep_types
                and row[7] == languages and not self.config.force):
            return FileReport(key, "unchanged", entities=row[3], rejects=row[4], dump_date=row[5],
                              properties=self._properties_of(row[0]))
        file_id = row[0] if row else next_file_id(con)
        with transaction(con):
            clear_file(con, file_id)
            insert_rows(con, "load_files", [{
                "file_id": file_id, "path": key, "kind": self.config.kind, "fingerprint": fp,
                "status": "loading", "started_at": utcnow(), "code_version": code_version(),
                "keep_types": keep_types, "languages": languages}])

        report = FileReport(key, "loaded")
        kept = Keep(frozenset(keep_types) if keep_types is not None else None,
                    tuple(languages) if languages is not None else None)
        if self.config.engine == "spark":
            max_modified = self._load_on_spark(path, file_id, kept, report)
        else:
            max_modified = self._load_here(path, file_id, kept, report)
        report.dump_date = _dump_date(max_modified, path)
        report.rejects, report.rejected_values = con.execute(
            "SELECT count(*) FILTER (WHERE field IS NULL), count(*) FILTER (WHERE field IS NOT "
            "NULL) FROM load_rejects WHERE file_id = ?", [file_id]).fetchone()
        with transaction(con):
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
                        f"DELETE FROM {table} t WHERE file_id = ? AND line_no < (SELECT "
                        f"max(line_no) FROM entities e WHERE e.file_id = ? AND e.id = t.{col})",
                        [file_id, file_id])
            if languages is not None:
                _keep_last_labels(con, file_id)
            keep_last_copies(con, file_id)
            con.execute(
                "UPDATE load_files SET status = 'done', finished_at = ?, lines = ?, bytes = ?, "
                "entities = ?, rejects = ?, skipped = ?, dump_date = ? WHERE file_id = ?",
                [utcnow(), report.lines, report.bytes, report.entities, report.rejects,
                 json.dumps(report.skipped), report.dump_date, file_id])
            bump_kg_version(con, f"loaded {key} {fp}")
        return report

    def _load_here(self, path: Path, file_id: int, kept: Keep,
                   report: FileReport) -> str | None:
        """Parse with ``workers`` parsers (this process, plus worker processes when more
        than one); the writer's threads insert. A bz2 file of lines is decoded by the
        parsers in ranges when there are workers; if a range does not decode, the file is
        read again sequentially (nothing of the first attempt is kept; a corrupt file fails
        there, with its line)."""
        workers, name = self.config.workers, str(path)
        blocks = iter_blocks(path, self.config.block_bytes)  # lazy: opens nothing yet
        if workers > 1 and path.suffix == ".bz2" and layout(path) == "lines":
            batches = _parsed_bz2(path, self.config.bz2_range_bytes, file_id, name, workers,
                                  kept)
            try:
                return self._write(batches, report, kept)
            except RangeError as exc:  # the writer committed none of that attempt
                report.restart()
                max_modified = self._write(_parsed(blocks, file_id, name, workers, kept), report,
                                           kept)
                self.ctx.say(f"{path}: read with one decoder, since decoding it in parallel "
                             f"failed ({exc}); the file itself is sound")
                return max_modified
        return self._write(_parsed(blocks, file_id, name, workers, kept), report, kept)

    def _write(self, batches: Iterator[Parsed], report: FileReport, kept: Keep) -> str | None:
        max_modified: str | None = None
        with _Writer(self.con, kept.tables()) as writer:
            for batch in batches:
                writer.put(batch)
                max_modified = self._count(report, batch, max_modified)
            writer.finish()
        return max_modified

    def _load_on_spark(self, path: Path, file_id: int, kept: Keep,
                       report: FileReport) -> str | None:
        """Parse on Spark into Parquet parts, then land them in the tables (one commit)."""
        from convkgyarn.kg import spark

        # a given --spark-output gets a folder of its own per load: the parts of an earlier
        # load there are never read again (nor overwritten)
        output = (spark.load_dir(self.config.spark_output, file_id) if self.config.spark_output
                  else spark.scratch_dir(self.ctx.work_dir, file_id))
        try:
            result = spark.extract(path, file_id, output, kept, self.config.spark_master)
            t0 = time.perf_counter()
            with transaction(self.con):
                for table in result.tables():
                    self.con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM "
                                     "read_parquet(?)", [result.parts(table)])
            report.timings = {"spark_job": round(result.parse_seconds, 3),
                              "landing": round(time.perf_counter() - t0, 3)}
        finally:
            if self.config.spark_output is None:
                spark.remove(output)
        max_modified: str | None = None
        for chunk in result.chunks:  # counted as local blocks are
            max_modified = self._count(report, Parsed(
                {}, chunk["lines"], chunk["skipped"], chunk["max_modified"], chunk["bytes"],
                counts=chunk["rows"]), max_modified)
        return max_modified

    def _count(self, report: FileReport, batch: Parsed, max_modified: str | None) -> str | None:
        """Add a parsed block to the file's report; returns the newest ``modified`` so far."""
        report.lines += batch.lines
        report.entities += batch.rows("entities")
        report.properties += batch.rows("properties")
        report.rejects += batch.rows("load_rejects")
        for reason, n in batch.skipped.items():
            report.skipped[reason] = report.skipped.get(reason, 0) + n
        report.bytes += batch.nbytes
        if self.progress:
            self.progress(report.bytes, report.entities)
        if batch.max_modified and (max_modified is None or batch.max_modified > max_modified):
            return batch.max_modified
        return max_modified

    def _properties_of(self, file_id: int) -> int:
        return self.con.execute("SELECT count(*) FROM properties WHERE file_id = ?",
                                [file_id]).fetchone()[0]

    def store_labels(self, path: Path, scope: str | None, found: LabelFile,
                     print_: str) -> int:
        """Supplementary labels for values outside the dump, in English and the kept
        languages, as ``read_labels`` read them (``found``, before the dumps) with the
        file's fingerprint then (``print_``), replacing the same file's earlier labels and
        rejects; malformed entries are rejects naming the file and the key
        (``load_rejects``, file_id NULL). ``scope`` 'values': labels that name values only
        (``--value-labels``; the ``labels`` view, never ``class_labels``); a file loaded
        again takes the scope it is given now."""
        source = str(path.resolve())
        with transaction(self.con):
            self.con.execute("DELETE FROM extra_labels WHERE source = ?", [source])
            self.con.execute("DELETE FROM load_rejects WHERE file_id IS NULL AND file = ?",
                             [source])
            insert_rows(self.con, "extra_labels", [{**r, "source": source, "scope": scope}
                                                   for r in found.rows])
            insert_rows(self.con, "load_rejects", [
                {"file_id": None, "file": source, "line_no": None, "reason": reason,
                 "snippet": snippet, "field": where} for where, reason, snippet in found.rejects])
            bump_kg_version(self.con, f"labels {source} {print_} {self.languages}"
                            + (f" {scope}" if scope else ""))
        if found.rejects:
            where, reason, _ = found.rejects[0]
            self.ctx.say(f"{path}: {counted(len(found.rejects), 'entry', 'entries')} rejected "
                         f"(first {where}: "
                         f"{reason}); see `convkgyarn kg rejects`")
        if found.not_kept:
            self.ctx.say(f"{path}: left out {counted(sum(found.not_kept.values()), 'label')} in "
                         f"{counted(len(found.not_kept), 'language')} this load does not keep ("
                         f"{', '.join(sorted(found.not_kept)[:5])}"
                         f"{' ...' if len(found.not_kept) > 5 else ''}; add --language)")
        return len(found.rows)
