"""Where commands write files, and the rule they keep there: never delete, empty or
overwrite what convkgyarn did not write.

- **A file** (a JSONL or Parquet export, ``kg rdf``'s N-Triples, ``summary.json``, the
  report's files, a drift report) is written to a temporary sibling and renamed over its
  target only once complete. An existing file there is replaced only when it is
  recognisably a previous output of the same kind (its content says so: ``OutputKind.ours``),
  when it is empty, or with ``force``. A folder is never replaced by a file, whatever
  ``force`` says, and nor are the project's own files (its database, lock, log, staging
  database).
- **A folder** (the ``hf`` export) is built as a temporary sibling and swapped in whole.
  An existing folder there is replaced only when it is empty, or holds our marker file
  (``.convkgyarn-output.json``, naming what wrote it and every file it wrote) and nothing
  the marker does not list. ``force`` never empties a folder: a folder that is not ours is
  refused, and so are the current folder and the folders above it.
- Files named inside a folder the user may share with other things (``generate --out``'s
  ``conversations.jsonl`` and ``summary.json``, ``report --out``'s files) each follow the
  file rule; the folder itself is only ever created, never emptied.
- Temporary siblings are named ``.NAME.convkgyarn-PID-XXXXXXXX.tmp``. They are removed
  however the command ends (an error, Ctrl-C, SIGTERM); one left by a killed process
  (``kill -9``) is removed by the next write to the same target.

A refusal is an ``OutputRefused`` (exit 2, one line naming the path and what to do). An
``OSError`` while writing (a full disk, a read-only folder) leaves the previous file whole
and reaches the CLI with the target's name, which turns it into one line.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import shutil
import struct
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from convkgyarn import __version__
from convkgyarn.errors import OutputRefused

MARKER = ".convkgyarn-output.json"
_TMP = re.compile(r"\.(?P<name>.+)\.convkgyarn-(?P<pid>\d+)-[0-9a-f]{8}\.tmp")
FIRST_LINE_BYTES = 16 << 20  # a conversation record is tens of KB; a first line past this is not ours


@dataclass(frozen=True)
class OutputKind:
    """One kind of output: what it is called, and how a previous one is recognised."""

    what: str
    ours: Callable[[Path], bool]
    example: str = ""  # a file name to suggest when a folder was given


# -- recognising our previous outputs -------------------------------------------------------
def _first_line(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.readline(FIRST_LINE_BYTES)


def _json_object_keys(data: bytes) -> set[str]:
    try:
        value = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        return set()
    return set(value) if isinstance(value, dict) else set()


def _guard(check: Callable[[Path], bool]) -> Callable[[Path], bool]:
    """A recogniser never fails: a file it cannot read is simply not recognised."""
    def safe(path: Path) -> bool:
        try:
            return bool(check(path))
        except (OSError, ValueError, UnicodeDecodeError, struct.error, zlib.error):
            return False
    return safe


CONVERSATION_KEYS = {"conversation_id", "config", "turns", "provenance"}


@_guard
def _is_conversations_jsonl(path: Path) -> bool:
    """Our JSONL export: its first line is a conversation record with its provenance."""
    return CONVERSATION_KEYS <= _json_object_keys(_first_line(path))


@_guard
def _is_conversations_parquet(path: Path) -> bool:
    """Our Parquet export: the schema's metadata names convkgyarn (since 0.5.6), or the
    columns are a conversation record's (earlier releases)."""
    import pyarrow.parquet as pq

    schema = pq.read_schema(path)
    if b"convkgyarn" in (schema.metadata or {}):
        return True
    return CONVERSATION_KEYS <= set(schema.names)


@_guard
def _is_summary(path: Path) -> bool:
    if path.stat().st_size > 256 << 20:
        return False
    keys = _json_object_keys(path.read_bytes())
    return {"conversations", "turns", "configurations", "distinct_facts"} <= keys


NTRIPLES_HEADER = "# convkgyarn kg rdf"


@_guard
def _is_ntriples(path: Path) -> bool:
    """``kg rdf`` starts its file with a comment line naming itself (an N-Triples comment
    every store skips). Files from releases before 0.5.6 lack it: replace those with
    --force."""
    return _first_line(path).startswith(NTRIPLES_HEADER.encode())


@_guard
def _is_drift_report(path: Path) -> bool:
    if path.stat().st_size > 1 << 30:
        return False
    return {"endpoint", "summary", "turns"} <= _json_object_keys(path.read_bytes())


REPORT_TITLE = "# Fact recall by configuration"
RESULTS_CSV_HEADER = "model,config,conversations,turns,mean_turn"
EFFECTS_CSV_HEADER = "model,config,base,pairs,base_mean,mean,effect"
LANGUAGE_EFFECTS_CSV_HEADER = "model,config,language,base_language,pairs,base_mean,mean,effect"
PNG_SOFTWARE = "convkgyarn report"


@_guard
def _is_report_md(path: Path) -> bool:
    return _first_line(path).rstrip(b"\r\n") == REPORT_TITLE.encode()


def _csv_with_header(header: str) -> Callable[[Path], bool]:
    @_guard
    def check(path: Path) -> bool:
        return _first_line(path).decode("utf-8").startswith(header)
    return check


def png_text(path: Path) -> dict[str, str]:
    """The tEXt chunks of a PNG file (matplotlib writes ``Software`` there)."""
    out: dict[str, str] = {}
    with open(path, "rb") as fh:
        if fh.read(8) != b"\x89PNG\r\n\x1a\n":
            return out
        while True:
            head = fh.read(8)
            if len(head) < 8:
                return out
            length, kind = struct.unpack(">I4s", head)
            if kind == b"IDAT" or kind == b"IEND" or length > 1 << 20:
                return out
            data = fh.read(length)
            fh.read(4)  # CRC
            if kind == b"tEXt" and b"\0" in data:
                key, value = data.split(b"\0", 1)
                out[key.decode("latin-1")] = value.decode("latin-1")


@_guard
def _is_report_png(path: Path) -> bool:
    """Our plots say so in their ``Software`` text (since 0.5.6); an older plot by matplotlib
    is ours when the folder's report.md is."""
    software = png_text(path).get("Software", "")
    if software.startswith(PNG_SOFTWARE):
        return True
    return software.lower().startswith("matplotlib") and _is_report_md(path.parent / "report.md")


ANNOTATION_HEADER = ["conversation_id", "config", "conversation", "fluency", "relevance",
                     "diversity", "grammar"]


@_guard
def _is_blank_annotation_sample(path: Path) -> bool:
    """Our annotation sample, and nobody has filled in a rating yet: a filled-in sample is
    someone's work, replaced only with --force."""
    import csv

    with open(path, newline="", encoding="utf-8") as fh:
        rows = csv.reader(fh)
        if next(rows, None) != ANNOTATION_HEADER:
            return False
        return all(not any(cell.strip() for cell in row[3:]) for row in rows)


HF_README_TITLE = "# Conversational KGQA from Wikidata (convkgyarn)"
CARD_HEAD_CHARS = 4 << 20  # where the title must appear: after a front matter of many configs


def _is_legacy_hf(folder: Path) -> bool:
    """An hf export of a release before the marker file: our card and data/*.jsonl only."""
    readme = folder / "README.md"
    try:
        # the title follows the card's YAML, which lists every configuration's features
        with open(readme, encoding="utf-8", errors="replace") as fh:
            if HF_README_TITLE not in fh.read(CARD_HEAD_CHARS):
                return False
    except OSError:
        return False
    for f in _files(folder):
        if f != "README.md" and not re.fullmatch(r"data/[^/]+\.jsonl", f):
            return False
    return True


CONVERSATIONS_JSONL = OutputKind("a JSONL export of conversations", _is_conversations_jsonl,
                                 "conversations.jsonl")
CONVERSATIONS_PARQUET = OutputKind("a Parquet export of conversations",
                                   _is_conversations_parquet, "conversations.parquet")
SUMMARY_JSON = OutputKind("a generation summary", _is_summary, "summary.json")
NTRIPLES = OutputKind("an N-Triples snapshot (kg rdf)", _is_ntriples, "kg.nt")
DRIFT_JSON = OutputKind("a drift report", _is_drift_report, "drift.json")
REPORT_MD = OutputKind("an evaluation report", _is_report_md, "report.md")
RESULTS_CSV = OutputKind("an evaluation results table", _csv_with_header(RESULTS_CSV_HEADER))
EFFECTS_CSV = OutputKind("an effects table", _csv_with_header(EFFECTS_CSV_HEADER))
LANGUAGE_EFFECTS_CSV = OutputKind("a table of effects between languages",
                                  _csv_with_header(LANGUAGE_EFFECTS_CSV_HEADER))
REPORT_PNG = OutputKind("an evaluation plot", _is_report_png)
ANNOTATION_CSV = OutputKind("an annotation sample nobody has filled in",
                            _is_blank_annotation_sample, "annotation-sample.csv")
HF_FOLDER = OutputKind("a Hugging Face dataset folder", _is_legacy_hf)


# -- checking a target ----------------------------------------------------------------------
def _target(path: Path | str) -> Path:
    """An absolute path (``..`` folded); a symbolic link at the end is followed, so its
    target is what gets checked and replaced."""
    path = Path(os.path.abspath(os.fspath(path) or "."))
    if path.is_symlink():
        path = path.resolve()
    return path


def _is_protected(target: Path, protected: Iterable[Path]) -> bool:
    """The project's own files: the database and everything named after it beside it
    (its lock, WAL, refresh log, refresh staging database)."""
    for db in protected:
        db = Path(os.path.abspath(db))
        if target == db or (target.parent == db.parent and target.name.startswith(db.name + ".")):
            return True
        try:
            if target.exists() and db.exists() and os.path.samefile(target, db):
                return True
        except OSError:
            pass
    return False


def _check_parent(target: Path, path: Path | str) -> None:
    """The nearest existing folder above ``target`` must be a folder."""
    for parent in target.parents:
        if parent.exists() or parent.is_symlink():
            if not parent.is_dir():
                raise OutputRefused(f"{path}: cannot be created: {parent} is a file, not a "
                                    "folder; give another --out")
            return


def check_file(path: Path | str, kind: OutputKind, *, force: bool = False,
               protected: Iterable[Path] = ()) -> Path:
    """Where a file of ``kind`` may be written at ``path``, or ``OutputRefused`` saying why
    not and what to give instead. Returns the absolute path to write."""
    target = _target(path)
    if _is_protected(target, protected):
        raise OutputRefused(f"{path}: is one of the project's own files (its database, lock "
                            "or log); give another --out")
    if target.is_dir():
        hint = f" (e.g. {Path(path) / kind.example})" if kind.example else ""
        raise OutputRefused(f"{path}: is a folder; --out takes a file for {kind.what}{hint}")
    if target.exists():
        if not target.is_file():
            raise OutputRefused(f"{path}: is not a regular file; give another --out")
        if not force and target.stat().st_size and not kind.ours(target):
            raise OutputRefused(f"{path}: exists and is not {kind.what} written by convkgyarn; "
                                "give another --out, or --force to replace it")
    else:
        _check_parent(target, path)
    return target


def check_folder(path: Path | str, kind: OutputKind, *,
                 protected: Iterable[Path] = ()) -> Path:
    """Where a folder of ``kind`` may be written at ``path`` (replacing it whole), or
    ``OutputRefused``. There is no ``force``: a folder convkgyarn did not write is never
    emptied or removed."""
    target = _target(path)
    cwd = Path.cwd().resolve()
    real = target.resolve()
    if real == cwd or real in cwd.parents:
        raise OutputRefused(f"{path or '(empty)'}: is the current folder or one above it; "
                            f"give a new folder as --out (e.g. {Path(path or '.') / 'hf'})")
    if _is_protected(target, protected):
        raise OutputRefused(f"{path}: is one of the project's own files; give another --out")
    if target.exists() and not target.is_dir():
        raise OutputRefused(f"{path}: is a file; {kind.what} is a folder: give a new or empty "
                            "folder as --out")
    if not target.exists():
        _check_parent(target, path)
        return target
    for db in protected:
        db = Path(os.path.abspath(db)).resolve()
        if real == db.parent or real in db.parents:
            raise OutputRefused(f"{path}: holds the project's database; give a new folder as "
                                "--out")
    foreign = _foreign_files(target, kind)
    if foreign is not None:
        raise OutputRefused(
            f"{path}: {foreign}; convkgyarn never empties or removes a folder holding what it "
            "did not write, whatever --force says: give a new or empty folder as --out")
    return target


def _files(folder: Path) -> list[str]:
    """Every file and link under ``folder`` (relative, '/'-separated), and every empty
    folder in it ("photos/2023/", ending in '/'): a user's empty folders are theirs too
    (found in review: a folder holding only empty folders counted as empty, and was
    replaced)."""
    out = []
    for root, dirs, files in os.walk(folder):
        rel = Path(root).relative_to(folder)
        out += [(rel / f).as_posix() for f in files]
        out += [(rel / d).as_posix() for d in dirs if (Path(root) / d).is_symlink()]
        if not files and not dirs and rel != Path("."):
            out.append(rel.as_posix() + "/")
    return sorted(out)


def read_marker(folder: Path) -> dict | None:
    try:
        data = json.loads((folder / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("files"), list) else None


def _foreign_files(folder: Path, kind: OutputKind) -> str | None:
    """None when the folder may be replaced whole (empty, or everything in it ours);
    otherwise what makes it not ours, for the message."""
    files = _files(folder)
    if not files:
        return None
    marker = read_marker(folder)
    if marker is None:
        if kind.ours(folder):
            return None
        return f"is a folder convkgyarn did not write (it has no {MARKER})"
    listed = set(marker["files"]) | {MARKER}
    extra = [f for f in files if f not in listed]
    if extra:
        more = f" and {len(extra) - 1} more" if len(extra) > 1 else ""
        return f"holds {extra[0]}{more}, which convkgyarn did not write"
    return None


# -- writing ----------------------------------------------------------------------------------
def _tmp_stem(name: str) -> str:
    """The target's name in its temporaries' names, shortened (with a hash) where the
    temporary's name would pass the file system's 255-byte limit that the target's meets."""
    if len(name.encode()) <= 200:
        return name
    import hashlib

    return name.encode()[:120].decode(errors="ignore") + "~" + \
        hashlib.sha256(name.encode()).hexdigest()[:16]


def _tmp_sibling(target: Path) -> Path:
    return target.parent / (f".{_tmp_stem(target.name)}.convkgyarn-{os.getpid()}-"
                            f"{os.urandom(4).hex()}.tmp")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove(path: Path) -> None:
    """Remove a temporary of ours; a failure to clean up never hides why the write failed
    (a read-only disk refuses even to unlink a file that is not there)."""
    if not os.path.lexists(path):
        return
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            path.unlink()
        except OSError:
            pass


def clear_stale_temporaries(target: Path) -> None:
    """Temporary siblings of ``target`` left by a convkgyarn process that no longer runs
    (killed with ``kill -9``): they are ours by name, and nobody will finish them."""
    try:
        entries = list(target.parent.iterdir())
    except OSError:
        return
    for entry in entries:
        m = _TMP.fullmatch(entry.name)
        if m and m["name"] == _tmp_stem(target.name) and not _alive(int(m["pid"])):
            _remove(entry)


def _with_filename(exc: OSError, target: Path, tmp: Path | None = None) -> OSError:
    """A write error names the file the user asked for (``write()`` errors name none, and
    the temporary sibling means nothing to the user)."""
    if exc.filename is None or (tmp is not None and os.fspath(exc.filename).startswith(
            os.fspath(tmp))):
        new = OSError(exc.errno, exc.strerror or os.strerror(exc.errno or 0), str(target))
        new.__cause__ = exc
        return new
    return exc


@contextmanager
def replacing_file(path: Path | str, kind: OutputKind, *, force: bool = False,
                   protected: Iterable[Path] = ()) -> Iterator[Path]:
    """A temporary sibling to write ``kind`` to; it replaces ``path`` when the block
    completes (checked again just before), and is removed however the block ends."""
    target = check_file(path, kind, force=force, protected=protected)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _with_filename(exc, target.parent) from None
    clear_stale_temporaries(target)
    tmp = _tmp_sibling(target)
    try:
        yield tmp
        check_file(path, kind, force=force, protected=protected)
        os.replace(tmp, target)
    except OSError as exc:
        raise _with_filename(exc, Path(path), tmp) from None
    finally:
        _remove(tmp)


@contextmanager
def replacing_folder(path: Path | str, kind: OutputKind, *, command: str,
                     protected: Iterable[Path] = ()) -> Iterator[Path]:
    """A temporary sibling folder to build ``kind`` in; when the block completes it gets
    our marker (what wrote it, every file) and is swapped in for ``path`` in one step where
    the system can (Linux ``renameat2``), else in two renames. The previous folder, checked
    to be ours just before, is then removed."""
    target = check_folder(path, kind, protected=protected)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _with_filename(exc, target.parent) from None
    clear_stale_temporaries(target)
    tmp = _tmp_sibling(target)
    try:
        tmp.mkdir()
        yield tmp
        marker = {"written_by": f"convkgyarn {__version__}", "command": command,
                  "files": _files(tmp)}
        (tmp / MARKER).write_text(json.dumps(marker, indent=1) + "\n", encoding="utf-8")
        check_folder(path, kind, protected=protected)
        if target.exists():
            _exchange(tmp, target)
        else:
            os.rename(tmp, target)
    except OSError as exc:
        raise _with_filename(exc, Path(path), tmp) from None
    finally:
        _remove(tmp)  # the new folder if it never got in; else the previous one


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def _exchange(new: Path, old: Path) -> None:
    """Swap two paths: ``old`` then holds the new folder and ``new`` the previous one.
    Atomic with Linux's renameat2(RENAME_EXCHANGE); elsewhere two renames (a kill between
    them leaves the previous folder in the temporary sibling, nothing half-written)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        renameat2 = None
    if renameat2 is not None:
        if renameat2(_AT_FDCWD, os.fsencode(new), _AT_FDCWD, os.fsencode(old),
                     _RENAME_EXCHANGE) == 0:
            return
        err = ctypes.get_errno()
        if err not in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
            raise OSError(err, os.strerror(err), str(old))
    parked = _tmp_sibling(old)
    os.rename(old, parked)
    os.rename(new, old)
    os.rename(parked, new)
