"""What `kg load` says about English label coverage, on real files."""

from __future__ import annotations

import json

import pytest

from tests.helpers import cli


@pytest.mark.shared_data
def test_low_label_coverage_is_one_note_with_every_figure(shared_data, tmp_path):
    wd = shared_data / "wikidata"
    db = tmp_path / "p.duckdb"
    r = cli("kg", "load", wd / "real-entities-dev.ndjson.bz2", "--labels",
            wd / "property-labels-en.json", "--db", db)
    assert r.exit_code == 0, r.output
    notes = [line for line in r.output.splitlines() if line.startswith("note:")]
    assert len(notes) == 1, r.output
    coverage = json.loads(cli("kg", "stats", "--json", "--db", db).output)["label_coverage"]
    for key, what in (("properties", "properties in use"), ("item_values", "item values"),
                      ("units", "units")):
        c = coverage[key]
        assert c["share"] < 0.9, coverage  # all three are low in this file
        assert f"{what} {c['share']:.0%} ({c['labelled']:,} of {c['used']:,})" in notes[0]
    assert notes[0].count("--labels") == 1


def test_full_label_coverage_says_nothing(sample_path, tmp_path):
    r = cli("kg", "load", sample_path, "--db", tmp_path / "p.duckdb")
    assert r.exit_code == 0, r.output
    assert "note:" not in r.output and "English labels" not in r.output
