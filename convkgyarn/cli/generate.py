"""``convkgyarn generate`` (the main job), ``export``, ``stats`` and ``drops``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated, Optional

import typer

from convkgyarn.cli.common import (
    BaseUrl, Concurrency, ConfigOption, DbOption, DryRun, Force, MaxCost, command, llm_config,
    open_project, out, project_config, say, table)
from convkgyarn.config import GenerateConfig, paper_configs
from convkgyarn.errors import UserError
from convkgyarn.progress import counted


def _default(field: str) -> str:
    """The built-in default of a generate option, as ``--help`` shows it (convkgyarn.toml's
    ``[generate]`` may change it)."""
    info = GenerateConfig.model_fields[field]
    value = info.default_factory() if info.default_factory else info.default
    if value is None or value == []:
        return "none" if field not in ("types", "entities") else "all"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


# each beside the project database (outputs/ for the default one): a project's files stay
# with it, and a second project (--db elsewhere) never writes over the first one's
DEFAULT_EXPORTS = {"jsonl": "conversations.jsonl", "parquet": "conversations.parquet",
                   "hf": "hf", "inspect": "inspect"}


@command
def generate(
    interaction: Annotated[Optional[str], typer.Option(
        show_default=_default("interaction"),
        help="voice (spoken questions) or text (search queries).")] = None,
    deixis: Annotated[Optional[bool], typer.Option(
        "--deixis/--no-deixis", show_default=_default("deixis"),
        help="Refer back to the entity (he, she, this film).")] = None,
    disfluency: Annotated[Optional[bool], typer.Option(
        "--disfluency/--no-disfluency", show_default=_default("disfluency"),
        help="Voice: fillers, repetitions, repairs.")] = None,
    typos: Annotated[Optional[bool], typer.Option(
        "--typos/--no-typos", show_default=_default("typos"),
        help="Text: one meaningful typo per query.")] = None,
    related: Annotated[Optional[bool], typer.Option(
        "--related/--no-related", show_default=_default("related"),
        help="End with turns about a related entity.")] = None,
    subjects: Annotated[Optional[str], typer.Option(
        show_default=_default("subjects"),
        help="The order subjects are drawn in: popular (well-known entities first, seeded) "
        "or uniform.")] = None,
    homonyms: Annotated[Optional[bool], typer.Option(
        "--homonyms/--no-homonyms", show_default=_default("homonyms"),
        help="Also entities whose name a better-known entity "
        "bears (their questions are ambiguous; --entity always makes them).")] = None,
    profiles: Annotated[Optional[bool], typer.Option(
        "--profiles/--no-profiles", show_default=_default("profiles"),
        help="Also little-known people and places with nothing to ask but a stock "
        "profile (job, born, nationality; country, population, area; --entity always makes "
        "them).")] = None,
    follow_ups: Annotated[Optional[bool], typer.Option(
        "--follow-ups/--no-follow-ups", show_default=_default("follow_ups"),
        help="Some answers lead on: a yes/no question about the person just named (\"Did "
        "he also write the screenplay?\") or a question or two about them, then back to the "
        "subject.")] = None,
    hops: Annotated[Optional[bool], typer.Option(
        "--hops/--no-hops", show_default=_default("hops"),
        help="Follow-ups may move to an item answered earlier (the "
        "director, the spouse) and ask about it.")] = None,
    topics: Annotated[Optional[int], typer.Option(
        show_default=_default("topics"),
        help="With --hops: at most this many entities per conversation.")] = None,
    ellipsis: Annotated[Optional[bool], typer.Option(
        "--ellipsis/--no-ellipsis", show_default=_default("ellipsis"),
        help="Some follow-ups leave the subject out (\"the "
        "spouse?\", \"when was that?\").")] = None,
    ellipsis_share: Annotated[Optional[float], typer.Option(
        show_default=_default("ellipsis_share"),
        help="With --ellipsis: share of same-subject follow-ups asked elliptically.")] = None,
    kinds: Annotated[Optional[list[str]], typer.Option(
        "--kind", show_default=_default("kinds"),
        help="More kinds of question (repeat): count, verify (yes/no), before "
        "(who held it before).")] = None,
    languages: Annotated[Optional[list[str]], typer.Option(
        "--language", show_default=_default("languages"),
        help="The languages each conversation is made in (repeat: en, de, ja, zh): one "
        "conversation per language over the same statements turn by turn; give en too to "
        "keep English. Load their labels with kg load --language.")] = None,
    answer_style: Annotated[Optional[str], typer.Option(
        show_default=_default("answer_style"),
        help="short (the values) or sentence (also a grounded sentence per turn).")] = None,
    turns: Annotated[Optional[int], typer.Option(
        show_default=_default("turns"), help="Turns per conversation.")] = None,
    min_turns: Annotated[Optional[int], typer.Option(
        show_default=_default("min_turns"),
        help="Fewest turns: an entity with facts for fewer is not a subject.")] = None,
    conversations: Annotated[Optional[int], typer.Option(
        show_default=_default("conversations"), help="Conversations to make (with several "
        "--language: plans, each said in every language).")] = None,
    types: Annotated[Optional[list[str]], typer.Option(
        "--type", show_default=_default("types"),
        help="Only entities of these types (repeat).")] = None,
    entities: Annotated[Optional[list[str]], typer.Option(
        "--entity", show_default=_default("entities"),
        help="Only these entities (repeat).")] = None,
    seed: Annotated[Optional[int], typer.Option(
        show_default=_default("seed"), help="Random seed.")] = None,
    changed_since: Annotated[Optional[str], typer.Option(
        help="Stale-knowledge probes: ask only facts a refresh changed since this snapshot "
        "(a refresh id, 'last', or the old dump's date YYYY-MM-DD); each turn carries the "
        "earlier values.")] = None,
    same_facts: Annotated[Optional[bool], typer.Option(
        "--same-facts/--no-same-facts", show_default=_default("same_facts"),
        help="Same facts for every configuration.")] = None,
    all_configs: Annotated[bool, typer.Option(
        "--all-configs", help="The paper's eight configurations over the same facts.")] = False,
    keep_previous: Annotated[bool, typer.Option(
        "--keep-previous", help="Keep the configuration's previous run (addressable by its "
        "run id) instead of replacing it.")] = False,
    out_dir: Annotated[Optional[Path], typer.Option(
        "--out", show_default="the project database's folder (outputs/)",
        help="The folder conversations.jsonl (every current configuration's "
        "conversations) and summary.json go to.")] = None,
    force: Force = False,
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None,
) -> None:
    """The main job: load the KG if needed, select predicates, write templates, assemble
    conversations, store them and export JSONL plus a summary to outputs/."""
    per_config = {"--interaction": interaction, "--deixis": deixis,
                  "--disfluency": disfluency, "--typos": typos}
    if all_configs and any(v is not None for v in per_config.values()):
        given = ", ".join(k for k, v in per_config.items() if v is not None)
        raise UserError(f"--all-configs makes the paper's eight configurations; leave out {given}")
    overrides = {"interaction": interaction, "deixis": deixis, "disfluency": disfluency,
                 "typos": typos, "related": related, "subjects": subjects, "homonyms": homonyms,
                 "profiles": profiles, "follow_ups": follow_ups, "hops": hops,
                 "topics": topics,
                 "ellipsis": ellipsis, "ellipsis_share": ellipsis_share, "kinds": kinds,
                 "languages": languages, "answer_style": answer_style,
                 "turns": turns, "min_turns": min_turns,
                 "conversations": conversations, "types": types, "entities": entities,
                 "seed": seed, "same_facts": same_facts, "changed_since": changed_since}
    cfg = llm_config(config, db, max_cost, dry_run, concurrency, base_url,
                     **{f"generate.{k}": v for k, v in overrides.items()})
    configs = paper_configs(cfg.generate) if all_configs else [cfg.generate]
    if cfg.llm.dry_run:
        estimate(cfg, configs)
        return
    out_dir = out_dir if out_dir is not None else cfg.db.parent
    with open_project(cfg, write=True, name="generate") as project:
        project.check_outputs(out_dir, force)  # before the work, not after it
        result = project.generate(configs, keep_previous=keep_previous)
        # outputs/ holds the project's current conversations, every configuration's
        info = project.write_outputs(project.current_runs(), out_dir, result.reports,
                                     force=force)
    print_written(info, out_dir, made_now=set(result.runs))


def print_written(info: dict, out_dir: Path, made_now: set[str] = frozenset()) -> None:
    """The configurations in conversations.jsonl, which this command made, and where."""
    rows = []
    for name, n in info["configurations"].items():
        runs = info["runs"][name]
        rows.append((name, f"{n:,}", "now" if made_now & set(runs) else "earlier",
                     ", ".join(runs)))
    out.print(table("configuration", "conversations", "made", "run",
                    title=f"Written to {out_dir / 'conversations.jsonl'}", rows=rows,
                    numeric=True))
    say(f"{counted(info['conversations'], 'conversation')}, {counted(info['turns'], 'turn')} "
        f"over {counted(info['distinct_facts'], 'fact')}; summary in {out_dir / 'summary.json'}")


def estimate(cfg, configs) -> None:
    """``generate --dry-run``: the LLM calls, tokens and USD of every stage the real run
    would call, with nothing sent and nothing written to the project. A project with no KG
    yet is estimated on the bundled sample (which the real run would load) in a scratch
    database, removed afterwards."""
    import tempfile

    from convkgyarn.project import NoKGToEstimate

    try:
        with open_project(cfg, write=False, name="generate --dry-run") as project:
            project.generate(configs)
    except NoKGToEstimate:
        scratch = None
    except UserError:
        if cfg.db.exists():
            raise
        scratch = None
    else:
        scratch = False
    if scratch is None:
        say(f"{cfg.db}: no KG loaded yet; estimating on the bundled sample that the real run "
            "would load, in a scratch database")
        with tempfile.TemporaryDirectory(prefix="convkgyarn-dry-run-") as tmp:
            sample = cfg.model_copy(update={"db": Path(tmp) / "estimate.duckdb",
                                            "llm": cfg.llm.model_copy(update={"dry_run": False})})
            with open_project(sample, write=True, name="generate --dry-run") as project:
                project.ensure_kg()
            with open_project(sample.model_copy(update={"llm": cfg.llm}), write=False,
                              name="generate --dry-run") as project:
                project.generate(configs)
    say("dry run: nothing was sent and nothing was written to the project; where a "
        "selector's reply is not cached the estimate assumes it keeps everything it is "
        "offered (an upper bound; re-asks of rejected templates are not counted)")


@command
def export(
    fmt: Annotated[str, typer.Option("--format", help="jsonl, parquet, hf (with Croissant "
                                     "metadata) or inspect (an Inspect task folder).")] = "jsonl",
    out_path: Annotated[Optional[Path], typer.Option(
        "--out", show_default="conversations.jsonl, conversations.parquet, hf or inspect in "
        "the project database's folder (outputs/)",
        help="Output file (jsonl, parquet) or folder (hf, inspect: new, empty, or a "
        "previous export of ours).")] = None,
    run: Annotated[Optional[list[str]], typer.Option(help="Generation run ids (default: the "
                                                     "current run of each configuration).")] = None,
    force: Force = False,
    db: DbOption = None, config: ConfigOption = None,
) -> None:
    """Export conversations for users: JSONL, Parquet, a Hugging Face dataset folder, or an
    Inspect task folder (`inspect eval DIR/task.py --model ...`). A previous export of ours
    at --out is replaced once the new one is complete; anything else there is refused (a
    file: unless --force; a folder: always)."""
    if fmt not in DEFAULT_EXPORTS:
        raise UserError(f"--format must be jsonl, parquet, hf or inspect, not {fmt!r}")
    cfg = project_config(config, db)
    target = out_path if out_path is not None else cfg.db.parent / DEFAULT_EXPORTS[fmt]
    with open_project(cfg, write=False, name="export") as project:
        if fmt == "jsonl" and out_path is None:
            # the default JSONL is generate's pair: outputs/summary.json describes it
            info = project.write_outputs(run, target.parent, force=force)
            print_written(info, target.parent)
            return
        n = project.export(fmt, target, run, force=force)
    say(f"{counted(n, 'conversation')} -> {target}")


@command
def stats(
    db: DbOption = None, config: ConfigOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
    quality: Annotated[bool, typer.Option("--quality", help="Per configuration: answer kinds, "
                                          "tense, short conversations, and what was left out "
                                          "and why.")] = False,
) -> None:
    """Counts of the current conversations per type, predicate and phenomenon, and questions
    per fact (or, with --quality, what they hold and what was left out)."""
    with open_project(project_config(config, db), write=False, name="stats") as project:
        info = project.quality() if quality else project.summary(project.records())
    if as_json:
        out.print_json(json.dumps(info))
        return
    if quality:
        print_quality(info)
        return
    print_summary(info)


def print_summary(info: dict) -> None:
    """The summary as tables: types and properties as "label (id)"."""
    from convkgyarn.export import missing_labels_note, with_label

    out.print(table("configuration", "conversations", numeric=True,
                    rows=info["configurations"].items()))
    for key, what in (("types", "conversations"), ("predicates", "turns")):
        out.print(table("type" if key == "types" else "property", what, numeric=True, rows=(
            (with_label(k, e), e[what]) for k, e in info[key].items())))
    out.print(table("phenomenon", "turns", numeric=True, rows=info["phenomena"].items()))
    out.print(table("flow", "value", numeric=True, rows=info["flow"].items()))
    out.print(f"conversations {info['conversations']:,}, turns {info['turns']:,}, distinct "
              f"facts {info['distinct_facts']:,}, questions per fact "
              f"{info['questions_per_fact']}")
    note = missing_labels_note(info)
    if note:
        say(note)


# the stages that record drops, as --stage names them
DROP_STAGES = ("kg.load", "kg.load.sparql", "types.select", "predicates.extract",
               "predicates.select", "templates.generate", "templates.localise",
               "related.build", "assemble", "evaluate", "refresh.snapshot")


@command
def drops(
    stage: Annotated[Optional[str], typer.Option(
        help="Only this stage: " + ", ".join(DROP_STAGES) + ".")] = None,
    item: Annotated[Optional[str], typer.Option(
        help="List what was left out of this item, one row each (Q15180: every fact of "
        "the Soviet Union left out, and why).")] = None,
    reason: Annotated[Optional[str], typer.Option(
        help="List the items left out for a reason that contains this text (any case).")] = None,
    limit: Annotated[int, typer.Option(min=1, help="Rows listed with --item or --reason.")] = 50,
    db: DbOption = None, config: ConfigOption = None,
) -> None:
    """What every stage left out, and why (bad dump lines included): counts per reason, and
    how many distinct items and runs they are (each configuration's run drops again what
    the others drop: an unlabelled value counts once per configuration). With --item or
    --reason, the items themselves, one row each."""
    if item is not None and not item.strip():
        raise UserError("--item: give an item, such as Q42")
    if reason is not None and not reason.strip():
        raise UserError("--reason: give some text of a reason, such as 'English label'")
    if item is not None and re.fullmatch(r"\s*[qplQPL]\d+\s*", item):
        item = item.strip().upper()  # "q15180" is Q15180
    with open_project(project_config(config, db), write=False, name="drops") as project:
        if stage is not None and stage not in DROP_STAGES and \
                stage not in {r[0] for r in project.drops()}:
            raise UserError(f"--stage {stage}: no such stage; the stages are "
                            f"{', '.join(DROP_STAGES)}")
        if item is None and reason is None:
            rows = project.drops(stage, items=True)
            out.print(table("stage", "reason", "count", "items", "runs", "example", rows=rows,
                            numeric=True))
            return
        rows, total = project.drop_items(stage, item=item and item.strip(), reason=reason,
                                         limit=limit)
    if not rows:
        say("nothing left out matches " + " and ".join(
            f"--{k} {v!r}" for k, v in (("stage", stage), ("item", item), ("reason", reason))
            if v is not None))
        return
    out.print(table("stage", "item", "reason", "detail", "runs", rows=rows, numeric=True,
                    title=f"{len(rows)} of {counted(total, 'drop')}" + (
                        " (--limit for more)" if total > len(rows) else "")))


def print_quality(info: dict) -> None:
    rows = []
    for name, q in info["configurations"].items():
        kinds = ", ".join(f"{k} {v:.0%}" for k, v in q["answer_kinds"].items())
        rows.append((name, q["conversations"], f"{q['turns_per_conversation']} of "
                     f"{q['turns_asked']}", f"{q['short_conversations']:.0%}", kinds,
                     f"{q['past_tense_turns']:.0%}",
                     f"{q['present_turns_without_ended_values']:.0%}"))
    out.print(table("configuration", "conversations", "turns", "short", "answers", "past tense",
                    "ended values left out", rows=rows, title="Conversations"))
    for name, q in info["configurations"].items():
        if q["left_out"] or q["short_because"]:
            out.print(table("left out while assembling " + name, "count", rows=[
                *q["left_out"].items(), *((f"short: {k}", v) for k, v in
                                          q["short_because"].items())]))
    out.print(table("predicates left out by the rules", "count",
                    rows=info["predicates_left_out"].items()))
    out.print(table(f"types left out ({info['types_selected']} selected)", "count",
                    rows=info["types_left_out"].items()))


def register(app: typer.Typer) -> None:
    app.command()(generate)
    app.command()(export)
    app.command()(stats)
    app.command()(drops)
