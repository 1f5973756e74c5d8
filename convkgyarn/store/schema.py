"""The whole schema of a project database, in one place.

``TABLES`` is the current shape of every table; ``VIEWS`` are derived and recreated whenever
the schema is created or migrated. Arrow schemas (for bulk inserts) are derived from this
DDL, never written a second time. A database records its ``SCHEMA_VERSION`` in
``schema_version``; ``migrations.py`` brings older databases to this shape.

Identity rules the keys enforce:
- a generation run is ``run_id``; its conversations are keyed by (run_id, conversation_id)
  and its turns by (run_id, conversation_id, turn), so a turn can never be stored twice;
- a configuration has at most one *current* run (``generation_runs.current``);
- an LLM response is cached once per request key, and a failing request is kept once.
"""

from __future__ import annotations

from functools import cache

import duckdb
import pyarrow as pa

SCHEMA_VERSION = 10

TABLES: dict[str, str] = {
    "schema_version": """
        version INTEGER, applied_at TIMESTAMP, code_version VARCHAR, note VARCHAR""",
    # -- the KG snapshot: every row carries the file_id of the source that loaded it
    "load_files": """
        file_id INTEGER PRIMARY KEY, path VARCHAR, kind VARCHAR, fingerprint VARCHAR,
        status VARCHAR, started_at TIMESTAMP, finished_at TIMESTAMP, lines BIGINT,
        bytes BIGINT, entities BIGINT, rejects BIGINT, skipped JSON, dump_date VARCHAR,
        code_version VARCHAR, keep_types VARCHAR[], languages VARCHAR[]""",
    "entities": """
        id VARCHAR, label VARCHAR, description VARCHAR, aliases VARCHAR[], sitelinks INTEGER,
        modified VARCHAR, file_id INTEGER, line_no BIGINT""",
    "properties": """
        id VARCHAR, label VARCHAR, description VARCHAR, aliases VARCHAR[], datatype VARCHAR,
        classes VARCHAR[], file_id INTEGER""",
    "entity_types": """
        entity_id VARCHAR, type_id VARCHAR, via VARCHAR, file_id INTEGER, line_no BIGINT""",
    "statements": """
        statement_id VARCHAR, entity_id VARCHAR, property_id VARCHAR, rank VARCHAR,
        datatype VARCHAR, value_type VARCHAR, value_id VARCHAR, value_text VARCHAR,
        unit_id VARCHAR, value_raw VARCHAR, precision INTEGER, truthy BOOLEAN,
        qualified BOOLEAN, ordinal INTEGER, file_id INTEGER, line_no BIGINT""",
    "qualifiers": """
        statement_id VARCHAR, entity_id VARCHAR, property_id VARCHAR,
        qualifier_property_id VARCHAR, datatype VARCHAR, value_type VARCHAR, value_id VARCHAR,
        value_text VARCHAR, unit_id VARCHAR, value_raw VARCHAR, precision INTEGER,
        ordinal INTEGER, file_id INTEGER, line_no BIGINT""",
    # A rejected line (field NULL: nothing of it loaded), or a value left out of an entity
    # that loaded (field: where, e.g. claims.P569 or claims.P39.qualifiers.P580 or labels.en;
    # snippet: the statement id and the value), or an entry of a label file (file_id and
    # line_no NULL, field: its key, e.g. Q42 or Q42.de).
    "load_rejects": """
        file_id INTEGER, file VARCHAR, line_no BIGINT, reason VARCHAR, snippet VARCHAR,
        field VARCHAR""",
    # labels from label files (kg load --labels), by language (en: English, as before 0.7)
    # (scope 'values': a --value-labels file's, naming values only, never a type or a
    # property: see the ``labels`` and ``class_labels`` views; NULL: naming anything)
    "extra_labels": """
        id VARCHAR, label VARCHAR, source VARCHAR, datatype VARCHAR, description VARCHAR,
        language VARCHAR, scope VARCHAR""",
    # Labels, descriptions and aliases of an item or property entity in a language besides
    # English that its load kept (load_files.languages): one row per (id, language) with
    # any of them. Items without an English label (not in entities) are here too.
    "entity_labels": """
        id VARCHAR, language VARCHAR, label VARCHAR, description VARCHAR, aliases VARCHAR[],
        file_id INTEGER, line_no BIGINT""",
    "kg_meta": """key VARCHAR PRIMARY KEY, value VARCHAR""",
    # -- predicates per type
    "type_predicates": """
        type_id VARCHAR, property_id VARCHAR, entities BIGINT, type_entities BIGINT,
        share DOUBLE, fact_kind_simple BIGINT, fact_kind_complex BIGINT,
        fact_kind_qualified BIGINT""",
    "selected_types": """
        type_id VARCHAR PRIMARY KEY, label VARCHAR, entities BIGINT, selected BOOLEAN,
        reason VARCHAR, selected_by VARCHAR, model VARCHAR, prompt_hash VARCHAR,
        input_hash VARCHAR, run_id VARCHAR, created_at TIMESTAMP""",
    "selected_predicates": """
        type_id VARCHAR, property_id VARCHAR, qualifier_property_id VARCHAR,
        selected_by VARCHAR, model VARCHAR, prompt_hash VARCHAR, input_hash VARCHAR,
        run_id VARCHAR, created_at TIMESTAMP""",
    "selection_inputs": """
        type_id VARCHAR PRIMARY KEY, input_hash VARCHAR, selected_by VARCHAR, run_id VARCHAR""",
    # -- related entities
    "embedding_runs": """
        run_id VARCHAR, method VARCHAR, path VARCHAR, dim INTEGER, entities BIGINT,
        triples BIGINT, epochs INTEGER, seconds DOUBLE, final_loss DOUBLE, input_hash VARCHAR,
        code_version VARCHAR, created_at TIMESTAMP""",
    # each popular person's related entity and the link that explains it: via_id is the
    # item both are linked to (NULL: a direct link), via_path the property path from the
    # person to the related entity (``^P161/P161``, ``P26``; NULL in rows stored by 0.5.5 and older)
    "related_entities": """
        entity_id VARCHAR, related_id VARCHAR, score DOUBLE, method VARCHAR, run_id VARCHAR,
        via_id VARCHAR, via_path VARCHAR""",
    # -- templates: one row per variant; template_inputs marks finished (fact, interaction)s
    "templates": """
        template_id VARCHAR PRIMARY KEY, type_id VARCHAR, property_id VARCHAR,
        qualifier_property_id VARCHAR, tense VARCHAR, interaction VARCHAR, phenomenon VARCHAR,
        variant INTEGER, text VARCHAR, answer VARCHAR, writer VARCHAR, model VARCHAR,
        prompt_hash VARCHAR, input_hash VARCHAR, run_id VARCHAR, created_at TIMESTAMP""",
    "template_inputs": """
        type_id VARCHAR, property_id VARCHAR, qualifier_property_id VARCHAR, tense VARCHAR,
        interaction VARCHAR, input_hash VARCHAR, complete BOOLEAN, run_id VARCHAR""",
    # -- templates in languages besides English (issue #35): the same facts and phenomena,
    # in each language's placeholders (convkgyarn.languages); one row per variant, and
    # local_template_inputs marks finished (fact, interaction, language)s
    "local_templates": """
        template_id VARCHAR PRIMARY KEY, language VARCHAR, type_id VARCHAR,
        property_id VARCHAR, qualifier_property_id VARCHAR, tense VARCHAR,
        interaction VARCHAR, phenomenon VARCHAR, variant INTEGER, text VARCHAR,
        writer VARCHAR, model VARCHAR, prompt_hash VARCHAR, input_hash VARCHAR,
        run_id VARCHAR, created_at TIMESTAMP""",
    "local_template_inputs": """
        language VARCHAR, type_id VARCHAR, property_id VARCHAR, qualifier_property_id VARCHAR,
        tense VARCHAR, interaction VARCHAR, input_hash VARCHAR, complete BOOLEAN,
        run_id VARCHAR""",
    # -- conversations
    "generation_runs": """
        run_id VARCHAR PRIMARY KEY, config_name VARCHAR, config JSON, seed INTEGER,
        source VARCHAR, current BOOLEAN, kg_version VARCHAR, dump_date VARCHAR,
        code_version VARCHAR, writers JSON, conversations INTEGER, turns INTEGER,
        created_at TIMESTAMP""",
    "conversations": """
        run_id VARCHAR, conversation_id VARCHAR, config_name VARCHAR, seed INTEGER,
        entity_id VARCHAR, entity_label VARCHAR, entity_type VARCHAR, entity_types VARCHAR[],
        related_entity_id VARCHAR, related_entity_label VARCHAR, fact_set_id VARCHAR,
        ordinal INTEGER, turns_asked INTEGER, short_reason VARCHAR, language VARCHAR,
        plan_id VARCHAR,
        PRIMARY KEY (run_id, conversation_id)""",
    "turns": """
        run_id VARCHAR, conversation_id VARCHAR, turn INTEGER, question VARCHAR,
        question_before_typo VARCHAR, answer VARCHAR[], answer_ids VARCHAR[],
        answer_values JSON, subject_id VARCHAR, property_id VARCHAR,
        qualifier_property_id VARCHAR, statement_id VARCHAR, phenomenon VARCHAR,
        template_id VARCHAR, writer VARCHAR, model VARCHAR, prompt_hash VARCHAR,
        tense VARCHAR, left_out INTEGER, query_id VARCHAR, outdated_answer VARCHAR[],
        outdated_values JSON, change JSON, hop_from INTEGER, question_kind VARCHAR,
        answer_sentence VARCHAR, answer_languages VARCHAR[],
        PRIMARY KEY (run_id, conversation_id, turn)""",
    # Each distinct SPARQL query of a turn, stored once (turns refer to it by id).
    "turn_queries": """
        query_id VARCHAR PRIMARY KEY, sparql VARCHAR""",
    # -- LLM calls
    "llm_cache": """
        key VARCHAR PRIMARY KEY, stage VARCHAR, model VARCHAR, prompt_hash VARCHAR,
        request JSON, response VARCHAR, prompt_tokens BIGINT, completion_tokens BIGINT,
        latency_s DOUBLE, served_by VARCHAR, created_at TIMESTAMP""",
    "llm_batches": """
        batch_key VARCHAR PRIMARY KEY, batch_id VARCHAR, stage VARCHAR, model VARCHAR,
        input_file_id VARCHAR, output_file_id VARCHAR, status VARCHAR, requests INTEGER,
        created_at TIMESTAMP, finished_at TIMESTAMP""",
    "llm_failures": """
        key VARCHAR PRIMARY KEY, stage VARCHAR, model VARCHAR, reason VARCHAR, raw VARCHAR,
        occurrences INTEGER, created_at TIMESTAMP, last_at TIMESTAMP""",
    # -- evaluation and ratings
    "eval_turns": """
        eval_id VARCHAR, model VARCHAR, config_name VARCHAR, conversation_id VARCHAR,
        turn INTEGER, question VARCHAR, gold VARCHAR[], answer_raw VARCHAR,
        answer_parsed VARCHAR[], na BOOLEAN, unparsable BOOLEAN, matcher_verdict INTEGER,
        judge_verdict INTEGER, score INTEGER, decided_by VARCHAR, answer_prompt_hash VARCHAR,
        judge_model VARCHAR, created_at TIMESTAMP, outcome VARCHAR""",
    "conversation_ratings": """
        conversation_id VARCHAR, config_name VARCHAR, model VARCHAR, prompt_hash VARCHAR,
        fluency INTEGER, relevance INTEGER, diversity INTEGER, grammar INTEGER""",
    "conversation_comparisons": """
        ours_id VARCHAR, theirs_id VARCHAR, ours_config VARCHAR, theirs_config VARCHAR,
        ours_shown_first BOOLEAN, model VARCHAR, dimension VARCHAR, winner VARCHAR""",
    # -- refresh, runs, drops
    # What a refresh changed, fact by fact: the values a fact held in the old snapshot where
    # the new one holds others (for stale-knowledge probes: generate --changed-since).
    "fact_changes": """
        refresh_id VARCHAR, entity_id VARCHAR, property_id VARCHAR, old_values JSON,
        old_dump_date VARCHAR, new_dump_date VARCHAR, created_at TIMESTAMP,
        PRIMARY KEY (refresh_id, entity_id, property_id)""",
    "refresh_runs": """
        refresh_id VARCHAR PRIMARY KEY, new_fingerprint VARCHAR, status VARCHAR, diff JSON,
        summary JSON, started_at TIMESTAMP, finished_at TIMESTAMP""",
    "stage_runs": """
        run_id VARCHAR, stage VARCHAR, started_at TIMESTAMP, seconds DOUBLE, stats JSON,
        code_version VARCHAR""",
    # each stage's input key (``Stage.input_key``): what decided its latest run
    "stage_inputs": """
        stage VARCHAR, scope VARCHAR, input_key VARCHAR, parts JSON, run_id VARCHAR,
        recorded_at TIMESTAMP, PRIMARY KEY (stage, scope)""",
    "dropped": """
        run_id VARCHAR, stage VARCHAR, item VARCHAR, reason VARCHAR, detail VARCHAR,
        context JSON, created_at TIMESTAMP""",
}

VIEWS: dict[str, str] = {
    # English label of an id as a type or a property is named: an entity, else a property
    # entity, else a supplied label of a --labels file (one per id: the latest file wins).
    # Never a --value-labels file's: a type named by another source than the dump's changes
    # the nouns and rankings its subjects are asked by ("What year was Brasenose College
    # built?" with CoDEx-M's type names, 0.8.17).
    "class_labels": """
        SELECT id, label FROM entities
        UNION ALL SELECT id, label FROM properties WHERE label IS NOT NULL
            AND id NOT IN (SELECT id FROM entities)
        UNION ALL SELECT id, arg_max(label, rowid) FROM extra_labels
            WHERE label IS NOT NULL AND language = 'en' AND scope IS NULL
              AND id NOT IN (SELECT id FROM entities)
              AND id NOT IN (SELECT id FROM properties WHERE label IS NOT NULL)
            GROUP BY id""",
    # English label of any id: as ``class_labels`` has it, else a --value-labels file's
    # (the latest wins): the names of values a dump holds but does not label ("playwright",
    # "science fiction literature"), so that a fact with such a value may be asked.
    # (NOT EXISTS against the sources, not NOT IN against class_labels: the view would be
    # expanded twice, which made every read of labels 2-3 times slower on a large KG)
    "labels": """
        SELECT id, label FROM class_labels
        UNION ALL SELECT x.id, arg_max(x.label, x.rowid) FROM extra_labels x
            WHERE x.label IS NOT NULL AND x.language = 'en' AND x.scope = 'values'
              AND NOT EXISTS (SELECT 1 FROM entities e WHERE e.id = x.id)
              AND NOT EXISTS (SELECT 1 FROM properties p WHERE p.id = x.id
                              AND p.label IS NOT NULL)
              AND NOT EXISTS (SELECT 1 FROM extra_labels o WHERE o.id = x.id
                              AND o.language = 'en' AND o.scope IS NULL
                              AND o.label IS NOT NULL)
            GROUP BY x.id""",
    # The label of any id in any language the project keeps, one per (id, language): English
    # as ``labels`` has it; every other language from the dump (entity_labels), else from a
    # labels file (the latest wins; a --value-labels file's only where no --labels file has
    # one). No fallback here: kg.languages.labels_in_language adds it (language -> its
    # variants -> mul -> en).
    "labels_by_language": """
        SELECT id, 'en' AS language, label FROM labels
        UNION ALL SELECT id, language, label FROM entity_labels WHERE label IS NOT NULL
        UNION ALL SELECT x.id, x.language,
                         arg_max(x.label, ((x.scope IS NULL)::BIGINT << 48) + x.rowid)
            FROM extra_labels x
            WHERE x.label IS NOT NULL AND x.language <> 'en' AND NOT EXISTS (
                SELECT 1 FROM entity_labels e WHERE e.id = x.id AND e.language = x.language
                AND e.label IS NOT NULL)
            GROUP BY x.id, x.language""",
    # Every property used by a statement or qualifier (or described by a property entity),
    # with a label and datatype where known.
    "property_info": """
        WITH used AS (
            SELECT property_id AS id, any_value(datatype) AS datatype FROM statements GROUP BY 1
            UNION ALL
            SELECT qualifier_property_id, any_value(datatype) FROM qualifiers GROUP BY 1
        ), used1 AS (SELECT id, any_value(datatype) AS datatype FROM used GROUP BY 1),
        extra AS (SELECT id, arg_max(label, rowid) AS label, arg_max(datatype, rowid) AS datatype,
                         arg_max(description, rowid) AS description
                  FROM extra_labels WHERE language = 'en' AND scope IS NULL GROUP BY id)
        SELECT coalesce(p.id, u.id) AS id,
               coalesce(p.label, x.label) AS label,
               coalesce(p.datatype, u.datatype, x.datatype) AS datatype,
               coalesce(p.description, x.description) AS description,
               coalesce(p.classes, []::VARCHAR[]) AS classes
        FROM used1 u FULL OUTER JOIN properties p ON p.id = u.id
        LEFT JOIN extra x ON x.id = coalesce(p.id, u.id)""",
    # One row per (entity, property) group: the fact kind of the paper.
    "facts": """
        SELECT entity_id, property_id,
               CASE WHEN bool_or(qualified) THEN 'qualified'
                    WHEN count(*) FILTER (WHERE truthy) > 1 THEN 'complex'
                    ELSE 'simple' END AS kind,
               count(*) FILTER (WHERE truthy) AS truthy_values
        FROM statements GROUP BY entity_id, property_id""",
    # Statements with their values as short text (item labels, amounts with unit labels);
    # answers for people are rendered in Python (convkgyarn.kg.render).
    "statement_values": """
        SELECT s.*,
               CASE WHEN s.value_id IS NOT NULL THEN l.label
                    WHEN s.unit_id IS NOT NULL THEN s.value_text || ' ' || coalesce(u.label, s.unit_id)
                    ELSE coalesce(s.value_text, s.value_raw) END AS value_label,
               u.label AS unit_label
        FROM statements s
        LEFT JOIN labels l ON l.id = s.value_id
        LEFT JOIN labels u ON u.id = s.unit_id""",
    "qualifier_values": """
        SELECT q.*,
               CASE WHEN q.value_id IS NOT NULL THEN l.label
                    WHEN q.unit_id IS NOT NULL THEN q.value_text || ' ' || coalesce(u.label, q.unit_id)
                    ELSE coalesce(q.value_text, q.value_raw) END AS value_label,
               u.label AS unit_label
        FROM qualifiers q
        LEFT JOIN labels l ON l.id = q.value_id
        LEFT JOIN labels u ON u.id = q.unit_id""",
    # Template rejections are drops of the template stage, with their context unpacked.
    "template_rejects": """
        SELECT context->>'type_id' AS type_id, context->>'property_id' AS property_id,
               context->>'qualifier_property_id' AS qualifier_property_id,
               context->>'tense' AS tense, context->>'interaction' AS interaction,
               context->>'phenomenon' AS phenomenon,
               CAST(context->>'variant' AS INTEGER) AS variant, detail AS text, reason,
               CAST(context->>'attempt' AS INTEGER) AS attempt, context->>'model' AS model,
               run_id, created_at
        FROM dropped WHERE stage = 'templates.generate' AND context->>'interaction' IS NOT NULL""",
    # Everything any stage dropped, bad dump lines included: coverage in one place.
    "drops": """
        SELECT stage, item, reason, detail, run_id, created_at FROM dropped
        UNION ALL
        SELECT 'kg.load', file || coalesce(':' || line_no, '') || coalesce(' ' || field, ''),
               reason, snippet, NULL, NULL FROM load_rejects""",
}

KG_TABLES = ("entities", "properties", "entity_types", "statements", "qualifiers",
             "load_rejects", "entity_labels")
# The KG snapshot as the stages read it: what a load, a label file or a refresh writes, and
# the views over it. Its content is identified by ``kg_meta.kg_version`` (``kg_version``).
KG_VIEWS = ("class_labels", "labels", "labels_by_language", "property_info", "facts",
            "statement_values", "qualifier_values")
KG_RELATIONS = frozenset(KG_TABLES + ("load_files", "extra_labels", "kg_meta") + KG_VIEWS)
# What a refresh records of how the KG changed: with the snapshot, what a loaded KG provides
# to the stages (``Pipeline`` checks every read against it and the stages before).
KG_HISTORY = ("refresh_runs", "fact_changes")
PROVIDED_BY_KG = KG_RELATIONS | frozenset(KG_HISTORY)


def kg_version(con: duckdb.DuckDBPyConnection) -> str:
    """Identity of the KG content: changes with every load, label file or refresh that
    changes it, and is kept by a refresh that found nothing changed."""
    row = con.execute("SELECT value FROM kg_meta WHERE key = 'kg_version'").fetchone()
    if row:
        return row[0]
    return con.execute(
        "SELECT coalesce(string_agg(fingerprint, ',' ORDER BY path), '') FROM load_files"
    ).fetchone()[0]


def create_statements() -> list[str]:
    """DDL that creates the current schema in an empty database."""
    out = [f"CREATE TABLE {name} ({cols.strip()})" for name, cols in TABLES.items()]
    return out + view_statements()


def view_statements() -> list[str]:
    return [f"CREATE OR REPLACE VIEW {name} AS {sql.strip()}" for name, sql in VIEWS.items()]


@cache
def _reference() -> duckdb.DuckDBPyConnection:
    """An in-memory database with the current schema: the source of derived Arrow schemas."""
    con = duckdb.connect(":memory:")
    for sql in create_statements():
        con.execute(sql)
    return con


@cache
def arrow_schema(table: str) -> pa.Schema:
    """The Arrow schema of a table, derived from its DDL."""
    if table not in TABLES and table not in VIEWS:
        raise KeyError(f"no table {table!r} in the schema")
    return _reference().sql(f"SELECT * FROM {table} LIMIT 0").to_arrow_table().schema


def columns(table: str) -> list[str]:
    return arrow_schema(table).names
