"""bz2 decoded in independent ranges: the ranges' texts, joined, are the file's text."""

from __future__ import annotations

import bz2
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from convkgyarn.kg import bz2blocks
from convkgyarn.kg.bz2blocks import BLOCK_MAGIC, END_MAGIC, RangeError


@settings(max_examples=200, deadline=None)
@given(noise=st.binary(min_size=0, max_size=300), at=st.integers(0, 2400),
       magic=st.sampled_from([BLOCK_MAGIC, END_MAGIC]))
def test_a_magic_is_found_at_any_bit_offset(noise, at, magic):
    bits = "".join(f"{byte:08b}" for byte in noise)
    at = min(at, len(bits))
    bits = bits[:at] + f"{magic:048b}" + bits[at:]
    bits += "0" * (-len(bits) % 8)
    data = int(bits, 2).to_bytes(len(bits) // 8, "big")
    assert at in bz2blocks.magic_offsets(data, magic)


def _text(sample_path, copies: int = 8) -> bytes:
    rng = random.Random(7)
    lines = sample_path.read_bytes().splitlines(keepends=True)
    return b"".join(rng.choice(lines) for _ in range(len(lines) * copies))


def _multi_stream(text: bytes) -> bytes:
    """Two streams of small (100 kB) blocks, as a parallel compressor writes them."""
    half = len(text) // 2
    return bz2.compress(text[:half], 1) + bz2.compress(text[half:], 1)


@pytest.mark.parametrize("range_bytes", [1024, 7777, 100_000, 1 << 30])
def test_the_ranges_texts_joined_are_the_files_text(tmp_path, sample_path, range_bytes):
    """Ranges smaller than a block own no block and decode to nothing; a range as large as
    the file decodes it all; the streams' boundaries are crossed."""
    text = _text(sample_path)
    path = tmp_path / "d.json.bz2"
    path.write_bytes(_multi_stream(text))
    ranges = bz2blocks.ranges(str(path), path.stat().st_size, range_bytes)
    assert len(text) > 1 << 20 and (range_bytes > path.stat().st_size or len(ranges) > 1)
    assert b"".join(bz2blocks.decode_range(r) for r in ranges) == text


def test_an_empty_file_is_one_range_of_no_text(tmp_path):
    path = tmp_path / "empty.json.bz2"
    path.write_bytes(bz2.compress(b""))
    ranges = bz2blocks.ranges(str(path), path.stat().st_size, 1 << 20)
    assert [bz2blocks.decode_range(r) for r in ranges] == [b""]


@pytest.mark.parametrize("damage", ["flipped", "truncated"])
def test_a_damaged_range_raises_range_error_naming_the_byte(tmp_path, sample_path, damage):
    packed = bytearray(_multi_stream(_text(sample_path)))
    middle = len(packed) // 2
    if damage == "flipped":
        for i in range(middle, middle + 64):
            packed[i] ^= 0x5A
    else:
        del packed[middle:]
    path = tmp_path / "d.json.bz2"
    path.write_bytes(bytes(packed))
    ranges = bz2blocks.ranges(str(path), len(packed), 64 << 10)
    errors = []
    for r in ranges:
        try:
            bz2blocks.decode_range(r)
        except RangeError as exc:
            errors.append(str(exc))
    assert errors and all("byte" in e for e in errors)
