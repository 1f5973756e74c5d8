"""An older dump shape is read the same: entity values written as {"entity-type": "item",
"numeric-id": 60} with no "id" (older dumps, some API replies) were read as nothing (New York
City had no types and no facts, "0 rejected lines"), and a refresh against such a copy
reported values as changed that had not changed. Here every entity value of a real file,
statements and qualifiers alike (items as Q.., properties as P..), is rewritten to that shape,
and both copies must give the same KG."""

from __future__ import annotations

import bz2
import json
from pathlib import Path

import pytest

from tests.helpers import cli, project

pytestmark = pytest.mark.shared_data
LETTERS = {"item": "Q", "property": "P"}


def _old_shape(snak: dict) -> int:
    dv = snak.get("datavalue")
    if not dv or dv.get("type") != "wikibase-entityid":
        return 0
    value = dv["value"]
    if value.get("entity-type") not in LETTERS or "id" not in value:
        return 0
    dv["value"] = {"entity-type": value["entity-type"], "numeric-id": int(value["id"][1:])}
    return 1


def write_old_shape_copy(src: Path, out: Path) -> int:
    """``src`` with every item and property value in the numeric-id shape; returns how many
    values were rewritten."""
    n = 0
    with bz2.open(src, "rt", encoding="utf-8") as fh, open(out, "w", encoding="utf-8") as w:
        for line in fh:
            if not line.strip():
                continue
            entity = json.loads(line)
            for group in (entity.get("claims") or {}).values():
                for claim in group:
                    n += _old_shape(claim["mainsnak"])
                    for snaks in (claim.get("qualifiers") or {}).values():
                        for snak in snaks:
                            n += _old_shape(snak)
            w.write(json.dumps(entity, ensure_ascii=False) + "\n")
    return n


def kg_tables(db: Path) -> dict:
    with project(db, write=False) as p:
        rows = lambda sql: sorted(map(repr, p.con.execute(sql).fetchall()))  # noqa: E731
        return {
            "statements": rows("SELECT * EXCLUDE (file_id) FROM statements"),
            "qualifiers": rows("SELECT * EXCLUDE (file_id) FROM qualifiers"),
            "entity_types": rows("SELECT * EXCLUDE (file_id) FROM entity_types"),
            "rejects": rows("SELECT line_no, field, reason FROM load_rejects"),
        }


def stats(db: Path) -> dict:
    r = cli("kg", "stats", "--json", "--db", db)
    assert r.exit_code == 0, r.output
    out = json.loads(r.output)
    for source in out.pop("sources"):  # the same but for the file's name
        assert source["status"] == "done"
        out.setdefault("source_entities", []).append(source["entities"])
    return out


@pytest.fixture(scope="module")
def both(shared_data, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("old-shape")
    wd = shared_data / "wikidata"
    real = wd / "real-entities-dev.ndjson.bz2"
    old = tmp / "real-entities-dev-old-shape.ndjson"
    assert write_old_shape_copy(real, old) > 20_000  # 13,700 statements, 7,000 qualifiers
    labels = ["--labels", wd / "property-labels-en.json",
              "--labels", shared_data / "labels" / "preferred-labels-en.json"]
    for path, db in ((real, tmp / "real.duckdb"), (old, tmp / "old.duckdb")):
        r = cli("kg", "load", path, *labels, "--db", db)
        assert r.exit_code == 0, r.output
    return real, old, tmp


def test_an_older_shape_copy_loads_to_the_same_kg(both):
    _, _, tmp = both
    assert stats(tmp / "old.duckdb") == stats(tmp / "real.duckdb")
    real, old = kg_tables(tmp / "real.duckdb"), kg_tables(tmp / "old.duckdb")
    for table in real:
        assert old[table] == real[table], table
    # New York City is a city again, with its facts (its file writes the numeric-id shape)
    with project(tmp / "real.duckdb", write=False) as p:
        types = {t for (t,) in p.con.execute(
            "SELECT type_id FROM entity_types WHERE entity_id = 'Q60'").fetchall()}
        values = p.con.execute("SELECT count(value_id), count(value_raw) FROM statements "
                               "WHERE entity_id = 'Q60' AND value_type = 'wikibase-entityid'"
                               ).fetchone()
    assert "Q1637706" in types and values[0] >= 40 and values[1] == 0


def test_a_refresh_with_the_older_shape_finds_nothing_changed(both):
    real, old, tmp = both
    r = cli("predicates", "extract", "--db", tmp / "real.duckdb")
    assert r.exit_code == 0, r.output
    r = cli("refresh", old, "--db", tmp / "real.duckdb")
    assert r.exit_code == 10, r.output  # nothing changed (13,000 values "changed" before)
