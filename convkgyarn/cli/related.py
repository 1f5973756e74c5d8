"""``convkgyarn related``: each popular person's related entity, with the link that explains it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from convkgyarn.cli.common import (
    ConfigOption, DbOption, command, open_project, out, project_config, say, table)

related_app = typer.Typer(help="Related entities: people the KG connects.",
                          no_args_is_help=True)


@related_app.command("build")
@command
def related_build(
    db: DbOption = None, config: ConfigOption = None,
    method: Annotated[Optional[str], typer.Option(
        help="shared: shared items and direct links (seconds at any size; the default); "
             "complex: train ComplEx embeddings to rank the connected candidates; pbg: "
             "rank them with PyTorch-BigGraph vectors (--pretrained).")] = None,
    pretrained: Annotated[Optional[Path], typer.Option(
        help="PyTorch-BigGraph Wikidata TSV (entity, then floats): implies --method pbg.")] = None,
    min_sitelinks: Annotated[Optional[int], typer.Option(
        help="Popular people: at least this many sitelinks.", min=0)] = None,
    epochs: Annotated[Optional[int], typer.Option(
        help="complex: at most this many training epochs.", min=1)] = None,
    time_budget: Annotated[Optional[float], typer.Option(
        help="complex: stop training after this many seconds (the best vectors so far are "
             "kept).", min=0.001)] = None,
) -> None:
    """Store, for each popular person, a related entity the KG can explain: a direct link
    (spouse, child, teacher) or an item both are linked to (a film, a band, an office),
    recorded with the pair. A person with no such link gets none (see `convkgyarn drops`)."""
    cfg = project_config(config, db, **{"related.method": method,
                                        "related.pretrained": pretrained,
                                        "related.min_sitelinks": min_sitelinks,
                                        "related.epochs": epochs,
                                        "related.time_budget": time_budget})
    with open_project(cfg, write=True, name="related build") as project:
        report = project.build_related()
    s = report.stats
    detail = ", ".join(f"{k.replace('_', ' ')} {s[k]}" for k in (
        "entities", "triples", "epochs", "train_seconds", "stopped") if s.get(k) is not None)
    say(f"{s['related']} related entities for {s['people']} popular people ({s['method']}"
        + (f"; {detail}" if detail else "") + f") in {report.seconds:.1f}s")
    left_out = s.get("without_connection", 0) + s.get("weakly_connected", 0)
    if left_out:
        say(f"{left_out} popular people have no related entity ({s['without_connection']} "
            f"connected to nobody, {s['weakly_connected']} only through items many share): "
            "convkgyarn drops --stage related.build")


@related_app.command("show")
@command
def related_show(db: DbOption = None, config: ConfigOption = None,
                 limit: Annotated[int, typer.Option(help="Rows.", min=1)] = 50) -> None:
    """Print each popular person's related entity, its score and the link that explains it
    (arrows go from a statement's subject to its value)."""
    with open_project(project_config(config, db), write=False) as project:
        rows = project.related(limit)
    out.print(table("entity", "label", "related", "label", "score", "method", "connection",
                    rows=[(a, al, b, bl, f"{score:.3f}", method, how or "(not recorded)")
                          for a, al, b, bl, score, method, _via, _via_label, how in rows]))


def register(app: typer.Typer) -> None:
    app.add_typer(related_app, name="related")

