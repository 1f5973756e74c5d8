"""The library entry point: one project database, its typed config, and every job on it.

    from convkgyarn import Project, load_project_config
    from convkgyarn.config import GenerateConfig

    config = load_project_config(overrides={"db": "my.duckdb"})
    with Project(config) as project:
        project.load(["latest-all.json.bz2"], labels=["labels.json"])
        project.generate([GenerateConfig(interaction="voice", deixis=True)])
        project.export("jsonl", "conversations.jsonl")

The CLI is a thin layer over this class: options -> typed config -> one call -> printing.
A project holds the project lock while open (shared for reading, exclusive for writing):
a second command on a busy project stops at once with ``BusyError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from convkgyarn.config import (
    CompareConfig, ConversationSelection, GenerateConfig, LoadConfig, ProjectConfig,
    SparqlConfig)
from convkgyarn.errors import UserError
from convkgyarn.stage import Context, Say, StageReport
from convkgyarn.store import ProjectLock, connect


@dataclass
class GenerationResult:
    reports: list[StageReport]
    runs: list[str]  # the stored run of each configuration, in the order asked
    notes: list[str] = field(default_factory=list)


class Project:
    def __init__(self, config: ProjectConfig | None = None, *, write: bool = True,
                 say: Say | None = None, command: str = "convkgyarn") -> None:
        from convkgyarn.llm import new_meter

        self.config = config or ProjectConfig()
        self.db = Path(self.config.db)
        self.write = write
        self.say: Say = say or (lambda message: None)
        self.meter = new_meter(self.config.llm)
        self._lock = ProjectLock(self.db, exclusive=write, command=command)
        self._ctx: Context | None = None

    # -- opening -------------------------------------------------------------------------
    def __enter__(self) -> "Project":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> "Project":
        if self.write:
            try:
                self.db.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UserError(f"{self.db}: cannot create its folder ({exc.strerror})") from None
        elif not self.db.exists():
            raise UserError(f"{self.db}: no project database here (run `convkgyarn kg load` "
                            "or `convkgyarn generate` first, or give --db)")
        try:
            self._lock.acquire()
        except OSError as exc:
            raise UserError(f"{self.db}: cannot create its lock file ({exc.strerror})") from None
        try:
            con = connect(self.db, read_only=not self.write,
                          memory_limit=self.config.memory_limit)
        except BaseException:
            self._lock.release()
            raise
        self._ctx = Context(con=con, config=self.config, meter=self.meter, say=self.say,
                            work_dir=self.db.parent)
        return self

    def close(self) -> None:
        if self._ctx is not None:
            self._ctx.con.close()
            self._ctx = None
        self._lock.release()

    @property
    def ctx(self) -> Context:
        if self._ctx is None:
            raise RuntimeError("the project is not open (use `with Project(...) as p:`)")
        return self._ctx

    @property
    def con(self):
        return self.ctx.con

    # -- the KG --------------------------------------------------------------------------
    def load(self, paths: Sequence[Path | str], *, workers: int = 1,
             labels: Sequence[Path | str] = (), force: bool = False, progress=None,
             kind: str = "dump", keep_types: Sequence[str] | None = None,
             engine: str = "local", spark_master: str | None = None,
             spark_output: str | None = None):
        """Load dump files (and label files); returns the load stage with its file reports.
        ``keep_types``: items of other types keep only their id, label and types."""
        from convkgyarn.kg.load import LoadStage

        cfg = LoadConfig(paths=[Path(p) for p in paths], workers=workers, force=force,
                         labels=[Path(p) for p in labels], kind=kind,
                         keep_types=list(keep_types) if keep_types is not None else None,
                         engine=engine, spark_master=spark_master, spark_output=spark_output)
        stage = LoadStage(self.ctx, cfg, progress=progress)
        stage.report = stage.run()
        return stage

    def load_sparql(self, config: SparqlConfig) -> StageReport:
        from convkgyarn.kg.load import remove_sample
        from convkgyarn.kg.sparql import SparqlLoad

        if remove_sample(self.con):
            self.say("removed the bundled sample from this project: it never mixes with "
                     "your data")
        return SparqlLoad(self.ctx, config).run()

    def ensure_kg(self) -> StageReport | None:
        """A project that has never loaded anything gets the bundled sample (said aloud);
        any other project must hold a complete, non-empty KG."""
        from convkgyarn.kg.snapshot import has_loaded_anything, require_usable_kg
        from convkgyarn.resources import bundled_sample

        report = None
        if not has_loaded_anything(self.con):
            sample = bundled_sample()
            self.say(f"no KG loaded yet: loading the bundled sample {sample.name}")
            report = self.load([sample], kind="sample").report
        require_usable_kg(self.con)
        return report

    def kg_stats(self) -> dict[str, Any]:
        from convkgyarn.kg.snapshot import require_complete_loads
        from convkgyarn.kg.stats import kg_stats

        require_complete_loads(self.con)
        return kg_stats(self.con)

    def write_rdf(self, out: Path) -> int:
        """The loaded KG as N-Triples in Wikidata's RDF model (to serve with Oxigraph or
        QLever and run turns' queries against); returns the number of triples."""
        from convkgyarn.export import atomic_path
        from convkgyarn.kg.rdf import write_snapshot
        from convkgyarn.kg.snapshot import require_usable_kg

        require_usable_kg(self.con)
        with atomic_path(out) as tmp:
            return write_snapshot(self.con, tmp)

    def label_coverage(self) -> dict[str, Any]:
        from convkgyarn.kg.snapshot import label_coverage

        return label_coverage(self.con)

    def rejects(self, limit: int = 50) -> list[tuple]:
        from convkgyarn.kg.snapshot import reject_rows

        return reject_rows(self.con, limit)

    def drops(self, stage: str | None = None) -> list[tuple]:
        from convkgyarn.kg.snapshot import drop_counts

        return drop_counts(self.con, stage)

    def type_predicates(self, type_id: str) -> list[tuple]:
        from convkgyarn.stages.predicates import type_predicate_rows

        return type_predicate_rows(self.con, type_id)

    def selection(self, type_id: str) -> list[tuple]:
        from convkgyarn.stages.predicates import selection_rows

        return selection_rows(self.con, type_id)

    def templates(self, type_id: str, interaction: str | None = None) -> list[tuple]:
        from convkgyarn.stages.templates import template_rows

        return [r for r in template_rows(self.con, type_id) if interaction in (None, r[2])]

    def related(self, limit: int = 50) -> list[tuple]:
        from convkgyarn.stages.related import related_rows

        return related_rows(self.con, limit)

    # -- the pipeline --------------------------------------------------------------------
    def extract_predicates(self) -> StageReport:
        from convkgyarn.kg.snapshot import require_usable_kg
        from convkgyarn.stages.predicates import ExtractPredicates

        require_usable_kg(self.con)
        return ExtractPredicates(self.ctx).run()

    def select_types(self) -> StageReport:
        from convkgyarn.kg.snapshot import require_usable_kg
        from convkgyarn.stages.types import SelectTypes

        require_usable_kg(self.con)
        return SelectTypes(self.ctx).run()

    def types(self, only_selected: bool = False) -> list[tuple]:
        from convkgyarn.stages.types import selected_type_rows

        return selected_type_rows(self.con, only_selected)

    def quality(self, runs: Sequence[str] | None = None) -> dict[str, Any]:
        from convkgyarn.quality import quality

        runs = list(runs or self.current_runs())
        if not runs:
            raise UserError("no conversations yet; run `convkgyarn generate` first")
        return quality(self.con, runs)

    def select_predicates(self, types: Sequence[str] = ()) -> StageReport:
        from convkgyarn.kg.snapshot import require_usable_kg
        from convkgyarn.stages.predicates import SelectPredicates

        require_usable_kg(self.con)
        cfg = self.config.predicates.model_copy(update={"types": list(types)}) if types \
            else self.config.predicates
        stage = SelectPredicates(self.ctx, cfg)
        if stage.path == "rules":
            self.say(NO_LLM + ": predicates are selected by the built-in rules")
        return stage.run()

    def write_templates(self) -> StageReport:
        from convkgyarn.kg.snapshot import require_usable_kg
        from convkgyarn.stages.templates import GenerateTemplates

        require_usable_kg(self.con)
        stage = GenerateTemplates(self.ctx)
        if stage.writer == "rules":
            self.say(NO_LLM + ": templates are written by the built-in rules writer")
        return stage.run()

    def build_related(self) -> StageReport:
        from convkgyarn.kg.snapshot import require_usable_kg
        from convkgyarn.stages.related import BuildRelated

        require_usable_kg(self.con)
        return BuildRelated(self.ctx).run()

    def generate(self, configs: Sequence[GenerateConfig],
                 keep_previous: bool = False) -> GenerationResult:
        """The main job: whatever stages are needed, then one stored run per configuration
        (replacing that configuration's current run). A dry run stops before assembly."""
        from convkgyarn.pipeline import Pipeline, generation_stages

        reports = [r for r in [self.ensure_kg()] if r]
        if not self.config.llm.configured:
            self.say(NO_LLM + ": predicates are selected by the built-in rules and templates "
                     "written by the built-in rules writer")
        stages = generation_stages(self.ctx, [] if self.config.llm.dry_run else configs,
                                   keep_previous)
        reports += Pipeline(stages).run()
        runs = [r.stats["run_id"] for r in reports if r.stage == "assemble"]
        return GenerationResult(reports, runs)

    # -- conversations -------------------------------------------------------------------
    def current_runs(self) -> list[str]:
        from convkgyarn.conversations import current_runs

        return current_runs(self.con)

    def records(self, runs: Sequence[str] | None = None) -> list[dict[str, Any]]:
        from convkgyarn.export import records

        return records(self.con, self._readable_runs(runs))

    def _readable_runs(self, runs: Sequence[str] | None) -> list[str]:
        """The runs asked for (default: the current one of each configuration), checked."""
        from convkgyarn.conversations import run_exists

        if runs:
            missing = [r for r in runs if not run_exists(self.con, r)]
            if missing:
                raise UserError(f"no generation run {', '.join(missing)} in {self.db}")
        from convkgyarn.conversations import stale_configurations

        runs = list(runs or self.current_runs())
        if not runs:
            raise UserError("no conversations yet; run `convkgyarn generate` first")
        stale = stale_configurations(self.con, runs)
        if stale:
            self.say(f"note: {', '.join(stale)} were made from an earlier KG snapshot; run "
                     "`convkgyarn generate` again to make them from the current one")
        return runs

    def summary(self, recs: list[dict[str, Any]]) -> dict[str, Any]:
        from convkgyarn.export import summary

        return summary(self.con, recs, self.config.llm)

    def export(self, fmt: str, path: Path, runs: Sequence[str] | None = None) -> int:
        from convkgyarn.export import (
            Summary, iter_records, write_hf, write_jsonl, write_parquet)

        if fmt not in ("jsonl", "parquet", "hf"):
            raise UserError(f"--format must be jsonl, parquet or hf, not {fmt!r}")
        if fmt == "jsonl":  # streamed: memory stays bounded however many conversations
            counted = Summary()
            write_jsonl(map(counted.add, iter_records(self.con, self._readable_runs(runs))),
                        path)
            return counted.conversations
        recs = self.records(runs)
        if fmt == "parquet":
            write_parquet(recs, path)
        else:
            write_hf(recs, path, self.summary(recs))
        return len(recs)

    def write_outputs(self, runs: Sequence[str], out_dir: Path,
                      reports: Sequence[StageReport] = ()) -> dict[str, Any]:
        """The main job's files: conversations.jsonl and summary.json (each replaced whole)."""
        from convkgyarn.export import Summary, iter_records, write_json, write_jsonl

        # streamed, with the summary gathered on the way: memory stays bounded however many
        # conversations were made
        gathered = Summary()
        write_jsonl(map(gathered.add, iter_records(self.con, self._readable_runs(runs))),
                    out_dir / "conversations.jsonl")
        info = gathered.result(self.con, self.config.llm)
        info["stage_seconds"] = {r.stage: round(r.seconds, 3) for r in reports}
        write_json(info, out_dir / "summary.json")
        return info

    # -- evaluation ----------------------------------------------------------------------
    def import_dataset(self, path: Path) -> tuple[str, int]:
        from convkgyarn.convquestions import import_convquestions

        return import_convquestions(self.con, path)

    def evaluate(self, dataset: Path | None = None) -> StageReport:
        from convkgyarn.stages.evaluate import Evaluate

        cfg = self.config.evaluate
        if not self.config.llm.configured:
            raise UserError(NO_LLM_FOR.format(what="evaluation"))
        if dataset:
            run, n = self.import_dataset(dataset)
            self.say(f"imported {n} conversations from {dataset}")
            cfg = cfg.model_copy(update={"runs": [run]})
        return Evaluate(self.ctx, cfg).run()

    def metrics(self) -> list[dict[str, Any]]:
        from convkgyarn.stages.evaluate import metrics

        return metrics(self.con, self.config.evaluate.bootstrap)

    def effects(self) -> list[dict[str, Any]]:
        """Each phenomenon's paired effect against its base, per model."""
        from convkgyarn.stages.evaluate import paired_effects

        return paired_effects(self.con, self.config.evaluate.bootstrap,
                              self.config.evaluate.seed)

    def report(self, out_dir: Path) -> list[Path]:
        from convkgyarn.report import write_report
        from convkgyarn.stages.rating import rating_summary

        rows = self.metrics()
        if not rows:
            raise UserError("no evaluation results; run `convkgyarn evaluate` first")
        return write_report(rows, rating_summary(self.con), out_dir, self.effects())

    def rate(self, selection: ConversationSelection) -> StageReport:
        from convkgyarn.stages.rating import RateConversations

        if not self.config.llm.configured:
            raise UserError(NO_LLM_FOR.format(what="rating"))
        return RateConversations(self.ctx, selection).run()

    def compare(self, dataset: Path, ours: str, pairs: int, seed: int) -> StageReport:
        from convkgyarn.stages.rating import CompareConversations

        if not self.config.llm.configured:
            raise UserError(NO_LLM_FOR.format(what="comparison"))
        run, _ = self.import_dataset(dataset)
        return CompareConversations(self.ctx, CompareConfig(
            ours=ours, theirs_run=run, pairs=pairs, seed=seed)).run()

    # -- refresh -------------------------------------------------------------------------
    def refresh(self, paths: Sequence[Path], allow_shrink: bool = False, workers: int = 1,
                engine: str = "local", spark_master: str | None = None):
        from convkgyarn.refresh import Refresher

        return Refresher(self, [Path(p) for p in paths], allow_shrink=allow_shrink,
                         workers=workers, engine=engine, spark_master=spark_master).run()


NO_LLM = ("no LLM configured (set OPENAI_BASE_URL / OPENAI_API_KEY, or [llm] in "
          "convkgyarn.toml)")
NO_LLM_FOR = ("{what} needs an LLM endpoint: set OPENAI_BASE_URL / OPENAI_API_KEY or [llm] "
              "in convkgyarn.toml")
