"""What every command module shares: options, opening the project, printing, and the one
place where failures become one line and a documented exit code.

KG text and user text are printed as plain text, never as rich markup: a label such as
``[person]`` or ``film [1999]`` is shown as written.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from pydantic import ValidationError

from convkgyarn.config import ProjectConfig, describe_validation, load_project_config
from convkgyarn.errors import EXIT_BAD_INPUT, EXIT_FAILURE, EXIT_INTERRUPTED, ConvKGYarnError

console = Console(stderr=True, highlight=False)
out = Console(highlight=False)
log = logging.getLogger("convkgyarn")

DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", help="Project DuckDB file [default: from convkgyarn.toml, else "
                 "outputs/convkgyarn.duckdb]"),
]
ConfigOption = Annotated[
    Optional[Path], typer.Option("--config", help="Project config file (TOML).")
]
MemoryLimit = Annotated[Optional[str], typer.Option(
    "--memory-limit", help="DuckDB's memory cap, e.g. 512MB or 4GB: peak memory is about this "
    "plus 0.3 GB, whatever the dump's size [default: memory_limit in convkgyarn.toml, else "
    "2GB].")]
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
    console.print(Text(message), soft_wrap=True)


def fail(message: str, code: int) -> None:
    console.print(Text.assemble(("error: ", "bold red"), message), soft_wrap=True)
    raise typer.Exit(code)


def command(fn: Callable) -> Callable:
    """Run a command body: a known failure is one line with its exit code, Ctrl-C is
    "interrupted" (130), and an unexpected error is one line too (its traceback goes to the
    log, shown with --verbose)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except typer.Exit:
            raise
        except ConvKGYarnError as exc:
            log.debug("stopped", exc_info=True)
            fail(str(exc), exc.exit_code)
        except ValidationError as exc:  # options that make an invalid stage config
            fail(f"options: {describe_validation(exc)}", EXIT_BAD_INPUT)
        except KeyboardInterrupt:
            fail("interrupted; finished work is kept", EXIT_INTERRUPTED)
        except Exception as exc:  # noqa: BLE001 - a bug: still one line and a code
            log.info("unexpected failure", exc_info=True)
            fail(f"unexpected {type(exc).__name__}: {exc} (a bug; run with -v for details)",
                 EXIT_FAILURE)
    return wrapper


def project_config(config: Optional[Path], db: Optional[Path], **overrides: Any) -> ProjectConfig:
    """The typed config: environment, then the config file, then these options."""
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

    project = Project(cfg, write=write, say=say, command=name)
    with project:
        try:
            yield project
        finally:
            print_usage(project.meter)


def print_usage(meter) -> None:
    """Tokens and USD per stage, printed at the end of every command that called an LLM."""
    if not meter.usage:
        return
    table = Table("stage", "calls", "cached", "failed", "prompt tok", "completion tok", "USD",
                  "est. calls", "est. tokens", title="LLM usage")
    for stage, u in sorted(meter.usage.items()):
        table.add_row(stage, str(u.calls), str(u.cached), str(u.failed), f"{u.prompt_tokens:,}",
                      f"{u.completion_tokens:,}", f"{u.usd:.4f}", str(u.estimated_calls),
                      f"{u.estimated_tokens:,}")
    console.print(table)


def table(*columns: str, rows: Iterable[Iterable[Any]], title: str | None = None) -> Table:
    """A table whose cells are plain text (KG labels are never read as markup)."""
    t = Table(*columns, title=title)
    for row in rows:
        t.add_row(*(Text("" if v is None else str(v)) for v in row))
    return t
