"""What every command module shares: options, opening the project, printing, and the one
place where failures become one line and a documented exit code.

KG text and user text are printed as plain text, never as rich markup: a label such as
``[person]`` or ``film [1999]`` is shown as written.
"""

from __future__ import annotations

import errno
import functools
import logging
import re
import shlex
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pydantic import ValidationError

from convkgyarn.config import ProjectConfig, describe_validation, load_project_config
from convkgyarn.errors import (
    EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_TERMINATED, ConvKGYarnError, Terminated)

console = Console(stderr=True, highlight=False)
# piped or redirected output has no terminal width: rich would fold tables at 80 columns, and
# a run id split over two lines cannot be copied into `export --run` (a newcomer's find)
PIPED_WIDTH = 160
out = Console(highlight=False, width=None if sys.stdout.isatty() else PIPED_WIDTH)
log = logging.getLogger("convkgyarn")

DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", help="Project DuckDB file.",
                 show_default="from convkgyarn.toml, else outputs/convkgyarn.duckdb"),
]
ConfigOption = Annotated[
    Optional[Path], typer.Option("--config", help="Project config file (TOML).")
]
MemoryLimit = Annotated[Optional[str], typer.Option(
    "--memory-limit", help="DuckDB's memory cap, e.g. 512MB or 4GB: peak memory is about this "
    "plus 0.3 GB, whatever the dump's size.",
    show_default="memory_limit in convkgyarn.toml, else 2GB")]
MaxCost = Annotated[Optional[float], typer.Option(
    "--max-cost", help="Stop before LLM spending passes this many USD (finished work stays "
    "cached).")]
DryRun = Annotated[bool, typer.Option("--dry-run", help="Estimate LLM calls and tokens; "
                                      "send nothing.")]
Concurrency = Annotated[Optional[int], typer.Option(
    "--concurrency", help="LLM requests in flight.", min=1)]
Batch = Annotated[bool, typer.Option(
    "--batch", help="Send through the OpenAI Batch API: half the price, results within 24 "
    "hours; an interrupted command resumes the same batch.")]
Force = Annotated[bool, typer.Option(
    "--force", help="Replace an existing file at --out that convkgyarn did not write (never a "
    "folder, never the project's database).")]
BaseUrl = Annotated[Optional[str], typer.Option(
    "--base-url", help="OpenAI-compatible endpoint (overrides OPENAI_BASE_URL and the config "
    "file).")]


def say(message: str) -> None:
    """A note for the user (stderr, plain text)."""
    console.print(Text(with_project_options(message)), soft_wrap=True)


def fail(message: str, code: int) -> None:
    console.print(Text.assemble(("error: ", "bold red"), with_project_options(message)),
                  soft_wrap=True)
    raise typer.Exit(code)


_SUGGESTED = re.compile(r"`convkgyarn ([^`]*)`")


def with_project_options(message: str) -> str:
    """Every command a line suggests ("run `convkgyarn kg rejects`") with the --config and
    --db this command was given, so that running it as printed reaches the same project
    (found by a newcomer: the hint after `kg load --db err/c.duckdb` read the default
    project's rejects)."""
    given = _opened.get("project_options")
    if not given:
        return message
    extra = "".join(f" {flag} {shlex.quote(str(value))}" for flag, value in given)
    return _SUGGESTED.sub(lambda m: m.group(0) if " --db " in m.group(1) + " " else
                          f"`convkgyarn {m.group(1).rstrip()}{extra}`", message)


def command(fn: Callable) -> Callable:
    """Run a command body: a known failure is one line with its exit code, Ctrl-C is
    "interrupted" (130), SIGTERM "terminated" (143), a problem of the machine (a full or
    read-only disk, a path that is a file, a damaged database, too little memory) is one
    line with exit 2, and an unexpected error is one line too (its traceback goes to the
    log, shown with --verbose). This is the one place where failures become lines."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _opened.pop("project_options", None)  # this command's, set by project_config
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except ConvKGYarnError as exc:
            log.debug("stopped", exc_info=True)
            fail(str(exc), exc.exit_code)
        except ValidationError as exc:  # options that make an invalid stage config
            fail(f"options: {describe_validation(exc)}", EXIT_BAD_INPUT)
        except Terminated:
            terminated()
        except KeyboardInterrupt:
            interrupted()
        except Exception as exc:  # noqa: BLE001 - a bug: still one line and a code
            if _sigterm_received:  # whatever broke, it broke because the run was terminated
                terminated()
            if query_interrupted(exc):  # Ctrl-C while DuckDB ran a query
                interrupted()
            problem = environment_problem(exc)
            if problem is not None:
                log.info("stopped by the environment", exc_info=True)
                fail(problem, EXIT_BAD_INPUT)
            log.info("unexpected failure", exc_info=True)
            fail(f"unexpected {type(exc).__name__}: {exc} (a bug; run with -v for details)",
                 EXIT_FAILURE)
    return wrapper


def interrupted() -> None:
    fail("interrupted; finished work is kept", EXIT_INTERRUPTED)


def terminated() -> None:
    fail("terminated (SIGTERM); finished work is kept, nothing half-written", EXIT_TERMINATED)


def query_interrupted(exc: BaseException) -> bool:
    """DuckDB turns a signal that arrives while it runs a query into its own
    ``RuntimeError('Query interrupted')``, dropping the ``KeyboardInterrupt``; one that
    arrives while it reads a registered Arrow object becomes an ``InvalidInputException``
    whose message names the Python exception."""
    return any((isinstance(e, RuntimeError) and str(e).startswith("Query interrupted"))
               or ("KeyboardInterrupt" in str(e) or "Terminated" in str(e))
               and type(e).__module__.startswith(("duckdb", "_duckdb"))
               for e in _chain(exc))


# -- SIGTERM: the signal kill, systemd and job schedulers send, handled like Ctrl-C ----------
_sigterm_received: list[int] = []


@contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While the block runs, SIGTERM raises ``Terminated`` (a ``KeyboardInterrupt``) in the
    main thread, so a terminated command cleans up exactly as after Ctrl-C. A second SIGTERM
    during that clean-up is ignored (SIGKILL still stops everything at once)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received = _sigterm_received
    received.clear()

    def on_sigterm(signum, frame):
        if received:
            return
        received.append(signum)
        raise Terminated()

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


# -- the machine's problems, as one line each ------------------------------------------------
_opened: dict[str, Any] = {}  # the project of this command (for lines about its database)
_DUCKDB_FILE = re.compile(r'file "([^"]+)"')


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and what it was raised from or while handling, innermost last."""
    out: list[BaseException] = []
    while exc is not None and exc not in out and len(out) < 12:
        out.append(exc)
        exc = exc.__cause__ or exc.__context__
    return out


def environment_problem(exc: BaseException) -> str | None:
    """One line for a failure caused by the machine rather than by convkgyarn: what
    happened to which file, and what to do. None for anything else (a bug)."""
    chain = _chain(exc)
    db = _opened.get("db")
    for e in chain:  # a full disk explains whatever it caused afterwards
        text = str(e)
        if (isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT)) or \
                "No space left on device" in text or "Disk quota exceeded" in text:
            if isinstance(e, OSError) and e.filename:
                return (f"{e.filename}: no space left on the device; nothing half-written "
                        "was kept (a file it would replace stays as it was): free some space, "
                        "or give another path, and run the command again")
            where = _duckdb_file(text) or db or "the project database"
            return (f"{where}: no space left on the device; the database keeps what was "
                    "committed before, nothing half-written: free some space and run the "
                    "command again")
    for e in chain:
        text = str(e)
        if _is_duckdb(e) and ("Corrupt database file" in text or "Could not read enough bytes"
                              in text or "checksum" in text.lower()):
            where = db or _duckdb_file(text) or "the project database"
            return (f"{where}: the database file is damaged ({_short(text)}); restore it from "
                    "a backup, or move it away and build the project again (`convkgyarn kg "
                    "load` or `convkgyarn generate`)")
        if _is_duckdb(e) and type(e).__name__ == "OutOfMemoryException":
            limit = _opened.get("memory_limit", "the default 2GB")
            return (f"DuckDB ran out of memory under memory_limit {limit} ({_short(text)}); "
                    "raise it with --memory-limit or memory_limit in convkgyarn.toml")
        if _is_duckdb(e) and ("Permission denied" in text or "Read-only file system" in text):
            where = _duckdb_file(text) or db or "the project database"
            why = "read-only file system" if "Read-only" in text else "permission denied"
            return (f"{where}: cannot write ({why}); use a project on a writable disk, or "
                    "fix the permissions")
    for e in chain:
        if isinstance(e, OSError) and e.errno in _OS_HINTS:
            where = e.filename or db or "a file"
            if getattr(e, "filename2", None):
                where = f"{where} -> {e.filename2}"
            return f"{where}: {e.strerror or os_strerror(e.errno)}; {_OS_HINTS[e.errno]}"
    for e in chain:
        if _is_duckdb(e) and "database has been invalidated" in str(e):
            return (f"{db or 'the project database'}: DuckDB stopped after a fatal error "
                    f"({_short(str(e))}); what was committed is kept: run the command again")
    return None


_OS_HINTS = {
    errno.EACCES: "give a path you can write, or fix its permissions",
    errno.EPERM: "give a path you can write, or fix its permissions",
    errno.EROFS: "the disk is read-only: give a path on a writable disk",
    errno.ENOTDIR: "a part of this path is a file, not a folder: give another path",
    errno.EISDIR: "it is a folder where a file is needed: give a file path",
    errno.ENOENT: "check the path",
    errno.EEXIST: "give another path",
    errno.ENAMETOOLONG: "give a shorter path",
    errno.ELOOP: "the path loops through symbolic links: give another path",
    errno.EIO: "the disk reported an input/output error: check the disk, then run it again",
    errno.EMFILE: "too many open files: raise the limit (ulimit -n) and run it again",
    errno.ENFILE: "too many open files on the system: run it again later",
    errno.ETXTBSY: "the file is busy: run it again when it is free",
}


def os_strerror(code: int | None) -> str:
    import os

    return os.strerror(code or 0)


def _is_duckdb(exc: BaseException) -> bool:
    return type(exc).__module__.startswith("duckdb") or type(exc).__module__ == "_duckdb"


def _duckdb_file(text: str) -> str | None:
    m = _DUCKDB_FILE.search(text)
    return m.group(1) if m else None


def _short(text: str) -> str:
    """DuckDB's first line, without its type prefix."""
    first = text.strip().splitlines()[0] if text.strip() else text
    return re.sub(r"^[A-Za-z ]+Error: ", "", first)[:200]


def project_config(config: Optional[Path], db: Optional[Path], **overrides: Any) -> ProjectConfig:
    """The typed config: environment, then the config file, then these options."""
    _opened["project_options"] = [(flag, value) for flag, value in
                                  (("--config", config), ("--db", db)) if value is not None]
    return load_project_config(config, {"db": db, **overrides})


def llm_config(config, db, max_cost, dry_run, concurrency, base_url, **overrides) -> ProjectConfig:
    return project_config(config, db, **{"llm.max_cost": max_cost,
                                         "llm.dry_run": dry_run or None,
                                         "llm.concurrency": concurrency,
                                         "llm.base_url": base_url, **overrides})


@contextmanager
def open_project(cfg: ProjectConfig, write: bool, name: str = "convkgyarn"):
    """The project, open and locked, with its LLM usage printed when the command ends."""
    from convkgyarn.project import Project

    from convkgyarn.cli.progress import ProgressDisplay

    _opened.update(db=cfg.db, memory_limit=cfg.memory_limit)
    display = ProgressDisplay(console, say)
    project = Project(cfg, write=write, say=say, command=name, progress=display)
    with project, display:
        try:
            yield project
        except BaseException:
            print_usage(project.meter)  # what was spent before the failure
            raise
        print_usage(project.meter, estimate=cfg.llm.dry_run, configured=cfg.llm.configured)


def print_usage(meter, estimate: bool = False, configured: bool = True) -> None:
    """Tokens and USD per stage, printed at the end of every command that called an LLM;
    a dry run's table adds what would be sent (calls, tokens, USD at max_tokens replies)."""
    if not meter.usage:
        if estimate:
            say("dry run: no LLM call would be made " + (
                "(the work is done and unchanged)" if configured else "(no LLM configured: "
                "the built-in rules would do the work)"))
        return
    extra = ("est. calls", "est. tokens", "est. USD") if estimate else ()
    rows = []
    for stage, u in sorted(meter.usage.items()):
        cells = [stage, f"{u.calls:,}", f"{u.cached:,}", f"{u.failed:,}", f"{u.prompt_tokens:,}",
                 f"{u.completion_tokens:,}", f"{u.usd:.4f}"]
        if estimate:
            cells += [f"{u.estimated_calls:,}", f"{u.estimated_tokens:,}",
                      f"{u.estimated_usd:.4f}"]
        rows.append(cells)
    title = "LLM usage (dry run: nothing sent)" if estimate else "LLM usage"
    usage = table("stage", "calls", "cached", "failed", "prompt tok", "completion tok", "USD",
                  *extra, rows=rows, numeric=True, title=title)
    # numbers are never cut: stage names wrap, and where even the numbers do not fit across
    # the terminal, each stage is one line instead
    numbers = sum(max(len(str(column.header)), *(len(r[i]) for r in rows))
                  for i, column in enumerate(usage.columns) if i)
    if numbers + 9 + 3 * len(usage.columns) + 1 <= console.width:  # 9: a stage name's fold
        console.print(usage)
        return
    console.print(title + ":", highlight=False)
    for cells in rows:
        line = (f"  {cells[0]}: {cells[1]} calls ({cells[2]} cached, {cells[3]} failed), "
                f"{cells[4]} prompt + {cells[5]} completion tokens, USD {cells[6]}")
        if estimate:
            line += f"; estimated {cells[7]} calls, {cells[8]} tokens, USD {cells[9]}"
        console.print(line, highlight=False, markup=False)


def table(*columns: str, rows: Iterable[Iterable[Any]], title: str | None = None,
          numeric: bool = False) -> Table:
    """A table whose cells are plain text (KG labels are never read as markup). With
    ``numeric``, every column after the first whose cells are all numbers is right-aligned
    and never cut (``number_columns``); text columns wrap instead."""
    rows = [[_cell(v, numeric) for v in row] for row in rows]
    t = Table(title=title)
    numbers = _number_columns(rows, len(columns)) if numeric else set()
    for i, name in enumerate(columns):
        if i in numbers:
            width = max([len(name)] + [len(r[i]) for r in rows])
            t.add_column(name, justify="right", no_wrap=True, min_width=width)
        else:
            t.add_column(name, overflow="fold")
    for row in rows:
        t.add_row(*(Text(v) for v in row))
    return t


def _cell(value: Any, numeric: bool) -> str:
    if value is None:
        return ""
    if numeric and isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)


_NUMBER = re.compile(r"[-+]?[$]?[\d,]*\.?\d+%?|")


def _number_columns(rows: list[list[str]], n: int) -> set[int]:
    return {i for i in range(1, n) if all(_NUMBER.fullmatch(r[i]) for r in rows)}
