"""Related entities: each popular person gets another person the KG can explain (a direct link
or an item both are linked to), recorded with the pair; the rest are drops with a reason."""

from __future__ import annotations

import json
import shutil
from itertools import count

import numpy as np
import pytest

from convkgyarn.config import RelatedConfig
from convkgyarn.errors import UserError
from convkgyarn.stages.related import (
    CONNECTING_PROPERTIES, BuildRelated, StepProgress, load_pbg_tsv, nearest_neighbours,
    train_complex)
from convkgyarn.store import connect
from tests.helpers import cli, context

WIDE = {"COLUMNS": "200"}  # rich tables unwrapped
POPULAR_PEOPLE = """
SELECT DISTINCT id FROM entities WHERE sitelinks >= ? AND id IN
    (SELECT entity_id FROM entity_types WHERE type_id = 'Q5')"""


def build(con, folder, progress=None, **related):
    """Run the stage on ``con`` with ``related.*`` overrides; returns its report."""
    ctx = context(con, work_dir=folder, **{f"related.{k}": v for k, v in related.items()})
    return BuildRelated(ctx, progress=progress).run()


def pairs(con) -> dict[str, tuple]:
    return {r[0]: r[1:] for r in con.execute(
        "SELECT entity_id, related_id, via_id, via_path, method, score "
        "FROM related_entities").fetchall()}


def holds(con, subject: str, path: str, value: str) -> bool:
    """Whether one leg of a path (``P26`` or ``^P40``) is a truthy statement of the KG."""
    if path.startswith("^"):
        subject, value, path = value, subject, path[1:]
    return con.execute("SELECT count(*) FROM statements WHERE truthy AND entity_id = ? AND "
                       "property_id = ? AND value_id = ?", [subject, path, value]).fetchone()[0] > 0


def assert_every_pair_is_explained(con) -> None:
    """Every stored pair's recorded link is in the KG, through connecting properties only."""
    for person, (related, via, path, *_rest) in pairs(con).items():
        assert path, person
        legs = path.split("/")
        assert all(leg.lstrip("^") in CONNECTING_PROPERTIES for leg in legs), path
        if via is None:
            assert len(legs) == 1 and holds(con, person, legs[0], related), (person, path)
        else:
            assert len(legs) == 2 and via not in (person, related), (person, path)
            assert holds(con, person, legs[0], via) and holds(con, related, _reverse(legs[1]),
                                                              via), (person, via, path)


def _reverse(leg: str) -> str:
    return leg[1:] if leg.startswith("^") else "^" + leg


@pytest.fixture(scope="module")
def shared(tmp_path_factory, _sample_db):
    """The defaults on the bundled sample, with the progress events they reported."""
    path = tmp_path_factory.mktemp("rel") / "r.duckdb"
    shutil.copy(_sample_db, path)
    con = connect(path)
    events: list[StepProgress] = []
    report = build(con, path.parent, progress=events.append)
    yield con, report, events
    con.close()


def test_defaults_give_popular_people_a_person_the_kg_connects_them_to(shared):
    con, report, _ = shared
    found = pairs(con)
    assert report.stats["method"] == "shared" and len(found) >= 40
    people = {r[0] for r in con.execute("SELECT entity_id FROM entity_types "
                                        "WHERE type_id = 'Q5'").fetchall()}
    assert set(found.values()) and all(r[0] in people and r[0] != p for p, r in found.items())
    assert_every_pair_is_explained(con)
    assert found["Q43274"][:3] == ("Q9682", None, "P25")  # Charles III: his mother
    assert found["Q13909"][:3] == ("Q35332", None, "P26")  # Angelina Jolie: spouse Brad Pitt
    # a Beatle: another Beatle, through the band
    assert found["Q2643"][0] in {"Q1203", "Q2599", "Q2632"} and found["Q2643"][1] == "Q1299"
    # an actor: someone of a film he is cast in, named with the film
    rdj, via, path = found["Q165219"][:3]
    assert path.startswith("^P161/") and holds(con, via, "P161", "Q165219")


def test_a_popular_person_nobody_is_connected_to_is_a_drop_with_its_reason(shared):
    con, report, _ = shared
    popular = {r[0] for r in con.execute(POPULAR_PEOPLE, [50]).fetchall()}
    dropped = dict(con.execute("SELECT item, reason FROM dropped WHERE stage = "
                               "'related.build'").fetchall())
    assert dropped and set(pairs(con)) | set(dropped) == popular
    assert not set(pairs(con)) & set(dropped)
    assert all("nothing in the KG connects it" in reason for reason in dropped.values())
    assert report.stats["without_connection"] == len(dropped)
    assert report.stats["weakly_connected"] == 0  # the sample's films and bands are small


def test_a_pair_resting_only_on_widely_shared_items_is_dropped(tmp_path, _sample_db):
    """Kate Winslet's best partner shares one film with her (Titanic, score 1/ln 4 = 0.72):
    with min_score above that she gets none, a drop that names the link it refused."""
    path = tmp_path / "w.duckdb"
    shutil.copy(_sample_db, path)
    con = connect(path)
    report = build(con, tmp_path, min_score=1.5)
    found = pairs(con)
    assert "Q202765" not in found and all(r[4] >= 1.5 for r in found.values())
    assert found["Q43274"][0] == "Q9682"  # a mother is a direct link: 2.0 and more
    reason, detail = con.execute("SELECT reason, detail FROM dropped WHERE stage = "
                                 "'related.build' AND item = 'Q202765'").fetchone()
    assert "only items many entities share" in reason and "Q44578" in detail  # Titanic
    assert report.stats["weakly_connected"] >= 1
    con.close()


def test_progress_is_reported_through_the_stage_hook(shared):
    _, report, events = shared
    finished = [e for e in events if e.finished]
    assert [e.step for e in finished] == ["reading connecting links", "finding connected people"]
    assert finished[0].unit == "links" and finished[0].done > 100
    assert finished[1].done == finished[1].total == report.stats["people"]
    assert finished[1].unit == "people" and f"{report.stats['related']:,}" in finished[1].note
    assert [e.step for e in events].count("finding connected people") >= 3  # start, chunk, end


def test_categories_never_connect_but_a_shared_film_does(tmp_path, sample_path):
    """Two actors of one country, born in one city, share categories: no pair. A film both
    are cast in connects them, and the film is recorded."""
    ents = _people(("Q9100001", "Ann Example"), ("Q9100002", "Bea Example"))
    for e in ents:
        e["claims"] = {"P106": [_claim(e["id"], "P106", "Q33999")],  # actor
                       "P27": [_claim(e["id"], "P27", "Q30")],
                       "P19": [_claim(e["id"], "P19", "Q60")],
                       "P31": [_claim(e["id"], "P31", "Q5")]}
    db = _load(tmp_path / "a", ents)
    con = connect(db)
    report = build(con, tmp_path / "a")
    assert report.stats["related"] == 0 and report.stats["without_connection"] == 2
    con.close()
    film = {"type": "item", "id": "Q9100003", "labels": {"en": {"language": "en",
                                                                  "value": "Example Film"}},
            "sitelinks": {}, "claims": {"P161": [_claim("Q9100003", "P161", "Q9100001", 1),
                                                 _claim("Q9100003", "P161", "Q9100002", 2)]}}
    con = connect(_load(tmp_path / "b", [*ents, film]))
    build(con, tmp_path / "b")
    assert pairs(con)["Q9100001"][:3] == ("Q9100002", "Q9100003", "^P161/P161")
    assert pairs(con)["Q9100002"][:3] == ("Q9100001", "Q9100003", "^P161/P161")
    con.close()


def test_complex_ranks_connected_candidates_and_reuses_its_vectors(tmp_path, _sample_db):
    path = tmp_path / "c.duckdb"
    shutil.copy(_sample_db, path)
    con = connect(path)
    events: list[StepProgress] = []
    report = build(con, tmp_path, progress=events.append, method="complex", epochs=5)
    s = report.stats
    assert s["method"] == "complex" and s["epochs"] == 5 and s["stopped"] == "epochs"
    assert s["triples"] > 300 and s["related"] >= 40
    assert {m for _, _, _, m, _ in pairs(con).values()} == {"complex"}
    assert all(-1 <= score <= 1 for *_, score in pairs(con).values())  # cosines
    assert_every_pair_is_explained(con)
    training = [e for e in events if e.step == "training ComplEx"]
    assert [e.done for e in training if not e.finished] == [0, 1, 2, 3, 4, 5]
    assert training[-1].finished and "stopped by epochs" in training[-1].note
    files = list((tmp_path / "embeddings").glob("embeddings-*.npy"))
    assert len(files) == 1 and np.load(files[0]).shape[1] == 2 * RelatedConfig().rank
    before = pairs(con)
    again = build(con, tmp_path, method="complex", epochs=5)
    assert again.stats["reused"] == str(files[0])
    assert {p: r[:4] for p, r in pairs(con).items()} == {p: r[:4] for p, r in before.items()}
    con.close()


def test_training_honours_its_time_budget_on_the_stage(tmp_path, _sample_db):
    path = tmp_path / "b.duckdb"
    shutil.copy(_sample_db, path)
    con = connect(path)
    report = build(con, tmp_path, method="complex", time_budget=0.001, batch_size=100)
    assert report.stats["stopped"] == "time budget" and report.stats["epochs"] == 1
    assert report.stats["related"] >= 40  # the vectors so far still rank the candidates
    con.close()


def test_training_stops_at_the_budget_by_its_clock_within_an_epoch():
    rng = np.random.default_rng(0)
    triples = np.stack([rng.integers(0, 50, 400), rng.integers(0, 3, 400),
                        rng.integers(0, 50, 400)], 1)
    ticks = count()
    result = train_complex(triples, 50, 3, rank=4, epochs=50, batch_size=100, time_budget=5.5,
                           clock=lambda: float(next(ticks)))
    # the clock advances one second per reading: the start, then one per batch
    assert result.stopped == "time budget" and result.epochs == 1


def test_training_stops_when_the_held_out_check_stops_improving():
    rng = np.random.default_rng(0)
    triples = np.stack([rng.integers(0, 40, 600), rng.integers(0, 2, 600),
                        rng.integers(0, 40, 600)], 1)
    result = train_complex(triples[:500], 40, 2, rank=4, epochs=50, lr=0.0,
                           held_out=triples[500:], patience=2)
    # nothing is learnt: the first check is the best, the next two are no better
    assert result.stopped == "held-out check" and result.epochs == 3
    assert result.held_out_mrr is not None and 0 < result.held_out_mrr <= 1


def test_pbg_vectors_choose_among_connected_candidates(tmp_path, _sample_db):
    """Tom Hanks is connected to Spielberg (two films) and Zemeckis (Forrest Gump): vectors
    that make Zemeckis his twin pick Zemeckis; an unconnected twin is never picked."""
    path = tmp_path / "p.duckdb"
    shutil.copy(_sample_db, path)
    con = connect(path)
    ids = [r[0] for r in con.execute("SELECT id FROM entities ORDER BY id").fetchall()]
    vectors = np.eye(len(ids), dtype=np.float32)
    twin = {"Q2263": "Q187364", "Q76": "Q9682"}  # Hanks ~ Zemeckis; Obama ~ Elizabeth II
    lines = []
    for i, e in enumerate(ids):
        v = vectors[ids.index(twin[e])] if e in twin else vectors[i]
        lines.append(f"<http://www.wikidata.org/entity/{e}>\t" + "\t".join(map(str, v)))
    tsv = tmp_path / "pbg.tsv"
    tsv.write_text("\n".join(lines) + "\n")
    report = build(con, tmp_path, pretrained=tsv)
    found = pairs(con)
    assert report.stats["method"] == "pbg" and found["Q2263"][0] == "Q187364"
    assert found["Q2263"][3] == "pbg" and found["Q76"][0] != "Q9682"  # a twin, not connected
    assert_every_pair_is_explained(con)
    con.close()


def test_pbg_tsv_loads_only_wanted_entities_and_names_a_bad_line(tmp_path):
    tsv = tmp_path / "pbg.tsv"
    tsv.write_text("<http://www.wikidata.org/entity/Q76>\t0.1\t0.2\n"
                   "<http://www.wikidata.org/entity/Q1>\t0.3\t0.4\n")
    ids, vecs = load_pbg_tsv(tsv, {"Q76"})
    assert ids == ["Q76"] and vecs.shape == (1, 2)
    tsv.write_text("<http://www.wikidata.org/entity/Q76>\t0.1\tzero\n")
    with pytest.raises(UserError, match=r"pbg.tsv:1: not an entity followed by"):
        load_pbg_tsv(tsv, {"Q76"})


def test_inner_product_search_finds_the_closest():
    vectors = np.array([[1, 0], [0.9, 0.1], [0, 1], [-1, 0]], dtype=np.float32)
    _, idx = nearest_neighbours(vectors, vectors[:1], k=2)
    assert list(idx[0]) == [0, 1]


def test_a_database_with_pairs_of_an_older_release_opens_and_keeps_them(tmp_path, _sample_db):
    """Schema 4 had no via columns: its pairs are kept (with no recorded link) and shown."""
    path = tmp_path / "old.duckdb"
    shutil.copy(_sample_db, path)
    import duckdb

    raw = duckdb.connect(str(path))
    raw.execute("INSERT INTO related_entities (entity_id, related_id, score, method, run_id) "
                "VALUES ('Q76', 'Q13133', 0.9, 'complex', 'old')")
    for column in ("via_id", "via_path"):
        raw.execute(f"ALTER TABLE related_entities DROP COLUMN {column}")
    raw.execute("UPDATE schema_version SET version = 4")
    raw.close()
    r = cli("related", "show", "--db", path, env=WIDE)
    assert r.exit_code == 0, r.output
    assert "Michelle Obama" in r.output and "(not recorded)" in r.output
    con = connect(path, read_only=True)
    assert pairs(con) == {"Q76": ("Q13133", None, None, "complex", 0.9)}
    con.close()


def test_related_build_from_the_cli_prints_one_line_per_step_and_the_pairs(tmp_path, sample_path):
    db = tmp_path / "s.duckdb"
    assert cli("kg", "load", sample_path, "--db", db).exit_code == 0
    r = cli("related", "build", "--db", db)
    assert r.exit_code == 0, r.output
    lines = r.output.splitlines()
    assert any(line.startswith("reading connecting links: ") for line in lines)
    assert any(line.startswith("finding connected people: 46 people in") for line in lines)
    assert any(line.startswith("4") and "related entities for 46 popular people (shared)"
               in line for line in lines), r.output
    r = cli("related", "show", "--db", db, "--limit", "100", env=WIDE)
    assert "Elizabeth II" in r.output and "-> mother ->" in r.output
    r = cli("related", "build", "--db", db, "--method", "pbg")
    assert r.exit_code == 2 and "method pbg needs pretrained" in r.output


def test_selection_and_related_run_from_the_cli_on_real_entities(shared_data, tmp_path):
    db = str(tmp_path / "real.duckdb")
    steps = [
        ["kg", "load", str(shared_data / "wikidata" / "entities-635.ndjson.bz2"), "--labels",
         str(shared_data / "labels" / "preferred-labels-en.json"), "--labels",
         str(shared_data / "wikidata" / "property-labels-en.json")],
        ["predicates", "extract"], ["predicates", "select"],
        ["related", "build", "--min-sitelinks", "0"],  # its people are rarely connected
        ["predicates", "show", "Q5"], ["related", "show"],
    ]
    for args in steps:
        r = cli(*args, "--db", db)
        assert r.exit_code == 0, (args, r.output)
    con = connect(db, read_only=True)
    selected = {r[0] for r in con.execute(
        "SELECT property_id FROM selected_predicates WHERE type_id = 'Q5'").fetchall()}
    assert {"P569", "P106", "P27"} <= selected and "P214" not in selected  # VIAF: external id
    popular = {r[0] for r in con.execute(POPULAR_PEOPLE, [0]).fetchall()}
    dropped = {r[0] for r in con.execute("SELECT item FROM dropped WHERE stage = "
                                         "'related.build'").fetchall()}
    assert pairs(con) and set(pairs(con)) | dropped == popular
    assert_every_pair_is_explained(con)
    con.close()


def test_real_entities_dev_pairs_are_explained_and_unconnected_people_dropped(shared_data,
                                                                             tmp_path):
    """On real-entities-dev (fixtures of many tools) few popular people are connected to
    another loaded person; the ones that are get a defensible partner, the rest a drop."""
    db = str(tmp_path / "dev.duckdb")
    r = cli("kg", "load", shared_data / "wikidata" / "real-entities-dev.ndjson.bz2", "--labels",
            shared_data / "wikidata" / "property-labels-en.json", "--labels",
            shared_data / "labels" / "preferred-labels-en.json", "--db", db)
    assert r.exit_code == 0, r.output
    assert cli("related", "build", "--db", db, "--min-sitelinks", "10").exit_code == 0
    con = connect(db, read_only=True)
    found = pairs(con)
    assert_every_pair_is_explained(con)
    assert found["Q2831"][2] == "P40"  # Michael Jackson: one of his children
    # Majolus of Cluny: Odilo, who held the same office (abbot of Cluny)
    assert found["Q42107"][0] == "Q918431" and found["Q42107"][2] == "P39/^P39"
    assert "Q255" not in found  # Beethoven: no loaded person shares anything with him
    dropped = {r[0] for r in con.execute("SELECT item FROM dropped WHERE stage = "
                                         "'related.build'").fetchall()}
    assert "Q255" in dropped and "Q859" in dropped  # Beethoven, Plato
    con.close()


def _claim(eid: str, prop: str, value: str, n: int = 0) -> dict:
    return {"mainsnak": {"snaktype": "value", "property": prop, "datatype": "wikibase-item",
                         "datavalue": {"value": {"entity-type": "item", "id": value},
                                       "type": "wikibase-entityid"}},
            "type": "statement", "id": f"{eid}$T-{prop}-{n}", "rank": "normal"}


def _people(*people: tuple[str, str]) -> list[dict]:
    return [{"type": "item", "id": qid, "labels": {"en": {"language": "en", "value": label}},
             "sitelinks": {f"wiki{i}": {"site": f"wiki{i}", "title": label} for i in range(60)},
             "claims": {}} for qid, label in people]


def _load(folder, ents: list[dict]) -> str:
    folder.mkdir(parents=True, exist_ok=True)
    dump = folder / "dump.json"
    dump.write_text("[\n" + ",\n".join(json.dumps(e) for e in ents) + "\n]\n")
    db = str(folder / "p.duckdb")
    r = cli("kg", "load", dump, "--db", db)
    assert r.exit_code == 0, r.output
    return db
