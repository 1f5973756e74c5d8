"""``convkgyarn templates``: question templates per type and predicate."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from convkgyarn.cli.common import (
    BaseUrl, Concurrency, ConfigOption, DbOption, DryRun, MaxCost, command, llm_config,
    open_project, out, project_config, say, table)
from convkgyarn.errors import UserError

templates_app = typer.Typer(help="Question templates per type and predicate.",
                            no_args_is_help=True)


@templates_app.command("generate")
@command
def templates_generate(
    db: DbOption = None, config: ConfigOption = None,
    max_cost: MaxCost = None, dry_run: DryRun = False, concurrency: Concurrency = None,
    base_url: BaseUrl = None,
) -> None:
    """Write question templates for every selected predicate (LLM when configured, else rules)."""
    cfg = llm_config(config, db, max_cost, dry_run, concurrency, base_url)
    with open_project(cfg, write=True, name="templates generate") as project:
        s = project.write_templates().stats
    say(f"{s['templates']} templates for {s['facts']} facts by {s['writer']} "
        f"({s['unchanged']} unchanged, {s['rejected']} rejected, {s['fallback_templates']} "
        f"from the rules fallback, {s['incomplete']} to ask again next run)")


@templates_app.command("show")
@command
def templates_show(
    type_id: Annotated[str, typer.Argument(help="A type id, e.g. Q5.")],
    db: DbOption = None, config: ConfigOption = None,
    interaction: Annotated[Optional[str], typer.Option(help="voice or text")] = None,
) -> None:
    """Print the templates of a type."""
    if interaction not in (None, "voice", "text"):
        raise UserError(f"--interaction must be voice or text, not {interaction!r}")
    with open_project(project_config(config, db), write=False) as project:
        rows = project.templates(type_id, interaction)
    if not rows:
        raise UserError(f"no templates for type {type_id}; run `convkgyarn templates generate`")
    out.print(table("property", "qualifier", "interaction", "phenomenon", "#", "template",
                    "writer", rows=rows))


def register(app: typer.Typer) -> None:
    app.add_typer(templates_app, name="templates")
