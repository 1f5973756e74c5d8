"""Counts that describe a loaded KG, with the definitions of ``convkgyarn.kg.extract``."""

from __future__ import annotations

from typing import Any

import duckdb

from convkgyarn.kg.languages import language_coverage
from convkgyarn.kg.snapshot import dump_date, label_coverage, sources


def kg_stats(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    one = lambda sql: con.execute(sql).fetchone()[0]  # noqa: E731
    kinds = dict(con.execute("SELECT kind, count(*) FROM facts GROUP BY kind").fetchall())
    return {
        "entities": one("SELECT count(*) FROM entities"),
        "statements": one("SELECT count(*) FROM statements"),
        "truthy_statements": one("SELECT count(*) FROM statements WHERE truthy"),
        "qualified_statements": one("SELECT count(*) FROM statements WHERE qualified"),
        "qualifiers": one("SELECT count(*) FROM qualifiers"),
        "properties": one("SELECT count(DISTINCT property_id) FROM statements"),
        "types": one("SELECT count(DISTINCT type_id) FROM entity_types"),
        "facts_by_kind": {k: kinds.get(k, 0) for k in ("simple", "complex", "qualified")},
        "rejected_lines": one("SELECT count(*) FROM load_rejects WHERE field IS NULL"),
        "rejected_values": one("SELECT count(*) FROM load_rejects WHERE field IS NOT NULL"),
        "property_entities": one("SELECT count(*) FROM properties"),
        "files": one("SELECT count(*) FROM load_files WHERE status = 'done'"),
        "dump_date": dump_date(con),
        "label_coverage": {k: v for k, v in label_coverage(con).items() if k != "warnings"},
        # per language (English and every kept one): entities labelled, item values labelled
        "label_languages": language_coverage(con),
        "sources": [{k: s[k] for k in ("path", "kind", "status", "entities", "keep_types",
                                       "languages")} for s in sources(con)],
        # label files given with --labels (and --value-labels: "scope" values): how many
        # labels each holds, in which languages
        "label_files": [{"path": path, "labels": n, "languages": languages, "scope": scope}
                        for path, n, languages, scope in con.execute(
            "SELECT source, count(*), list_sort(list(DISTINCT coalesce(language, 'en'))), "
            "coalesce(any_value(scope), 'all') FROM extra_labels GROUP BY source "
            "ORDER BY source").fetchall()],
    }
