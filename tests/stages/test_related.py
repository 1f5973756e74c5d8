"""Related entities: embeddings on the bundled sample give pairs a person would accept."""

from __future__ import annotations

import numpy as np
import pytest

from convkgyarn.config import RelatedConfig
from convkgyarn.stages.related import BuildRelated, load_pbg_tsv, nearest_neighbours
from tests.helpers import context

SPECIFIC_PATHS = """
WITH edges AS (
    SELECT entity_id a, value_id b FROM statements WHERE value_id LIKE 'Q%'
      AND property_id NOT IN ('P21', 'P27', 'P31', 'P106')
    UNION SELECT value_id, entity_id FROM statements WHERE value_id LIKE 'Q%'
      AND property_id NOT IN ('P21', 'P27', 'P31', 'P106'))
SELECT r.entity_id, r.related_id,
       EXISTS (SELECT 1 FROM edges e WHERE e.a = r.entity_id AND e.b = r.related_id)
       OR EXISTS (SELECT 1 FROM edges e1 JOIN edges e2 ON e1.b = e2.a
                  WHERE e1.a = r.entity_id AND e2.b = r.related_id)
FROM related_entities r
"""


@pytest.fixture(scope="module")
def related(tmp_path_factory, _sample_db):
    import shutil

    from convkgyarn.store import connect

    path = tmp_path_factory.mktemp("rel") / "r.duckdb"
    shutil.copy(_sample_db, path)
    con = connect(path)
    report = BuildRelated(context(con, work_dir=path.parent)).run()
    yield con, report, path.parent
    con.close()


def test_popular_people_get_a_related_entity_that_makes_sense(related):
    con, report, _ = related
    pairs = dict(con.execute("SELECT entity_id, related_id FROM related_entities").fetchall())
    people = {r[0] for r in con.execute(
        "SELECT id FROM entities WHERE sitelinks >= 50 AND id IN "
        "(SELECT entity_id FROM entity_types WHERE type_id = 'Q5')").fetchall()}
    assert set(pairs) == people and all(pairs[p] != p for p in pairs)
    # a series' or film's lead relates to a co-star or the work; a band member to the band
    assert pairs["Q165219"] in {"Q172678", "Q239453", "Q192724"}  # Robert Downey Jr.
    assert pairs["Q1203"] in {"Q2599", "Q2643", "Q2632", "Q1299", "Q117012", "Q311238"}
    assert pairs["Q43274"] == "Q9682"  # Charles III -> Elizabeth II
    assert pairs["Q76"] in {"Q6279", "Q13133", "Q1124", "Q207", "Q22686", "Q6294"}
    linked = con.execute(SPECIFIC_PATHS).fetchall()
    share = sum(1 for r in linked if r[2]) / len(linked)
    assert share >= 0.6  # most pairs share a specific fact (cast, spouse, band, award ...)


def test_embeddings_are_saved_with_provenance_and_reused(related):
    con, report, folder = related
    assert report.stats["method"] == "complex" and report.stats["triples"] > 300
    files = list((folder / "embeddings").glob("embeddings-*.npy"))
    assert len(files) == 1 and np.load(files[0]).shape[1] == 2 * RelatedConfig().rank
    again = BuildRelated(context(con, work_dir=folder)).run()
    assert again.stats["method"] == "complex (reused)"


def test_inner_product_search_excludes_nothing_but_finds_the_closest():
    vectors = np.array([[1, 0], [0.9, 0.1], [0, 1], [-1, 0]], dtype=np.float32)
    scores, idx = nearest_neighbours(vectors, vectors[:1], k=2)
    assert list(idx[0]) == [0, 1]


def test_pbg_tsv_loads_only_wanted_entities(tmp_path):
    tsv = tmp_path / "pbg.tsv"
    tsv.write_text("<http://www.wikidata.org/entity/Q76>\t0.1\t0.2\n"
                   "<http://www.wikidata.org/entity/Q1>\t0.3\t0.4\n")
    ids, vecs = load_pbg_tsv(tsv, {"Q76"})
    assert ids == ["Q76"] and vecs.shape == (1, 2)


def test_selection_and_related_run_from_the_cli_on_real_entities(shared_data, tmp_path):
    from typer.testing import CliRunner

    from convkgyarn.cli import app

    db = str(tmp_path / "real.duckdb")
    runner = CliRunner()
    steps = [
        ["kg", "load", str(shared_data / "wikidata" / "entities-635.ndjson.bz2"), "--labels",
         str(shared_data / "labels" / "preferred-labels-en.json"), "--labels",
         str(shared_data / "wikidata" / "property-labels-en.json")],
        ["predicates", "extract"], ["predicates", "select"],
        ["related", "build", "--min-sitelinks", "10", "--epochs", "10"],
        ["predicates", "show", "Q5"], ["related", "show"],
    ]
    for args in steps:
        r = runner.invoke(app, [*args, "--db", db])
        assert r.exit_code == 0, (args, r.output)
    from convkgyarn.store import connect

    con = connect(db, read_only=True)
    selected = {r[0] for r in con.execute(
        "SELECT property_id FROM selected_predicates WHERE type_id = 'Q5'").fetchall()}
    assert {"P569", "P106", "P27"} <= selected and "P214" not in selected  # VIAF: external id
    pairs = con.execute("SELECT entity_id, related_id FROM related_entities").fetchall()
    popular = {r[0] for r in con.execute(
        "SELECT id FROM entities WHERE sitelinks >= 10 AND id IN (SELECT entity_id FROM "
        "entity_types WHERE type_id = 'Q5') AND id IN (SELECT entity_id FROM statements "
        "WHERE value_id LIKE 'Q%')").fetchall()}
    assert pairs and {a for a, _ in pairs} == popular and all(a != b for a, b in pairs)
