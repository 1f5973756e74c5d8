"""Loading dumps: counts match the definitions, bad lines are kept, reloads are idempotent."""

from __future__ import annotations

import bz2
import gzip
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from convkgyarn.cli import app
from convkgyarn.config import LoadConfig
from convkgyarn.kg.load import LoadStage
from convkgyarn.kg.reader import Block
from convkgyarn.kg.stats import kg_stats
from convkgyarn.store import connect
from tests.helpers import context
from tests.kg.independent import independent_stats

STAT_KEYS = ("entities", "statements", "truthy_statements", "qualified_statements",
             "properties", "types", "facts_by_kind", "rejected_lines")


def load(con, *paths: Path, **kw) -> LoadStage:
    stage = LoadStage(context(con), LoadConfig(paths=list(paths), **kw))
    stage.run()
    return stage


def subset(stats: dict) -> dict:
    return {k: stats[k] for k in STAT_KEYS}


@pytest.mark.shared_data
@pytest.mark.parametrize("name", ["dump-sample-100.json.bz2", "entities-635.ndjson.bz2",
                                  "wbgetentities-response.json"])
def test_stats_match_independent_count_on_real_dumps(shared_data, db, name):
    path = shared_data / "wikidata" / name
    load(db, path)
    assert subset(kg_stats(db)) == independent_stats(path)


def test_bundled_sample_loads_cleanly_and_matches_definitions(db, sample_path):
    load(db, sample_path)
    stats = kg_stats(db)
    assert stats["rejected_lines"] == 0
    assert subset(stats) == independent_stats(sample_path)
    assert stats["facts_by_kind"]["qualified"] > 20
    assert stats["facts_by_kind"]["complex"] > 20
    assert stats["dump_date"] == "2024-11-01"


def test_stats_cli_prints_one_json_object(tmp_path, sample_path):
    dbfile = tmp_path / "p.duckdb"
    runner = CliRunner()
    r = runner.invoke(app, ["kg", "load", str(sample_path), "--db", str(dbfile)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["kg", "stats", "--db", str(dbfile), "--json"])
    assert r.exit_code == 0
    stats = json.loads(r.stdout)
    assert set(STAT_KEYS) <= set(stats)
    assert subset(stats) == independent_stats(sample_path)


def test_compressions_and_layouts_load_the_same(tmp_path, sample_path):
    lines = sample_path.read_text().splitlines()
    ndjson = tmp_path / "sample.ndjson"
    ndjson.write_text("\n".join(l.rstrip(",") for l in lines[1:-1]) + "\n")
    gz = tmp_path / "sample.json.gz"
    with gzip.open(gz, "wb") as fh:
        fh.write(sample_path.read_bytes())
    bz = tmp_path / "sample.json.bz2"
    with bz2.open(bz, "wb") as fh:
        fh.write(sample_path.read_bytes())
    results = []
    for p in (sample_path, ndjson, gz, bz):
        con = connect(tmp_path / f"{p.name}.duckdb")
        load(con, p)
        results.append(subset(kg_stats(con)))
    assert all(r == results[0] for r in results)


def _corrupt_copy(sample_path: Path, tmp_path: Path) -> tuple[Path, dict[int, str]]:
    lines = sample_path.read_text().splitlines()
    bad = {
        5: '{"type": "item", "id": "Q1", "labels": {"en": {"value": "trunc',  # truncated JSON
        9: "this is not json at all,",
        14: '{"type": "item", "labels": {"en": {"language": "en", "value": "No id"}}},',
        20: '{"type": "item", "id": "Q2", "claims": {"P31": [{"rank": "normal"}]}},',
    }
    out = list(lines)
    for n, text in sorted(bad.items()):
        out.insert(n - 1, text)  # 1-based line numbers of the new file
    path = tmp_path / "corrupt.json"
    path.write_text("\n".join(out) + "\n")
    return path, bad


def test_corrupted_lines_are_rejected_with_line_numbers_and_good_entities_load(
        db, tmp_path, sample_path):
    path, bad = _corrupt_copy(sample_path, tmp_path)
    load(db, path)
    rejects = db.execute("SELECT line_no, reason, snippet FROM load_rejects ORDER BY 1").fetchall()
    assert [r[0] for r in rejects] == sorted(bad)
    assert "invalid JSON" in rejects[0][1]
    assert "`id`" in rejects[2][1]  # the missing field is named
    assert "mainsnak" in rejects[3][1]
    assert rejects[1][2].startswith("this is not json")
    clean = connect(tmp_path / "clean.duckdb")
    load(clean, sample_path)
    ours, theirs = kg_stats(db), kg_stats(clean)
    assert subset(ours) | {"rejected_lines": 0} == subset(theirs)


def test_reload_is_idempotent_and_force_gives_the_same_db(db, sample_path):
    load(db, sample_path)
    first = kg_stats(db)
    stage = load(db, sample_path)
    assert stage.files[0].status == "unchanged"
    assert kg_stats(db) == first
    stage = load(db, sample_path, force=True)
    assert stage.files[0].status == "loaded"
    assert kg_stats(db) == first


def test_entity_in_two_files_is_kept_once(db, tmp_path, sample_path):
    lines = sample_path.read_text().splitlines()
    obama = next(l for l in lines if '"id": "Q76"' in l)
    other = tmp_path / "obama.ndjson"
    other.write_text(obama.rstrip(",") + "\n")
    load(db, sample_path, other)
    assert db.execute("SELECT count(*) FROM entities WHERE id = 'Q76'").fetchone()[0] == 1
    n = db.execute("SELECT count(*) FROM statements WHERE entity_id = 'Q76'").fetchone()[0]
    assert n == len(json.loads(obama.rstrip(","))["claims"]) + sum(
        len(v) - 1 for v in json.loads(obama.rstrip(","))["claims"].values())


def _table_dump(con) -> dict:
    out = {}
    for t in ("entities", "properties", "entity_types", "statements", "qualifiers",
              "load_rejects"):
        out[t] = sorted(map(repr, con.execute(f"SELECT * EXCLUDE (file_id) FROM {t}").fetchall()))
    return out


@pytest.mark.shared_data
def test_an_uncompressed_dump_read_in_spans_by_workers_equals_the_streamed_load(
        shared_data, tmp_path):
    """Workers read spans of a plain file themselves: every row, line number and reject is
    the one the streamed (bz2) load gives, with spans small enough to split long lines."""
    path = shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"
    plain = tmp_path / "real-entities-dev.ndjson"
    with bz2.open(path, "rb") as fh:
        plain.write_bytes(fh.read() + b"this line is not json\n")
    streamed = connect(tmp_path / "streamed.duckdb")
    load(streamed, path)
    spans = connect(tmp_path / "spans.duckdb")
    load(spans, plain, workers=2, block_bytes=64 << 10)
    ours, theirs = _table_dump(spans), _table_dump(streamed)
    assert [r for r in ours.pop("load_rejects") if "not json" not in r] == \
        theirs.pop("load_rejects")
    assert ours == theirs
    assert kg_stats(spans)["entities"] > 600


@pytest.mark.shared_data
def test_a_bz2_dump_decoded_in_ranges_by_workers_equals_the_streamed_load(shared_data, tmp_path):
    """With workers, a bz2 file is decoded in ranges by the parsers themselves: every row,
    line number, reject and count is the one the sequential decoder gives, with ranges
    small enough that lines cross them and some hold no whole line."""
    with bz2.open(shared_data / "wikidata" / "real-entities-dev.ndjson.bz2", "rb") as fh:
        text = fh.read()
    lines = text.splitlines(keepends=True)
    text = b"".join(lines[:300]) + b"this line is not json\n" + b"".join(lines[300:])
    path = tmp_path / "d.ndjson.bz2"
    path.write_bytes(bz2.compress(text, 1))  # 100 kB blocks: many ranges own one
    streamed = connect(tmp_path / "streamed.duckdb")
    load(streamed, path)
    ranged = connect(tmp_path / "ranged.duckdb")
    stage = load(ranged, path, workers=2, bz2_range_bytes=8 << 10)
    assert stage.files[0].status == "loaded"
    assert _table_dump(ranged) == _table_dump(streamed)
    counts = "SELECT lines, bytes, entities, rejects, skipped, dump_date FROM load_files"
    assert ranged.execute(counts).fetchall() == streamed.execute(counts).fetchall()
    assert ranged.execute("SELECT line_no FROM load_rejects").fetchall() == [(301,)]


@settings(max_examples=40, deadline=None)
@given(cuts=st.lists(st.floats(0, 1), max_size=12))
def test_lines_joined_across_ranges_keep_the_numbers_of_a_whole_parse(sample_path, cuts):
    """However the text is cut into ranges, the rows and their line numbers are those of
    the text parsed in one piece."""
    from convkgyarn.kg.load import _RangeLines
    from convkgyarn.kg.worker import parse_block, split_range_text

    lines = sample_path.read_bytes().splitlines(keepends=True)
    text = b"".join(lines[::8]) + b"not json\n\n"  # properties and items, a reject
    bounds = [0, *sorted(int(c * len(text)) for c in cuts), len(text)]
    lines = _RangeLines(1, "f", None)
    parsed = []
    for a, b in zip(bounds, bounds[1:]):
        parsed += lines.add(split_range_text(text[a:b], 1, "f"))
    parsed += lines.finish()
    whole = parse_block(Block(1, text), 1, "f")
    for table in ("entities", "properties", "statements", "qualifiers", "load_rejects"):
        ours = sorted(r for p in parsed if table in p.tables for r in _rows(p.tables[table]))
        assert ours and ours == sorted(_rows(whole.tables[table])), table
    assert sum(p.lines for p in parsed) == whole.lines


def _rows(table) -> list[tuple]:
    return list(zip(*(table.column(c).to_pylist() for c in table.column_names), strict=True))


def test_a_line_without_end_across_ranges_is_rejected_and_the_next_keep_their_numbers(
        monkeypatch):
    from convkgyarn.kg import reader
    from convkgyarn.kg.load import _RangeLines
    from convkgyarn.kg.worker import split_range_text

    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 3000)
    pieces = [b'{"a": 1}\n{"b": ', b"x" * 2000, b"y" * 2000, b"z" * 10, b'}\n\n{"c": 3}\n']
    lines = _RangeLines(1, "f", None)
    parsed = [p for piece in pieces for p in lines.add(split_range_text(piece, 1, "f"))]
    parsed += lines.finish()
    rejects = [r for p in parsed if "load_rejects" in p.tables
               for r in _rows(p.tables["load_rejects"])]
    numbers = {r[2]: r[3] for r in rejects}
    assert numbers[2] == "line longer than 0 MiB"  # the runaway is line 2
    assert set(numbers) == {1, 2, 4}  # 1 and 4 are JSON but not entities; 3 is blank


def test_a_range_that_does_not_decode_is_read_again_sequentially_keeping_nothing_twice(
        tmp_path, sample_path, monkeypatch):
    """A chance magic number (or corruption) in a range: the load starts over with one
    decoder, keeps none of the first attempt's rows or counts, and says so."""
    import convkgyarn.kg.load as load_module
    from convkgyarn.kg.bz2blocks import RangeError

    path = tmp_path / "sample.json.bz2"
    path.write_bytes(bz2.compress(sample_path.read_bytes()))
    clean = connect(tmp_path / "clean.duckdb")
    load(clean, path)

    def half_then_fail(*args, **kwargs):
        for n, batch in enumerate(load_module._parsed(
                load_module.iter_blocks(path, 20_000), args[2], args[3], 1)):
            if n == 3:
                raise RangeError("the block at byte 1234: Invalid data stream")
            yield batch

    monkeypatch.setattr(load_module, "_parsed_bz2", half_then_fail)
    said: list[str] = []
    con = connect(tmp_path / "retried.duckdb")
    stage = LoadStage(context(con), LoadConfig(paths=[path], workers=2))
    stage.ctx.say = said.append
    stage.run()
    assert _table_dump(con) == _table_dump(clean)
    counts = "SELECT lines, bytes, entities, rejects, skipped FROM load_files"
    assert con.execute(counts).fetchall() == clean.execute(counts).fetchall()
    assert len(said) == 1 and "byte 1234" in said[0] and "one decoder" in said[0]


def test_load_killed_midway_then_rerun_equals_uninterrupted(tmp_path, sample_path):
    killed_db = tmp_path / "killed.duckdb"
    script = textwrap.dedent(f"""
        import os, signal
        from pathlib import Path
        from convkgyarn.config import LoadConfig
        import convkgyarn.kg.load as load
        from convkgyarn.kg.load import LoadStage
        from convkgyarn.store import connect
        from tests.helpers import context
        insert = load._Writer._insert
        def insert_then_die(self, table, schema):  # killed once the entities are committed
            insert(self, table, schema)
            if table == "entities":
                os.kill(os.getpid(), signal.SIGKILL)
        load._Writer._insert = insert_then_die
        con = connect(Path({str(killed_db)!r}))
        LoadStage(context(con), LoadConfig(paths=[Path({str(sample_path)!r})],
                                           block_bytes=50000)).run()
    """)
    proc = subprocess.run([sys.executable, "-c", script], cwd=Path(__file__).parents[2])
    assert proc.returncode == -9
    con = connect(killed_db)
    status, n = con.execute("SELECT status, (SELECT count(*) FROM entities) FROM load_files"
                            ).fetchone()
    assert status == "loading" and n > 0  # stopped with some of the file's rows committed
    load(con, sample_path)
    clean = connect(tmp_path / "clean.duckdb")
    load(clean, sample_path)
    assert _table_dump(con) == _table_dump(clean)


def _parsed_blocks(path: Path, block_bytes: int = 50_000) -> list:
    from convkgyarn.kg.reader import iter_blocks
    from convkgyarn.kg.worker import parse_block

    return [parse_block(b, 1, str(path)) for b in iter_blocks(path, block_bytes)]


def test_the_writer_commits_every_row_once_and_restores_the_settings(db, sample_path):
    from convkgyarn.kg.load import _Writer

    blocks = _parsed_blocks(sample_path)
    settings = ("preserve_insertion_order", "write_buffer_row_group_count", "checkpoint_threshold")
    before = [db.execute(f"SELECT current_setting('{s}')").fetchone()[0] for s in settings]
    with _Writer(db) as writer:
        for batch in blocks:
            writer.put(batch)
        writer.finish()
    for table in ("entities", "statements", "qualifiers", "entity_types"):
        expected = sum(b.rows(table) for b in blocks)
        assert expected > 0
        assert db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == expected
    assert [db.execute(f"SELECT current_setting('{s}')").fetchone()[0] for s in settings] == before
    assert db.execute("SELECT count(*) FROM load_rejects").fetchone()[0] == 0


def test_a_writer_stopped_midway_commits_nothing(db, sample_path):
    from convkgyarn.kg.load import _Writer

    writer = _Writer(db)
    for batch in _parsed_blocks(sample_path)[:3]:
        writer.put(batch)
    writer.stop()
    assert not any(t.is_alive() for t in writer.threads)
    for table in ("entities", "statements", "qualifiers"):
        assert db.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0
    assert db.execute("SELECT current_setting('preserve_insertion_order')").fetchone()[0]


def test_an_insert_that_fails_is_raised_in_the_reading_thread(db, sample_path):
    import duckdb

    from convkgyarn.kg.load import _Writer

    db.execute("DROP TABLE qualifiers")  # the qualifiers INSERT cannot bind
    with pytest.raises(duckdb.Error, match="qualifiers"), _Writer(db) as writer:
        for batch in _parsed_blocks(sample_path):
            writer.put(batch)
        writer.finish()


def test_parallel_workers_give_the_same_db(tmp_path, sample_path):
    one = connect(tmp_path / "one.duckdb")
    load(one, sample_path, block_bytes=100_000)
    two = connect(tmp_path / "two.duckdb")
    load(two, sample_path, block_bytes=100_000, workers=2)
    assert _table_dump(one) == _table_dump(two)


def test_missing_file_is_a_one_line_error_with_exit_code_2(tmp_path):
    r = CliRunner().invoke(app, ["kg", "load", str(tmp_path / "nope.json.bz2"),
                                 "--db", str(tmp_path / "x.duckdb")])
    assert r.exit_code == 2
    assert "nope.json.bz2: no such file" in r.output
    assert "Traceback" not in r.output


def test_corrupt_compressed_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "broken.json.bz2"
    bad.write_bytes(b"BZh91AY&SY" + os.urandom(200))
    r = CliRunner().invoke(app, ["kg", "load", str(bad), "--db", str(tmp_path / "x.duckdb")])
    assert r.exit_code == 2
    assert "broken.json.bz2" in r.output


def test_values_are_rendered_for_people(db, sample_path):
    load(db, sample_path)
    value = lambda e, p: db.execute(  # noqa: E731
        "SELECT list(value_label ORDER BY ordinal) FROM statement_values "
        "WHERE entity_id = ? AND property_id = ?", [e, p]).fetchone()[0]
    assert value("Q76", "P569") == ["1961-08-04"]
    assert value("Q76", "P19") == ["Honolulu"]
    assert value("Q1299", "P571") == ["1960"]
    assert value("Q54314", "P26") == ["Elsa Pataky"]
    assert value("Q44578", "P2047") == ["194 minute"]  # machine text; answers say "194 minutes"
    assert value("Q60", "P625") == ["40.7128, -74.0060"]
    assert value("Q76", "P1559") == ["Barack Obama"]
    quals = db.execute(
        "SELECT qualifier_property_id, value_label FROM qualifier_values "
        "WHERE entity_id = 'Q54314' AND property_id = 'P26'").fetchall()
    assert quals == [("P580", "2010-12")]


def test_occupations_are_types_for_humans_only(db, sample_path):
    load(db, sample_path)
    types = dict(db.execute("SELECT type_id, via FROM entity_types WHERE entity_id = 'Q76'"
                            ).fetchall())
    assert types == {"Q5": "P31", "Q82955": "P106", "Q40348": "P106"}
    assert db.execute("SELECT count(*) FROM entity_types WHERE via = 'P106' AND entity_id NOT IN "
                      "(SELECT entity_id FROM entity_types WHERE type_id = 'Q5')").fetchone()[0] == 0


def test_the_memory_cap_reaches_the_database_and_a_bad_one_is_one_line(tmp_path, sample_path):
    """`--memory-limit` (or memory_limit in convkgyarn.toml) caps DuckDB's buffer pool, which
    bounds a load's peak memory whatever the dump's size."""
    from convkgyarn.config import load_project_config
    from convkgyarn.project import Project

    dbfile = tmp_path / "p.duckdb"
    r = CliRunner().invoke(app, ["kg", "load", str(sample_path), "--db", str(dbfile),
                                 "--memory-limit", "300MB"])
    assert r.exit_code == 0, r.output
    toml = tmp_path / "convkgyarn.toml"
    toml.write_text(f'db = "{dbfile}"\nmemory_limit = "300MB"\n')
    with Project(load_project_config(toml, environ={}), write=False) as project:
        cap = project.ctx.con.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    assert cap in ("286.1 MiB", "300.0 MB"), cap
    r = CliRunner().invoke(app, ["kg", "load", str(sample_path), "--db", str(dbfile),
                                 "--memory-limit", "lots"])
    assert r.exit_code == 2 and "memory_limit" in r.output
    assert len(r.output.strip().splitlines()) == 1, r.output


def _parse_in_a_fresh_process(tmp_path: Path, sample_path: Path, feed: str,
                              block_bytes: int, workers: int) -> dict:
    """Run ``_parsed`` over the sample's blocks in a fresh process (so the fork server has
    not started), the blocks passed through the generator ``feed`` defined in ``feed``'s
    source; report who parsed each block, and the same blocks parsed by one parser."""
    script = tmp_path / "parse_blocks.py"
    script.write_text(textwrap.dedent(f"""
        import json, os, sys, time
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from pathlib import Path
        from convkgyarn.kg.load import _parsed
        from convkgyarn.kg.reader import iter_blocks
    """) + textwrap.dedent(feed) + textwrap.dedent(f"""
        if __name__ == "__main__":
            path = Path({str(sample_path)!r})
            blocks = list(iter_blocks(path, {block_bytes}))
            parsed = list(_parsed(feed(blocks), 1, str(path), {workers}))
            alone = list(_parsed(iter(blocks), 1, str(path), 1))
            print(json.dumps({{
                "blocks": len(blocks), "me": os.getpid(),
                "by": [p.parsed_by for p in parsed],
                "lines": sorted(p.lines for p in parsed),
                "lines_alone": sorted(p.lines for p in alone),
                "entities": sum(p.rows("entities") for p in parsed),
                "entities_alone": sum(p.rows("entities") for p in alone)}}))
    """))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_this_process_parses_too_once_the_workers_have_enough_queued(tmp_path, sample_path):
    """With ``--workers 2`` there is one worker process, and the loading process takes a
    block itself whenever the worker has a few queued: fed faster than one parser can go,
    blocks come back from both, each exactly once."""
    got = _parse_in_a_fresh_process(tmp_path, sample_path, """
        def feed(blocks):  # all at once, after the pool is up
            time.sleep(3)  # the fork server starts in about 1 s
            yield from blocks
    """, block_bytes=8 << 10, workers=2)
    assert len(got["by"]) == got["blocks"] > 30
    others = [pid for pid in got["by"] if pid != got["me"]]
    assert len(set(others)) == 1, "one worker process for --workers 2"
    first_by_worker = got["by"].index(others[0])
    assert got["me"] in got["by"][first_by_worker:], "this process only waited"


def test_blocks_are_parsed_here_while_the_pool_starts_then_shared_with_the_workers(
        tmp_path, sample_path):
    """No core waits for the fork server: in a fresh process (the fork server not yet
    started) the first blocks are parsed by the loading process, the rest by it and the
    workers together, ``workers`` parsers in all; every block comes back exactly once."""
    got = _parse_in_a_fresh_process(tmp_path, sample_path, """
        def feed(blocks):  # slowly: the pool is up long before the last block
            for block in blocks:
                time.sleep(0.05)
                yield block
    """, block_bytes=32 << 10, workers=3)
    assert got["blocks"] > 30
    assert got["by"][0] == got["me"], "the first block waited for the pool"
    parsers = set(got["by"])
    assert parsers - {got["me"]}, "the workers parsed none"
    assert len(parsers) <= 3, "more parsers than --workers"
    assert got["lines"] == got["lines_alone"]
    assert got["entities"] == got["entities_alone"] > 0
