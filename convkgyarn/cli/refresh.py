"""``convkgyarn refresh``: a new dump in, only what changed costs work or LLM calls."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Annotated, Optional

import typer

from convkgyarn.cli.common import (
    BaseUrl, Concurrency, ConfigOption, DbOption, MaxCost, MemoryLimit, command, llm_config, open_project,
    out, say, table)
from convkgyarn.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, ConvKGYarnError, Terminated


@command
def refresh(
    paths: Annotated[list[Path], typer.Argument(help="The new dump file(s).")],
    db: DbOption = None, config: ConfigOption = None,
    log_file: Annotated[Optional[Path], typer.Option(
        help="Also log here.", show_default="the database path + .refresh.log")] = None,
    allow_shrink: Annotated[bool, typer.Option(
        "--allow-shrink", help="Accept a snapshot that removes more entities than "
        "refresh.max_shrink allows.")] = False,
    workers: Annotated[int, typer.Option(
        help="Parsers for the new dump: this process and N-1 worker processes.", min=1)] = 1,
    engine: Annotated[str, typer.Option(help="local, or spark: parse the new dump on "
                                        "Apache Spark (see `kg load --engine`).")] = "local",
    spark_master: Annotated[Optional[str], typer.Option(
        help="Spark master URL.", show_default="local[*]")] = None,
    memory_limit: MemoryLimit = None,
    max_cost: MaxCost = None, concurrency: Concurrency = None, base_url: BaseUrl = None,
) -> None:
    """Refresh against a new dump: only what changed costs work or LLM calls.

    Exit codes: 0 refreshed, 10 nothing changed, 75 another command holds the project,
    2 bad input (or a refused snapshot), 3 budget reached, 4 LLM endpoint error, 130
    interrupted, 143 terminated (SIGTERM), 1 any other failure."""
    cfg = llm_config(config, db, max_cost, False, concurrency, base_url,
                     memory_limit=memory_limit)
    log_path = log_file or Path(str(cfg.db) + ".refresh.log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(log_path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("convkgyarn")
    root.addHandler(handler)
    level = root.level
    root.setLevel(min(level or logging.INFO, logging.INFO))
    # how the refresh ended goes to the log file only: the terminal has its one line
    file_only = logging.getLogger("convkgyarn.refresh.logfile")
    file_only.propagate = False
    file_only.addHandler(handler)

    def note(message: str) -> None:
        say(message)
        root.info(message)

    try:
        with open_project(cfg, write=True, name="refresh") as project:
            project.say = note
            result = project.refresh(paths, allow_shrink=allow_shrink, workers=workers,
                                     engine=engine, spark_master=spark_master)
            root.info("refresh %s: %s", result.status, json.dumps(result.summary))
    except ConvKGYarnError as exc:  # the log ends with the reason, as the terminal does
        file_only.error("refresh stopped (exit %d): %s", exc.exit_code, exc)
        raise
    except KeyboardInterrupt as exc:
        file_only.error("refresh %s (exit %d)", *(("terminated", EXIT_TERMINATED)
                                                  if isinstance(exc, Terminated)
                                                  else ("interrupted", EXIT_INTERRUPTED)))
        raise
    except Exception:
        file_only.exception("refresh failed")
        raise
    finally:
        file_only.removeHandler(handler)
        root.removeHandler(handler)
        root.setLevel(level)
        handler.close()
    out.print(table("change", "count", title="Refresh", rows=result.diff.items()))
    conv = result.summary.get("conversations") or {}
    seconds = result.summary.get("seconds") or {}
    said = ", ".join(f"{n:,} {what}" for what, n in conv.items()) or "none"
    total = sum(v for v in seconds.values() if isinstance(v, (int, float)))
    say(f"{result.status}: LLM calls {result.summary.get('llm_calls', 0)} "
        f"(${result.summary.get('llm_usd', 0):.4f}); conversations: {said}; "
        f"{total:.1f}s (" + ", ".join(f"{k} {v:.1f}s" for k, v in seconds.items()
                                     if isinstance(v, (int, float))) + ")")
    raise typer.Exit(result.exit_code)


def register(app: typer.Typer) -> None:
    app.command()(refresh)

