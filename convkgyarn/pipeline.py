"""Run the stages a command needs, skipping what is already up to date."""

from __future__ import annotations

import logging
from collections.abc import Callable

import duckdb

from convkgyarn.config import BUNDLED_SAMPLE, LoadConfig, ProjectConfig
from convkgyarn.llm import CostMeter
from convkgyarn.stage import StageReport

log = logging.getLogger("convkgyarn")
Say = Callable[[str], None]


def kg_loaded(con: duckdb.DuckDBPyConnection) -> bool:
    return con.execute("SELECT count(*) FROM entities").fetchone()[0] > 0


def ensure_kg(con: duckdb.DuckDBPyConnection, say: Say) -> StageReport | None:
    """Load the bundled sample when the project has no KG yet."""
    if kg_loaded(con):
        return None
    from convkgyarn.kg.load import LoadStage

    say(f"no KG loaded: loading the bundled sample {BUNDLED_SAMPLE.name}")
    return LoadStage(con, LoadConfig(paths=[BUNDLED_SAMPLE])).run()


def ensure_predicates(con: duckdb.DuckDBPyConnection, project: ProjectConfig, meter: CostMeter,
                      say: Say) -> list[StageReport]:
    from convkgyarn.stages.predicates import ExtractPredicates, SelectPredicates

    reports = [ExtractPredicates(con, project.predicates).run()]
    select = SelectPredicates(con, project.predicates, project.llm, meter)
    if select.path == "rules":
        say("no LLM configured (OPENAI_BASE_URL / OPENAI_API_KEY or [llm] in convkgyarn.toml): "
            "predicates are selected by the built-in rules")
    reports.append(select.run())
    return reports


def ensure_templates(con: duckdb.DuckDBPyConnection, project: ProjectConfig, meter: CostMeter,
                     say: Say) -> StageReport:
    from convkgyarn.stages.templates import GenerateTemplates

    stage = GenerateTemplates(con, project.templates, project.llm, meter)
    if stage.writer == "rules":
        say("no LLM configured: templates are written by the built-in rules writer")
    return stage.run()


def ensure_related(con: duckdb.DuckDBPyConnection, project: ProjectConfig, out_dir,
                   say: Say) -> StageReport | None:
    """Build related entities once (the stage itself reuses unchanged embeddings)."""
    from convkgyarn.stages.related import EMBEDDING_SCHEMA, BuildRelated

    con.execute(EMBEDDING_SCHEMA)
    if con.execute("SELECT count(*) FROM related_entities").fetchone()[0]:
        return None
    say("finding related entities by KG-embedding similarity")
    return BuildRelated(con, project.related, out_dir).run()
