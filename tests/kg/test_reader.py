"""Compressed dumps: bz2 and gz read through the fast decompressors give exactly the bytes
the standard library gives, and the standard library takes over when they are missing."""

from __future__ import annotations

import bz2
import gzip
import importlib

import pytest

from convkgyarn.kg import reader


@pytest.fixture
def dumps(tmp_path, sample_path):
    data = sample_path.read_bytes()
    bz, gz = tmp_path / "s.json.bz2", tmp_path / "s.json.gz"
    bz.write_bytes(bz2.compress(data))
    gz.write_bytes(gzip.compress(data))
    return data, bz, gz


def test_parallel_decompression_gives_the_same_bytes(dumps):
    data, bz, gz = dumps
    fh = reader.open_dump(bz)
    assert type(fh.raw).__module__.split(".")[0] == "indexed_bzip2", type(fh.raw)
    with fh:
        assert fh.read() == data
    fh = reader.open_dump(gz)
    assert type(fh).__module__ == "isal.igzip", type(fh)
    with fh:
        assert fh.read() == data


def test_without_the_parallel_modules_the_standard_library_reads(dumps, monkeypatch, caplog):
    data, bz, gz = dumps
    real = importlib.import_module

    def missing(name, *args):
        if name in ("indexed_bzip2", "isal.igzip"):
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(reader.importlib, "import_module", missing)
    monkeypatch.setattr(reader, "_FALLBACK_NOTED", set())
    with caplog.at_level("INFO", logger="convkgyarn.kg.reader"):
        for path in (bz, gz):
            for _ in range(2):
                with reader.open_dump(path) as fh:
                    assert type(fh).__module__ in ("bz2", "gzip")
                    assert fh.read() == data
    notes = [r.message for r in caplog.records if "is not installed" in r.message]
    assert len(notes) == 2, notes  # once per missing library


def test_a_truncated_bz2_dump_is_a_clear_error_not_a_crash(dumps, tmp_path):
    _, bz, _ = dumps
    cut = tmp_path / "cut.json.bz2"
    cut.write_bytes(bz.read_bytes()[: bz.stat().st_size // 2])
    with pytest.raises(reader.DumpError, match="cut.json.bz2"):
        with reader.open_dump(cut) as fh:
            while fh.read(1 << 20):
                pass


def _numbered(blocks) -> tuple[list[tuple[int, bytes]], list[tuple[int, str, bytes]]]:
    lines, rejects = [], []
    for block in blocks:
        lines += [(block.first_line_no + i, line) for i, line in enumerate(block.lines)]
        rejects += list(block.rejects)
    return lines, rejects


@pytest.mark.parametrize("tail", [b"", b"\n", b"  \n  ", b'{"id": "Q9"}'])
@pytest.mark.parametrize("block_bytes", [64, 1000, 4 << 20])
def test_an_uncompressed_file_is_read_in_spans_with_the_streamed_line_numbers(
        tmp_path, monkeypatch, sample_path, tail, block_bytes):
    """Workers read spans of a plain file themselves; every line keeps the number and text
    the streamed reader (used for gz and bz2) gives, long and runaway lines included."""
    monkeypatch.setattr(reader, "MAX_LINE_BYTES", 3000)
    text = (sample_path.read_bytes()[:20000] + b"\n\n" + b"x" * 2500 + b"\n"
            + b"[" + b"y" * 9000 + b"\n" + b"z" * 100 + b"\n" + b"w" * 5000 + tail)
    plain, gz = tmp_path / "d.json", tmp_path / "d.json.gz"
    plain.write_bytes(text)
    gz.write_bytes(gzip.compress(text))
    spans = list(reader.iter_blocks(plain, block_bytes))
    assert all(b.span is not None or b.rejects for b in spans)
    assert _numbered(spans) == _numbered(reader.iter_blocks(gz, block_bytes))
    lines, rejects = _numbered(spans)
    if block_bytes < 3000:  # the runaway guard only applies to a line spanning reads
        assert {r[1] for r in rejects} == {"line longer than 0 MiB"}
    segments = text.split(b"\n")
    read = len(segments) - (not segments[-1].strip()) - len(rejects)
    assert len(lines) == read, "every line but the runaways is read"


@pytest.mark.parametrize("damage", ["truncated", "flipped"])
@pytest.mark.parametrize(("suffix", "workers"), [(".json.gz", 1), (".json.bz2", 1),
                                                 (".json.bz2", 2)])  # bz2 decoded in ranges
def test_a_damaged_compressed_dump_is_one_line_exit_2_and_not_recorded_as_done(
        tmp_path, sample_path, suffix, workers, damage):
    from typer.testing import CliRunner

    from convkgyarn.cli import app
    from convkgyarn.store import connect

    text = sample_path.read_bytes() * 12  # several compressed blocks (bz2: 900 kB each)
    packed = gzip.compress(text) if suffix == ".json.gz" else bz2.compress(text)
    if damage == "truncated":
        packed = packed[: len(packed) * 2 // 3]
    else:
        middle = bytearray(packed)
        for i in range(len(middle) // 2, len(middle) // 2 + 64):
            middle[i] ^= 0x5A
        packed = bytes(middle)
    path = tmp_path / f"damaged{suffix}"
    path.write_bytes(packed)
    dbfile = tmp_path / "p.duckdb"
    r = CliRunner().invoke(app, ["kg", "load", str(path), "--db", str(dbfile),
                                 "--workers", str(workers)])
    assert r.exit_code == 2, r.output
    assert len(r.output.strip().splitlines()) == 1 and path.name in r.output, r.output
    con = connect(dbfile)
    assert con.execute("SELECT count(*) FROM load_files WHERE status = 'done'").fetchone() == (0,)
    con.close()
