"""``convkgyarn related``: related entities by KG-embedding similarity."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from convkgyarn.cli.common import (
    ConfigOption, DbOption, command, open_project, out, project_config, say, table)

related_app = typer.Typer(help="Related entities by KG-embedding similarity.",
                          no_args_is_help=True)


@related_app.command("build")
@command
def related_build(
    db: DbOption = None, config: ConfigOption = None,
    pretrained: Annotated[Optional[Path], typer.Option(
        help="PyTorch-BigGraph Wikidata TSV (entity, then floats) instead of training.")] = None,
    min_sitelinks: Annotated[Optional[int], typer.Option(
        help="Popular people: at least this many sitelinks.", min=0)] = None,
    epochs: Annotated[Optional[int], typer.Option(help="Training epochs.", min=1)] = None,
) -> None:
    """Learn ComplEx embeddings of the KG (or load PBG vectors) and store, for each popular
    person, the most similar other entity. Embeddings are saved beside the database."""
    cfg = project_config(config, db, **{"related.pretrained": pretrained,
                                        "related.min_sitelinks": min_sitelinks,
                                        "related.epochs": epochs})
    with open_project(cfg, write=True, name="related build") as project:
        report = project.build_related()
    s = report.stats
    say(f"{s.get('related', 0)} related entities ({s['method']}, {s.get('entities', 0)} "
        f"entities, {s.get('triples', 0)} facts, {s.get('train_seconds', 0)}s training)")


@related_app.command("show")
@command
def related_show(db: DbOption = None, config: ConfigOption = None,
                 limit: Annotated[int, typer.Option(help="Rows.", min=1)] = 50) -> None:
    """Print each popular person's related entity with its similarity."""
    with open_project(project_config(config, db), write=False) as project:
        rows = project.related(limit)
    out.print(table("entity", "label", "related", "label", "cosine", "method", rows=[
        (a, al, b, bl, f"{score:.3f}", method) for a, al, b, bl, score, method in rows]))


def register(app: typer.Typer) -> None:
    app.add_typer(related_app, name="related")
