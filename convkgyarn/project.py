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
a second command on a busy project stops at once with ``BusyError``. Paths may be given as
``str`` or ``Path``. Errors a user can cause are ``convkgyarn.errors.UserError`` (and its
subclasses), each with the CLI's exit code.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from convkgyarn.config import (
    CompareConfig, ConversationSelection, GenerateConfig, LoadConfig, ProjectConfig,
    SparqlConfig)
from convkgyarn.errors import NoKGToEstimate, OutputRefused, UserError
from convkgyarn.inspection import Inspection
from convkgyarn.progress import ProgressHook, no_progress
from convkgyarn.stage import Context, Say, StageReport
from convkgyarn.store import ProjectLock, connect, refuse_foreign_file, shadow_tables

# What the stages of a dry run write, as temporary copies (all small: no KG table, no
# conversation): the stages skip the work these say is done, as a real run would.
DRY_RUN_TABLES = ("type_predicates", "selected_types", "selected_predicates",
                  "selection_inputs", "templates", "template_inputs", "local_templates",
                  "local_template_inputs")


@dataclass
class GenerationResult:
    """What ``Project.generate`` did: each stage's report (timing and counters) and the
    stored run of each configuration."""

    reports: list[StageReport]
    runs: list[str]  # the stored run of each configuration, in the order asked
    notes: list[str] = field(default_factory=list)


class Project(Inspection):
    """One project database and its typed config (``ProjectConfig``; the default one when
    None). Open it with ``with Project(config) as project:``; ``write=False`` opens it for
    reading (readers share the lock). ``say`` receives notes for the user (default: none);
    ``progress`` receives ``convkgyarn.progress.StepProgress`` events from long steps
    (assembly batches, LLM requests with tokens and USD, embedding training)."""

    def __init__(self, config: ProjectConfig | None = None, *, write: bool = True,
                 say: Say | None = None, command: str = "convkgyarn",
                 progress: ProgressHook | None = None) -> None:
        from convkgyarn.llm import new_meter

        self.config = config or ProjectConfig()
        self.db = Path(self.config.db)
        self.write = write
        self.say: Say = say or (lambda message: None)
        self.progress: ProgressHook = progress or no_progress
        self.meter = new_meter(self.config.llm)
        self.dry_run = self.config.llm.dry_run
        self._lock = ProjectLock(self.db, exclusive=write and not self.dry_run, command=command)
        self._ctx: Context | None = None

    # -- opening -------------------------------------------------------------------------
    def __enter__(self) -> "Project":
        return self.open()

    def __exit__(self, *exc) -> None:
        self.close()

    def open(self) -> "Project":
        """Lock and open the database. A dry run (``llm.dry_run``) opens it read-only and
        works on temporary copies of the tables its stages write (``DRY_RUN_TABLES``): it
        estimates every LLM call those stages would make, and the file stays exactly as it
        was (DuckDB itself refuses any write)."""
        if self.write and not self.dry_run:
            try:
                self.db.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UserError(f"{self.db}: cannot create its folder ({exc.strerror})") from None
        elif not self.db.exists():
            raise UserError(f"{self.db}: no project database here (run `convkgyarn kg load` "
                            "or `convkgyarn generate` first, or give --db)")
        refuse_foreign_file(self.db)  # before its lock file is made beside it
        try:
            self._lock.acquire()
        except OSError as exc:
            raise UserError(f"{self.db}: cannot create its lock file ({exc.strerror})") from None
        try:
            con = connect(self.db, read_only=not self.write or self.dry_run,
                          memory_limit=self.config.memory_limit)
            if self.dry_run:
                shadow_tables(con, {t: None for t in DRY_RUN_TABLES})
        except BaseException:
            self._lock.release(failed_open=True)
            raise
        self._ctx = Context(con=con, config=self.config, meter=self.meter, say=self.say,
                            work_dir=self.db.parent, progress=self.progress)
        return self

    def close(self) -> None:
        """Close the database and release the lock (``with`` does it for you)."""
        if self._ctx is not None:
            self._ctx.con.close()
            self._ctx = None
        self._lock.release()

    @property
    def ctx(self) -> Context:
        """What the stages of this project share (connection, config, meter, hooks)."""
        if self._ctx is None:
            raise RuntimeError("the project is not open (use `with Project(...) as p:`)")
        return self._ctx

    @property
    def con(self):
        """The open DuckDB connection (read the tables of ``convkgyarn.store.schema``)."""
        return self.ctx.con

    # -- the KG --------------------------------------------------------------------------
    def load(self, paths: Sequence[Path | str], *, workers: int = 1,
             labels: Sequence[Path | str] = (), value_labels: Sequence[Path | str] = (),
             force: bool = False, progress=None,
             kind: str = "dump", keep_types: Sequence[str] | None = None,
             engine: str = "local", spark_master: str | None = None,
             spark_output: str | None = None, languages: Sequence[str] | None = None):
        """Load dump files (and label files); returns the load stage with its file reports.
        ``value_labels``: label files that name values only, never a type or a property
        (``LoadConfig.value_labels``).
        ``keep_types``: items of other types keep only their id, label and types.
        ``languages``: also keep labels, descriptions and aliases in these languages
        (``entity_labels``; ``["all"]`` for every one; English is always kept); look them up
        with ``convkgyarn.kg.languages.labels_in_language``."""
        from convkgyarn.kg.load import LoadStage

        cfg = LoadConfig(paths=[Path(p) for p in paths], workers=workers, force=force,
                         labels=[Path(p) for p in labels],
                         value_labels=[Path(p) for p in value_labels], kind=kind,
                         keep_types=list(keep_types) if keep_types is not None else None,
                         engine=engine, spark_master=spark_master, spark_output=spark_output,
                         languages=list(languages) if languages is not None else None)
        stage = LoadStage(self.ctx, cfg, progress=progress)
        stage.report = stage.run()
        return stage

    def load_sparql(self, config: SparqlConfig, *, labels: Sequence[Path | str] = (),
                    value_labels: Sequence[Path | str] = ()) -> StageReport:
        """Load a KG from a SPARQL endpoint (``SparqlConfig``: endpoint, types, limits), and
        label files beside it as ``load`` takes them. The label files are read and checked
        before the endpoint is queried (a file with no usable label is refused first) and
        stored only once the endpoint's load has succeeded: a failure writes nothing.
        The report's ``stats["labels"]`` counts the labels stored (with label files)."""
        from convkgyarn.kg.languages import kept_languages
        from convkgyarn.kg.load import LoadStage, read_label_files, remove_sample
        from convkgyarn.kg.sparql import SparqlLoad

        read = read_label_files(labels, value_labels, kept_languages(config.languages))
        if remove_sample(self.con):
            self.say("removed the bundled sample from this project: it never mixes with "
                     "your data")
        report = SparqlLoad(self.ctx, config).run()
        if read:  # stored as ``load`` stores them, from what was read above
            stage = LoadStage(self.ctx, LoadConfig(
                paths=[], labels=[Path(p) for p in labels],
                value_labels=[Path(p) for p in value_labels], languages=config.languages),
                label_files=read)
            stage.report = stage.run()
            report.stats["labels"] = stage.labels_loaded
        return report

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

    def write_rdf(self, out: Path | str, force: bool = False) -> int:
        """The loaded KG as N-Triples in Wikidata's RDF model (to serve with Oxigraph or
        QLever and run turns' queries against); returns the number of triples. The file
        starts with a comment naming convkgyarn, so a later ``kg rdf`` recognises it as its
        own; any other file at ``out`` is replaced only with ``force``."""
        from convkgyarn.kg.rdf import snapshot_triples
        from convkgyarn.kg.snapshot import require_usable_kg
        from convkgyarn.outputs import NTRIPLES, NTRIPLES_HEADER, replacing_file

        require_usable_kg(self.con)
        out = Path(out)
        n = 0
        with replacing_file(out, NTRIPLES, force=force, protected=self.own_files()) as tmp, \
                open(tmp, "w", encoding="utf-8") as fh:
            fh.write(f"{NTRIPLES_HEADER} ({self._written_by()}, {self.db.name})\n")
            for triple in snapshot_triples(self.con):
                fh.write(triple + "\n")
                n += 1
        return n

    def own_files(self) -> list[Path]:
        """Files no output may replace: the database (and, beside it, everything named
        after it: lock, WAL, refresh log and staging database)."""
        return [self.db]

    @staticmethod
    def _written_by() -> str:
        from convkgyarn import __version__

        return f"convkgyarn {__version__}"

    # -- the pipeline --------------------------------------------------------------------
    def extract_predicates(self) -> StageReport:
        """F(t) for every type with enough entities (``type_predicates``)."""
        from convkgyarn.kg.snapshot import require_usable_kg
        from convkgyarn.stages.predicates import ExtractPredicates

        require_usable_kg(self.con)
        return ExtractPredicates(self.ctx).run()

    def select_types(self) -> StageReport:
        """Decide which entity types get conversations (``selected_types``)."""
        from convkgyarn.kg.snapshot import require_usable_kg
        from convkgyarn.stages.types import SelectTypes

        require_usable_kg(self.con)
        return SelectTypes(self.ctx).run()

    def select_predicates(self, types: Sequence[str] = ()) -> StageReport:
        """Choose G(t) for the selected types (or the ``types`` given)."""
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
        """Write templates for every selected (type, property[, qualifier])."""
        from convkgyarn.kg.snapshot import require_usable_kg
        from convkgyarn.stages.templates import GenerateTemplates

        require_usable_kg(self.con)
        stage = GenerateTemplates(self.ctx)
        if stage.path == "rules":
            self.say(NO_LLM + ": templates are written by the built-in rules writer")
        return stage.run()

    def build_related(self, progress: ProgressHook | None = None) -> StageReport:
        """Each popular person's related entity; ``progress`` receives the stage's
        ``StepProgress`` events (default: the project's ``progress``)."""
        from convkgyarn.kg.snapshot import require_usable_kg
        from convkgyarn.stages.related import BuildRelated

        require_usable_kg(self.con)
        return BuildRelated(self.ctx, progress=progress).run()

    def generate(self, configs: Sequence[GenerateConfig],
                 keep_previous: bool = False) -> GenerationResult:
        """The main job: whatever stages are needed, then one stored run per configuration
        (replacing that configuration's current run). A dry run stops before assembly."""
        from convkgyarn.pipeline import Pipeline, generation_stages

        if self.dry_run:
            return self._estimate_generation(configs)
        reports = [r for r in [self.ensure_kg()] if r]
        if not self.config.llm.configured:
            self.say(NO_LLM + ": predicates are selected by the built-in rules and templates "
                     "written by the built-in rules writer")
        stages = generation_stages(self.ctx, configs, keep_previous)
        reports += Pipeline(stages).run()
        runs = [r.stats["run_id"] for r in reports if r.stage == "assemble"]
        return GenerationResult(reports, runs)

    def _estimate_generation(self, configs: Sequence[GenerateConfig]) -> GenerationResult:
        """The dry run of the main job: every stage that may call an LLM runs against the
        dry run's temporary tables, its requests counted (calls, tokens, USD) and not sent;
        assembly and embeddings call no LLM and are left out. Where a selector's reply is
        not cached, it is assumed to keep everything it is offered, so that the stages after
        it are estimated too: an upper bound."""
        from convkgyarn.kg.snapshot import has_loaded_anything, require_usable_kg
        from convkgyarn.pipeline import Pipeline, generation_stages

        if not has_loaded_anything(self.con):
            raise NoKGToEstimate(f"{self.db}: no KG loaded yet, nothing to estimate")
        require_usable_kg(self.con)
        stages = [s for s in generation_stages(self.ctx, configs)
                  if s.name not in ("assemble", "related.build")]
        return GenerationResult(Pipeline(stages).run(), [])

    # -- conversations -------------------------------------------------------------------
    def export(self, fmt: str, path: Path | str, runs: Sequence[str] | None = None,
               force: bool = False) -> int:
        """Write the conversations as ``fmt`` at ``path``: a file (jsonl, parquet) or a
        folder (hf, inspect). Nothing convkgyarn did not write is replaced (``convkgyarn.outputs``);
        ``force`` lets a file replace another file, never a folder. JSONL, Parquet and hf
        stream: memory stays bounded however many conversations there are."""
        from convkgyarn.export import Summary, iter_records, write_hf, write_jsonl, write_parquet
        from convkgyarn.outputs import (
            CONVERSATIONS_JSONL, CONVERSATIONS_PARQUET, HF_FOLDER, check_file, check_folder)

        path = Path(path)
        if fmt not in ("jsonl", "parquet", "hf", "inspect"):
            raise UserError(f"--format must be jsonl, parquet, hf or inspect, not {fmt!r}")
        own = self.own_files()
        self._refuse_other_project(path.parent, force)  # beside another project's outputs
        if fmt in ("hf", "inspect"):
            self._refuse_other_project(path, force)
        if fmt == "hf":  # refuse before the work, not after it
            check_folder(path, HF_FOLDER, protected=own)
        elif fmt != "inspect":  # the Inspect writer checks its folder the same way itself
            check_file(path, CONVERSATIONS_JSONL if fmt == "jsonl" else CONVERSATIONS_PARQUET,
                       force=force, protected=own)
        if fmt == "jsonl":
            counted = Summary()
            write_jsonl(map(counted.add, iter_records(self.con, self._readable_runs(runs))),
                        path, force=force, protected=own)
            return counted.conversations
        if fmt == "inspect":
            from convkgyarn.export_inspect import write_inspect_task

            recs = self.records(runs)
            return write_inspect_task(
                self.con, sorted({r["provenance"]["run_id"] for r in recs}), path,
                self.config.llm, {r["conversation_id"]: r["entity"] for r in recs})
        counted = Summary()  # parquet and hf stream too
        streamed = map(counted.add, iter_records(self.con, self._readable_runs(runs)))
        if fmt == "parquet":
            write_parquet(streamed, path, force=force, protected=own)
        else:
            write_hf(streamed, path, lambda gathered: gathered.result(self.con, self.config.llm),
                     protected=own)
        return counted.conversations

    def check_outputs(self, out_dir: Path | str, force: bool = False) -> None:
        """Refuse, before any work, an output folder where ``write_outputs`` could not write
        (a file, a folder under a file) or would replace a file convkgyarn did not write."""
        from convkgyarn.outputs import CONVERSATIONS_JSONL, SUMMARY_JSON, check_file

        out_dir = Path(out_dir)
        if out_dir.exists() and not out_dir.is_dir():
            raise OutputRefused(f"{out_dir}: is a file; --out takes the folder that "
                                "conversations.jsonl and summary.json go to")
        for name, kind in (("conversations.jsonl", CONVERSATIONS_JSONL),
                           ("summary.json", SUMMARY_JSON)):
            check_file(out_dir / name, kind, force=force, protected=self.own_files())
        self._refuse_other_project(out_dir, force)

    def _refuse_other_project(self, folder: Path, force: bool) -> None:
        """Refuse (unless ``force``) to write into a folder whose summary.json names another
        project: two databases in one folder share every default output path."""
        other = None if force else self._other_project(folder / "summary.json")
        if other is not None:
            raise OutputRefused(f"{folder}: holds the outputs of another project ({other}); "
                                "give --out another folder, or --force to replace them")

    def _other_project(self, summary: Path) -> str | None:
        """The database of the other project whose outputs a summary.json is, or None: the
        same project (a copy of its database too, or a database made again at the same path:
        `make clean`), or a summary from before 0.8.3 (which names none). A project is known
        by when its database was created."""
        try:
            named = json.loads(summary.read_text()).get("project")
            mine = self.identity()
            if isinstance(named, dict) and named.get("created") not in (
                    None, mine["created"]) and named.get("database") != mine["database"]:
                return str(named.get("database"))  # (the same path: a database made again)
        except (OSError, ValueError, AttributeError):
            pass
        return None

    def identity(self) -> dict[str, str]:
        """Which project this is: its database, and when that was created (kept by a copy)."""
        (created,) = self.con.execute("SELECT min(applied_at) FROM schema_version").fetchone()
        return {"database": str(Path(self.config.db).resolve()),
                "created": created.isoformat() if created else ""}

    def write_outputs(self, runs: Sequence[str], out_dir: Path | str,
                      reports: Sequence[StageReport] = (), force: bool = False
                      ) -> dict[str, Any]:
        """The main job's files: conversations.jsonl and summary.json (each replaced whole,
        and only when it is ours, or with ``force``). Streamed, the summary gathered on the
        way: memory stays bounded however many conversations were made."""
        from convkgyarn.export import Summary, iter_records, write_json, write_jsonl

        out_dir = Path(out_dir)
        self.check_outputs(out_dir, force)
        own = self.own_files()
        gathered = Summary()
        write_jsonl(map(gathered.add, iter_records(self.con, self._readable_runs(runs))),
                    out_dir / "conversations.jsonl", force=force, protected=own)
        info = gathered.result(self.con, self.config.llm)
        info["project"] = self.identity()  # whose outputs these are
        info["stage_seconds"] = {r.stage: round(r.seconds, 3) for r in reports}
        info["generated"] = sorted(r.stats["config"] for r in reports if r.stage == "assemble")
        write_json(info, out_dir / "summary.json", force=force, protected=own)
        return info

    # -- evaluation ----------------------------------------------------------------------
    def import_dataset(self, path: Path | str) -> tuple[str, int]:
        """Import a ConvQuestions-format file as a run; returns (run id, conversations)."""
        from convkgyarn.convquestions import import_convquestions

        if self.dry_run:  # imported into temporary copies of the current conversations
            shadow_tables(self.con, {
                "generation_runs": "current",
                "conversations": "run_id IN (SELECT run_id FROM generation_runs WHERE current)",
                "turns": "run_id IN (SELECT run_id FROM generation_runs WHERE current)",
                "dropped": "false"})  # storing a run clears its drops
        return import_convquestions(self.con, Path(path))

    def evaluate(self, dataset: Path | str | None = None) -> StageReport:
        """Ask the configured answerer model(s) every stored turn (``config.evaluate``) and
        judge the replies; ``dataset``: evaluate an imported ConvQuestions file instead.
        Read the scores with ``metrics()`` (and ``effects()``, ``language_effects()``)."""
        from convkgyarn.stages.evaluate import Evaluate

        cfg = self.config.evaluate
        ctx = self._llm_context("evaluation")
        if dataset:
            run, n = self.import_dataset(dataset)
            self.say(f"imported {n} conversations from {dataset}")
            cfg = cfg.model_copy(update={"runs": [run]})
        return Evaluate(ctx, cfg).run()

    def _llm_context(self, what: str) -> Context:
        """The context of a stage that needs an LLM: this one with an endpoint; in a dry run
        without one, a context whose requests are only counted and priced (nothing can be
        sent: the estimate needs no endpoint, as ``generate --dry-run`` does not)."""
        llm = self.config.llm
        if llm.configured:
            return self.ctx
        if not llm.dry_run:
            raise UserError(NO_LLM_FOR.format(what=what))
        from dataclasses import replace as with_config

        from pydantic import SecretStr

        self.say(f"dry run with no LLM endpoint configured: {what} estimated for the "
                 "configured models at their list prices")
        nominal = llm.model_copy(update={"api_key": SecretStr("dry-run: never sent")})
        return with_config(self.ctx, config=self.config.model_copy(update={"llm": nominal}))

    def report(self, out_dir: Path | str, force: bool = False) -> list[Path]:
        """Write the evaluation report (Markdown and figures) into ``out_dir``."""
        from convkgyarn.report import check_report_folder, write_report
        from convkgyarn.stages.rating import rating_summary

        out_dir = Path(out_dir)
        self._refuse_other_project(out_dir.parent, force)
        check_report_folder(out_dir, force=force, protected=self.own_files())
        rows = self.metrics()
        if not rows:
            raise UserError("no evaluation results; run `convkgyarn evaluate` first")
        return write_report(rows, rating_summary(self.con), out_dir, self.effects(),
                            force=force, protected=self.own_files(),
                            language_effects=self.language_effects())

    def rate(self, selection: ConversationSelection) -> StageReport:
        """Rate stored conversations with the LLM judge (``conversation_ratings``)."""
        from convkgyarn.stages.rating import RateConversations

        return RateConversations(self._llm_context("rating"), selection).run()

    def compare(self, dataset: Path | str, ours: str, pairs: int, seed: int) -> StageReport:
        """Pairwise-compare our conversations with an imported dataset's."""
        from convkgyarn.stages.rating import CompareConversations

        ctx = self._llm_context("comparison")
        run, _ = self.import_dataset(dataset)
        return CompareConversations(ctx, CompareConfig(
            ours=ours, theirs_run=run, pairs=pairs, seed=seed)).run()

    # -- refresh -------------------------------------------------------------------------
    def refresh(self, paths: Sequence[Path | str], allow_shrink: bool = False, workers: int = 1,
                engine: str = "local", spark_master: str | None = None):
        """Refresh the project against a newer dump: load it beside the current KG, diff,
        swap, and make again the conversations whose facts changed."""
        from convkgyarn.refresh import Refresher

        return Refresher(self, [Path(p) for p in paths], allow_shrink=allow_shrink,
                         workers=workers, engine=engine, spark_master=spark_master).run()


NO_LLM = ("no LLM configured (set OPENAI_BASE_URL / OPENAI_API_KEY, or [llm] in "
          "convkgyarn.toml)")
NO_LLM_FOR = ("{what} needs an LLM endpoint: set OPENAI_BASE_URL / OPENAI_API_KEY or [llm] "
              "in convkgyarn.toml")
