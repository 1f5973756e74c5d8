"""Command line: a thin layer that builds typed config and runs stages.

Start with ``convkgyarn kg load wikidata/sample-dump.json`` then
``convkgyarn kg stats`` and ``convkgyarn predicates extract``.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.console import Console
from rich.logging import RichHandler
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from convkgyarn import __version__
from convkgyarn.config import BUNDLED_SAMPLE, LoadConfig, load_project_config
from convkgyarn.kg.reader import DumpError
from convkgyarn.store import connect

app = typer.Typer(
    help="Spin conversational question-answering datasets out of Wikidata "
    "(the ConvKGYarn method) and measure how well LLMs recall those facts.",
    no_args_is_help=True,
    rich_markup_mode="rich",
)
kg_app = typer.Typer(help="Load a Wikidata dump into the project database and inspect it.",
                     no_args_is_help=True)
predicates_app = typer.Typer(help="Predicates per type: extract F(t).", no_args_is_help=True)
app.add_typer(kg_app, name="kg")
app.add_typer(predicates_app, name="predicates")

console = Console(stderr=True)
out = Console()

DbOption = Annotated[
    Optional[Path],
    typer.Option("--db", help="Project DuckDB file [default: from convkgyarn.toml, else "
                 "outputs/convkgyarn.duckdb]"),
]
ConfigOption = Annotated[
    Optional[Path], typer.Option("--config", help="Project config file (TOML).")
]


def _setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING, format="%(message)s",
        handlers=[RichHandler(console=console, show_path=False)], force=True,
    )


def _fail(message: str, code: int = 2) -> None:
    console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(code)


@app.callback()
def main(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log each stage.")] = False,
    version: Annotated[bool, typer.Option("--version", help="Print the version.")] = False,
) -> None:
    _setup_logging(verbose)
    if version:
        out.print(__version__)
        raise typer.Exit()


@kg_app.command("load")
def kg_load(
    paths: Annotated[list[Path], typer.Argument(
        help="Dump files: .json, .json.bz2, .json.gz; the dump array or one entity per line.")],
    db: DbOption = None,
    config: ConfigOption = None,
    workers: Annotated[int, typer.Option(help="Parser processes.", min=1)] = 1,
    force: Annotated[bool, typer.Option(help="Reload files already loaded unchanged.")] = False,
    labels: Annotated[Optional[Path], typer.Option(
        help="JSON {id: label} giving English labels of values that are not in the dump.")] = None,
) -> None:
    """Load Wikidata dump files (streamed; bad lines go to the rejects table)."""
    project = load_project_config(config, {"db": db})
    from convkgyarn.kg.load import LoadStage

    for p in paths:
        if not p.is_file():
            _fail(f"{p}: no such file" if not p.exists() else f"{p}: not a file")
    cfg = LoadConfig(paths=paths, workers=workers, force=force, labels=labels)
    con = connect(project.db)
    with Progress(SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
                  TextColumn("{task.fields[mb]:.1f} MB, {task.fields[ents]:,} entities"),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task("loading", total=None, mb=0.0, ents=0)

        def tick(nbytes: int, entities: int) -> None:
            progress.update(task, mb=nbytes / 1e6, ents=entities)

        stage = LoadStage(con, cfg, progress=tick)
        try:
            report = stage.run()
        except DumpError as exc:
            _fail(str(exc))
    for f in stage.files:
        note = "already loaded, unchanged (use --force to reload)" if f.status == "unchanged" else (
            f"{f.entities:,} entities, {f.rejects:,} rejected lines")
        console.print(f"{f.path}: {note}", highlight=False)
        if f.rejects and f.status == "loaded":
            console.print("  see rejects: convkgyarn kg rejects", highlight=False)
    console.print(f"done in {report.seconds:.1f}s -> {project.db}", highlight=False)


@kg_app.command("stats")
def kg_stats_cmd(
    db: DbOption = None,
    config: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Counts of entities, statements (truthy, qualified), properties, types, fact kinds, rejects."""
    from convkgyarn.kg.stats import kg_stats

    project = load_project_config(config, {"db": db})
    if not project.db.exists():
        _fail(f"{project.db}: no database; run `convkgyarn kg load` first")
    stats = kg_stats(connect(project.db, read_only=True))
    if as_json:
        out.print_json(json.dumps(stats))
        return
    table = Table(title=f"KG in {project.db}", show_header=False)
    for key, value in stats.items():
        table.add_row(key, json.dumps(value) if isinstance(value, dict) else f"{value}")
    out.print(table)


@kg_app.command("rejects")
def kg_rejects(
    db: DbOption = None,
    config: ConfigOption = None,
    limit: Annotated[int, typer.Option(help="Rows to show.")] = 50,
) -> None:
    """Show rejected dump lines: file, line number, reason and the line's start."""
    project = load_project_config(config, {"db": db})
    con = connect(project.db, read_only=True)
    rows = con.execute("SELECT file, line_no, reason, snippet FROM load_rejects "
                       "ORDER BY file, line_no LIMIT ?", [limit]).fetchall()
    table = Table("file", "line", "reason", "start of line")
    for f, line, reason, snippet in rows:
        table.add_row(f, str(line), reason, snippet[:80])
    out.print(table)


@predicates_app.command("extract")
def predicates_extract(
    db: DbOption = None,
    config: ConfigOption = None,
    min_entities: Annotated[Optional[int], typer.Option(
        help="Only types with at least this many entities.")] = None,
) -> None:
    """Build F(t): for each type, every property its entities use, with usage counts."""
    from convkgyarn.stages.predicates import ExtractPredicates

    project = load_project_config(config, {"db": db})
    if min_entities is not None:
        project.predicates.min_type_entities = min_entities
    con = connect(project.db)
    report = ExtractPredicates(con, project.predicates).run()
    s = report.stats
    console.print(f"{s['type_predicates']:,} (type, property) pairs over {s['types']:,} types "
                  f"({s['types_below_min_entities']:,} types below the entity minimum)",
                  highlight=False)


@predicates_app.command("list")
def predicates_list(
    type_id: Annotated[str, typer.Argument(help="A type id, e.g. Q5 or Q33999.")],
    db: DbOption = None,
    config: ConfigOption = None,
) -> None:
    """Show F(t) for one type: properties by the share of its entities using them."""
    project = load_project_config(config, {"db": db})
    con = connect(project.db, read_only=True)
    rows = con.execute(
        "SELECT tp.property_id, p.label, p.datatype, tp.entities, tp.share FROM type_predicates tp "
        "LEFT JOIN property_info p ON p.id = tp.property_id WHERE tp.type_id = ? "
        "ORDER BY tp.entities DESC, tp.property_id", [type_id]).fetchall()
    if not rows:
        _fail(f"no predicates for type {type_id}; run `convkgyarn predicates extract` first", 1)
    table = Table("property", "label", "datatype", "entities", "share")
    for pid, label, dt, n, share in rows:
        table.add_row(pid, label or "", dt or "", str(n), f"{share:.0%}")
    out.print(table)


def default_sample() -> Path:
    return BUNDLED_SAMPLE


if __name__ == "__main__":  # pragma: no cover
    app()
