"""The project database: opening it (migrating older ones), transactions, bulk inserts.

Every write goes through ``transaction()`` (rolled back on any error, so a failed or killed
step leaves the previous state) and bulk rows through ``insert_rows()`` (Arrow, by column
name: never positional, never row by row).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from operator import itemgetter
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from convkgyarn.errors import BusyError, UserError
from convkgyarn.store import migrations, schema
from convkgyarn.store.lock import ProjectLock
from convkgyarn.store.schema import KG_TABLES, SCHEMA_VERSION, arrow_schema, columns

__all__ = ["KG_TABLES", "SCHEMA_VERSION", "ProjectLock", "arrow_schema", "columns", "connect",
           "insert_arrow", "insert_rows", "refuse_foreign_file", "registered", "shadow_tables",
           "transaction"]

DEFAULT_MEMORY_LIMIT = "2GB"


DUCKDB_HEADER = 3 * 4096  # the file header and its two database headers


def _damaged(db: Path, why: str) -> UserError:
    return UserError(f"{db}: the database file is damaged ({why}); restore it from a backup, "
                     "or move it away and build the project again")


def _check_length(con: duckdb.DuckDBPyConnection, db: Path) -> duckdb.DuckDBPyConnection:
    """A file too short to hold the blocks its header says are in use was truncated: DuckDB
    itself notices only when a query reads a missing block, which may be never for some
    commands. (DuckDB may trim free blocks off the end, so only used blocks count.)"""
    _, _, block_size, _, used_blocks, *_ = con.execute("PRAGMA database_size").fetchone()
    expected = DUCKDB_HEADER + used_blocks * block_size if used_blocks else 0
    if db.is_file() and db.stat().st_size < expected:
        con.close()
        raise _damaged(db, f"{db.stat().st_size:,} bytes, too short for the {used_blocks:,} "
                           f"blocks of {block_size:,} its header says are in use")
    return con


def _foreign_file(db: Path) -> bool:
    """Whether an existing file is not a DuckDB database (its magic bytes, ``DUCK`` at
    offset 8, are missing). DuckDB itself refuses most such files, but opens a path ending
    in .json, .csv or .parquet as an in-memory database over that file: a load into
    ``--db summary.json`` then said "done" and stored nothing anywhere."""
    try:
        with open(db, "rb") as fh:
            head = fh.read(12)
    except OSError:  # missing, a folder, unreadable: DuckDB's own message says which
        return False
    return bool(head) and head[8:12] != b"DUCK"


def refuse_foreign_file(db: Path) -> None:
    """A ``UserError`` for an existing file that is not a DuckDB database (before a command
    locks or opens it, so nothing is written beside the user's file)."""
    if _foreign_file(Path(db)):
        raise UserError(f"{db}: not a convkgyarn project database (not a DuckDB file)")


def _open(db: Path, read_only: bool, memory_limit: str) -> duckdb.DuckDBPyConnection:
    refuse_foreign_file(db)
    try:
        return _check_length(duckdb.connect(str(db), read_only=read_only,
                                            config={"memory_limit": memory_limit}), Path(db))
    except duckdb.IOException as exc:
        text = str(exc)
        if "Could not set lock" in text:
            holder = re.search(r"held in (.+?)(?:\. See|$)", text)
            raise BusyError(f"another process is using {db}"
                            + (f" ({holder.group(1)})" if holder else "")) from None
        if "not a valid DuckDB database" in text:
            raise UserError(f"{db}: not a convkgyarn project database (not a DuckDB file)") \
                from None
        if "Is a directory" in text:
            raise UserError(f"{db}: is a folder, not a database file") from None
        if "Permission denied" in text or "Read-only file system" in text:
            raise UserError(f"{db}: cannot open for {'reading' if read_only else 'writing'} "
                            "(permission denied)") from None
        if "Could not read enough bytes" in text or "Corrupt database file" in text:
            raise UserError(f"{db}: the database file is damaged ({_first_line(text)}); "
                            "restore it from a backup, or move it away and build the project "
                            "again") from None
        raise UserError(f"{db}: cannot open ({_first_line(text)})") from None
    except duckdb.OutOfMemoryException as exc:
        raise UserError(f"{db}: cannot open within memory_limit {memory_limit} "
                        f"({_first_line(str(exc))}); raise it") from None
    except duckdb.Error as exc:
        if "Corrupt database file" in str(exc):
            raise UserError(f"{db}: the database file is damaged ({_first_line(str(exc))}); "
                            "restore it from a backup, or move it away and build the project "
                            "again") from None
        raise UserError(f"{db}: cannot open ({_first_line(str(exc))})") from None


def _first_line(text: str) -> str:
    """DuckDB's message without its type prefix and its multi-line advice."""
    line = text.strip().splitlines()[0] if text.strip() else text
    return re.sub(r"^[A-Za-z ]+Error: ", "", line)


def connect(db: Path | str, read_only: bool = False, *, create: bool = True,
            memory_limit: str = DEFAULT_MEMORY_LIMIT) -> duckdb.DuckDBPyConnection:
    """Open the project database at the current schema, migrating an older one first.

    A reader never creates a database: a missing file is a ``UserError``. DuckDB's buffer
    pool is capped so that loading a dump of any size keeps memory flat.
    """
    from convkgyarn.runtime import code_version

    db = Path(db)
    if read_only or not create:
        if not db.exists():
            raise UserError(f"{db}: no project database here (run `convkgyarn kg load` or "
                            "`convkgyarn generate` first, or give --db)")
        if db.is_dir():
            raise UserError(f"{db}: is a folder, not a database file")
    if read_only:
        con = _open(db, True, memory_limit)
        if not migrations.needs_migration(con):
            return con
        con.close()
        try:
            _migrate(_open(db, False, memory_limit), code_version()).close()
        except UserError as exc:
            raise UserError(f"{exc}; the database was written by an older convkgyarn and "
                            "must be migrated once by a command that can write it") from None
        return _open(db, True, memory_limit)
    if create:
        try:
            db.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(f"{db}: cannot create its folder ({exc.strerror})") from None
    return _migrate(_open(db, False, memory_limit), code_version())


def _migrate(con: duckdb.DuckDBPyConnection, version: str) -> duckdb.DuckDBPyConnection:
    try:
        migrations.migrate(con, version)
    except duckdb.Error as exc:
        con.close()
        raise UserError(f"cannot migrate the database: {exc}") from None
    except BaseException:
        con.close()
        raise
    return con


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """BEGIN ... COMMIT, rolled back on any error or interrupt."""
    con.begin()
    try:
        yield con
    except BaseException:
        con.rollback()
        raise
    con.commit()


def insert_arrow(con: duckdb.DuckDBPyConnection, table: str,
                 data: pa.Table | pa.RecordBatchReader) -> None:
    """Bulk insert an Arrow table, or a stream of batches read to its end, by column name
    (columns it lacks get NULL)."""
    with registered(con, f"_arrow_{table}", data) as view:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {view}")


def insert_rows(con: duckdb.DuckDBPyConnection, table: str,
                rows: Sequence[Mapping[str, Any]] | Mapping[str, Sequence[Any]]) -> int:
    """Insert rows (a list of dicts, or a dict of columns) by column name, typed by the
    table's schema; returns the number of rows."""
    if isinstance(rows, Mapping):
        data = dict(rows)
    else:
        if not rows:
            return 0
        names = list(rows[0])
        try:  # every row has every column: one C-level lookup per row, then transpose
            getter = itemgetter(*names)
            picked = [getter(r) for r in rows]
            data = dict(zip(names, zip(*picked))) if len(names) > 1 else {names[0]: picked}
        except KeyError:  # rows with missing columns: those are NULL
            data = {c: [r.get(c) for r in rows] for c in names}
    if not data:
        return 0
    full = arrow_schema(table)
    unknown = set(data) - set(full.names)
    if unknown:
        raise KeyError(f"{table} has no column(s) {sorted(unknown)}")
    fields = [full.field(c) for c in data]
    arrays = [pa.array(list(values), type=f.type) for f, values in zip(fields, data.values())]
    n = len(arrays[0])
    if n:
        insert_arrow(con, table, pa.Table.from_arrays(arrays, schema=pa.schema(fields)))
    return n


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, name: str,
               data: pa.Table | pa.RecordBatchReader | Mapping[str, Sequence[Any]]
               ) -> Iterator[str]:
    """Columns visible to SQL as ``name`` for the duration of the block."""
    arrow = isinstance(data, (pa.Table, pa.RecordBatchReader))
    con.register(name, data if arrow else pa.table(dict(data)))
    try:
        yield name
    finally:
        try:
            con.unregister(name)
        except duckdb.Error:  # an aborted transaction: the error that aborted it matters
            pass


def shadow_tables(con: duckdb.DuckDBPyConnection, tables: Mapping[str, str | None]) -> None:
    """Give this connection temporary tables that shadow the project's: ``{table: rows}``
    where rows is None for a copy of the whole table, or a WHERE clause for some of its rows.
    Unqualified names then resolve to the temporary table (DuckDB looks in ``temp``
    first), so stages read and write it as usual; it has the table's DDL, keys included,
    and goes with the connection. A dry run opens the database read-only and shadows what its
    stages write: they run unchanged, and the file stays exactly as it was."""
    catalog = con.execute("SELECT current_database()").fetchone()[0].replace('"', '""')
    for table, where in tables.items():
        con.execute(f"CREATE TEMP TABLE {table} ({schema.TABLES[table].strip()})")
        con.execute(f'INSERT INTO temp.main.{table} SELECT * FROM "{catalog}".main.{table}'
                    + (f" WHERE {where}" if where else ""))


def quote_path(path: Path | str) -> str:
    """A path as a SQL string literal (ATTACH takes no parameters)."""
    return "'" + str(path).replace("'", "''") + "'"


def has_rows(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    return con.execute(f"SELECT EXISTS (SELECT 1 FROM {table})").fetchone()[0]


def table_names() -> list[str]:
    return list(schema.TABLES)
