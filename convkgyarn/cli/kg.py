"""``convkgyarn kg``: load Wikidata into the project and look at what was loaded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from convkgyarn.cli.common import (
    ConfigOption, DbOption, Force, MemoryLimit, command, console, open_project, out, project_config, say, table)
from convkgyarn.config import SparqlConfig, labels_in_both_scopes
from convkgyarn.errors import UserError
from convkgyarn.kg.extract import LABEL_ONLY
from convkgyarn.progress import counted

kg_app = typer.Typer(help="Load Wikidata into the project database and inspect it.",
                     no_args_is_help=True)


@kg_app.command("load")
@command
def kg_load(
    paths: Annotated[Optional[list[Path]], typer.Argument(
        help="Dump files: .json, .json.bz2, .json.gz; the dump array, one entity per line, "
        "or a JSON document of entities.")] = None,
    db: DbOption = None,
    config: ConfigOption = None,
    workers: Annotated[int, typer.Option(
        help="Parsers in all: this process and N-1 worker processes (with 2 or more, a "
        "bz2 dump is decompressed by the parsers too).", min=1)] = 1,
    force: Annotated[bool, typer.Option(help="Reload files already loaded unchanged.")] = False,
    labels: Annotated[Optional[list[Path]], typer.Option(
        help="JSON of labels for ids outside the dump: {id: label} or {id: {\"label\": ...}} "
        "(English), {id: {\"de\": label}} or a wbgetentities reply (the --language "
        "languages); repeat for several files.")] = None,
    value_labels: Annotated[Optional[list[Path]], typer.Option(
        help="A labels file (as --labels) that names values only: facts whose values it "
        "names may be asked, but it never names a type or a property, nor replaces a label "
        "the dump or --labels gives (e.g. CoDEx-M's types-en.json: occupations, genres, "
        "fields); repeat for several.")] = None,
    sparql: Annotated[Optional[str], typer.Option(
        help="Load from this SPARQL endpoint instead of a dump.")] = None,
    entities: Annotated[Optional[list[str]], typer.Option(
        "--entity", help="SPARQL: these entities (repeat).")] = None,
    types: Annotated[Optional[list[str]], typer.Option(
        "--type", help="Dumps: keep whole only items of this type (P31, or occupation for "
        "humans); every other item keeps its id, English label and types. SPARQL: the most "
        "popular entities of this type. Repeat for several.")] = None,
    limit: Annotated[int, typer.Option(help="SPARQL: entities per type.", min=1)] = 100,
    languages: Annotated[Optional[list[str]], typer.Option(
        "--language", help="Also keep labels, descriptions and aliases in this language "
        "(de, ja, zh, pt-br, mul ...; zh brings zh-hans and zh-hant too; all: every language "
        "the dump has); English is always kept. Repeat for several. Dumps and SPARQL; label "
        "files keep English and these.")] = None,
    engine: Annotated[str, typer.Option(
        help="local: parse on this machine (--workers parsers); spark: parse on Apache "
        "Spark, the same extraction code, Parquet parts landed in the same tables.")] = "local",
    spark_master: Annotated[Optional[str], typer.Option(
        help="Spark master URL, e.g. spark://host:7077.", show_default="local[*]")] = None,
    spark_output: Annotated[Optional[str], typer.Option(
        help="Where Spark executors write Parquet parts (a path or URI all of them and this "
        "machine can read); kept after the load, each load in a folder of its own.",
        show_default="a scratch directory beside the database, removed")] = None,
    memory_limit: MemoryLimit = None,
) -> None:
    """Load Wikidata dump files (streamed; bad lines go to the rejects table), or a slice of
    Wikidata from a SPARQL endpoint (--sparql URL --entity Q.. | --type Q.. --limit N)."""
    cfg = project_config(config, db, memory_limit=memory_limit)
    if sparql and paths:  # 0.8.24 loaded the endpoint and said nothing of the files
        raise UserError("give dump files or --sparql URL, not both (load each with its own "
                        "kg load)")
    # options one source takes and the other would pass over without a word
    dump_only = [name for name, given in (
        ("--workers", workers != 1), ("--force", force), ("--engine", engine != "local"),
        ("--spark-master", spark_master), ("--spark-output", spark_output)) if given]
    if sparql and dump_only:
        raise UserError(f"{', '.join(dump_only)}: for dump files, not --sparql")
    if not sparql and entities:
        raise UserError("--entity: for --sparql (a dump keeps whole the items of --type)")
    if not sparql and not paths and not labels and not value_labels:
        raise UserError("give dump files to load (or label files: --labels, --value-labels), "
                        "or --sparql URL")
    paths = paths or []
    both = labels_in_both_scopes(labels or [], value_labels or [])
    if both:  # before the project opens (LoadConfig says the same to a library caller)
        raise UserError(both)
    for p in [*paths, *(labels or []), *(value_labels or [])]:
        if not p.is_file():
            raise UserError(f"{p}: no such file" if not p.exists() else f"{p}: not a file")
    if sparql:
        sparql_cfg = SparqlConfig(endpoint=sparql, entities=entities or [], types=types or [],
                                  limit=limit, languages=languages or None)
        with open_project(cfg, write=True, name="kg load") as project:
            # label files checked before the endpoint is queried, stored after it
            # succeeded (0.8.24 ignored them with --sparql)
            report = project.load_sparql(sparql_cfg, labels=labels or [],
                                         value_labels=value_labels or [])
        s = report.stats
        say(f"{counted(s['entities'], 'entity', 'entities')} from {s['endpoint']} in "
            f"{counted(s['queries'], 'query', 'queries')} "
            f"({report.seconds:.1f}s) -> {cfg.db}")
        if "labels" in s:
            say(f"{counted(s['labels'], 'label')} from "
                f"{counted(len(labels or []) + len(value_labels or []), 'file')}")
        return
    with open_project(cfg, write=True, name="kg load") as project, Progress(
            SpinnerColumn(), TextColumn("[bold]{task.description}"), BarColumn(),
            TextColumn("{task.fields[mb]:.1f} MB, {task.fields[ents]}"),
            TimeElapsedColumn(), console=console, transient=True,
            disable=not console.is_terminal) as progress:  # piped: no blank line before
        task = progress.add_task("loading", total=None, mb=0.0,
                                 ents=counted(0, "entity", "entities"))

        def tick(nbytes: int, n_entities: int) -> None:  # "1 entity", never "1 entities"
            progress.update(task, mb=nbytes / 1e6,
                            ents=counted(n_entities, "entity", "entities"))

        stage = project.load(paths, workers=workers, labels=labels or [],
                             value_labels=value_labels or [], force=force,
                             progress=tick, keep_types=types or None, engine=engine,
                             spark_master=spark_master, spark_output=spark_output,
                             languages=languages or None)
        coverage = project.label_coverage()
        by_language = project.kg_stats()["label_languages"] if stage.languages else None
    for f in stage.files:
        note = "already loaded, unchanged (use --force to reload)" if f.status == "unchanged" \
            else f"{counted(f.entities, 'entity', 'entities')}, " \
            f"{counted(f.rejects, 'rejected line')}"
        if f.rejected_values:
            note += f", {counted(f.rejected_values, 'rejected value')}"
        if f.skipped.get(LABEL_ONLY):
            note += (f" ({counted(f.skipped[LABEL_ONLY], 'entity', 'entities')} kept as id, "
                     "label and types only)")
        say(f"{f.path}: {note}")
        if (f.rejects or f.rejected_values) and f.status == "loaded":
            # the database the user named, so the line works as printed
            say("  see rejects: convkgyarn kg rejects" + (f" --db {cfg.db}" if db else ""))
    if stage.labels_loaded:
        say(f"{counted(stage.labels_loaded, 'label')} from "
            f"{counted(len(labels or []) + len(value_labels or []), 'file')}")
    if by_language:
        say(_languages_line(by_language))
    for warning in coverage.get("warnings", []):
        say(f"note: {warning}")
    for warning in _language_warnings(by_language or {}):
        say(f"note: {warning}")
    say(f"done in {stage.report.seconds:.1f}s -> {cfg.db}")


def _languages_line(by_language: dict, shown: int = 12) -> str:
    """One line: how many entities have a label in each kept language."""
    total, coverage = by_language["entities"], by_language["coverage"]
    kept = by_language["languages"]
    parts = [f"{lang} {coverage[lang]['entities']:,}" for lang in kept[:shown]]
    more = f" and {len(kept) - shown} more (kg stats)" if len(kept) > shown else ""
    return (f"labels besides English, of {total:,} items and properties: {', '.join(parts)}"
            f"{more}" if kept else "no labels besides English")


def _language_warnings(by_language: dict, shown: int = 12) -> list[str]:
    """One note for the kept languages (the first ``shown``, a variant of a kept language
    aside) that name under
    ``LOW_COVERAGE`` of the item values in use, with each one's share: their conversations
    say those answers with the label the fallback chain finds (English, mostly), and each
    turn's ``answer_languages`` says which (one note, as ``label_coverage`` makes one: a
    copy per language would hide the figures)."""
    from convkgyarn.kg.snapshot import LOW_COVERAGE

    low, used = [], 0
    kept = by_language.get("languages", [])
    for lang in kept[:shown]:
        if "-" in lang and lang.split("-")[0] in kept:
            continue  # zh-hans: a script of zh, whose conversations read it
        values = by_language["coverage"][lang]["item_values"]
        if values["used"] and values["share"] < LOW_COVERAGE:
            low.append(f"{lang} {values['share']:.0%}")
            used = values["used"]
    if not low:
        return []
    return [f"few labels of the {used:,} item values in use besides English: "
            f"{', '.join(low)}; an answer whose value has no label in its language is said "
            "with the one its fallback finds (English, mostly: the export's answer_languages "
            "says which)"]


@kg_app.command("stats")
@command
def kg_stats_cmd(
    db: DbOption = None,
    config: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Counts of entities, statements (truthy, qualified), properties, types, fact kinds,
    rejects, label coverage, and the sources the project holds."""
    with open_project(project_config(config, db), write=False, name="kg stats") as project:
        stats = project.kg_stats()
    if as_json:
        out.print_json(json.dumps(stats))
        return
    rows = [(k, json.dumps(v) if isinstance(v, (dict, list)) else v)
            for k, v in stats.items() if k not in ("sources", "label_languages", "label_files")]
    out.print(table("count", "value", rows=rows, title=f"KG in {db or 'the project'}"))
    by_language = stats["label_languages"]
    out.print(table(
        "language", "entities labelled", "item values labelled", "item-valued statements",
        rows=[(lang, f"{c['entities']:,} of {by_language['entities']:,} ({c['share']:.1%})",
               f"{c['item_values']['labelled']:,} of {c['item_values']['used']:,} "
               f"({c['item_values']['share']:.1%})", f"{c['statements_share']:.1%}")
              for lang, c in by_language["coverage"].items()],
        title="labels by language (no fallback)"))
    out.print(table("source", "kind", "status", "entities", "kept whole", "languages",
                    rows=[(s["path"], s["kind"], s["status"], s["entities"],
                           " ".join(s["keep_types"]) if s["keep_types"] else "all items",
                           " ".join(["en", *(s["languages"] or [])]))
                          for s in stats["sources"]] + [
                        (f["path"], "value labels" if f["scope"] == "values" else "labels",
                         "done", counted(f["labels"], "label"), "",
                         " ".join(f["languages"])) for f in stats["label_files"]],
                    title="sources"))


@kg_app.command("rejects")
@command
def kg_rejects(
    db: DbOption = None,
    config: ConfigOption = None,
    limit: Annotated[int, typer.Option(help="Rows to show.", min=1)] = 50,
) -> None:
    """Show rejected dump lines (file, line number, reason, the line's start) and values left
    out of entities that loaded (with the field, e.g. claims.P569, and the statement id and
    value)."""
    with open_project(project_config(config, db), write=False, name="kg rejects") as project:
        rows = project.rejects(limit)
    if not rows:
        say("no rejects: every dump line and value loaded")
        return
    out.print(table("file", "line", "field", "reason", "line start, or statement and value",
                    rows=[(f, "" if line is None else line, field or "(line)", reason,
                           snippet[:80])
                          for f, line, field, reason, snippet in rows]))


@kg_app.command("rdf")
@command
def kg_rdf(
    out_path: Annotated[Path, typer.Option("--out", help="N-Triples file to write.")],
    force: Force = False,
    db: DbOption = None,
    config: ConfigOption = None,
) -> None:
    """Write the loaded KG as N-Triples in Wikidata's RDF model (wd:, wdt:, p:, ps:, pq:,
    psv:, pqv:, ranks), labels from --labels files included: serve it with Oxigraph or
    QLever and every exported turn's `sparql` query returns its gold answer."""
    with open_project(project_config(config, db), write=False, name="kg rdf") as project:
        n = project.write_rdf(out_path, force=force)
    say(f"{counted(n, 'triple')} -> {out_path}")


def register(app: typer.Typer) -> None:
    app.add_typer(kg_app, name="kg")
