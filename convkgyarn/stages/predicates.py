"""Predicates per type: F(t), every property used by the entities of type t."""

from __future__ import annotations

from typing import Any

import duckdb

from convkgyarn.config import PredicatesConfig
from convkgyarn.stage import Stage


class ExtractPredicates(Stage):
    """Build ``type_predicates``: per type, each property with how many of its entities use it."""

    name = "predicates.extract"

    def __init__(self, con: duckdb.DuckDBPyConnection, config: PredicatesConfig,
                 run_id: str | None = None) -> None:
        super().__init__(con, run_id)
        self.config = config

    def process(self) -> dict[str, Any]:
        con = self.con
        con.execute("BEGIN")
        con.execute("DELETE FROM type_predicates")
        con.execute(
            """
            INSERT INTO type_predicates
            WITH sized AS (
                SELECT type_id, count(DISTINCT entity_id) AS n FROM entity_types GROUP BY 1
                HAVING count(DISTINCT entity_id) >= ?
            ), typed AS (
                SELECT DISTINCT t.type_id, t.entity_id FROM entity_types t
                JOIN sized USING (type_id)
            )
            SELECT t.type_id, f.property_id, count(*) AS entities, any_value(s.n),
                   count(*) / any_value(s.n),
                   count(*) FILTER (WHERE f.kind = 'simple'),
                   count(*) FILTER (WHERE f.kind = 'complex'),
                   count(*) FILTER (WHERE f.kind = 'qualified')
            FROM typed t JOIN facts f ON f.entity_id = t.entity_id
            JOIN sized s ON s.type_id = t.type_id
            GROUP BY t.type_id, f.property_id
            """,
            [self.config.min_type_entities],
        )
        con.execute("COMMIT")
        types, rows = con.execute(
            "SELECT count(DISTINCT type_id), count(*) FROM type_predicates").fetchone()
        skipped = con.execute(
            "SELECT count(*) FROM (SELECT type_id FROM entity_types GROUP BY 1 "
            "HAVING count(DISTINCT entity_id) < ?)", [self.config.min_type_entities]).fetchone()[0]
        return {"types": types, "type_predicates": rows, "types_below_min_entities": skipped}
