"""The project's DuckDB database: one file, its schema, and the views every stage reads."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pyarrow as pa

SCHEMA = """
CREATE TABLE IF NOT EXISTS load_files (
    file_id INTEGER, path VARCHAR, fingerprint VARCHAR, status VARCHAR,
    started_at TIMESTAMP, finished_at TIMESTAMP, lines BIGINT, bytes BIGINT,
    entities BIGINT, rejects BIGINT, skipped JSON, dump_date VARCHAR, code_version VARCHAR
);
CREATE TABLE IF NOT EXISTS entities (
    id VARCHAR, label VARCHAR, description VARCHAR, aliases VARCHAR[], sitelinks INTEGER,
    modified VARCHAR, file_id INTEGER, line_no BIGINT
);
CREATE TABLE IF NOT EXISTS properties (
    id VARCHAR, label VARCHAR, description VARCHAR, aliases VARCHAR[], datatype VARCHAR,
    file_id INTEGER
);
CREATE TABLE IF NOT EXISTS entity_types (
    entity_id VARCHAR, type_id VARCHAR, via VARCHAR, file_id INTEGER, line_no BIGINT
);
CREATE TABLE IF NOT EXISTS statements (
    statement_id VARCHAR, entity_id VARCHAR, property_id VARCHAR, rank VARCHAR,
    datatype VARCHAR, value_type VARCHAR, value_id VARCHAR, value_text VARCHAR,
    unit_id VARCHAR, value_raw VARCHAR, truthy BOOLEAN, qualified BOOLEAN, ordinal INTEGER,
    file_id INTEGER, line_no BIGINT
);
CREATE TABLE IF NOT EXISTS qualifiers (
    statement_id VARCHAR, entity_id VARCHAR, property_id VARCHAR,
    qualifier_property_id VARCHAR, datatype VARCHAR, value_type VARCHAR, value_id VARCHAR,
    value_text VARCHAR, unit_id VARCHAR, value_raw VARCHAR, ordinal INTEGER, file_id INTEGER,
    line_no BIGINT
);
CREATE TABLE IF NOT EXISTS load_rejects (
    file_id INTEGER, file VARCHAR, line_no BIGINT, reason VARCHAR, snippet VARCHAR
);
CREATE TABLE IF NOT EXISTS extra_labels (id VARCHAR, label VARCHAR, source VARCHAR);
CREATE TABLE IF NOT EXISTS type_predicates (
    type_id VARCHAR, property_id VARCHAR, entities BIGINT, type_entities BIGINT,
    share DOUBLE, fact_kind_simple BIGINT, fact_kind_complex BIGINT,
    fact_kind_qualified BIGINT
);
CREATE TABLE IF NOT EXISTS kg_meta (key VARCHAR, value VARCHAR);
CREATE TABLE IF NOT EXISTS stage_runs (
    run_id VARCHAR, stage VARCHAR, started_at TIMESTAMP, seconds DOUBLE, stats JSON,
    code_version VARCHAR
);
CREATE TABLE IF NOT EXISTS dropped (
    run_id VARCHAR, stage VARCHAR, item VARCHAR, reason VARCHAR, detail VARCHAR
);

-- English label of any id: an entity in the KG, a property entity, else a supplied label.
CREATE OR REPLACE VIEW labels AS
SELECT id, label FROM entities
UNION ALL SELECT id, label FROM properties WHERE label IS NOT NULL
    AND id NOT IN (SELECT id FROM entities)
UNION ALL SELECT id, label FROM extra_labels
    WHERE id NOT IN (SELECT id FROM entities)
      AND id NOT IN (SELECT id FROM properties WHERE label IS NOT NULL);

-- Every property used by a statement or qualifier, with a label and datatype where known.
CREATE OR REPLACE VIEW property_info AS
WITH used AS (
    SELECT property_id AS id, any_value(datatype) AS datatype FROM statements GROUP BY 1
    UNION ALL
    SELECT qualifier_property_id, any_value(datatype) FROM qualifiers GROUP BY 1
), used1 AS (SELECT id, any_value(datatype) AS datatype FROM used GROUP BY 1)
SELECT coalesce(p.id, u.id) AS id,
       coalesce(p.label, x.label) AS label,
       coalesce(p.datatype, u.datatype) AS datatype,
       p.description AS description
FROM used1 u FULL OUTER JOIN properties p ON p.id = u.id
LEFT JOIN (SELECT id, any_value(label) AS label FROM extra_labels GROUP BY 1) x
    ON x.id = coalesce(p.id, u.id);

-- One row per (entity, property) group: the fact kind of the paper.
CREATE OR REPLACE VIEW facts AS
SELECT entity_id, property_id,
       CASE WHEN bool_or(qualified) THEN 'qualified'
            WHEN count(*) FILTER (WHERE truthy) > 1 THEN 'complex'
            ELSE 'simple' END AS kind,
       count(*) FILTER (WHERE truthy) AS truthy_values
FROM statements GROUP BY entity_id, property_id;

-- Statements with their values rendered for people (item labels, units).
CREATE OR REPLACE VIEW statement_values AS
SELECT s.*,
       CASE WHEN s.value_id IS NOT NULL THEN coalesce(l.label, s.value_id)
            WHEN s.unit_id IS NOT NULL THEN s.value_text || ' ' || coalesce(u.label, s.unit_id)
            ELSE coalesce(s.value_text, s.value_raw) END AS value_label
FROM statements s
LEFT JOIN labels l ON l.id = s.value_id
LEFT JOIN labels u ON u.id = s.unit_id;

CREATE OR REPLACE VIEW qualifier_values AS
SELECT q.*,
       CASE WHEN q.value_id IS NOT NULL THEN coalesce(l.label, q.value_id)
            WHEN q.unit_id IS NOT NULL THEN q.value_text || ' ' || coalesce(u.label, q.unit_id)
            ELSE coalesce(q.value_text, q.value_raw) END AS value_label
FROM qualifiers q
LEFT JOIN labels l ON l.id = q.value_id
LEFT JOIN labels u ON u.id = q.unit_id;
"""

KG_TABLES = ("entities", "properties", "entity_types", "statements", "qualifiers", "load_rejects")


DEFAULT_MEMORY_LIMIT = "2GB"


def connect(db: Path | str, read_only: bool = False,
            memory_limit: str = DEFAULT_MEMORY_LIMIT) -> duckdb.DuckDBPyConnection:
    """Open (creating if needed) the project database with the current schema.

    DuckDB's buffer pool is capped so that loading a dump of any size keeps memory flat.
    """
    db = Path(db)
    if not read_only:
        db.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(db), read_only=read_only, config={"memory_limit": memory_limit})
    if not read_only:
        con.execute(SCHEMA)
    return con


def insert_arrow(con: duckdb.DuckDBPyConnection, table: str, data: pa.Table) -> None:
    """Bulk insert an Arrow table by column name (never row by row)."""
    view = f"_arrow_{table}"
    con.register(view, data)
    try:
        con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM {view}")
    finally:
        con.unregister(view)
