"""Stream a Wikidata dump as blocks of lines, whatever its compression or layout.

Layouts, told apart from the first lines (never from a single line that may be corrupt):
- ``lines``: the dump array (``[`` line, one entity per line ending in ``,``, ``]``) or one
  entity per line (API-shaped too). A bad line is the parser's business: it becomes a
  reject, and every other line loads.
- ``document``: any other JSON document holding entities: a ``wbgetentities`` reply
  (``{"entities": {...}}``), a pretty-printed array, or a whole array on one line. It is
  streamed entity by entity with ijson, so its size does not matter; "line numbers" are
  then entity numbers within the document.

A ``lines`` file that is not compressed is cut into byte spans that the parser reads
itself; a compressed one is decompressed here and its text handed on. Both number lines
the same way and reject the same runaway lines (tested).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import importlib
import io
import logging
import os
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import numpy as np
import orjson

from convkgyarn.errors import DumpError

log = logging.getLogger(__name__)
# what reading a corrupt or truncated compressed file raises, whichever library decodes it
_READ_ERRORS: tuple[type[BaseException], ...] = (OSError, EOFError, ValueError, RuntimeError,
                                                 zlib.error)
try:
    from isal.isal_zlib import error as _isal_error

    _READ_ERRORS += (_isal_error,)
except ImportError:
    pass
BLOCK_BYTES = 4 << 20
MAX_LINE_BYTES = 256 << 20  # a longer "line" is not an entity: rejected, not buffered


@dataclass(frozen=True)
class Block:
    """Whole lines of dump text; split in the parser (a worker), not in the reader.

    A block of an uncompressed file is only a ``span`` (path, offset, length): the parser
    reads its bytes itself, so a worker is sent a few bytes instead of the text (measured:
    shipping the text cost a parse worker as much as a third of its time)."""

    first_line_no: int  # 1-based line number of the block's first line
    data: bytes = b""
    rejects: tuple[tuple[int, str, bytes], ...] = field(default=())  # (line, reason, start)
    span: tuple[str, int, int] | None = None

    @property
    def nbytes(self) -> int:
        return self.span[2] if self.span else len(self.data)

    @property
    def lines(self) -> list[bytes]:
        if self.span is None:
            return self.data.splitlines()
        path, offset, length = self.span
        with open(path, "rb") as fh:
            data = os.pread(fh.fileno(), length, offset)
        if len(data) != length:
            raise DumpError(f"{path}: the file changed while it was loading (line "
                            f"{self.first_line_no} is no longer at byte {offset})")
        return data.splitlines()


def open_dump(path: Path) -> BinaryIO:
    if not path.exists():
        raise DumpError(f"{path}: no such file")
    if not path.is_file():
        raise DumpError(f"{path}: not a file")
    try:
        if path.suffix == ".bz2":
            fh = _fast_decompressor(path) or bz2.open(path, "rb")
        elif path.suffix == ".gz":
            fh = _fast_decompressor(path) or gzip.open(path, "rb")
        else:
            fh = open(path, "rb")  # noqa: SIM115 - closed by the caller
        fh.peek(1) if hasattr(fh, "peek") else None
        return fh
    except _READ_ERRORS as exc:
        raise DumpError(f"{path}: cannot read ({str(exc)[:160]})") from exc


_FALLBACK_NOTED: set[str] = set()


def _indexed_bzip2(lib, path: Path) -> BinaryIO:
    raw = lib.open(str(path), parallelization=os.cpu_count() or 1)
    return io.BufferedReader(raw, buffer_size=BLOCK_BYTES)


def _isal(lib, path: Path) -> BinaryIO:
    return lib.open(path, "rb")


# Measured on the benchmark machine: indexed_bzip2 decodes bz2 blocks on every core (Python's
# bz2 uses one, about 45 MB/s); ISA-L's igzip decompresses gz 3x faster than zlib on one core
# (0.10 s against 0.31 s per 109 MB). rapidgzip's parallel gz gained nothing on 2 cores.
_FAST_DECOMPRESSORS = {".bz2": ("indexed_bzip2", _indexed_bzip2), ".gz": ("isal.igzip", _isal)}


def _fast_decompressor(path: Path) -> BinaryIO | None:
    """The measured-fastest reader for the file's compression; None, with a logged note once,
    when its library is not installed (the standard library is used then)."""
    module, opener = _FAST_DECOMPRESSORS[path.suffix]
    try:
        lib = importlib.import_module(module)
    except ImportError:
        if module not in _FALLBACK_NOTED:
            _FALLBACK_NOTED.add(module)
            log.info("%s is not installed: %s is decompressed by the standard library",
                     module, path.name)
        return None
    return opener(lib, path)


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


def _loads(line: bytes):
    try:
        return orjson.loads(line)
    except (orjson.JSONDecodeError, RecursionError):
        return None


def _next_line(fh: BinaryIO, limit: int = 64 << 20) -> tuple[bytes | None, bytes] | None:
    """The next non-empty line (stripped), or None at the end; a line longer than ``limit``
    comes back as (None, its start)."""
    while True:
        line = fh.readline(limit)
        if not line:
            return None
        if len(line) >= limit and not line.endswith(b"\n"):
            return None, line[:64].strip()
        if line.strip():
            return line.strip(), line.strip()[:64]


def layout(path: Path) -> str:
    """``lines`` or ``document`` (see the module docstring)."""
    with open_dump(path) as fh:
        try:
            first = _next_line(fh)
            if first is None:
                return "lines"
            full, start = first
            if full is None:  # longer than any entity line: a document on one line
                return "document" if start.startswith((b"[", b"{")) else "lines"
            if full == b"[":
                second = _next_line(fh)
                if second is None or second[0] is None:
                    return "lines"
                following = second[0]
                # the dump array has a whole entity on each line; a pretty-printed one not
                if following == b"]" or _loads(following.rstrip(b",")) is not None:
                    return "lines"
                return "document" if following.endswith(b"{") else "lines"
        except _READ_ERRORS as exc:
            raise DumpError(f"{path}: corrupt compressed data ({exc})") from exc
    if full.startswith(b"["):
        return "document"  # an array on one line
    if full.startswith(b"{"):
        obj = _loads(full.rstrip(b","))
        if isinstance(obj, dict):
            is_reply = "entities" in obj and "claims" not in obj and "type" not in obj
            return "document" if is_reply else "lines"
        if full.endswith(b"{"):
            return "document"  # pretty-printed
    return "lines"


def iter_blocks(path: Path, block_bytes: int = BLOCK_BYTES) -> Iterator[Block]:
    """Yield blocks of whole lines with their line numbers, reading a few MiB at a time."""
    if layout(path) == "document":
        yield from _document_blocks(path, block_bytes)
        return
    if path.suffix not in (".bz2", ".gz"):
        yield from _plain_blocks(path, block_bytes)
        return
    fh = open_dump(path)
    try:
        line_no = 1
        rest = b""
        skipping = False  # inside a runaway line: drop bytes until its end
        while True:
            try:
                chunk = fh.read(block_bytes)
            except _READ_ERRORS as exc:
                raise DumpError(f"{path}: corrupt compressed data near line {line_no} "
                                f"({exc})") from exc
            if not chunk:
                break
            if skipping:
                cut = chunk.find(b"\n")
                if cut < 0:
                    continue
                chunk, skipping = chunk[cut + 1:], False
                line_no += 1
            data = rest + chunk
            cut = data.rfind(b"\n")
            if cut < 0:
                if len(data) > MAX_LINE_BYTES:
                    yield runaway_line(line_no, data)
                    rest, skipping = b"", True
                else:
                    rest = data
                continue
            text, rest = data[: cut + 1], data[cut + 1:]
            yield Block(line_no, text)
            line_no += text.count(b"\n")
        if rest.strip():
            yield Block(line_no, rest)
    finally:
        fh.close()


def runaway_line(line_no: int, start: bytes) -> Block:
    """The reject of a line still without its end past ``MAX_LINE_BYTES`` (every reader's
    same reason and snippet), which the reader then skips to its newline."""
    reason = f"line longer than {MAX_LINE_BYTES >> 20} MiB"
    return Block(line_no, b"", ((line_no, reason, start[:200]),))


def _plain_blocks(path: Path, block_bytes: int) -> Iterator[Block]:
    """Spans of whole lines of an uncompressed file, with the same line numbers and rejects
    as the streamed reader. Reads each span once here (to find its last newline and count
    its lines); the parser reads it again, from the page cache."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        offset, line_no = 0, 1
        while offset < size:
            chunk = os.pread(fd, block_bytes, offset)
            if not chunk:
                break
            cut = chunk.rfind(b"\n")
            if cut >= 0 or offset + len(chunk) >= size:
                length = cut + 1 if cut >= 0 else len(chunk)
                lines = int(np.count_nonzero(np.frombuffer(chunk, np.uint8, length) == 10))
                if cut < 0 and not chunk.strip():
                    break  # blank tail without a newline
            else:  # a line longer than a block: find its end
                end = _find_newline(fd, offset + len(chunk), offset + MAX_LINE_BYTES + 1)
                if end is None:
                    yield runaway_line(line_no, os.pread(fd, 200, offset))
                    end = _find_newline(fd, offset + MAX_LINE_BYTES, size)
                    offset = size if end is None else end + 1
                    line_no += 1
                    continue
                length, lines = end + 1 - offset, 1
            yield Block(line_no, span=(str(path), offset, length))
            offset += length
            line_no += lines
    finally:
        os.close(fd)


def _find_newline(fd: int, start: int, limit: int) -> int | None:
    """Offset of the first newline at or after ``start`` and before ``limit``, else None."""
    while start < limit:
        chunk = os.pread(fd, min(BLOCK_BYTES, limit - start), start)
        if not chunk:
            return None
        at = chunk.find(b"\n")
        if at >= 0:
            return start + at
        start += len(chunk)
    return None


def _document_blocks(path: Path, block_bytes: int) -> Iterator[Block]:
    """Entities of a JSON document, one per line of the yielded blocks (streamed)."""
    import ijson

    fh = open_dump(path)
    try:
        head = fh.peek(64)[:64] if hasattr(fh, "peek") else b""
        prefix = "entities" if head.lstrip().startswith(b"{") else "item"
        items = (ijson.kvitems(fh, prefix, use_float=True) if prefix == "entities"
                 else ijson.items(fh, prefix, use_float=True))
        lines: list[bytes] = []
        size, first, n = 0, 1, 0
        try:
            for item in items:
                entity = item[1] if prefix == "entities" else item
                n += 1
                if isinstance(entity, dict) and "missing" in entity and "type" not in entity:
                    # a wbgetentities reply's {"id": "Q789", "missing": ""}: no such entity,
                    # said so (not "missing required field `type`")
                    if lines:
                        yield Block(first, b"\n".join(lines) + b"\n")
                        lines, size = [], 0
                    yield Block(n, b"", ((n, f"the reply marks {entity.get('id', 'it')} "
                                          "missing: no such entity",
                                          orjson.dumps(entity, default=str)[:200]),))
                    first = n + 1
                    continue
                line = orjson.dumps(entity, default=str)
                lines.append(line)
                size += len(line)
                if size >= block_bytes:
                    yield Block(first, b"\n".join(lines) + b"\n")
                    lines, size, first = [], 0, n + 1
        except ijson.JSONError as exc:
            if lines:
                yield Block(first, b"\n".join(lines) + b"\n")
                lines = []
            yield Block(n + 1, b"", ((n + 1, f"invalid JSON after entity {n}: {exc}",
                                      b""),))
        except _READ_ERRORS as exc:
            raise DumpError(f"{path}: corrupt compressed data after entity {n} ({exc})") \
                from exc
        if lines:
            yield Block(first, b"\n".join(lines) + b"\n")
        if n == 0 and prefix == "entities":  # a JSON object, but no entity in it: not "the
            # file is empty" (a newcomer's label file given as a dump)
            yield Block(1, b"", ((1, 'a JSON object with no "entities" in it: a dump is an '
                                  'array of entities, a wbgetentities reply {"entities": '
                                  '{...}} (a labels file is given with --labels)', b""),))
    finally:
        fh.close()
