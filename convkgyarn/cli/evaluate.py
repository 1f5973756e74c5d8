"""``convkgyarn evaluate``, ``report``, ``rate``, ``compare`` and ``annotations``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Optional

import typer

from convkgyarn.cli.common import (
    BaseUrl, Batch, Concurrency, ConfigOption, DbOption, DryRun, Force, MaxCost, command,
    llm_config,
    open_project, out, project_config, say, table)
from convkgyarn.config import ConversationSelection
from convkgyarn.errors import UserError
from convkgyarn.progress import counted

annotations_app = typer.Typer(help="Human annotation: export a sample, compute agreement.",
                              no_args_is_help=True)
ConfigNames = Annotated[Optional[list[str]], typer.Option(
    "--config-name", help="Only these configurations (repeat).")]
Limit = Annotated[Optional[int], typer.Option(help="At most this many conversations.", min=1)]


@command
def evaluate(
    models: Annotated[Optional[list[str]], typer.Option(
        "--model", help="A model under test (repeat for several).")] = None,
    configs: ConfigNames = None,
    dataset: Annotated[Optional[Path], typer.Option(
        help="Evaluate a ConvQuestions JSON file instead of our conversations.")] = None,
    limit: Limit = None,
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None, batch: Batch = False,
) -> None:
    """Ask each model every turn with the gold history, match and judge the answers."""
    cfg = llm_config(config, db, max_cost, dry_run, concurrency, base_url,
                     **{"evaluate.models": models, "evaluate.config_names": configs,
                        "evaluate.limit": limit, "llm.batch": batch or None})
    with open_project(cfg, write=True, name="evaluate") as project:
        report = project.evaluate(dataset)
    print_evaluated(report.stats["models"])
    if not cfg.llm.dry_run:
        say("write the report with `convkgyarn report`")


def print_evaluated(models: dict[str, dict]) -> None:
    """Per model: the turns asked and who decided them (matcher, judge), NA answers and
    replies that could not be parsed; with conversations in several languages, per model
    language (a table per model), with the turns answered right and their share."""
    if all(set(s) == {"asked"} for s in models.values()):  # a dry run: nothing was asked
        for model, s in models.items():
            say(f"{model}: {counted(s['asked'], 'question')} would be asked")
        return
    if all(set(s.get("languages") or {"en": None}) == {"en"} for s in models.values()):
        out.print(table("model", "turns", "matcher decided", "judge decided", "NA",
                        "unparsable", title="Evaluated", numeric=True, rows=[
                            (model, s["turns"], s["matcher"], s["judge"], s["na"],
                             s["unparsable"]) for model, s in models.items()]))
        return
    for model, m in models.items():  # a table per model: a row per language
        out.print(table("language", "turns", "right", "share", "matcher", "judge", "NA",
                        "unparsable", title=f"Evaluated: {model}",
                        numeric=True, rows=[
                            (language, s["turns"], s["right"],
                             f"{s['right'] / max(1, s['turns']):.3f}", s["matcher"],
                             s["judge"], s["na"], s["unparsable"])
                            for language, s in m["languages"].items()]))


@command
def report(
    out_dir: Annotated[Optional[Path], typer.Option(
        "--out", show_default="report in the project database's folder (outputs/report)",
        help="Report folder.")] = None,
    force: Force = False,
    db: DbOption = None, config: ConfigOption = None,
) -> None:
    """Write the results table (Markdown, CSV, like the paper's Table 3) and a plot."""
    cfg = project_config(config, db)
    out_dir = out_dir if out_dir is not None else cfg.db.parent / "report"
    with open_project(cfg, write=False, name="report") as project:
        paths = project.report(out_dir, force=force)
    written = {Path(p).name for p in paths}
    print_results(out_dir / "results.csv", out_dir / "language_effects.csv"
                  if "language_effects.csv" in written else None)
    say(f"written to {out_dir}: " + ", ".join(Path(p).name for p in paths))


def print_results(results_csv: Path, language_effects_csv: Path | None = None) -> None:
    """The report in short: mean turn score and NA ratio per model and configuration (and
    language, when there are several; then also each language against English), the whole
    report, with intervals and effects, is report.md."""
    import csv

    with open(results_csv, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    if all(r.get("language", "en") == "en" for r in rows):
        out.print(table("model", "configuration", "turns", "per turn", "per conv.", "NA",
                        title="Fact recall (mean score)", numeric=True, rows=[
                            (r["model"], r["config"], f"{int(r['turns']):,}",
                             _score(r["mean_turn"]), _score(r.get("mean_conversation")),
                             _score(r.get("na_ratio"))) for r in rows]))
        return
    out.print(table("model", "configuration", "language", "turns", "per turn", "per conv.",
                    "NA", title="Fact recall (mean score)", numeric=True, rows=[
                        (r["model"], r["config"], r["language"], f"{int(r['turns']):,}",
                         _score(r["mean_turn"]), _score(r.get("mean_conversation")),
                         _score(r.get("na_ratio"))) for r in rows]))
    if language_effects_csv is not None:
        with open(language_effects_csv, newline="", encoding="utf-8") as fh:
            rows = list(csv.DictReader(fh))
        out.print(table("model", "configuration", "language", "pairs", "per turn",
                        "per conv.", "McNemar p", numeric=True,
                        title="Against English, over the same plans (language - English)",
                        rows=[
                            (r["model"], r["config"], r["language"], r["pairs"],
                             _signed(r["effect"]), _signed(r["conversation_effect"]),
                             f"{float(r['mcnemar_p']):.3g}") for r in rows]))


def _signed(value: str | None) -> str:
    try:
        return f"{round(float(value), 3) + 0.0:+.3f}"  # + 0.0: no "-0.000"
    except (TypeError, ValueError):
        return value or ""


def _score(value: str | None) -> str:
    try:
        return f"{float(value):.3f}"
    except (TypeError, ValueError):
        return value or ""


@command
def rate(
    configs: ConfigNames = None, limit: Limit = None,
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None, batch: Batch = False,
) -> None:
    """Rate conversations 1-5 on fluency, relevance, diversity and grammar with an LLM rater."""
    cfg = llm_config(config, db, max_cost, dry_run, concurrency, base_url,
                     **{"llm.batch": batch or None})
    with open_project(cfg, write=True, name="rate") as project:
        r = project.rate(ConversationSelection(config_names=configs or [], limit=limit))
    say(f"rated {r.stats['rated']:,} of {counted(r.stats['conversations'], 'conversation')}")


@command
def compare(
    dataset: Annotated[Path, typer.Option(help="Reference conversations (ConvQuestions JSON).")],
    ours: Annotated[str, typer.Option("--config-name", help="Our configuration to compare.")],
    pairs: Annotated[int, typer.Option(help="Pairs to compare.", min=1)] = 50,
    seed: Annotated[int, typer.Option(help="Seed of the A/B order.")] = 0,
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None, batch: Batch = False,
) -> None:
    """Pairwise preference of an LLM rater, ours vs reference, order randomised per pair."""
    cfg = llm_config(config, db, max_cost, dry_run, concurrency, base_url,
                     **{"llm.batch": batch or None})
    with open_project(cfg, write=True, name="compare") as project:
        r = project.compare(dataset, ours, pairs, seed)
    print_comparison(r.stats, ours)


def print_comparison(stats: dict, ours: str) -> None:
    """Per dimension: how often the rater preferred ours, and the reference."""
    dims = {k: v for k, v in stats.items() if isinstance(v, dict) and {"ours", "theirs"} <= set(v)}
    if not dims:  # a dry run, or nothing compared
        for k, v in stats.items():
            say(f"{k}: {v}")
        return
    out.print(table("dimension", f"ours ({ours})", "reference", "ours preferred",
                    title=f"Preferred in {stats.get('pairs', 0)} pairs", numeric=True, rows=[
                        (dim, w["ours"], w["theirs"],
                         f"{w['ours'] / max(1, w['ours'] + w['theirs']):.0%}")
                        for dim, w in dims.items()]))
    say(f"ours was shown first in {stats.get('ours_shown_first', 0)} of "
        f"{stats.get('pairs', 0)} pairs (the order is randomised per pair)")


@annotations_app.command("export")
@command
def annotations_export(
    n: Annotated[int, typer.Option("--sample", help="Conversations to sample.", min=1)] = 50,
    seed: Annotated[int, typer.Option(help="Sampling seed.")] = 0,
    out_path: Annotated[Optional[Path], typer.Option(
        "--out", show_default="annotation-sample.csv in the project database's folder",
        help="The CSV file to write.")] = None,
    force: Force = False,
    db: DbOption = None, config: ConfigOption = None,
) -> None:
    """Write a CSV sample for human annotators (blank 1-5 columns per dimension). A sample
    someone has started filling in is never replaced without --force."""
    from convkgyarn.conversations import select_conversations
    from convkgyarn.outputs import ANNOTATION_CSV, check_file
    from convkgyarn.stages.rating import export_annotation_sample

    cfg = project_config(config, db)
    out_path = out_path if out_path is not None else cfg.db.parent / "annotation-sample.csv"
    if out_path.suffix.lower() != ".csv":
        raise UserError(f"{out_path}: the annotation sample is a CSV file; give --out a "
                        "name ending in .csv")
    with open_project(cfg, write=False) as project:
        check_file(out_path, ANNOTATION_CSV, force=force, protected=project.own_files())
        convs = select_conversations(project.con)
    if not convs:
        raise UserError("no conversations yet; run `convkgyarn generate` first")
    say(f"written {export_annotation_sample(convs, n, seed, out_path, force=force)}")


@annotations_app.command("agree")
@command
def annotations_agree(
    files: Annotated[list[Path], typer.Argument(help="Filled-in CSVs, one per annotator.")],
) -> None:
    """Majority agreement per dimension across annotators."""
    from convkgyarn.stages.rating import majority_agreement

    for f in files:
        if not f.is_file():
            raise UserError(f"{f}: no such file")
    try:
        out.print_json(json.dumps(majority_agreement(files)))
    except ValueError as exc:
        raise UserError(str(exc)) from None


def register(app: typer.Typer) -> None:
    app.command()(evaluate)
    app.command()(report)
    app.command()(rate)
    app.command()(compare)
    app.add_typer(annotations_app, name="annotations")
