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
    pretty_exceptions_show_locals=False,  # locals could hold secrets
)
kg_app = typer.Typer(help="Load a Wikidata dump into the project database and inspect it.",
                     no_args_is_help=True)
predicates_app = typer.Typer(help="Predicates per type: extract F(t), select G(t, F(t)).",
                             no_args_is_help=True)
app.add_typer(kg_app, name="kg")
app.add_typer(predicates_app, name="predicates")
templates_app = typer.Typer(help="Question templates per type and predicate.",
                            no_args_is_help=True)
app.add_typer(templates_app, name="templates")
annotations_app = typer.Typer(help="Human annotation: export a sample, compute agreement.",
                               no_args_is_help=True)
app.add_typer(annotations_app, name="annotations")
related_app = typer.Typer(help="Related entities by KG-embedding similarity.", no_args_is_help=True)
app.add_typer(related_app, name="related")

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
    paths: Annotated[Optional[list[Path]], typer.Argument(
        help="Dump files: .json, .json.bz2, .json.gz; the dump array or one entity per line.")
    ] = None,
    db: DbOption = None,
    config: ConfigOption = None,
    workers: Annotated[int, typer.Option(help="Parser processes.", min=1)] = 1,
    force: Annotated[bool, typer.Option(help="Reload files already loaded unchanged.")] = False,
    labels: Annotated[Optional[Path], typer.Option(
        help="JSON {id: label} giving English labels of values that are not in the dump.")] = None,
    sparql: Annotated[Optional[str], typer.Option(
        help="Load from this SPARQL endpoint instead of a dump.")] = None,
    entities: Annotated[Optional[list[str]], typer.Option(
        "--entity", help="SPARQL: these entities (repeat).")] = None,
    types: Annotated[Optional[list[str]], typer.Option(
        "--type", help="SPARQL: the most popular entities of this type (repeat).")] = None,
    limit: Annotated[int, typer.Option(help="SPARQL: entities per type.")] = 100,
) -> None:
    """Load Wikidata dump files (streamed; bad lines go to the rejects table), or a slice of
    Wikidata from a SPARQL endpoint (--sparql URL --entity Q.. | --type Q.. --limit N)."""
    project = _project(config, db)
    if sparql:
        from convkgyarn.config import SparqlConfig
        from convkgyarn.kg.sparql import SparqlError, SparqlLoad

        cfg = SparqlConfig(endpoint=sparql, entities=entities or [], types=types or [],
                           limit=limit)
        con = connect(project.db)
        try:
            report = SparqlLoad(con, cfg).run()
        except SparqlError as exc:
            _fail(str(exc))
        s = report.stats
        console.print(f"{s['entities']} entities from {s['endpoint']} in {s['queries']} queries "
                      f"({report.seconds:.1f}s) -> {project.db}", highlight=False)
        return
    if not paths:
        _fail("give dump files to load, or --sparql URL")
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

        def tick(nbytes: int, n_entities: int) -> None:
            progress.update(task, mb=nbytes / 1e6, ents=n_entities)

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

    project = _project(config, db)
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
    project = _project(config, db)
    con = connect(project.db, read_only=True)
    rows = con.execute("SELECT file, line_no, reason, snippet FROM load_rejects "
                       "ORDER BY file, line_no LIMIT ?", [limit]).fetchall()
    table = Table("file", "line", "reason", "start of line")
    for f, line, reason, snippet in rows:
        table.add_row(f, str(line), reason, snippet[:80])
    out.print(table)


LLMOptions = {
    "max_cost": typer.Option("--max-cost", help="Stop before LLM spending passes this many "
                             "USD (finished work stays cached)."),
    "dry_run": typer.Option("--dry-run", help="Estimate LLM calls and tokens; send nothing."),
    "concurrency": typer.Option("--concurrency", help="LLM requests in flight."),
    "base_url": typer.Option("--base-url", help="OpenAI-compatible endpoint (overrides "
                             "OPENAI_BASE_URL and the config file)."),
}
MaxCost = Annotated[Optional[float], LLMOptions["max_cost"]]
DryRun = Annotated[bool, LLMOptions["dry_run"]]
Concurrency = Annotated[Optional[int], LLMOptions["concurrency"]]
BaseUrl = Annotated[Optional[str], LLMOptions["base_url"]]


def _project(config: Optional[Path], db: Optional[Path], **overrides):
    from convkgyarn.config import ConfigError

    try:
        return load_project_config(config, {"db": db, **overrides})
    except ConfigError as exc:
        _fail(str(exc))


def _llm_project(config, db, max_cost, dry_run, concurrency, base_url, **overrides):
    return _project(config, db, **{"llm.max_cost": max_cost, "llm.dry_run": dry_run or None,
                                   "llm.concurrency": concurrency, "llm.base_url": base_url,
                                   **overrides})


def _usage(meter) -> None:
    """Tokens and USD per stage, printed at the end of every command that may call an LLM."""
    if not meter.usage:
        return
    table = Table("stage", "calls", "cached", "failed", "prompt tok", "completion tok", "USD",
                  "est. calls", "est. tokens", title="LLM usage")
    for stage, u in sorted(meter.usage.items()):
        table.add_row(stage, str(u.calls), str(u.cached), str(u.failed), f"{u.prompt_tokens:,}",
                      f"{u.completion_tokens:,}", f"{u.usd:.4f}", str(u.estimated_calls),
                      f"{u.estimated_tokens:,}")
    console.print(table)


def _run_metered(meter, fn):
    """Run ``fn`` through ``_run_llm``, then print the LLM usage whatever happened."""
    try:
        return _run_llm(fn)
    finally:
        _usage(meter)


def _run_llm(fn):
    """Turn LLM-layer stops into clear one-line errors (the key is never printed)."""
    from convkgyarn.llm import BudgetExceeded, LLMFatalError

    try:
        return fn()
    except BudgetExceeded as exc:
        _fail(f"stopped: {exc}", 3)
    except LLMFatalError as exc:
        _fail(str(exc), 4)


@predicates_app.command("extract")
def predicates_extract(
    db: DbOption = None,
    config: ConfigOption = None,
    min_entities: Annotated[Optional[int], typer.Option(
        help="Only types with at least this many entities.")] = None,
) -> None:
    """Build F(t): for each type, every property its entities use, with usage counts."""
    from convkgyarn.stages.predicates import ExtractPredicates

    project = _project(config, db, **{"predicates.min_type_entities": min_entities})
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
    project = _project(config, db)
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


@predicates_app.command("select")
def predicates_select(
    db: DbOption = None, config: ConfigOption = None,
    types: Annotated[Optional[list[str]], typer.Option("--type", help="Only these types.")] = None,
    min_share: Annotated[Optional[float], typer.Option(
        help="Rules: minimum share of the type's entities using a property.")] = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None,
) -> None:
    """Choose G(t, F(t)): the predicates worth asking about, by LLM when configured, else rules."""
    from convkgyarn.llm import new_meter
    from convkgyarn.stages.predicates import SelectPredicates

    project = _llm_project(config, db, max_cost, dry_run, concurrency, base_url,
                           **{"predicates.min_share": min_share})
    con = connect(project.db)
    meter = new_meter(project.llm)
    stage = SelectPredicates(con, project.predicates, project.llm, meter, types=types)
    if stage.path == "rules":
        console.print("no LLM configured: selecting predicates with the built-in rules")
    report = _run_metered(meter, stage.run)
    s = report.stats
    console.print(f"{s['types']} types selected by {s['path']} ({s['unchanged']} unchanged): "
                  f"{s['selected']} predicates, {s['qualifiers']} qualifiers, "
                  f"{s['dropped_ids']} ids dropped", highlight=False)


@predicates_app.command("show")
def predicates_show(
    type_id: Annotated[str, typer.Argument(help="A type id, e.g. Q5.")],
    db: DbOption = None, config: ConfigOption = None,
) -> None:
    """Print the selected predicates of a type, with labels and who selected them."""
    project = _project(config, db)
    con = connect(project.db, read_only=True)
    try:
        rows = con.execute(
            "SELECT s.property_id, p.label, s.qualifier_property_id, q.label, s.selected_by, "
            "coalesce(s.model, ''), coalesce(s.prompt_hash, '') FROM selected_predicates s "
            "LEFT JOIN property_info p ON p.id = s.property_id "
            "LEFT JOIN property_info q ON q.id = s.qualifier_property_id WHERE s.type_id = ? "
            "ORDER BY 1, 3 NULLS FIRST", [type_id]).fetchall()
    except Exception:  # noqa: BLE001 - table not created yet
        rows = []
    if not rows:
        _fail(f"no selection for type {type_id}; run `convkgyarn predicates select`", 1)
    table = Table("property", "label", "qualifier", "selected by", "model", "prompt hash",
                  title=f"G({type_id})")
    for pid, label, qid, qlabel, by, model, ph in rows:
        table.add_row(pid, label or "", f"{qid} {qlabel}" if qid else "", by, model, ph)
    out.print(table)


@templates_app.command("generate")
def templates_generate(
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None,
) -> None:
    """Write question templates for every selected predicate (LLM when configured, else rules)."""
    from convkgyarn.llm import new_meter
    from convkgyarn.stages.templates import GenerateTemplates

    project = _llm_project(config, db, max_cost, dry_run, concurrency, base_url)
    con = connect(project.db)
    meter = new_meter(project.llm)
    stage = GenerateTemplates(con, project.templates, project.llm, meter)
    if stage.writer == "rules":
        console.print("no LLM configured: templates come from the built-in rules writer")
    report = _run_metered(meter, stage.run)
    s = report.stats
    console.print(f"{s['templates']} templates for {s['facts']} facts by {s['writer']} "
                  f"({s['unchanged']} unchanged, {s['rejected']} "
                  f"rejected, {s['fallback_templates']} from the rules fallback)", highlight=False)


@templates_app.command("show")
def templates_show(
    type_id: Annotated[str, typer.Argument(help="A type id, e.g. Q5.")],
    db: DbOption = None, config: ConfigOption = None,
    interaction: Annotated[Optional[str], typer.Option(help="voice or text")] = None,
) -> None:
    """Print the templates of a type."""
    from convkgyarn.stages.templates import template_rows

    project = _project(config, db)
    con = connect(project.db, read_only=True)
    rows = [r for r in template_rows(con, type_id) if interaction in (None, r[2])]
    if not rows:
        _fail(f"no templates for type {type_id}; run `convkgyarn templates generate`", 1)
    table = Table("property", "qualifier", "interaction", "phenomenon", "#", "template", "writer")
    for pid, qid, inter, phen, var, text, writer in rows:
        table.add_row(pid, qid or "", inter, phen, str(var), text, writer)
    out.print(table)


@related_app.command("build")
def related_build(
    db: DbOption = None, config: ConfigOption = None,
    pretrained: Annotated[Optional[Path], typer.Option(
        help="PyTorch-BigGraph Wikidata TSV (entity, then floats) instead of training.")] = None,
    min_sitelinks: Annotated[Optional[int], typer.Option(
        help="Popular people: at least this many sitelinks.")] = None,
    epochs: Annotated[Optional[int], typer.Option(help="Training epochs.")] = None,
    out_dir: Annotated[Path, typer.Option("--out", help="Where embeddings are saved.")] = Path(
        "outputs/embeddings"),
) -> None:
    """Learn ComplEx embeddings of the KG (or load PBG vectors) and store, for each popular
    person, the most similar other entity."""
    from convkgyarn.stages.related import BuildRelated

    project = _project(config, db, **{"related.pretrained": pretrained,
                                      "related.min_sitelinks": min_sitelinks,
                                      "related.epochs": epochs})
    con = connect(project.db)
    report = BuildRelated(con, project.related, out_dir).run()
    s = report.stats
    console.print(f"{s.get('related', 0)} related entities ({s['method']}, "
                  f"{s.get('entities', 0)} entities, {s.get('triples', 0)} facts, "
                  f"{s.get('train_seconds', 0)}s training)", highlight=False)


@related_app.command("show")
def related_show(db: DbOption = None, config: ConfigOption = None,
                 limit: Annotated[int, typer.Option(help="Rows.")] = 50) -> None:
    """Print each popular person's related entity with its similarity."""
    project = _project(config, db)
    con = connect(project.db, read_only=True)
    rows = con.execute(
        "SELECT r.entity_id, a.label, r.related_id, b.label, r.score, r.method "
        "FROM related_entities r LEFT JOIN entities a ON a.id = r.entity_id "
        "LEFT JOIN entities b ON b.id = r.related_id ORDER BY a.label LIMIT ?", [limit]).fetchall()
    table = Table("entity", "label", "related", "label", "cosine", "method")
    for row in rows:
        table.add_row(row[0], row[1] or "", row[2], row[3] or "", f"{row[4]:.3f}", row[5])
    out.print(table)


PAPER_CONFIGS = [
    {"interaction": "voice"}, {"interaction": "voice", "deixis": True},
    {"interaction": "voice", "disfluency": True},
    {"interaction": "voice", "deixis": True, "disfluency": True},
    {"interaction": "text"}, {"interaction": "text", "deixis": True},
    {"interaction": "text", "typos": True}, {"interaction": "text", "deixis": True, "typos": True},
]


@app.command()
def generate(
    interaction: Annotated[Optional[str], typer.Option(
        help="voice (spoken questions) or text (search queries).")] = None,
    deixis: Annotated[Optional[bool], typer.Option(
        "--deixis/--no-deixis", help="Refer back to the entity (he, she, this film).")] = None,
    disfluency: Annotated[Optional[bool], typer.Option(
        "--disfluency/--no-disfluency", help="Voice: fillers, repetitions, repairs.")] = None,
    typos: Annotated[Optional[bool], typer.Option(
        "--typos/--no-typos", help="Text: one meaningful typo per query.")] = None,
    related: Annotated[Optional[bool], typer.Option(
        "--related/--no-related", help="End with turns about a related entity.")] = None,
    turns: Annotated[Optional[int], typer.Option(help="Turns per conversation.")] = None,
    conversations: Annotated[Optional[int], typer.Option(help="Conversations to make.")] = None,
    types: Annotated[Optional[list[str]], typer.Option("--type", help="Only entities of these "
                                                       "types (repeat).")] = None,
    entities: Annotated[Optional[list[str]], typer.Option("--entity", help="Only these entities "
                                                          "(repeat).")] = None,
    seed: Annotated[Optional[int], typer.Option(help="Random seed.")] = None,
    same_facts: Annotated[Optional[bool], typer.Option(
        "--same-facts/--no-same-facts", help="Same facts for every configuration.")] = None,
    all_configs: Annotated[bool, typer.Option(
        "--all-configs", help="The paper's eight configurations over the same facts.")] = False,
    out_dir: Annotated[Path, typer.Option("--out", help="Where exports and the summary go.")] = Path(
        "outputs"),
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None,
) -> None:
    """The main job: load the KG if needed, select predicates, write templates, assemble
    conversations, store them and export JSONL plus a summary to outputs/."""
    from convkgyarn import pipeline
    from convkgyarn.config import GenerateConfig
    from convkgyarn.export import records, summary, write_jsonl
    from convkgyarn.llm import new_meter
    from convkgyarn.stages.assemble import AssembleConversations

    overrides = {"interaction": interaction, "deixis": deixis, "disfluency": disfluency,
                 "typos": typos, "related": related, "turns": turns,
                 "conversations": conversations, "types": types, "entities": entities,
                 "seed": seed, "same_facts": same_facts}
    project = _llm_project(config, db, max_cost, dry_run, concurrency, base_url,
                           **{f"generate.{k}": v for k, v in overrides.items()})
    base = project.generate
    if base.interaction == "text" and base.disfluency:
        console.print("note: --disfluency applies to voice only; ignored for text")
    if base.interaction == "voice" and base.typos:
        console.print("note: --typos applies to text only; ignored for voice")
    configs = [base.model_copy(update=dict(c, same_facts=True)) for c in PAPER_CONFIGS] \
        if all_configs else [base]
    con = connect(project.db)
    meter = new_meter(project.llm)
    say = lambda msg: console.print(msg, highlight=False, markup=False)  # noqa: E731
    reports = []
    try:
        def run_all():
            r = pipeline.ensure_kg(con, say)
            if r:
                reports.append(r)
            reports.extend(pipeline.ensure_predicates(con, project, meter, say))
            reports.append(pipeline.ensure_templates(con, project, meter, say))
            if any(c.related for c in configs):
                r = pipeline.ensure_related(con, project, out_dir / "embeddings", say)
                if r:
                    reports.append(r)
            runs = []
            for cfg in configs:
                rep = AssembleConversations(con, GenerateConfig.model_validate(cfg.model_dump())).run()
                reports.append(rep)
                runs.append(rep.stats["run_id"])
            return runs
        runs = _run_llm(run_all)
    finally:
        _usage(meter)
    if project.llm.dry_run:
        console.print("dry run: nothing was sent and no conversations were stored")
        return
    recs = records(con, runs)
    path = write_jsonl(recs, out_dir / "conversations.jsonl")
    info = summary(con, recs, project.llm)
    info["stage_seconds"] = {r.stage: round(r.seconds, 3) for r in reports}
    (out_dir / "summary.json").write_text(json.dumps(info, indent=2) + "\n")
    table = Table("configuration", "conversations", title="Generated")
    for name, n in info["configurations"].items():
        table.add_row(name, str(n))
    out.print(table)
    console.print(f"{info['turns']} turns over {info['distinct_facts']} facts; "
                  f"written {path} and {out_dir / 'summary.json'}", highlight=False)


@app.command()
def export(
    fmt: Annotated[str, typer.Option("--format", help="jsonl, parquet or hf.")] = "jsonl",
    out_path: Annotated[Optional[Path], typer.Option("--out", help="Output file or folder.")] = None,
    run: Annotated[Optional[list[str]], typer.Option(help="Generation run ids (default: the "
                                                     "latest run of each configuration).")] = None,
    db: DbOption = None, config: ConfigOption = None,
) -> None:
    """Export conversations for users: JSONL, Parquet, or a Hugging Face dataset folder."""
    from convkgyarn.export import latest_runs, records, summary, write_hf, write_jsonl, \
        write_parquet

    if fmt not in ("jsonl", "parquet", "hf"):
        _fail(f"--format must be jsonl, parquet or hf, not {fmt!r}")
    project = _project(config, db)
    con = connect(project.db)
    try:
        runs = run or latest_runs(con)
    except Exception:  # noqa: BLE001 - no generation tables yet
        runs = []
    if not runs:
        _fail("no conversations yet; run `convkgyarn generate` first", 1)
    recs = records(con, runs)
    default = {"jsonl": Path("outputs/conversations.jsonl"),
               "parquet": Path("outputs/conversations.parquet"), "hf": Path("outputs/hf")}
    target = out_path or default[fmt]
    if fmt == "jsonl":
        write_jsonl(recs, target)
    elif fmt == "parquet":
        write_parquet(recs, target)
    else:
        write_hf(recs, target, summary(con, recs, project.llm))
    console.print(f"{len(recs)} conversations -> {target}", highlight=False)


@app.command()
def stats(
    db: DbOption = None, config: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Counts of the latest conversations per type, predicate and phenomenon, and questions per fact."""
    from convkgyarn.export import latest_runs, records, summary

    project = _project(config, db)
    con = connect(project.db)
    try:
        runs = latest_runs(con)
    except Exception:  # noqa: BLE001
        runs = []
    if not runs:
        _fail("no conversations yet; run `convkgyarn generate` first", 1)
    info = summary(con, records(con, runs), project.llm)
    if as_json:
        out.print_json(json.dumps(info))
        return
    for key in ("configurations", "types", "predicates", "phenomena"):
        table = Table(key, "count")
        for k, v in info[key].items():
            table.add_row(str(k), str(v))
        out.print(table)
    out.print(f"conversations {info['conversations']}, turns {info['turns']}, distinct facts "
              f"{info['distinct_facts']}, questions per fact {info['questions_per_fact']}")


@app.command()
def refresh(
    paths: Annotated[list[Path], typer.Argument(help="The new dump file(s).")],
    db: DbOption = None, config: ConfigOption = None,
    log_file: Annotated[Optional[Path], typer.Option(
        help="Also log here [default: the database path + .refresh.log].")] = None,
    max_cost: MaxCost = None, concurrency: Concurrency = None, base_url: BaseUrl = None,
) -> None:
    """Refresh against a new dump: only what changed costs work or LLM calls.

    Exit codes: 0 refreshed, 10 nothing changed, 75 another run holds the project,
    2 bad input, 3 budget reached, 4 LLM endpoint error, 1 any other failure."""
    from convkgyarn.kg.reader import DumpError
    from convkgyarn.llm import new_meter
    from convkgyarn.refresh import EXIT_LOCKED, LockedError, Refresher

    project = _llm_project(config, db, max_cost, False, concurrency, base_url)
    for p in paths:
        if not p.is_file():
            _fail(f"{p}: no such file" if not p.exists() else f"{p}: not a file")
    log_path = log_file or Path(str(project.db) + ".refresh.log")
    log_path.parent.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(log_path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("convkgyarn")
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    meter = new_meter(project.llm)

    def say(msg: str) -> None:
        console.print(msg, highlight=False, markup=False)
        root.info(msg)

    try:
        result = _run_llm(lambda: Refresher(project, paths, meter, say).run())
        root.info("refresh %s: %s", result.status, json.dumps(result.summary))
    except LockedError as exc:
        root.error(str(exc))
        _fail(str(exc), EXIT_LOCKED)
    except DumpError as exc:
        root.error(str(exc))
        _fail(str(exc))
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001 - a scheduled job needs an exit code, and a log
        root.exception("refresh failed")
        _fail(f"refresh failed: {exc} (details in {log_path})", 1)
    finally:
        _usage(meter)
        root.removeHandler(handler)
        handler.close()
    table = Table("change", "count", title="Refresh")
    for k, v in result.diff.items():
        table.add_row(k, str(v))
    out.print(table)
    conv = result.summary.get("conversations") or {}
    console.print(f"{result.status}: LLM calls {result.summary.get('llm_calls', 0)} "
                  f"(${result.summary.get('llm_usd', 0):.4f}); conversations {conv}; "
                  f"seconds {result.summary.get('seconds')}", highlight=False)
    raise typer.Exit(result.exit_code)


def _select_conversations(con, configs: Optional[list[str]], dataset_run: Optional[str] = None):
    from convkgyarn.export import latest_runs
    from convkgyarn.stages.evaluate import load_conversations

    try:
        runs = latest_runs(con)
    except Exception:  # noqa: BLE001 - nothing generated yet
        runs = []
    if dataset_run:
        runs = [dataset_run]
    convs = load_conversations(con, runs)
    if configs:
        convs = [c for c in convs if c.config_name in configs]
    return convs


@app.command()
def evaluate(
    models: Annotated[Optional[list[str]], typer.Option(
        "--model", help="A model under test (repeat for several).")] = None,
    configs: Annotated[Optional[list[str]], typer.Option(
        "--config-name", help="Only these configurations (repeat).")] = None,
    dataset: Annotated[Optional[Path], typer.Option(
        help="Evaluate a ConvQuestions JSON file instead of our conversations.")] = None,
    limit: Annotated[Optional[int], typer.Option(help="At most this many conversations.")] = None,
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None,
) -> None:
    """Ask each model every turn with the gold history, match and judge the answers."""
    from convkgyarn.llm import new_meter
    from convkgyarn.stages.evaluate import Evaluate

    project = _llm_project(config, db, max_cost, dry_run, concurrency, base_url,
                           **{"evaluate.models": models})
    if not project.llm.configured:
        _fail("evaluation needs an LLM endpoint: set OPENAI_BASE_URL / OPENAI_API_KEY or [llm] "
              "in convkgyarn.toml")
    con = connect(project.db)
    run = None
    if dataset:
        from convkgyarn.convquestions import ImportError_, import_convquestions

        try:
            run, n = import_convquestions(con, dataset)
        except ImportError_ as exc:
            _fail(str(exc))
        console.print(f"imported {n} conversations from {dataset}", highlight=False)
    convs = _select_conversations(con, configs, run)[:limit]
    if not convs:
        _fail("no conversations to evaluate; run `convkgyarn generate` first", 1)
    cfg = project.evaluate
    if not cfg.models:
        cfg.models = [project.llm.stages.answerer.model]
    meter = new_meter(project.llm)
    report = _run_metered(meter, lambda: Evaluate(con, cfg, project.llm, meter, convs).run())
    for model, s in report.stats["models"].items():
        console.print(f"{model}: {s}", highlight=False)
    console.print("write the report with `convkgyarn report`")


@app.command()
def report(
    out_dir: Annotated[Path, typer.Option("--out", help="Report folder.")] = Path("outputs/report"),
    db: DbOption = None, config: ConfigOption = None,
) -> None:
    """Write the results table (Markdown, CSV, like the paper's Table 3) and a plot."""
    from convkgyarn.report import write_report
    from convkgyarn.stages.evaluate import metrics
    from convkgyarn.stages.rating import rating_summary

    project = _project(config, db)
    con = connect(project.db)
    rows = metrics(con, project.evaluate.bootstrap)
    if not rows:
        _fail("no evaluation results; run `convkgyarn evaluate` first", 1)
    paths = write_report(rows, rating_summary(con), out_dir)
    out.print((out_dir / "report.md").read_text())
    console.print("written " + ", ".join(str(p) for p in paths), highlight=False)


@app.command()
def rate(
    configs: Annotated[Optional[list[str]], typer.Option("--config-name")] = None,
    limit: Annotated[Optional[int], typer.Option(help="At most this many conversations.")] = None,
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None,
) -> None:
    """Rate conversations 1-5 on fluency, relevance, diversity and grammar with an LLM rater."""
    from convkgyarn.llm import new_meter
    from convkgyarn.stages.rating import RateConversations

    project = _llm_project(config, db, max_cost, dry_run, concurrency, base_url)
    if not project.llm.configured:
        _fail("rating needs an LLM endpoint")
    con = connect(project.db)
    convs = _select_conversations(con, configs)[:limit]
    meter = new_meter(project.llm)
    r = _run_metered(meter, lambda: RateConversations(con, project.llm, meter, convs).run())
    console.print(f"rated {r.stats['rated']} of {r.stats['conversations']} conversations")


@app.command()
def compare(
    dataset: Annotated[Path, typer.Option(help="Reference conversations (ConvQuestions JSON).")],
    ours: Annotated[str, typer.Option("--config-name", help="Our configuration to compare.")],
    pairs: Annotated[int, typer.Option(help="Pairs to compare.")] = 50,
    seed: Annotated[int, typer.Option(help="Seed of the A/B order.")] = 0,
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None,
) -> None:
    """Pairwise preference of an LLM rater, ours vs reference, order randomised per pair."""
    from convkgyarn.convquestions import ImportError_, import_convquestions
    from convkgyarn.llm import new_meter
    from convkgyarn.stages.rating import CompareConversations

    project = _llm_project(config, db, max_cost, dry_run, concurrency, base_url)
    if not project.llm.configured:
        _fail("comparison needs an LLM endpoint")
    con = connect(project.db)
    try:
        run, _ = import_convquestions(con, dataset)
    except ImportError_ as exc:
        _fail(str(exc))
    mine = _select_conversations(con, [ours])[:pairs]
    theirs = _select_conversations(con, None, run)[:pairs]
    meter = new_meter(project.llm)
    try:
        r = _run_llm(lambda: CompareConversations(con, project.llm, meter, mine, theirs,
                                                  seed).run())
    finally:
        _usage(meter)
    out.print_json(json.dumps(r.stats))


@annotations_app.command("export")
def annotations_export(
    n: Annotated[int, typer.Option("--sample", help="Conversations to sample.")] = 50,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 0,
    out_path: Annotated[Path, typer.Option("--out")] = Path("outputs/annotation-sample.csv"),
    db: DbOption = None, config: ConfigOption = None,
) -> None:
    """Write a CSV sample for human annotators (blank 1-5 columns per dimension)."""
    from convkgyarn.stages.rating import export_annotation_sample

    project = _project(config, db)
    con = connect(project.db)
    path = export_annotation_sample(_select_conversations(con, None), n, seed, out_path)
    console.print(f"written {path}", highlight=False)


@annotations_app.command("agree")
def annotations_agree(
    files: Annotated[list[Path], typer.Argument(help="Filled-in CSVs, one per annotator.")],
) -> None:
    """Majority agreement per dimension across annotators."""
    from convkgyarn.stages.rating import majority_agreement

    for f in files:
        if not f.is_file():
            _fail(f"{f}: no such file")
    try:
        out.print_json(json.dumps(majority_agreement(files)))
    except ValueError as exc:
        _fail(str(exc))


def default_sample() -> Path:
    return BUNDLED_SAMPLE


if __name__ == "__main__":  # pragma: no cover
    app()
