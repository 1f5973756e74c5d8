"""Bring a project database from any earlier release to the current schema.

Versions: 0 is an empty file; 1 is a database written by convkgyarn 0.1.0 (no
``schema_version`` table; tables were created when first used, so some may be missing);
2 is the schema of ``schema.py``. Each step runs in one transaction: it either finishes
or leaves the database as it was. A fresh database is created at the current version
directly; a test checks that a migrated one ends with exactly the same shape.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone

import duckdb

from convkgyarn.errors import UserError
from convkgyarn.store import schema

log = logging.getLogger("convkgyarn.store")

# The 0.1.0 shape of every table 0.1.0 could create (CREATE TABLE IF NOT EXISTS there too).
V1_TABLES = {
    "load_files": "file_id INTEGER, path VARCHAR, fingerprint VARCHAR, status VARCHAR, "
                  "started_at TIMESTAMP, finished_at TIMESTAMP, lines BIGINT, bytes BIGINT, "
                  "entities BIGINT, rejects BIGINT, skipped JSON, dump_date VARCHAR, "
                  "code_version VARCHAR",
    "entities": "id VARCHAR, label VARCHAR, description VARCHAR, aliases VARCHAR[], "
                "sitelinks INTEGER, modified VARCHAR, file_id INTEGER, line_no BIGINT",
    "properties": "id VARCHAR, label VARCHAR, description VARCHAR, aliases VARCHAR[], "
                  "datatype VARCHAR, file_id INTEGER",
    "entity_types": "entity_id VARCHAR, type_id VARCHAR, via VARCHAR, file_id INTEGER, "
                    "line_no BIGINT",
    "statements": "statement_id VARCHAR, entity_id VARCHAR, property_id VARCHAR, rank VARCHAR, "
                  "datatype VARCHAR, value_type VARCHAR, value_id VARCHAR, value_text VARCHAR, "
                  "unit_id VARCHAR, value_raw VARCHAR, truthy BOOLEAN, qualified BOOLEAN, "
                  "ordinal INTEGER, file_id INTEGER, line_no BIGINT",
    "qualifiers": "statement_id VARCHAR, entity_id VARCHAR, property_id VARCHAR, "
                  "qualifier_property_id VARCHAR, datatype VARCHAR, value_type VARCHAR, "
                  "value_id VARCHAR, value_text VARCHAR, unit_id VARCHAR, value_raw VARCHAR, "
                  "ordinal INTEGER, file_id INTEGER, line_no BIGINT",
    "load_rejects": "file_id INTEGER, file VARCHAR, line_no BIGINT, reason VARCHAR, "
                    "snippet VARCHAR",
    "extra_labels": "id VARCHAR, label VARCHAR, source VARCHAR",
    "type_predicates": "type_id VARCHAR, property_id VARCHAR, entities BIGINT, "
                       "type_entities BIGINT, share DOUBLE, fact_kind_simple BIGINT, "
                       "fact_kind_complex BIGINT, fact_kind_qualified BIGINT",
    "kg_meta": "key VARCHAR, value VARCHAR",
    "stage_runs": "run_id VARCHAR, stage VARCHAR, started_at TIMESTAMP, seconds DOUBLE, "
                  "stats JSON, code_version VARCHAR",
    "dropped": "run_id VARCHAR, stage VARCHAR, item VARCHAR, reason VARCHAR, detail VARCHAR",
    "selected_predicates": "type_id VARCHAR, property_id VARCHAR, qualifier_property_id VARCHAR, "
                           "selected_by VARCHAR, model VARCHAR, prompt_hash VARCHAR, "
                           "input_hash VARCHAR, run_id VARCHAR, created_at TIMESTAMP",
    "selection_inputs": "type_id VARCHAR, input_hash VARCHAR, selected_by VARCHAR, "
                        "run_id VARCHAR",
    "templates": "template_id VARCHAR, type_id VARCHAR, property_id VARCHAR, "
                 "qualifier_property_id VARCHAR, interaction VARCHAR, phenomenon VARCHAR, "
                 "variant INTEGER, text VARCHAR, answer VARCHAR, writer VARCHAR, model VARCHAR, "
                 "prompt_hash VARCHAR, input_hash VARCHAR, run_id VARCHAR, "
                 "created_at TIMESTAMP",
    "template_rejects": "type_id VARCHAR, property_id VARCHAR, qualifier_property_id VARCHAR, "
                        "interaction VARCHAR, phenomenon VARCHAR, variant INTEGER, "
                        "text VARCHAR, reason VARCHAR, attempt INTEGER, model VARCHAR, "
                        "run_id VARCHAR, created_at TIMESTAMP",
    "generation_runs": "run_id VARCHAR, config_name VARCHAR, config JSON, seed INTEGER, "
                       "dump_date VARCHAR, code_version VARCHAR, writers JSON, "
                       "conversations INTEGER, created_at TIMESTAMP",
    "conversations": "conversation_id VARCHAR, run_id VARCHAR, config_name VARCHAR, "
                     "seed INTEGER, entity_id VARCHAR, entity_label VARCHAR, "
                     "entity_type VARCHAR, entity_types VARCHAR[], related_entity_id VARCHAR, "
                     "related_entity_label VARCHAR, fact_set_id VARCHAR, ordinal INTEGER",
    "turns": "conversation_id VARCHAR, turn INTEGER, question VARCHAR, "
             "question_before_typo VARCHAR, answer VARCHAR[], answer_ids VARCHAR[], "
             "subject_id VARCHAR, property_id VARCHAR, qualifier_property_id VARCHAR, "
             "statement_id VARCHAR, phenomenon VARCHAR, template_id VARCHAR, writer VARCHAR",
    "embedding_runs": "run_id VARCHAR, method VARCHAR, path VARCHAR, dim INTEGER, "
                      "entities BIGINT, triples BIGINT, epochs INTEGER, seconds DOUBLE, "
                      "final_loss DOUBLE, input_hash VARCHAR, code_version VARCHAR, "
                      "created_at TIMESTAMP",
    "related_entities": "entity_id VARCHAR, related_id VARCHAR, score DOUBLE, method VARCHAR, "
                        "run_id VARCHAR",
    "llm_cache": "key VARCHAR, stage VARCHAR, model VARCHAR, prompt_hash VARCHAR, "
                 "request JSON, response VARCHAR, prompt_tokens BIGINT, "
                 "completion_tokens BIGINT, latency_s DOUBLE, created_at TIMESTAMP",
    "llm_failures": "key VARCHAR, stage VARCHAR, model VARCHAR, reason VARCHAR, raw VARCHAR, "
                    "created_at TIMESTAMP",
    "eval_turns": "eval_id VARCHAR, model VARCHAR, config_name VARCHAR, "
                  "conversation_id VARCHAR, turn INTEGER, question VARCHAR, gold VARCHAR[], "
                  "answer_raw VARCHAR, answer_parsed VARCHAR[], na BOOLEAN, "
                  "unparsable BOOLEAN, matcher_verdict INTEGER, judge_verdict INTEGER, "
                  "score INTEGER, decided_by VARCHAR, answer_prompt_hash VARCHAR, "
                  "judge_model VARCHAR, created_at TIMESTAMP",
    "conversation_ratings": "conversation_id VARCHAR, config_name VARCHAR, model VARCHAR, "
                            "prompt_hash VARCHAR, fluency INTEGER, relevance INTEGER, "
                            "diversity INTEGER, grammar INTEGER",
    "conversation_comparisons": "ours_id VARCHAR, theirs_id VARCHAR, ours_config VARCHAR, "
                                "theirs_config VARCHAR, ours_shown_first BOOLEAN, "
                                "model VARCHAR, dimension VARCHAR, winner VARCHAR",
    "refresh_runs": "refresh_id VARCHAR, new_fingerprint VARCHAR, status VARCHAR, diff JSON, "
                    "summary JSON, started_at TIMESTAMP, finished_at TIMESTAMP",
}


@dataclass(frozen=True)
class Migration:
    version: int  # the version this step brings the database to
    note: str
    apply: Callable[[duckdb.DuckDBPyConnection], None]


def _tables(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {r[0] for r in con.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' "
        "AND table_catalog = current_database() AND table_type = 'BASE TABLE'").fetchall()}


def _rebuild(con: duckdb.DuckDBPyConnection, table: str, select: str,
             columns: list[str] | None = None) -> None:
    """Replace a table by the current schema's version of it, filled from ``select``
    (which reads the old table as ``old``) into ``columns`` (default: all of them). Keys and
    new columns come with the new shape."""
    con.execute(f"ALTER TABLE {table} RENAME TO {table}__old")
    con.execute(f"CREATE TABLE {table} ({schema.TABLES[table].strip()})")
    cols = ", ".join(columns or schema.columns(table))
    con.execute(f"INSERT INTO {table} ({cols}) {select.format(old=table + '__old')}")
    con.execute(f"DROP TABLE {table}__old")


_TIME_TEXT = (  # how 0.1.0 wrote a time value, and the precision each form had
    (r"^-?\d{1,4}-\d\d-\d\d( BCE)?$", 11), (r"^-?\d{1,4}-\d\d( BCE)?$", 10),
    (r"^\d{1,4}0s( BCE)?$", 8), (r"^\d+(st|nd|rd|th) century( BCE)?$", 7),
    (r"^\d+(st|nd|rd|th) millennium( BCE)?$", 6), (r"^-?\d+( BCE)?$", 9),
)


def _precision_sql(column: str) -> str:
    cases = " ".join(f"WHEN regexp_matches({column}, '{rx}') THEN {p}" for rx, p in _TIME_TEXT)
    return f"CASE {cases} ELSE NULL END"


def _to_v2(con: duckdb.DuckDBPyConnection) -> None:
    """0.1.0 -> 0.2.0: run identity (turns keyed by run), current runs, one cached response
    and one failure per request, drops with context, time precision, property classes."""
    for (view,) in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal "
                               "AND database_name = current_database()").fetchall():
        con.execute(f"DROP VIEW {view}")
    have = _tables(con)
    for table, cols in V1_TABLES.items():
        if table not in have:
            con.execute(f"CREATE TABLE {table} ({cols})")
    # KG: new columns; the kind of each source; time precision from 0.1.0's rendered text
    con.execute("ALTER TABLE load_files ADD COLUMN kind VARCHAR")
    con.execute("UPDATE load_files SET kind = CASE WHEN path LIKE 'sparql:%' THEN 'sparql' "
                "WHEN path LIKE '%/wikidata/sample-dump.json' THEN 'sample' ELSE 'dump' END")
    _rebuild(con, "load_files", "SELECT file_id, path, kind, fingerprint, status, started_at, "
             "finished_at, lines, bytes, entities, rejects, skipped, dump_date, code_version "
             "FROM {old} QUALIFY row_number() OVER (PARTITION BY file_id ORDER BY started_at "
             "DESC NULLS LAST) = 1", columns=LOAD_FILES_V2)
    for table in ("statements", "qualifiers"):
        con.execute(f"ALTER TABLE {table} ADD COLUMN precision INTEGER")
        con.execute(f"UPDATE {table} SET precision = {_precision_sql('value_text')} "
                    "WHERE value_type = 'time'")
        _rebuild(con, table, "SELECT " + ", ".join(schema.columns(table)) + " FROM {old}")
    con.execute("ALTER TABLE properties ADD COLUMN classes VARCHAR[]")
    _rebuild(con, "properties", "SELECT " + ", ".join(schema.columns("properties"))
             + " FROM {old}")
    con.execute("ALTER TABLE extra_labels ADD COLUMN datatype VARCHAR")
    con.execute("ALTER TABLE extra_labels ADD COLUMN description VARCHAR")
    _rebuild(con, "kg_meta", "SELECT key, arg_max(value, rowid) FROM {old} GROUP BY key")
    _rebuild(con, "selection_inputs", "SELECT type_id, arg_max(input_hash, rowid), "
             "arg_max(selected_by, rowid), arg_max(run_id, rowid) FROM {old} GROUP BY type_id")
    # templates: a tense per template; what was finished is now recorded in template_inputs
    con.execute("ALTER TABLE templates ADD COLUMN tense VARCHAR")
    con.execute("UPDATE templates SET tense = 'present'")
    _rebuild(con, "templates", "SELECT " + ", ".join(schema.columns("templates"))
             + " FROM {old} QUALIFY row_number() OVER (PARTITION BY template_id "
             "ORDER BY created_at DESC NULLS LAST) = 1")
    con.execute(f"CREATE TABLE template_inputs ({schema.TABLES['template_inputs'].strip()})")
    con.execute(
        "INSERT INTO template_inputs SELECT type_id, property_id, qualifier_property_id, "
        "'present', interaction, any_value(input_hash), bool_and(writer <> 'rules-fallback'), "
        "any_value(run_id) FROM templates GROUP BY type_id, property_id, "
        "qualifier_property_id, interaction")
    # drops: a time and a structured context; template rejections become drops
    con.execute("ALTER TABLE dropped ADD COLUMN context JSON")
    con.execute("ALTER TABLE dropped ADD COLUMN created_at TIMESTAMP")
    con.execute(
        "INSERT INTO dropped SELECT run_id, 'templates.generate', "
        "concat_ws('/', type_id, property_id, qualifier_property_id, interaction, phenomenon), "
        "reason, text, json_object('type_id', type_id, 'property_id', property_id, "
        "'qualifier_property_id', qualifier_property_id, 'tense', 'present', "
        "'interaction', interaction, 'phenomenon', phenomenon, 'variant', variant, "
        "'attempt', attempt, 'model', model), created_at FROM template_rejects")
    con.execute("DROP TABLE template_rejects")
    # runs: identity, the current run of each configuration, imported reference datasets
    _rebuild(con, "generation_runs",
             "SELECT run_id, config_name, config, seed, "
             "CASE WHEN config_name = 'convquestions' THEN 'imported' ELSE 'generated' END, "
             "row_number() OVER (PARTITION BY config_name ORDER BY created_at DESC) = 1, "
             "NULL, dump_date, code_version, writers, conversations, NULL, created_at "
             "FROM {old} QUALIFY row_number() OVER (PARTITION BY run_id "
             "ORDER BY created_at DESC) = 1")
    _rebuild(con, "conversations",
             "SELECT run_id, conversation_id, config_name, seed, entity_id, entity_label, "
             "entity_type, entity_types, related_entity_id, related_entity_label, fact_set_id, "
             "ordinal, NULL, NULL, NULL, NULL FROM {old} QUALIFY row_number() OVER (PARTITION "
             "BY run_id, conversation_id) = 1")  # language and plan: set by schema 8
    # 0.1.0 keyed turns by conversation alone: each goes to the latest run holding that id,
    # and a turn number stored twice is kept once
    _rebuild(con, "turns",
             "SELECT r.run_id, t.conversation_id, t.turn, t.question, t.question_before_typo, "
             "t.answer, t.answer_ids, NULL, t.subject_id, t.property_id, "
             "t.qualifier_property_id, t.statement_id, t.phenomenon, t.template_id, t.writer, "
             "tp.model, tp.prompt_hash, NULL, NULL, NULL, NULL, NULL, NULL FROM {old} t "
             "LEFT JOIN (SELECT template_id, "
             "any_value(model) AS model, any_value(prompt_hash) AS prompt_hash FROM templates "
             "GROUP BY 1) tp USING (template_id) JOIN (SELECT c.conversation_id, arg_max(c.run_id, g.created_at) "
             "AS run_id FROM conversations c JOIN generation_runs g USING (run_id) GROUP BY 1) r "
             "USING (conversation_id) QUALIFY row_number() OVER (PARTITION BY r.run_id, "
             "t.conversation_id, t.turn) = 1", columns=TURNS_V2)
    con.execute("UPDATE generation_runs g SET turns = (SELECT count(*) FROM turns t "
                "WHERE t.run_id = g.run_id)")
    # LLM: one cached response per key, one failure row per failing request
    _rebuild(con, "llm_cache",
             "SELECT key, stage, model, prompt_hash, request, response, prompt_tokens, "
             "completion_tokens, latency_s, NULL, created_at FROM {old} QUALIFY row_number() "
             "OVER (PARTITION BY key ORDER BY created_at) = 1")
    _rebuild(con, "llm_failures",
             "SELECT key, any_value(stage), any_value(model), arg_max(reason, created_at), "
             "arg_max(raw, created_at), count(*), min(created_at), max(created_at) "
             "FROM {old} GROUP BY key")
    _rebuild(con, "refresh_runs",
             "SELECT * FROM {old} QUALIFY row_number() OVER (PARTITION BY refresh_id "
             "ORDER BY started_at DESC) = 1")
    con.execute(f"CREATE TABLE selected_types ({schema.TABLES['selected_types'].strip()})")
    con.execute(f"CREATE TABLE llm_batches ({schema.TABLES['llm_batches'].strip()})")
    con.execute(f"CREATE TABLE fact_changes ({schema.TABLES['fact_changes'].strip()})")
    con.execute(f"CREATE TABLE turn_queries ({schema.TABLES['turn_queries'].strip()})")
    con.execute("ALTER TABLE eval_turns ADD COLUMN outcome VARCHAR")
    con.execute(f"CREATE TABLE schema_version ({schema.TABLES['schema_version'].strip()})")


# the turns columns of schema 2 (later schemas add columns after them)
LOAD_FILES_V2 = ["file_id", "path", "kind", "fingerprint", "status", "started_at",
                 "finished_at", "lines", "bytes", "entities", "rejects", "skipped", "dump_date",
                 "code_version"]
TURNS_V2 = ["run_id", "conversation_id", "turn", "question", "question_before_typo", "answer",
            "answer_ids", "answer_values", "subject_id", "property_id", "qualifier_property_id",
            "statement_id", "phenomenon", "template_id", "writer", "model", "prompt_hash",
            "tense", "left_out", "query_id", "outdated_answer", "outdated_values", "change"]


def _to_v3(con: duckdb.DuckDBPyConnection) -> None:
    """0.2.0 -> 0.3.0: conversations that move: the earlier turn a turn's subject comes from
    (``hop_from``), the kind of question, the answer as a sentence. A database migrated
    from 0.1.0 in the same run has them already."""
    for column, sql_type in (("hop_from", "INTEGER"), ("question_kind", "VARCHAR"),
                             ("answer_sentence", "VARCHAR")):
        con.execute(f"ALTER TABLE turns ADD COLUMN IF NOT EXISTS {column} {sql_type}")


def _to_v4(con: duckdb.DuckDBPyConnection) -> None:
    """0.3.0 -> 0.4.0: a load records the types it kept whole (``--type`` on ``kg load``;
    NULL: every entity whole), so a reload or a refresh keeps the same selection."""
    con.execute("ALTER TABLE load_files ADD COLUMN IF NOT EXISTS keep_types VARCHAR[]")


def _to_v5(con: duckdb.DuckDBPyConnection) -> None:
    """0.5.5 -> the next release: a related entity records the link that explains it
    (``via_id``, ``via_path``; pairs stored before keep NULL there until ``related build``
    runs again), and a reject may be one value of an entity that loaded (``field`` names
    where it was; NULL for a rejected line, as every earlier reject was)."""
    for column in ("via_id", "via_path"):
        con.execute(f"ALTER TABLE related_entities ADD COLUMN IF NOT EXISTS {column} VARCHAR")
    con.execute("ALTER TABLE load_rejects ADD COLUMN IF NOT EXISTS field VARCHAR")


def _to_v6(con: duckdb.DuckDBPyConnection) -> None:
    """After 0.5.5: every stage records its input key (``stage_inputs``); stages keyed per
    item (types, predicates, templates) find their stored keys changed once and redo their
    work (with an LLM: from the response cache, so no request is sent twice)."""
    con.execute(f"CREATE TABLE IF NOT EXISTS stage_inputs ({schema.TABLES['stage_inputs'].strip()})")


def _to_v7(con: duckdb.DuckDBPyConnection) -> None:
    """0.6.0 -> the next release: labels in more languages than English (issue #35). A load
    records the languages it kept besides English (``load_files.languages``; NULL: English
    only, as every earlier load), their labels go to ``entity_labels``, and a label file's
    labels carry their language (``extra_labels.language``: every earlier one is English)."""
    con.execute("ALTER TABLE load_files ADD COLUMN IF NOT EXISTS languages VARCHAR[]")
    con.execute("ALTER TABLE extra_labels ADD COLUMN IF NOT EXISTS language VARCHAR")
    con.execute("UPDATE extra_labels SET language = 'en' WHERE language IS NULL")
    con.execute("CREATE TABLE IF NOT EXISTS entity_labels "
                f"({schema.TABLES['entity_labels'].strip()})")


def _to_v8(con: duckdb.DuckDBPyConnection) -> None:
    """After 0.6.0: conversations in several languages (issue #35). A conversation records
    its language (every earlier one is English) and its plan (the id of the plan's English
    conversation: every earlier one is its own), and templates in languages besides English
    have tables of their own (``local_templates``, ``local_template_inputs``)."""
    con.execute("ALTER TABLE conversations ADD COLUMN IF NOT EXISTS language VARCHAR")
    con.execute("UPDATE conversations SET language = 'en' WHERE language IS NULL")
    con.execute("ALTER TABLE conversations ADD COLUMN IF NOT EXISTS plan_id VARCHAR")
    con.execute("UPDATE conversations SET plan_id = conversation_id WHERE plan_id IS NULL")
    for table in ("local_templates", "local_template_inputs"):
        con.execute(f"CREATE TABLE IF NOT EXISTS {table} ({schema.TABLES[table].strip()})")


def _to_v9(con: duckdb.DuckDBPyConnection) -> None:
    """0.8.22 -> 0.8.23: labels files that name values only (``kg load --value-labels``:
    ``extra_labels.scope`` 'values'; every earlier file's labels name anything, NULL)."""
    con.execute("ALTER TABLE extra_labels ADD COLUMN IF NOT EXISTS scope VARCHAR")


def _to_v10(con: duckdb.DuckDBPyConnection) -> None:
    """0.8.27 -> 0.8.28: a turn records the language of the label each answer value is said with
    (``turns.answer_languages``: "en" where a German conversation falls back to English);
    every earlier turn has NULL there (not recorded)."""
    con.execute("ALTER TABLE turns ADD COLUMN IF NOT EXISTS answer_languages VARCHAR[]")


MIGRATIONS = (Migration(2, "0.2.0: run identity, current runs, drops with context", _to_v2),
              Migration(3, "0.3.0: turns record the earlier answer they move to, their "
                            "kind of question and a sentence answer", _to_v3),
              Migration(4, "0.4.0: loads record the types they kept whole", _to_v4),
              Migration(5, "0.6.0: related entities record the link that explains "
                            "them; rejects of single values name their field", _to_v5),
              Migration(6, "0.6.0: stages record their input keys", _to_v6),
              Migration(7, "0.7.0: labels in languages besides English (entity_labels), "
                            "loads record the languages they kept", _to_v7),
              Migration(8, "0.7.0: conversations in several languages; templates in "
                            "languages besides English", _to_v8),
              Migration(9, "0.8.23: labels files that name values only (--value-labels)",
                        _to_v9),
              Migration(10, "0.8.28: turns record the language each answer is said in",
                        _to_v10))


def stored_version(con: duckdb.DuckDBPyConnection) -> int:
    tables = _tables(con)
    if not tables:
        return 0
    if "schema_version" not in tables:
        if "entities" in tables or "load_files" in tables:
            return 1
        raise UserError("not a convkgyarn project database (it has other tables)")
    row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    return row[0] or 0


def needs_migration(con: duckdb.DuckDBPyConnection) -> bool:
    return stored_version(con) != schema.SCHEMA_VERSION


def migrate(con: duckdb.DuckDBPyConnection, code_version: str) -> list[str]:
    """Create or migrate the schema; returns what was done (for a one-line note)."""
    version = stored_version(con)
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    if version > schema.SCHEMA_VERSION:
        raise UserError(f"the database has schema {version}, newer than this convkgyarn "
                        f"({code_version}, schema {schema.SCHEMA_VERSION}) understands; "
                        "upgrade convkgyarn")
    if version == schema.SCHEMA_VERSION:
        return []
    done = []
    con.begin()
    try:
        if version == 0:
            for sql in schema.create_statements():
                con.execute(sql)
            con.execute("INSERT INTO schema_version VALUES (?, ?, ?, 'created')",
                        [schema.SCHEMA_VERSION, now, code_version])
        else:
            for step in MIGRATIONS:
                if step.version <= version:
                    continue
                log.info("migrating the database to schema %d: %s", step.version, step.note)
                step.apply(con)
                con.execute("INSERT INTO schema_version VALUES (?, ?, ?, ?)",
                            [step.version, now, code_version, step.note])
                done.append(f"schema {step.version} ({step.note})")
            for sql in schema.view_statements():
                con.execute(sql)
        con.commit()
    except BaseException:
        con.rollback()
        raise
    return done


def shape(con: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[str, str]]]:
    """Tables with their columns and types, and views: to compare a migrated database with a
    fresh one."""
    out: dict[str, list[tuple[str, str]]] = {}
    for table, column, dtype in con.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'main' AND table_catalog = current_database() "
            "ORDER BY table_name, ordinal_position").fetchall():
        out.setdefault(table, []).append((column, dtype))
    keys = con.execute(
        "SELECT table_name, constraint_text FROM duckdb_constraints() WHERE database_name = "
        "current_database() AND constraint_type = 'PRIMARY KEY' ORDER BY 1").fetchall()
    for table, text in keys:
        out.setdefault(table, []).append(("PRIMARY KEY", re.sub(r"\s+", " ", text)))
    return out
