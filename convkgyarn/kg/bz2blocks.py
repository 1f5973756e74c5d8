"""Decode a bz2 file in independent byte ranges, so parse workers decompress in parallel.

A bz2 stream is a run of blocks, each opened by a 48-bit magic number (and the stream
closed by another) at any *bit* offset; nothing else in the format is aligned. Each block
carries its own CRC and decodes alone: its bits, behind a stream header and before a stream
end whose combined CRC is that block's CRC, form a valid one-block stream for Python's own
decompressor.

A range ``[start, end)`` of compressed bytes owns every block whose magic begins at a bit
inside it; its text is those blocks' text, in order. So the ranges' texts, joined in
order, are exactly the file's text, and cutting the file into ranges needs no reading at
all: each worker finds its own blocks (measured: finding the magics costs ~1% of decoding,
and the work scales with the workers, where one decoder thread feeding them did not).

The magic numbers can also occur by chance inside compressed data (a 2^-48 chance per
bit: about one false match per 30 TB). A false match makes a block fail its CRC, and
``decode_range`` raises ``RangeError``; the loader then reads the whole file again through
the sequential decoder, which is right either way (and names the line if the file is
corrupt).
"""

from __future__ import annotations

import bz2
from dataclasses import dataclass

BLOCK_MAGIC = 0x314159265359  # opens every block (BCD pi)
END_MAGIC = 0x177245385090  # closes every stream (BCD sqrt(pi))
_HEADER = b"BZh9"  # the largest block size: bounds a block, so fits every level
# A block is at most ~900 KB of (compressed) bits; read this far past a range at first.
_LOOK_PAST = 256 << 10


class RangeError(Exception):
    """A range that does not decode (a false magic match, or a corrupt file)."""


@dataclass(frozen=True)
class Bz2Range:
    """Compressed bytes ``[start, end)`` of ``path``; see the module docstring."""

    path: str
    start: int
    end: int


def ranges(path: str, size: int, range_bytes: int) -> list[Bz2Range]:
    """The file cut into ranges of ``range_bytes`` compressed bytes (the last may be
    shorter); an empty file is one empty range."""
    cuts = list(range(0, size, range_bytes)) or [0]
    return [Bz2Range(path, start, min(start + range_bytes, size)) for start in cuts]


def magic_offsets(data: bytes, magic: int) -> list[int]:
    """Bit offsets of every occurrence of the 48-bit ``magic`` in ``data``, ascending.

    For each of the 8 bit alignments the bytes the magic fully covers are searched with
    ``bytes.find`` (C speed), and each hit is checked bit by bit."""
    found = []
    mask = (1 << 48) - 1
    for shift in range(8):
        nbytes = (shift + 48 + 7) // 8
        pad = nbytes * 8 - shift - 48
        pattern = (magic << pad).to_bytes(nbytes, "big")
        first = 1 if shift else 0
        needle = pattern[first:nbytes if pad == 0 else nbytes - 1]
        at = data.find(needle)
        while at >= 0:
            start = at - first
            if start >= 0 and start + nbytes <= len(data):
                word = int.from_bytes(data[start:start + nbytes], "big")
                if (word >> pad) & mask == magic:
                    found.append(start * 8 + shift)
            at = data.find(needle, at + 1)
    return sorted(found)


def one_block_stream(data: bytes, start_bit: int, end_bit: int) -> bytes:
    """A valid one-block bz2 stream from the block at bits ``[start_bit, end_bit)``."""
    first, last = start_bit // 8, (end_bit + 7) // 8
    nbits = end_bit - start_bit
    bits = (int.from_bytes(data[first:last], "big") >> (last * 8 - end_bit)) & ((1 << nbits) - 1)
    block_crc = (bits >> (nbits - 80)) & 0xFFFFFFFF  # the 32 bits after the magic
    total = nbits + 80  # the block, the end magic, the stream CRC
    pad = -total % 8
    bits = ((bits << 80) | (END_MAGIC << 32) | block_crc) << pad
    return _HEADER + bits.to_bytes((total + pad) // 8, "big")


def decode_range(r: Bz2Range) -> bytes:
    """The text of the blocks ``r`` owns (see the module docstring); raises RangeError."""
    with open(r.path, "rb") as fh:
        fh.seek(r.start)
        data = fh.read(r.end - r.start + _LOOK_PAST)
        owned = (r.end - r.start) * 8
        while True:
            starts = magic_offsets(data, BLOCK_MAGIC)
            bounds = sorted(starts + magic_offsets(data, END_MAGIC))
            mine = [s for s in starts if s < owned]
            # the last owned block ends at the next magic; read on until one is in view
            if not mine or bounds[-1] > mine[-1]:
                break
            more = fh.read(len(data))
            if not more:
                raise RangeError(f"bytes {r.start}-{r.end}: the last block has no end "
                                 "(a truncated file?)")
            data += more
    text = []
    for s in mine:
        e = next(b for b in bounds if b > s)
        try:
            text.append(bz2.decompress(one_block_stream(data, s, e)))
        except (OSError, ValueError, EOFError) as exc:
            raise RangeError(f"the block at byte {r.start + s // 8}: {exc}") from None
    return b"".join(text)
