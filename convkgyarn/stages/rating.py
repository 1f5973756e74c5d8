"""The paper's human rubric, automated: an LLM rates each conversation's fluency, relevance,
diversity and grammar (1-5), and compares ours with reference conversations pairwise;
plus a CSV sample for human annotators and their majority agreement."""

from __future__ import annotations

import csv
import hashlib
import json
import random
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Literal

import duckdb
from pydantic import BaseModel, Field

from convkgyarn.config import LLMConfig
from convkgyarn.llm import CostMeter, LLMRequest, build_client
from convkgyarn.prompts import load_prompt
from convkgyarn.stage import Stage
from convkgyarn.stages.evaluate import Conversation

DIMENSIONS = ("fluency", "relevance", "diversity", "grammar")
RATING_SCHEMA = """
CREATE TABLE IF NOT EXISTS conversation_ratings (
    conversation_id VARCHAR, config_name VARCHAR, model VARCHAR, prompt_hash VARCHAR,
    fluency INTEGER, relevance INTEGER, diversity INTEGER, grammar INTEGER
);
CREATE TABLE IF NOT EXISTS conversation_comparisons (
    ours_id VARCHAR, theirs_id VARCHAR, ours_config VARCHAR, theirs_config VARCHAR,
    ours_shown_first BOOLEAN, model VARCHAR, dimension VARCHAR, winner VARCHAR
);
"""


class Psychometric(BaseModel):
    fluency: int = Field(ge=1, le=5)
    relevance: int = Field(ge=1, le=5)
    diversity: int = Field(ge=1, le=5)
    grammar: int = Field(ge=1, le=5)


class Preference(BaseModel):
    fluency: Literal["A", "B"]
    relevance: Literal["A", "B"]
    diversity: Literal["A", "B"]
    grammar: Literal["A", "B"]


def render(conv: Conversation) -> str:
    return "\n".join(f"User: {t['question']}\nAssistant: "
                     f"{', '.join(t['answer']) if t['answer'] else 'NA'}" for t in conv.turns)


class RateConversations(Stage):
    name = "rate"

    def __init__(self, con: duckdb.DuckDBPyConnection, llm: LLMConfig, meter: CostMeter,
                 conversations: list[Conversation], run_id: str | None = None) -> None:
        super().__init__(con, run_id)
        con.execute(RATING_SCHEMA)
        self.prompt = load_prompt("rate_conversation.md")
        self.client = build_client(con, llm, "rater", self.prompt.hash, meter)
        self.convs = conversations

    def process(self) -> dict[str, Any]:
        if self.client is None:
            raise ValueError("rating needs an LLM endpoint (OPENAI_BASE_URL / OPENAI_API_KEY)")
        results = self.client.run([LLMRequest(
            [{"role": "user", "content": self.prompt.render(conversation=render(c))}],
            schema=Psychometric) for c in self.convs])
        model = self.client.model.model
        rated = 0
        self.con.execute("BEGIN")
        for conv, res in zip(self.convs, results):
            if not res.ok:
                if not res.dry_run:
                    self.drop(conv.conversation_id, "rating reply unusable", res.error or "")
                continue
            self.con.execute("DELETE FROM conversation_ratings WHERE conversation_id = ? AND "
                             "model = ?", [conv.conversation_id, model])
            p = res.parsed
            self.con.execute("INSERT INTO conversation_ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                             [conv.conversation_id, conv.config_name, model, self.prompt.hash,
                              p.fluency, p.relevance, p.diversity, p.grammar])
            rated += 1
        self.con.execute("COMMIT")
        return {"rated": rated, "conversations": len(self.convs)}


def rating_summary(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    con.execute(RATING_SCHEMA)
    return [dict(zip(("config", "model", "n", *DIMENSIONS), r)) for r in con.execute(
        "SELECT config_name, model, count(*), avg(fluency), avg(relevance), avg(diversity), "
        "avg(grammar) FROM conversation_ratings GROUP BY 1, 2 ORDER BY 1, 2").fetchall()]


class CompareConversations(Stage):
    """Pairwise preference, ours vs reference, with the order randomised per pair."""

    name = "compare"

    def __init__(self, con: duckdb.DuckDBPyConnection, llm: LLMConfig, meter: CostMeter,
                 ours: list[Conversation], theirs: list[Conversation], seed: int = 0,
                 run_id: str | None = None) -> None:
        super().__init__(con, run_id)
        con.execute(RATING_SCHEMA)
        self.prompt = load_prompt("compare_conversations.md")
        self.client = build_client(con, llm, "rater", self.prompt.hash, meter)
        self.ours, self.theirs, self.seed = ours, theirs, seed

    def process(self) -> dict[str, Any]:
        if self.client is None:
            raise ValueError("comparison needs an LLM endpoint")
        pairs = list(zip(self.ours, self.theirs))
        rng = random.Random(self.seed)
        orders = [rng.random() < 0.5 for _ in pairs]  # True: ours shown as A
        requests = []
        for (o, t), ours_first in zip(pairs, orders):
            a, b = (o, t) if ours_first else (t, o)
            requests.append(LLMRequest([{"role": "user", "content": self.prompt.render(
                a=render(a), b=render(b))}], schema=Preference))
        model = self.client.model.model
        wins: Counter = Counter()
        self.con.execute("BEGIN")
        for (o, t), ours_first, res in zip(pairs, orders, self.client.run(requests)):
            if not res.ok:
                continue
            for dim in DIMENSIONS:
                choice = getattr(res.parsed, dim)
                winner = "ours" if (choice == "A") == ours_first else "theirs"
                wins[(dim, winner)] += 1
                self.con.execute(
                    "INSERT INTO conversation_comparisons VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [o.conversation_id, t.conversation_id, o.config_name, t.config_name,
                     ours_first, model, dim, winner])
        self.con.execute("COMMIT")
        return {dim: {"ours": wins[(dim, "ours")], "theirs": wins[(dim, "theirs")]}
                for dim in DIMENSIONS} | {"pairs": len(pairs),
                                          "ours_shown_first": sum(orders)}


def export_annotation_sample(convs: list[Conversation], n: int, seed: int, path: Path) -> Path:
    """A CSV for human annotators: one row per sampled conversation, blank rating columns."""
    rng = random.Random(seed)
    sample = sorted(rng.sample(convs, min(n, len(convs))), key=lambda c: c.conversation_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["conversation_id", "config", "conversation", *DIMENSIONS])
        for c in sample:
            w.writerow([c.conversation_id, c.config_name, render(c), "", "", "", ""])
    return path


def majority_agreement(files: list[Path]) -> dict[str, Any]:
    """Per dimension: the share of conversations whose ratings have a strict majority value
    across annotators, and the mean of those majority ratings."""
    ratings: dict[tuple[str, str], list[int]] = defaultdict(list)
    for f in files:
        with open(f, newline="") as fh:
            for line_no, row in enumerate(csv.DictReader(fh), start=2):
                for dim in DIMENSIONS:
                    value = (row.get(dim) or "").strip()
                    if not value:
                        continue
                    try:
                        score = int(value)
                    except ValueError:
                        raise ValueError(f"{f}:{line_no}: {dim} must be 1-5, not {value!r}") \
                            from None
                    if not 1 <= score <= 5:
                        raise ValueError(f"{f}:{line_no}: {dim} must be 1-5, not {score}")
                    ratings[(row["conversation_id"], dim)].append(score)
    out: dict[str, Any] = {"annotators": len(files)}
    for dim in DIMENSIONS:
        items = [v for (cid, d), v in ratings.items() if d == dim and len(v) >= 2]
        majorities = []
        for values in items:
            value, count = Counter(values).most_common(1)[0]
            if count * 2 > len(values):
                majorities.append(value)
        out[dim] = {"items": len(items),
                    "majority_agreement": round(len(majorities) / len(items), 4) if items else None,
                    "mean_majority_rating": round(sum(majorities) / len(majorities), 4)
                    if majorities else None}
    return out


def fingerprint(convs: list[Conversation]) -> str:
    return hashlib.sha256(json.dumps([c.conversation_id for c in convs]).encode()).hexdigest()[:12]
