"""A project database from release 0.1.0 opens, migrates to the current schema, keeps its
conversations, exports them, and can generate again; a migrated database has exactly the
shape of a fresh one."""

from __future__ import annotations

import bz2
import json

import duckdb
import pytest

from convkgyarn.errors import UserError
from convkgyarn.store import SCHEMA_VERSION, connect, migrations
from tests.helpers import cli, project


@pytest.fixture
def old_db(shared_data, tmp_path):
    path = tmp_path / "old.duckdb"
    path.write_bytes(bz2.decompress((shared_data / "fixtures" / "db-0.1.0.duckdb.bz2").read_bytes()))
    return path


def test_a_migrated_database_has_the_shape_of_a_fresh_one(old_db, tmp_path):
    fresh = connect(tmp_path / "fresh.duckdb")
    migrated = connect(old_db)
    assert migrations.shape(migrated) == migrations.shape(fresh)
    assert migrated.execute("SELECT max(version) FROM schema_version").fetchone()[0] == \
        SCHEMA_VERSION


def test_the_0_1_0_database_keeps_and_exports_its_conversations(old_db, tmp_path):
    raw = duckdb.connect(str(old_db), read_only=True)
    before = raw.execute("SELECT count(*), count(DISTINCT run_id) FROM conversations").fetchone()
    turns = raw.execute("SELECT count(*) FROM turns").fetchone()[0]
    raw.close()
    assert before == (200, 2)
    r = cli("export", "--db", old_db, "--out", tmp_path / "c.jsonl")  # a reader migrates too
    assert r.exit_code == 0, r.output
    records = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert len(records) == 200
    assert sum(len(r["turns"]) for r in records) == turns
    assert {r["config"]["name"] for r in records} == {"voice-deixis", "text-typos"}
    for r in records:
        assert [t["turn"] for t in r["turns"]] == list(range(1, len(r["turns"]) + 1))


def test_generating_on_a_migrated_database_works(old_db, tmp_path):
    r = cli("generate", "--db", old_db, "--out", tmp_path / "o", "--conversations", "20",
            "--interaction", "voice", "--deixis")
    assert r.exit_code == 0, r.output
    with project(old_db, write=False) as p:
        runs = p.con.execute("SELECT config_name, count(*) FROM generation_runs GROUP BY 1 "
                             "ORDER BY 1").fetchall()
    # the new voice-deixis run replaced the old one; the text-typos run is untouched
    assert runs == [("text-typos", 1), ("voice-deixis", 1)]


def test_0_1_0_turns_stored_twice_are_kept_once(old_db):
    raw = duckdb.connect(str(old_db))
    raw.execute("INSERT INTO turns SELECT * FROM turns WHERE conversation_id IN "
                "(SELECT conversation_id FROM conversations LIMIT 3)")  # the 0.1.0 bug
    raw.close()
    con = connect(old_db)
    dup = con.execute("SELECT count(*) - count(DISTINCT (run_id, conversation_id, turn)) "
                      "FROM turns").fetchone()[0]
    assert dup == 0


def test_a_failed_migration_leaves_the_database_as_it_was(old_db, monkeypatch):
    def broken(con):
        con.execute("ALTER TABLE turns ADD COLUMN half_done INTEGER")
        raise RuntimeError("power cut")

    monkeypatch.setattr(migrations, "MIGRATIONS", (migrations.Migration(2, "broken", broken),))
    with pytest.raises(RuntimeError, match="power cut"):
        connect(old_db)
    raw = duckdb.connect(str(old_db), read_only=True)
    cols = [r[0] for r in raw.execute("DESCRIBE turns").fetchall()]
    assert "half_done" not in cols and "schema_version" not in [
        r[0] for r in raw.execute("SHOW TABLES").fetchall()]


def test_a_newer_schema_is_refused_with_a_clear_message(tmp_path):
    con = connect(tmp_path / "new.duckdb")
    con.execute("INSERT INTO schema_version VALUES (99, now(), 'future', 'future')")
    con.close()
    with pytest.raises(UserError, match="schema 99, newer than this convkgyarn"):
        connect(tmp_path / "new.duckdb")


def test_a_duckdb_file_of_another_program_is_not_taken_for_a_project(tmp_path):
    other = duckdb.connect(str(tmp_path / "other.duckdb"))
    other.execute("CREATE TABLE invoices (id INTEGER)")
    other.close()
    with pytest.raises(UserError, match="not a convkgyarn project database"):
        connect(tmp_path / "other.duckdb")


def test_views_are_recreated_and_old_views_replaced(old_db):
    con = connect(old_db)
    views = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal "
                                       "AND database_name = current_database()").fetchall()}
    assert {"labels", "facts", "statement_values", "template_rejects", "drops"} <= views


def back_to_schema_9(raw: duckdb.DuckDBPyConnection) -> None:
    """Undo schema 10 (the language of each answer's label) on a fresh database, as releases
    up to 0.8.27 wrote it."""
    raw.execute("ALTER TABLE turns DROP COLUMN answer_languages")


def back_to_schema_8(raw: duckdb.DuckDBPyConnection) -> None:
    """Undo schema 9 (label files that name values only) on a fresh database, as releases up
    to 0.8.22 wrote it."""
    back_to_schema_9(raw)
    raw.execute("ALTER TABLE extra_labels DROP COLUMN scope")


def back_to_schema_6(raw: duckdb.DuckDBPyConnection) -> None:
    """Undo schema 7 (labels in other languages) on a fresh database, as releases up to 0.6.0
    wrote it."""
    back_to_schema_8(raw)
    raw.execute("ALTER TABLE load_files DROP COLUMN languages")
    raw.execute("ALTER TABLE extra_labels DROP COLUMN language")
    raw.execute("DROP TABLE entity_labels")


def test_a_0_2_0_database_gains_hop_from_and_keeps_its_turns(tmp_path):
    path = tmp_path / "v2.duckdb"
    r = cli("generate", "--db", path, "--out", tmp_path / "o", "--conversations", "5")
    assert r.exit_code == 0, r.output
    raw = duckdb.connect(str(path))  # back to schema 2, as release 0.2.0 wrote it
    for column in ("hop_from", "question_kind", "answer_sentence"):
        raw.execute(f"ALTER TABLE turns DROP COLUMN {column}")
    back_to_schema_6(raw)
    raw.execute("ALTER TABLE load_files DROP COLUMN keep_types")
    raw.execute("UPDATE schema_version SET version = 2")
    turns = raw.execute("SELECT count(*) FROM turns").fetchone()[0]
    raw.close()
    con = connect(path)
    assert migrations.shape(con) == migrations.shape(connect(tmp_path / "fresh.duckdb"))
    assert con.execute("SELECT count(*), count(hop_from) FROM turns").fetchone() == (turns, 0)


def test_a_0_3_0_database_gains_keep_types_and_its_loads_stay_whole(tmp_path, sample_path):
    path = tmp_path / "v3.duckdb"
    r = cli("kg", "load", sample_path, "--db", path)
    assert r.exit_code == 0, r.output
    raw = duckdb.connect(str(path))  # back to schema 3, as release 0.3.0 wrote it
    back_to_schema_6(raw)
    raw.execute("ALTER TABLE load_files DROP COLUMN keep_types")
    raw.execute("UPDATE schema_version SET version = 3")
    raw.close()
    con = connect(path)
    assert migrations.shape(con) == migrations.shape(connect(tmp_path / "fresh.duckdb"))
    assert con.execute("SELECT count(*), count(keep_types) FROM load_files").fetchone() == (1, 0)
    con.close()
    r = cli("kg", "load", sample_path, "--db", path)  # loaded whole before: still unchanged
    assert r.exit_code == 0 and "unchanged" in r.output, r.output


def labelled_database_of_schema(version: int, back, tmp_path, sample_path, shared_data):
    """The sample loaded with the property list, taken back to schema ``version`` by
    ``back`` and migrated: (its path, the migrated connection, its labels and property_info
    rows before)."""
    path = tmp_path / f"v{version}.duckdb"
    props = shared_data / "wikidata" / "property-labels-en.json"
    r = cli("kg", "load", sample_path, "--labels", props, "--db", path)
    assert r.exit_code == 0, r.output
    raw = duckdb.connect(str(path))
    labels = raw.execute("SELECT * FROM labels ORDER BY id").fetchall()
    info = raw.execute("SELECT * FROM property_info ORDER BY id").fetchall()
    back(raw)
    raw.execute("UPDATE schema_version SET version = ?", [version])
    raw.close()
    con = connect(path)
    assert migrations.shape(con) == migrations.shape(connect(tmp_path / "fresh.duckdb"))
    return path, con, labels, info


def test_a_0_6_0_database_gains_languages_and_keeps_its_labels(tmp_path, sample_path,
                                                               shared_data):
    """Schema 6 -> 7: every label file's labels are English, every load kept English only;
    the same file loaded again without --language is unchanged, with --language it reloads."""
    path, con, labels, info = labelled_database_of_schema(6, back_to_schema_6, tmp_path,
                                                          sample_path, shared_data)
    assert con.execute("SELECT DISTINCT language FROM extra_labels").fetchall() == [("en",)]
    assert con.execute("SELECT * FROM labels ORDER BY id").fetchall() == labels
    assert con.execute("SELECT * FROM property_info ORDER BY id").fetchall() == info
    assert con.execute("SELECT count(*), count(languages) FROM load_files").fetchone() == (1, 0)
    assert con.execute("SELECT count(*) FROM labels_by_language WHERE language = 'en'"
                       ).fetchone()[0] == len(labels)
    con.close()
    r = cli("kg", "load", sample_path, "--db", path)
    assert r.exit_code == 0 and "unchanged" in r.output, r.output
    r = cli("kg", "load", sample_path, "--language", "de", "--db", path)
    assert r.exit_code == 0 and "unchanged" not in r.output, r.output


def test_a_0_8_22_database_keeps_its_label_files_naming_everything(tmp_path, sample_path,
                                                                  shared_data):
    """Schema 8 -> 9: every label file loaded before names anything (types and properties
    too), as it did."""
    _, con, labels, info = labelled_database_of_schema(8, back_to_schema_8, tmp_path,
                                                       sample_path, shared_data)
    assert con.execute("SELECT * FROM labels ORDER BY id").fetchall() == labels
    assert con.execute("SELECT * FROM class_labels ORDER BY id").fetchall() == labels
    assert con.execute("SELECT * FROM property_info ORDER BY id").fetchall() == info
    con.close()


def test_a_0_8_27_database_opens_and_exports_its_turns_without_answer_languages(tmp_path):
    """A project from before 0.8.28 holds turns with no record of the language each answer
    was said in: it opens (migrated to schema 10), its turns are kept, and they export
    with answer_languages null (not recorded), never a guess."""
    path = tmp_path / "v9.duckdb"
    r = cli("generate", "--db", path, "--out", tmp_path / "o", "--conversations", "5")
    assert r.exit_code == 0, r.output
    raw = duckdb.connect(str(path))
    back_to_schema_9(raw)
    raw.execute("UPDATE schema_version SET version = 9")
    turns = raw.execute("SELECT count(*) FROM turns").fetchone()[0]
    raw.close()
    con = connect(path)
    assert migrations.shape(con) == migrations.shape(connect(tmp_path / "fresh.duckdb"))
    assert con.execute("SELECT count(*), count(answer_languages) FROM turns").fetchone() == \
        (turns, 0)
    con.close()
    r = cli("export", "--db", path, "--format", "jsonl", "--out", tmp_path / "old.jsonl")
    assert r.exit_code == 0, r.output
    records = [json.loads(x) for x in (tmp_path / "old.jsonl").read_text().splitlines()]
    assert records and all(t["answer_languages"] is None for rec in records
                           for t in rec["turns"])
