"""``types show`` and ``predicates show`` as a user reads them: a missing label is said."""

from __future__ import annotations

import duckdb

from tests.helpers import cli


def test_types_show_says_where_a_label_is_missing(tmp_path):
    db = tmp_path / "p.duckdb"
    assert cli("generate", "--db", db, "--out", tmp_path / "o", "--conversations", "2"
               ).exit_code == 0
    con = duckdb.connect(str(db))
    selected = con.execute("SELECT count(*) FROM selected_types WHERE selected").fetchone()[0]
    con.execute("UPDATE selected_types SET label = NULL WHERE type_id = 'Q11424'")
    con.close()
    r = cli("types", "show", "--db", db, "--selected", env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    row = next(line for line in r.output.splitlines() if "Q11424" in line)
    assert "(no English label)" in row
    text = " ".join(r.output.split())
    assert f"1 of {selected} selected types have no English label" in text
