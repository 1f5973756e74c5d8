"""The store's helpers: transactions roll back, inserts go by column name, Arrow schemas
come from the DDL, and the project lock makes a second command fail fast."""

from __future__ import annotations

import os
import subprocess
import sys

import pyarrow as pa
import pytest

from convkgyarn.errors import BusyError, UserError
from convkgyarn.kg.extract import TABLES
from convkgyarn.store import ProjectLock, arrow_schema, connect, insert_rows, transaction
from convkgyarn.store.schema import TABLES as DDL


def test_transaction_rolls_back_on_any_error(db):
    with pytest.raises(KeyboardInterrupt):
        with transaction(db):
            db.execute("INSERT INTO kg_meta VALUES ('a', 'b')")
            raise KeyboardInterrupt
    assert db.execute("SELECT count(*) FROM kg_meta").fetchone()[0] == 0


def test_insert_rows_by_name_in_any_order_with_missing_columns_null(db):
    insert_rows(db, "dropped", [{"reason": "r", "stage": "s", "item": "i"}])
    insert_rows(db, "dropped", {"item": ["j", "k"], "stage": ["s", "s"]})
    assert db.execute("SELECT stage, item, reason, detail FROM dropped ORDER BY item"
                      ).fetchall() == [("s", "i", "r", None), ("s", "j", None, None),
                                       ("s", "k", None, None)]
    with pytest.raises(KeyError, match="no column"):
        insert_rows(db, "dropped", [{"nope": 1}])


def test_arrow_schemas_come_from_the_ddl(db):
    for table in DDL:
        cols = [r[0] for r in db.execute(f"DESCRIBE {table}").fetchall()]
        assert arrow_schema(table).names == cols
    # the loader's row tuples follow the same column order
    for table in TABLES:
        assert isinstance(arrow_schema(table), pa.Schema)


def test_a_second_writer_or_a_reader_beside_a_writer_is_busy(tmp_path):
    db = tmp_path / "p.duckdb"
    connect(db).close()
    with ProjectLock(db, exclusive=True, command="generate"):
        with pytest.raises(BusyError, match=rf"pid {os.getpid()}, generate"):
            ProjectLock(db, exclusive=True).acquire()
        with pytest.raises(BusyError):
            ProjectLock(db, exclusive=False).acquire()
    with ProjectLock(db, exclusive=False), ProjectLock(db, exclusive=False):
        pass  # readers share


def test_a_lock_held_by_a_killed_process_is_released(tmp_path):
    db = tmp_path / "p.duckdb"
    code = ("import os, time; from convkgyarn.store import ProjectLock; "
            f"ProjectLock({str(db)!r}, exclusive=True).acquire(); os.kill(os.getpid(), 9)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == -9
    ProjectLock(db, exclusive=True).acquire().release()


def test_readers_never_create_a_database(tmp_path):
    with pytest.raises(UserError, match="no project database here"):
        connect(tmp_path / "missing.duckdb", read_only=True)
    assert not (tmp_path / "missing.duckdb").exists()
    (tmp_path / "garbage.duckdb").write_bytes(b"not a database at all" * 100)
    with pytest.raises(UserError, match="not a DuckDB file"):
        connect(tmp_path / "garbage.duckdb", read_only=True)
