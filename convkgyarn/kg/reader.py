"""Stream a Wikidata dump as blocks of lines, whatever its compression or layout.

Layouts: the dump array (``[`` line, one entity per line ending in ``,``,
``]``), one entity per line (API-shaped too), and a ``wbgetentities`` reply
(``{"entities": {...}}``, read whole: such files are small by nature).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import orjson

BLOCK_BYTES = 4 << 20


class DumpError(Exception):
    """A dump file that cannot be read at all (missing, unreadable, wrong format)."""


@dataclass(frozen=True)
class Block:
    """Whole lines of dump text; split in the parser (a worker), not in the reader."""

    first_line_no: int  # 1-based line number of the block's first line
    data: bytes

    @property
    def nbytes(self) -> int:
        return len(self.data)

    @property
    def lines(self) -> list[bytes]:
        return self.data.splitlines()


def open_dump(path: Path) -> BinaryIO:
    if not path.exists():
        raise DumpError(f"{path}: no such file")
    if not path.is_file():
        raise DumpError(f"{path}: not a file")
    try:
        if path.suffix == ".bz2":
            fh = bz2.open(path, "rb")
        elif path.suffix == ".gz":
            fh = gzip.open(path, "rb")
        else:
            fh = open(path, "rb")  # noqa: SIM115 - closed by the caller
        fh.peek(1) if hasattr(fh, "peek") else None
        return fh
    except (OSError, EOFError) as exc:
        raise DumpError(f"{path}: cannot read ({exc})") from exc


def fingerprint(path: Path) -> str:
    """Cheap identity of a file's content: size, mtime and a hash of its first and last MiB."""
    st = path.stat()
    h = hashlib.sha256(f"{st.st_size}:{st.st_mtime_ns}".encode())
    with open(path, "rb") as fh:
        h.update(fh.read(1 << 20))
        if st.st_size > 2 << 20:
            fh.seek(-(1 << 20), os.SEEK_END)
            h.update(fh.read())
    return h.hexdigest()[:32]


def iter_blocks(path: Path, block_bytes: int = BLOCK_BYTES) -> Iterator[Block]:
    """Yield blocks of whole lines with their line numbers, reading a few MiB at a time."""
    fh = open_dump(path)
    try:
        head = fh.peek(64)[:64] if hasattr(fh, "peek") else b""
        if head.lstrip().startswith(b"{") and _is_api_document(path):
            yield from _api_document_blocks(path)
            return
        line_no = 1
        rest = b""
        while True:
            try:
                chunk = fh.read(block_bytes)
            except (OSError, EOFError) as exc:
                raise DumpError(f"{path}: corrupt compressed data near line {line_no} ({exc})") from exc
            if not chunk:
                break
            data = rest + chunk
            cut = data.rfind(b"\n")
            if cut < 0:
                rest = data
                continue
            text, rest = data[: cut + 1], data[cut + 1 :]
            yield Block(line_no, text)
            line_no += text.count(b"\n")
        if rest.strip():
            yield Block(line_no, rest)
    finally:
        fh.close()


def _is_api_document(path: Path) -> bool:
    """True for a ``{"entities": {...}}`` reply, false for one-entity-per-line files."""
    with open_dump(path) as fh:
        first = fh.readline()
    try:
        obj = orjson.loads(first)
    except orjson.JSONDecodeError:
        return True  # a pretty-printed document spans lines
    return isinstance(obj, dict) and "entities" in obj and "claims" not in obj


def _api_document_blocks(path: Path) -> Iterator[Block]:
    with open_dump(path) as fh:
        raw = fh.read()
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise DumpError(f"{path}: not a dump and not valid JSON ({exc})") from exc
    entities = doc.get("entities") if isinstance(doc, dict) else None
    if not isinstance(entities, dict):
        raise DumpError(f"{path}: a JSON document without an 'entities' object")
    yield Block(1, b"\n".join(orjson.dumps(e) for e in entities.values()))
