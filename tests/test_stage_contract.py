"""The stage contract, checked (#31 item 2): every stage run on a connection that records
the tables it touches reads and writes exactly what it declares, and ``Pipeline`` refuses a
stage whose reads nothing before it produces."""

from __future__ import annotations

import re
import shutil

import pytest

from convkgyarn.config import GenerateConfig
from convkgyarn.pipeline import Pipeline, PipelineOrderError
from convkgyarn.stage import Context
from convkgyarn.store import schema
from tests.helpers import config, project

# tables the base class and the LLM layer keep for every stage (not part of a declaration)
BOOKKEEPING = {"stage_runs", "dropped", "stage_inputs", "llm_cache", "llm_failures",
               "llm_batches", "schema_version"}
RELATIONS = set(schema.TABLES) | set(schema.VIEWS)
REFERENCE = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(\w+)", re.I)
WRITE = re.compile(r"\b(?:INSERT\s+(?:OR\s+REPLACE\s+)?INTO|DELETE\s+FROM|UPDATE|"
                   r"CREATE\s+(?:OR\s+REPLACE\s+)?TABLE|ALTER\s+TABLE)\s+(\w+)", re.I)


class Recorder:
    """A DuckDB connection that records the schema's tables and views each statement names
    (those after FROM, JOIN, INTO, UPDATE or TABLE), as reads or as writes."""

    def __init__(self, con, log: dict[str, set[str]] | None = None) -> None:
        self._con = con
        self.log = log if log is not None else {"reads": set(), "writes": set()}
        self.paused = False

    def _record(self, sql: str) -> None:
        if self.paused:
            return
        writes = {t.lower() for t in WRITE.findall(sql)}
        named = {t.lower() for t in REFERENCE.findall(sql)}
        self.log["writes"] |= writes & RELATIONS
        self.log["reads"] |= (named - writes) & RELATIONS

    def execute(self, sql, *args, **kwargs):
        self._record(sql)
        self._con.execute(sql, *args, **kwargs)
        return self

    def executemany(self, sql, *args, **kwargs):
        self._record(sql)
        self._con.executemany(sql, *args, **kwargs)
        return self

    def sql(self, sql, *args, **kwargs):
        self._record(sql)
        return self._con.sql(sql, *args, **kwargs)

    def cursor(self):
        child = Recorder(self._con.cursor(), self.log)
        child.paused = self.paused
        return child

    def __getattr__(self, name):
        return getattr(self._con, name)


def touched(stage) -> tuple[set[str], set[str]]:
    """(reads, writes) of one run of ``stage`` (built on a Recorder), bookkeeping aside."""
    rec: Recorder = stage.con
    rec.paused = True
    stage.input_parts()  # the key reads every declared table: not what the stage reads
    rec.paused = False
    stage.run()
    return rec.log["reads"] - BOOKKEEPING, rec.log["writes"] - BOOKKEEPING


# read by assembly only after a refresh (tests/test_refresh.py runs that path)
AFTER_REFRESH = {"fact_changes", "refresh_runs"}


def check(*variants) -> None:
    """Runs of one stage (in variants that together take every path): each touches only
    what the stage declares, and together they touch all of it."""
    all_reads: set[str] = set()
    all_writes: set[str] = set()
    for stage in variants:
        reads, writes = touched(stage)
        undeclared = reads - set(stage.reads) - set(stage.writes)
        assert not undeclared, (stage.name, "reads undeclared", undeclared)
        assert writes <= set(stage.writes), (stage.name, "writes undeclared",
                                             writes - set(stage.writes))
        all_reads |= reads
        all_writes |= writes
    stage = variants[-1]
    assert all_writes == set(stage.writes), (stage.name, "never writes",
                                             set(stage.writes) - all_writes)
    unused = set(stage.reads) - all_reads - set(stage.writes) - AFTER_REFRESH
    assert not unused, (stage.name, "declares reads it never makes", unused)


@pytest.fixture(scope="module")
def loaded(tmp_path_factory, sample_path):
    path = tmp_path_factory.mktemp("contract") / "loaded.duckdb"
    with project(path) as p:
        p.load([sample_path], kind="sample")
    return path


def recording_context(p, **overrides) -> Context:
    cfg = config(p.db, **overrides)
    return Context(con=Recorder(p.con), config=cfg, meter=p.meter, work_dir=p.db.parent)


def test_every_generation_stage_touches_exactly_what_it_declares(loaded, tmp_path):
    from convkgyarn.stages.assemble import AssembleConversations
    from convkgyarn.stages.predicates import ExtractPredicates, SelectPredicates
    from convkgyarn.stages.related import BuildRelated
    from convkgyarn.stages.templates import GenerateTemplates
    from convkgyarn.stages.types import SelectTypes

    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    with project(db) as p:
        for make in (ExtractPredicates, SelectTypes, SelectPredicates, GenerateTemplates):
            check(make(recording_context(p)))
        check(BuildRelated(recording_context(p)),
              BuildRelated(recording_context(p, **{"related.method": "complex",
                                                   "related.epochs": 1})))
        check(AssembleConversations(recording_context(p), GenerateConfig(conversations=20)))
        check(AssembleConversations(recording_context(p), GenerateConfig(
            conversations=20, related=True, hops=True, deixis=True)))


def test_a_stage_whose_reads_nothing_before_it_produces_is_refused(loaded, tmp_path):
    from convkgyarn.stages.assemble import AssembleConversations
    from convkgyarn.stages.predicates import ExtractPredicates, SelectPredicates
    from convkgyarn.stages.related import BuildRelated
    from convkgyarn.stages.templates import GenerateTemplates
    from convkgyarn.stages.types import SelectTypes

    with project(tmp_path / "p.duckdb") as p:
        ctx = p.ctx
        related = GenerateConfig(conversations=5, related=True)
        with pytest.raises(PipelineOrderError, match="related_entities"):
            Pipeline([ExtractPredicates(ctx), SelectTypes(ctx), SelectPredicates(ctx),
                      GenerateTemplates(ctx), AssembleConversations(ctx, related),
                      BuildRelated(ctx)])
        with pytest.raises(PipelineOrderError, match="templates"):
            Pipeline([AssembleConversations(ctx, GenerateConfig(conversations=5))])
        # what the project already holds may be named as available
        Pipeline([AssembleConversations(ctx, GenerateConfig(conversations=5))],
                 available=("templates",))
        Pipeline([ExtractPredicates(ctx), SelectTypes(ctx), SelectPredicates(ctx),
                  GenerateTemplates(ctx), BuildRelated(ctx),
                  AssembleConversations(ctx, related)])


def test_refresh_runs_its_stages_and_the_generation_stages_as_one_pipeline(tmp_path,
                                                                          sample_path):
    from tests.test_refresh import modified_dump

    new = tmp_path / "new.json"
    modified_dump(sample_path, new)
    with project(tmp_path / "p.duckdb") as p:
        p.load([sample_path])
        p.generate([GenerateConfig(conversations=10)])
        mark = p.con.execute("SELECT max(started_at) FROM stage_runs").fetchone()[0]
        result = p.refresh([str(new)])
        stages = [r[0] for r in p.con.execute(
            "SELECT stage FROM stage_runs WHERE started_at > ? ORDER BY started_at",
            [mark]).fetchall()]
    assert result.status == "done"
    assert stages == ["refresh.snapshot", "refresh.swap", "predicates.extract", "types.select",
                      "predicates.select", "templates.generate", "assemble"]
    assert set(result.summary["seconds"]) >= {"load", "swap", "assemble"}


def test_the_diff_counts_and_the_changed_entities_come_from_one_set_of_predicates():
    from convkgyarn import refresh

    for name, sql in refresh.ENTITY_CHANGES.items():
        assert refresh.DIFF_SQL[name] == f"SELECT count(*) FROM ({sql})"
        assert f"({sql}) AS {name}(e)" in refresh.CHANGED_ENTITIES_SQL
    assert set(refresh.DIFF_SQL) == set(refresh.ENTITY_CHANGES) | set(refresh.OTHER_CHANGES)


def test_the_language_stages_touch_exactly_what_they_declare(shared_data, tmp_path):
    """Templates in other languages, and assembly in several languages (issue #35), on real
    entities with German labels."""
    from convkgyarn.stages.assemble import AssembleConversations
    from convkgyarn.stages.localise import LocaliseTemplates
    from convkgyarn.stages.predicates import ExtractPredicates, SelectPredicates
    from convkgyarn.stages.templates import GenerateTemplates
    from convkgyarn.stages.types import SelectTypes

    with project(tmp_path / "p.duckdb") as p:
        p.load([shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"],
               labels=[shared_data / "wikidata" / "property-labels-en.json",
                       shared_data / "labels" / "preferred-labels-en.json"],
               languages=["de"])
        for make in (ExtractPredicates, SelectTypes, SelectPredicates, GenerateTemplates):
            make(p.ctx).run()
        check(LocaliseTemplates(recording_context(p, **{"templates.languages": ["en", "de"]})))
        check(AssembleConversations(recording_context(p), GenerateConfig(
            conversations=10, deixis=True, languages=["en", "de"])))
