"""``convkgyarn verify``: re-run every exported turn's query against a SPARQL endpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from convkgyarn.cli.common import command, console, say
from convkgyarn.config import SparqlConfig
from convkgyarn.progress import counted


@command
def verify_cmd(
    endpoint: Annotated[str, typer.Option(help="SPARQL endpoint URL (the Wikidata Query "
                                          "Service, QLever, or your own snapshot).")],
    input_path: Annotated[Path, typer.Option("--input", help="A JSONL export.")],
    out_path: Annotated[Path, typer.Option("--out", help="The drift report (JSON).")] = Path(
        "outputs/drift.json"),
    fail_on_drift: Annotated[bool, typer.Option(
        "--fail-on-drift", help="Exit 5 when any turn's answer changed or went away.")] = False,
    timeout: Annotated[float, typer.Option(help="Seconds per query.", min=1)] = 60.0,
    user_agent: Annotated[Optional[str], typer.Option(
        help="User-Agent sent with every query (the public service asks for a descriptive "
        "one with contact details).")] = None,
) -> None:
    """Re-run each turn's `sparql` query (one at a time, honouring 429 Retry-After, results
    cached beside the report so a stopped run resumes) and write per turn `same`,
    `changed` (old and new answer) or `gone`, with counts."""
    from convkgyarn.kg.sparql import SparqlClient
    from convkgyarn.outputs import DRIFT_JSON, check_file
    from convkgyarn.verify import DriftFound, verify

    check_file(out_path, DRIFT_JSON)  # a drift report of ours, or nothing yet, before any query
    cfg = SparqlConfig(endpoint=endpoint, timeout=timeout,
                       **({"user_agent": user_agent} if user_agent else {}))
    client = SparqlClient(cfg)
    with Progress(TextColumn("[bold]verifying"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True,
                  disable=not console.is_terminal) as progress:
        task = progress.add_task("verify", total=None)
        report = verify(input_path, endpoint, out_path,
                        lambda q: client.select(q, prefixes=False),
                        progress=lambda done, total: progress.update(task, completed=done,
                                                                     total=total))
    s = report.summary
    say(f"{counted(s['turns'], 'turn')}: {s['same']:,} same, {s['changed']:,} changed, "
        f"{s['gone']:,} gone" + (f", {s['no_query']:,} without a query" if s["no_query"] else "")
        + f" ({counted(s['queries'], 'query', 'queries')}, {s['queries_sent']:,} sent) "
        f"-> {out_path}")
    if fail_on_drift and report.drifted:
        raise DriftFound(f"{counted(report.drifted, 'turn')} drifted (see {out_path})")


def register(app: typer.Typer) -> None:
    app.command("verify")(verify_cmd)
