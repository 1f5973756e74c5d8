"""Stored conversations: runs, their identity, and reading them back.

Invariants (checked by tests over sequences of generate, refresh and export):
- a run is stored whole or not at all: its rows are staged in temporary tables
  (``RunStaging``), then made current in one transaction;
- a configuration has exactly one *current* generated run; storing a new run of it makes
  the new one current and deletes the previous one, unless it is kept on purpose
  (``keep_previous``), in which case it stays addressable by its run id;
- within a run, turn numbers are 1..n exactly once per conversation (the table's key).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import duckdb
import pyarrow as pa
from pydantic import BaseModel

from convkgyarn.runtime import utcnow
from convkgyarn.store import arrow_schema, insert_arrow, insert_rows, transaction

GENERATED, IMPORTED = "generated", "imported"


class Conversation(BaseModel):
    conversation_id: str
    config_name: str
    run_id: str = ""
    turns: list[dict[str, Any]]
    language: str = "en"  # BCP-47: the language its questions and answers are said in


@dataclass
class RunRecord:
    run_id: str
    config_name: str
    config: dict[str, Any]
    seed: int
    source: str = GENERATED
    kg_version: str | None = None
    dump_date: str | None = None
    code_version: str | None = None
    writers: dict[str, int] | None = None


def clear_run(con: duckdb.DuckDBPyConnection, run_id: str) -> None:
    """Remove one run's rows (inside the caller's transaction), its drops included: what
    assembly left out describes a run that exists."""
    for table in ("turns", "conversations", "generation_runs", "dropped"):
        con.execute(f"DELETE FROM {table} WHERE run_id = ?", [run_id])


STAGED = {"conversations": "_staged_conversations", "turns": "_staged_turns",
          "turn_queries": "_staged_turn_queries", "dropped": "_staged_dropped"}
# rows held in Python before they go to the staged tables in one insert: a batch of a small
# KG's later pass is a few dozen conversations, and each insert costs ~2 ms however small
FLUSH_ROWS = 10_000


class RunStaging:
    """A run's rows, staged batch by batch, then stored as the current run in one go.

    Rows go to temporary tables of this connection: DuckDB keeps them within its memory
    limit and spills the rest to its temporary folder, so a run of any size is staged in
    bounded memory. ``commit()`` makes the run current in one transaction; until then none
    of it is visible to any reader, and a run that stops before (an error, Ctrl-C, even a
    killed process) leaves nothing: temporary tables end with their connection, and
    ``close()`` drops them at once.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, run: RunRecord) -> None:
        self.con = con
        self.run = run
        self.conversations = 0
        self.plans = 0  # conversations per language: one plan says them all
        self.turns = 0
        self.queries = 0
        self.drops = 0
        self._pending: dict[str, list[dict]] = {table: [] for table in STAGED}
        for table, staged in STAGED.items():
            con.execute(f"CREATE OR REPLACE TEMP TABLE {staged} AS SELECT * FROM {table} "
                        "LIMIT 0")

    def __enter__(self) -> "RunStaging":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def add(self, conversations: list[dict], turns: list[dict],
            queries: dict[str, str] | None = None, plans: int | None = None) -> None:
        """Stage conversations (dicts of the conversation columns) and their turns (dicts of
        the turn columns, with ``conversation_id``); ``queries``: query id -> SPARQL;
        ``plans``: how many plans they say (one conversation each, by default)."""
        for row in (*conversations, *turns):
            row["run_id"] = self.run.run_id
        self._pending["conversations"] += conversations
        self._pending["turns"] += turns
        if queries:
            self._pending["turn_queries"] += [{"query_id": q, "sparql": text}
                                              for q, text in queries.items()]
            self.queries += len(queries)
        self.conversations += len(conversations)
        self.plans += len(conversations) if plans is None else plans
        self.turns += len(turns)
        self._flush_when_full()

    def add_drops(self, rows: list[dict]) -> None:
        """Stage the run's drops (rows of ``dropped``): they become visible with the run, so
        ``drops`` always describes a run that exists, whole."""
        self._pending["dropped"] += rows
        self.drops += len(rows)
        self._flush_when_full()  # a long stretch of subjects that make nothing: drops only

    def _flush_when_full(self) -> None:
        """Rows are held at most ``FLUSH_ROWS`` at a time, whatever table they are for."""
        if sum(map(len, self._pending.values())) >= FLUSH_ROWS:
            self.flush()

    def flush(self) -> None:
        """The rows held so far into the staged tables (still visible to no reader)."""
        for table in STAGED:
            rows, self._pending[table] = self._pending[table], []
            if rows:
                insert_arrow(self.con, STAGED[table], _typed(table, rows))

    def _clear_unstored_drops(self) -> None:
        """The drops of this configuration's earlier runs that made nothing (never stored):
        they described a state that this run replaces."""
        if self.run.source == GENERATED:
            self.con.execute(
                "DELETE FROM dropped WHERE regexp_full_match(run_id, ?) AND run_id NOT IN "
                "(SELECT run_id FROM generation_runs)",
                [f"gen-{re.escape(self.run.config_name)}-[0-9a-f]{{12}}"])

    def store_drops(self) -> None:
        """Store only the staged drops, replacing the run's earlier ones: a run that made
        nothing is not stored, and its drops say why (until the configuration runs again)."""
        self.flush()
        with transaction(self.con):
            self._clear_unstored_drops()
            self.con.execute("DELETE FROM dropped WHERE run_id = ?", [self.run.run_id])
            self.con.execute(f"INSERT INTO dropped BY NAME SELECT * FROM {STAGED['dropped']}")

    def commit(self, keep_previous: bool = False) -> None:
        """Store the staged run as the current one of its configuration, atomically."""
        self.flush()
        con, run = self.con, self.run
        with transaction(con):
            if run.source == GENERATED:
                previous = [r[0] for r in con.execute(
                    "SELECT run_id FROM generation_runs WHERE config_name = ? AND source = ? "
                    "AND current AND run_id <> ?", [run.config_name, GENERATED, run.run_id]
                ).fetchall()]
                for old in previous:
                    if keep_previous:
                        con.execute("UPDATE generation_runs SET current = false WHERE "
                                    "run_id = ?", [old])
                    else:
                        clear_run(con, old)
            clear_run(con, run.run_id)
            self._clear_unstored_drops()
            insert_rows(con, "generation_runs", [{
                "run_id": run.run_id, "config_name": run.config_name,
                "config": json.dumps(run.config), "seed": run.seed,
                "source": run.source, "current": True, "kg_version": run.kg_version,
                "dump_date": run.dump_date, "code_version": run.code_version,
                "writers": json.dumps(run.writers or {}, sort_keys=True),
                "conversations": self.conversations, "turns": self.turns,
                "created_at": utcnow()}])
            con.execute(f"INSERT INTO conversations BY NAME SELECT * FROM "
                        f"{STAGED['conversations']}")
            con.execute(f"INSERT INTO turns BY NAME SELECT * FROM {STAGED['turns']}")
            if self.drops:
                con.execute(f"INSERT INTO dropped BY NAME SELECT * FROM {STAGED['dropped']}")
            if self.queries:  # each distinct query once, however many runs use it
                con.execute(f"INSERT INTO turn_queries SELECT query_id, any_value(sparql) "
                            f"FROM {STAGED['turn_queries']} WHERE query_id NOT IN (SELECT "
                            "query_id FROM turn_queries) GROUP BY query_id")
        self.close()

    def close(self) -> None:
        self._pending = {table: [] for table in STAGED}
        for staged in STAGED.values():
            try:
                self.con.execute(f"DROP TABLE IF EXISTS {staged}")
            except duckdb.Error:  # an aborted transaction: the error that aborted it matters
                pass


def _typed(table: str, rows: list[dict]) -> pa.Table:
    """Rows as an Arrow table typed by the table's columns (a row's missing keys: NULL)."""
    full = arrow_schema(table)
    fields = [full.field(c) for c in dict.fromkeys(k for r in rows for k in r)]
    return pa.Table.from_arrays([pa.array([r.get(f.name) for r in rows], type=f.type)
                                 for f in fields], schema=pa.schema(fields))


def store_run(con: duckdb.DuckDBPyConnection, run: RunRecord, conversations: list[dict],
              turns: list[dict], keep_previous: bool = False,
              queries: dict[str, str] | None = None) -> None:
    """Store a run as the current one of its configuration, atomically.

    ``conversations`` are dicts with the conversation columns; ``turns`` dicts with the
    turn columns including ``conversation_id`` (both get their ``run_id`` set here).
    """
    with RunStaging(con, run) as staging:
        staging.add(conversations, turns, queries)
        staging.commit(keep_previous)


def current_runs(con: duckdb.DuckDBPyConnection, source: str = GENERATED) -> list[str]:
    """The current run of each configuration, by configuration name."""
    return [r[0] for r in con.execute(
        "SELECT run_id FROM generation_runs WHERE current AND source = ? ORDER BY config_name",
        [source]).fetchall()]


def run_exists(con: duckdb.DuckDBPyConnection, run_id: str) -> bool:
    return con.execute("SELECT count(*) FROM generation_runs WHERE run_id = ?",
                       [run_id]).fetchone()[0] > 0


def stored_amounts(answer_values: str | None) -> list[str | None]:
    """The stored amount of each answer value (None for any other kind): a gold may be said
    rounded ("765 square kilometres" for 765.004788), and a reply of the stored number is
    right too (``scoring.gold_lists``)."""
    values = json.loads(answer_values) if isinstance(answer_values, str) else \
        (answer_values or [])
    return [v.get("amount") if isinstance(v, dict) else None for v in values]


def load_conversations(con: duckdb.DuckDBPyConnection, runs: list[str]) -> list[Conversation]:
    rows = con.execute(
        "SELECT c.run_id, c.conversation_id, c.config_name, t.turn, t.question, t.answer, "
        "t.answer_ids, t.outdated_answer, t.outdated_values, coalesce(c.language, 'en'), "
        "t.answer_values "
        "FROM conversations c "
        "JOIN turns t USING (run_id, conversation_id) "
        "WHERE list_contains(?, c.run_id) ORDER BY c.config_name, c.run_id, c.ordinal, t.turn",
        [runs]).fetchall()
    convs: dict[tuple[str, str], Conversation] = {}
    for run_id, cid, name, turn, q, ans, ids, outdated, outdated_values, language, values \
            in rows:
        conv = convs.setdefault((run_id, cid), Conversation(
            conversation_id=cid, config_name=name, run_id=run_id, turns=[],
            language=language))
        old_ids = [v.get("id") for v in json.loads(outdated_values)] if outdated_values else []
        conv.turns.append({"turn": turn, "question": q, "answer": list(ans or []),
                           "answer_ids": list(ids or []), "outdated": list(outdated or []),
                           "outdated_ids": old_ids, "amounts": stored_amounts(values),
                           "outdated_amounts": stored_amounts(outdated_values)})
    return list(convs.values())


def select_conversations(con: duckdb.DuckDBPyConnection, config_names: list[str] | None = None,
                         runs: list[str] | None = None,
                         limit: int | None = None) -> list[Conversation]:
    """Conversations of the given runs (default: the current generated run of each
    configuration), optionally only some configurations, at most ``limit``."""
    convs = load_conversations(con, runs or current_runs(con))
    if config_names:
        convs = [c for c in convs if c.config_name in config_names]
    return convs[:limit] if limit else convs


def stale_configurations(con: duckdb.DuckDBPyConnection, runs: list[str]) -> list[str]:
    """Configurations among ``runs`` made from an earlier KG snapshot than the current one."""
    from convkgyarn.kg.snapshot import kg_version

    current = kg_version(con)
    return [name for name, version in con.execute(
        "SELECT config_name, kg_version FROM generation_runs WHERE list_contains(?, run_id) "
        "AND source = ? ORDER BY config_name", [runs, GENERATED]).fetchall()
        if version is not None and version != current]
