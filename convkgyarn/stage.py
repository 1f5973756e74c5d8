"""The one base class of every pipeline stage, and the context stages share.

A stage is built as ``Stage(ctx)`` or ``Stage(ctx, config)`` (its own typed config, by
default the matching section of the project config), declares the tables it ``reads`` and
``writes``, and implements ``process()``, which returns its counters. ``run()`` owns the
rest: timing, recording the counters in ``stage_runs``, logging one line, and writing
everything the stage dropped (with a reason) to ``dropped`` in one bulk insert, so
coverage is queryable in one place (the ``drops`` view).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import duckdb

from convkgyarn.progress import ProgressHook, StepProgress, no_progress
from convkgyarn.runtime import code_version, module_code_hash, new_run_id, utcnow

__all__ = ["Context", "ProgressHook", "Say", "Stage", "StageReport", "StepProgress",
           "code_version", "new_run_id", "table_fingerprint", "utcnow"]

log = logging.getLogger("convkgyarn")
Say = Callable[[str], None]


def table_fingerprint(con: duckdb.DuckDBPyConnection, table: str) -> str:
    """What decides a table's content, cheaply: for the tables and views of the KG snapshot,
    the snapshot's identity (``kg_meta.kg_version``, which every load, label file and
    refresh that changes the KG changes); for any other table, its row count and two
    order-free aggregates of its rows' hashes (one scan, no sort)."""
    from convkgyarn.store.schema import KG_RELATIONS, kg_version

    if table in KG_RELATIONS:
        return "kg:" + kg_version(con)
    n, xor, total = con.execute(
        f"SELECT count(*), coalesce(bit_xor(hash(t)), 0), coalesce(sum(hash(t) % 1000003), 0) "
        f"FROM {table} t").fetchone()
    return f"{n}:{xor:x}:{total:x}"


def short_hash(value: Any) -> str:
    """A 16-hex-digit hash of a JSON-able value (keys sorted)."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()
                          ).hexdigest()[:16]


@dataclass
class Context:
    """What every stage of one command shares: the database, the typed config, the LLM
    spending meter, where to say things to the user, and where files go."""

    con: duckdb.DuckDBPyConnection
    config: Any  # ProjectConfig (typed in convkgyarn.config; imported lazily there)
    meter: Any = None  # CostMeter
    say: Say = field(default=lambda message: None)
    work_dir: Path = Path("outputs")
    progress: ProgressHook = field(default=no_progress)  # live progress of long steps

    def client(self, stage: str, prompt_hash: str, model: str | None = None):
        """The LLM client for one stage, or None on the rules path: built only here."""
        from convkgyarn.llm import build_client

        # progress follows whoever says things for this context, now or later
        return build_client(self.con, self.config.llm, stage, prompt_hash, self.meter, model,
                            say=lambda message: self.say(message),
                            progress=lambda event: self.progress(event))


@dataclass
class StageReport:
    stage: str
    seconds: float
    stats: dict[str, Any] = field(default_factory=dict)
    run_id: str = ""


class Stage(ABC):
    """A stage: what it ``reads`` and ``writes`` (tables and views of the schema, checked by
    ``Pipeline`` and by a test that records what every stage touches), and its input key.

    The input key is everything that decides the stage's output, computed here once for
    every stage: its config section(s), the model and prompt hash where it asks an LLM
    (``client``, ``prompt_hash``), the hash of the code it imports (its import closure), and
    the content of the tables it reads (``table_fingerprint``). ``decisive_key`` is the key
    without the tables: stages that work per item (a type, a fact) combine it with each
    item's own inputs, so a change to the config, model, prompt or code redoes every item
    and a change to the data redoes only the items it touches. Every run records its key in
    ``stage_inputs`` (one row per stage and scope), and a stage with ``skip_unchanged`` does
    nothing when its key is the one recorded.
    """

    name: ClassVar[str]
    reads: ClassVar[tuple[str, ...]] = ()  # tables and views it reads
    writes: ClassVar[tuple[str, ...]] = ()  # tables it writes
    # of its reads, those it reads as they were before a later stage replaces them (the
    # refresh's diff compares the snapshot its swap replaces); Pipeline allows that order
    reads_replaced: ClassVar[tuple[str, ...]] = ()
    skip_unchanged: ClassVar[bool] = False  # nothing to do when its input key is unchanged
    client: Any = None  # the stage's LLM client (None: the rules path, or no LLM)
    prompt_hash: str | None = None  # the hash of its prompt(s) where it asks an LLM

    def __init__(self, ctx: Context, config: Any = None) -> None:
        self.ctx = ctx
        self.con = ctx.con
        self.config = config if config is not None else self.default_config(ctx)
        self.run_id = new_run_id()
        self._dropped: list[dict[str, Any]] = []
        self._parts: dict[str, Any] | None = None

    def default_config(self, ctx: Context) -> Any:
        """The stage's section of the project config (None for stages without one)."""
        return None

    @abstractmethod
    def process(self) -> dict[str, Any]:
        """Do the stage's work and return its counters."""

    # -- the input key -------------------------------------------------------------------
    @property
    def scope(self) -> str:
        """Which of the stage's keys this run is (one per configuration for assembly)."""
        return ""

    def key_config(self) -> Any:
        """The config that decides the stage's output (JSON-able): its section, by default."""
        dump = getattr(self.config, "model_dump", None)
        return dump(mode="json") if dump else self.config

    def key_llm(self) -> dict[str, Any] | None:
        """The model and prompt hash of an LLM stage (None on the rules path)."""
        model = getattr(self.client, "model", None)  # an LLMClient's StageModel
        if model is None:
            return None
        return {"model": model.model, "prompt_hash": self.prompt_hash}

    @property
    def path(self) -> str:
        """How the stage's decisions are made: "llm" or "rules"."""
        return "llm" if self.key_llm() else "rules"

    def code_hash(self) -> str:
        """The hash of the source of every module the stage's module imports."""
        return module_code_hash(type(self).__module__)

    def decisive_key(self) -> str:
        """The input key without the tables' content (config, LLM, code)."""
        parts = self.input_parts()
        return short_hash({k: parts[k] for k in ("config", "llm", "code")})

    def input_parts(self) -> dict[str, Any]:
        """The parts of the input key (read once per run: the tables as they were when the
        stage started)."""
        if self._parts is None:
            own = set(self.writes)
            self._parts = {"config": self.key_config(), "llm": self.key_llm(),
                           "code": self.code_hash(),
                           "tables": {t: table_fingerprint(self.con, t)
                                      for t in sorted(set(self.reads) - own)}}
        return self._parts

    def input_key(self) -> str:
        """Everything that decides the stage's output, as one hash."""
        return short_hash(self.input_parts())

    def recorded_key(self) -> str | None:
        row = self.con.execute("SELECT input_key FROM stage_inputs WHERE stage = ? AND scope = ?",
                               [self.name, self.scope]).fetchone()
        return row[0] if row else None

    def _record_key(self) -> None:
        self.con.execute(
            "INSERT OR REPLACE INTO stage_inputs (stage, scope, input_key, parts, run_id, "
            "recorded_at) VALUES (?, ?, ?, ?, ?, ?)",
            [self.name, self.scope, self.input_key(), json.dumps(self.input_parts(),
                                                                 sort_keys=True),
             self.run_id, utcnow()])

    # -- progress ------------------------------------------------------------------------
    def report_progress(self, event: StepProgress) -> None:
        """Report a long step's progress to whoever shows it (``Context.progress``)."""
        self.ctx.progress(event)

    @property
    def dry_run(self) -> bool:
        """An estimate: LLM requests are counted, not sent; the stage writes only to the
        temporary tables the dry run gives it, and its run and drops are not recorded."""
        return bool(getattr(self.ctx.config.llm, "dry_run", False))

    def run(self) -> StageReport:
        started = utcnow()
        t0 = time.perf_counter()
        if self.dry_run:
            stats = self.process()
            return StageReport(self.name, time.perf_counter() - t0, stats, self.run_id)
        self.input_parts()  # the inputs as they are before the stage runs
        if self.skip_unchanged and self.recorded_key() == self.input_key():
            stats: dict[str, Any] = {"unchanged": True, **self.unchanged_stats()}
        else:
            try:
                stats = self.process()
            except BaseException:
                if hasattr(self, "_finished"):  # a stage that stores its work in parts
                    self._keep_finished_drops()
                    self._flush_dropped()
                # (any other stage's failed run records no drops and deletes none: its
                # replace_drops may clear the stage's drops whatever this run dropped)
                raise
            self._flush_dropped()
        seconds = time.perf_counter() - t0
        self.con.execute(
            "INSERT INTO stage_runs (run_id, stage, started_at, seconds, stats, code_version) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [self.run_id, self.name, started, seconds, json.dumps(stats, default=str),
             code_version()])
        self._record_key()
        log.info("%s: %.2fs %s", self.name, seconds, json.dumps(stats, default=str))
        return StageReport(self.name, seconds, stats, self.run_id)

    def unchanged_stats(self) -> dict[str, Any]:
        """What a stage skipped as unchanged reports beside ``unchanged`` (its counts)."""
        return {}

    def drop_key(self, item: str) -> str | None:
        """The part of its work a dropped item belongs to, for stages that store their work
        in parts (a type, a fact): their ``_finished`` parts keep their drops when a later
        part fails. None: the stage's work is one whole."""
        return None

    def _keep_finished_drops(self) -> None:
        """A run that failed records the drops of the parts it finished and stored, and no
        others: the drops of the work it did not finish stay as the last run that did it
        left them (a failure mid-way used to wipe them)."""
        finished = set(getattr(self, "_finished", ()))
        self._dropped = [d for d in self._dropped if self.drop_key(d["item"]) in finished]
        if hasattr(self, "_redone"):
            self._redone = {k for k in self._redone if k in finished}

    def drop(self, item: str, reason: str, detail: str = "", **context: Any) -> None:
        """Keep a dropped item with its reason (written in bulk when the stage ends)."""
        self._dropped.append({"item": item, "reason": reason, "detail": detail,
                              "context": json.dumps(context, default=str) if context else None})

    def replace_drops(self, con: duckdb.DuckDBPyConnection) -> None:
        """Delete the earlier drops this run's drops replace (in the transaction that inserts
        them), so that ``drops`` describes the current state and an identical re-run changes
        nothing. By default, when this run dropped anything: the drops recorded under this
        run id (a stage whose run id is deterministic, like assembly's generation run,
        records each run's drops once; a run found unchanged drops nothing and keeps them).
        Stages that redo their work in parts replace the drops of the parts they redid."""
        if self._dropped:
            con.execute("DELETE FROM dropped WHERE run_id = ?", [self.run_id])

    def replace_drops_by_key(self, con: duckdb.DuckDBPyConnection, key_sql: str,
                             redone: Iterable[str], current: Iterable[str] | None) -> None:
        """The drops of a stage that works per key (``key_sql``: an expression over
        ``{item}``, such as its type id ``split_part({item}, '/', 1)``): the earlier drops of every key this run worked on go (its new
        ones replace them); of keys it skipped as unchanged, only those of the latest run that
        worked on each stay (earlier releases recorded them again on every run); and with
        ``current`` given, keys no longer current go."""
        from convkgyarn.store import registered

        key = key_sql.format(item="item")
        with registered(con, "_redone", {"key": sorted(set(redone))}) as view:
            con.execute(f"DELETE FROM dropped WHERE stage = ? AND {key} IN "
                        f"(SELECT key FROM {view})", [self.name])
        con.execute(
            f"DELETE FROM dropped d WHERE stage = ? AND run_id < (SELECT max(x.run_id) FROM "
            f"dropped x WHERE x.stage = d.stage AND {key_sql.format(item='x.item')} = "
            f"{key_sql.format(item='d.item')})", [self.name])
        if current is not None:
            with registered(con, "_current", {"key": sorted(set(current))}) as view:
                con.execute(f"DELETE FROM dropped WHERE stage = ? AND {key} NOT IN "
                            f"(SELECT key FROM {view})", [self.name])

    def drop_rows(self) -> list[dict[str, Any]]:
        """The drops kept so far as rows of the ``dropped`` table."""
        now = utcnow()
        return [{"run_id": self.run_id, "stage": self.name, **d, "created_at": now}
                for d in self._dropped]

    def _flush_dropped(self) -> None:
        from convkgyarn.store import insert_rows, transaction

        rows = self.drop_rows()
        # a cursor of its own: the stage's connection may hold a half-read result
        with transaction(self.con.cursor()) as cur:
            self.replace_drops(cur)
            insert_rows(cur, "dropped", rows)
        self._dropped.clear()
