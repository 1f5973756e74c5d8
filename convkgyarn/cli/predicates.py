"""``convkgyarn predicates``: F(t), every property a type's entities use, and G(t, F(t))."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from convkgyarn.cli.common import (
    BaseUrl, Concurrency, ConfigOption, DbOption, DryRun, MaxCost, command, llm_config,
    open_project, out, project_config, say, table)
from convkgyarn.errors import UserError
from convkgyarn.progress import counted

NO_LABEL = "(no English label)"

predicates_app = typer.Typer(help="Predicates per type: extract F(t), select G(t, F(t)).",
                             no_args_is_help=True)


@predicates_app.command("extract")
@command
def predicates_extract(
    db: DbOption = None,
    config: ConfigOption = None,
    min_entities: Annotated[Optional[int], typer.Option(
        help="Only types with at least this many entities.", min=1)] = None,
) -> None:
    """Build F(t): for each type, every property its entities use, with usage counts."""
    cfg = project_config(config, db, **{"predicates.min_type_entities": min_entities})
    with open_project(cfg, write=True, name="predicates extract") as project:
        s = project.extract_predicates().stats
    say(f"{counted(s['type_predicates'], '(type, property) pair')} over "
        f"{counted(s['types'], 'type')} ({counted(s['types_below_min_entities'], 'type')} "
        "below the entity minimum)")


@predicates_app.command("list")
@command
def predicates_list(
    type_id: Annotated[str, typer.Argument(help="A type id, e.g. Q5 or Q33999.")],
    db: DbOption = None,
    config: ConfigOption = None,
) -> None:
    """Show F(t) for one type: properties by the share of its entities using them."""
    with open_project(project_config(config, db), write=False) as project:
        rows = project.type_predicates(type_id)
    if not rows:
        raise UserError(f"no predicates for type {type_id}; run `convkgyarn predicates "
                        "extract` first")
    out.print(table("property", "label", "datatype", "entities", "share", rows=[
        (pid, label or NO_LABEL, dt, n, f"{share:.0%}") for pid, label, dt, n, share in rows]))


@predicates_app.command("select")
@command
def predicates_select(
    db: DbOption = None, config: ConfigOption = None,
    types: Annotated[Optional[list[str]], typer.Option("--type", help="Only these types.")] = None,
    min_share: Annotated[Optional[float], typer.Option(
        help="Rules: minimum share of the type's entities using a property.", min=0,
        max=1)] = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None,
) -> None:
    """Choose G(t, F(t)): the predicates worth asking about, by LLM when configured, else rules."""
    cfg = llm_config(config, db, max_cost, dry_run, concurrency, base_url,
                     **{"predicates.min_share": min_share})
    with open_project(cfg, write=True, name="predicates select") as project:
        s = project.select_predicates(types or []).stats
    say(f"{s['types']} types selected by {s['path']} ({s['unchanged']} unchanged, "
        f"{s['failed_types']} failed): {s['selected']} predicates, {s['qualifiers']} "
        f"qualifiers, {s['dropped_ids']} ids dropped")


@predicates_app.command("show")
@command
def predicates_show(
    type_id: Annotated[str, typer.Argument(help="A type id, e.g. Q5.")],
    db: DbOption = None, config: ConfigOption = None,
) -> None:
    """Print the selected predicates of a type, with labels and who selected them."""
    with open_project(project_config(config, db), write=False) as project:
        rows = project.selection(type_id)
    if not rows:
        raise UserError(f"no selection for type {type_id}; run `convkgyarn predicates select`")
    out.print(table("property", "label", "qualifier", "selected by", "model", "prompt hash",
                    title=f"G({type_id})", rows=[
                        (pid, label or NO_LABEL, f"{qid} {qlabel or NO_LABEL}" if qid else "",
                         by, model, ph)
                        for pid, label, qid, qlabel, by, model, ph in rows]))


types_app = typer.Typer(help="Which entity types get conversations (rules, or the LLM type "
                        "selector when configured).", no_args_is_help=True)


@types_app.command("select")
@command
def types_select(
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None,
) -> None:
    """Decide per type whether its entities get conversations (needs `predicates extract`)."""
    cfg = llm_config(config, db, max_cost, dry_run, concurrency, base_url)
    with open_project(cfg, write=True, name="types select") as project:
        s = project.select_types().stats
    say(f"{s['selected']} of {s['types']} types selected by {s['path']}")


@types_app.command("show")
@command
def types_show(
    db: DbOption = None, config: ConfigOption = None,
    selected: Annotated[bool, typer.Option("--selected", help="Only the selected types.")] = False,
) -> None:
    """Every type with predicates: selected or not, and why."""
    with open_project(project_config(config, db), write=False) as project:
        rows = project.types(selected)
    if not rows:
        raise UserError("no types selected yet; run `convkgyarn types select` or "
                        "`convkgyarn generate`")
    out.print(table("type", "label", "entities", "selected", "why", "by", rows=[
        (t, label or NO_LABEL, n, "yes" if keep else "no", why, by)
        for t, label, n, keep, why, by in rows]))
    unlabelled = sum(1 for r in rows if r[3] and not r[1])
    if unlabelled:
        say(f"{unlabelled} of {sum(1 for r in rows if r[3])} selected types have no English "
            "label in the loaded files; `kg load --labels FILE` adds labels")


def register(app: typer.Typer) -> None:
    app.add_typer(predicates_app, name="predicates")
    app.add_typer(types_app, name="types")
