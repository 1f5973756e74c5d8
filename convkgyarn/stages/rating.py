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

from convkgyarn.conversations import Conversation, select_conversations
from convkgyarn.errors import UserError
from convkgyarn.llm import LLMRequest
from convkgyarn.resources import data_block, load_prompt
from convkgyarn.stage import Stage
from convkgyarn.store import insert_rows, transaction

DIMENSIONS = ("fluency", "relevance", "diversity", "grammar")


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
    """A conversation as people read it (the annotators' CSV)."""
    return "\n".join(f"User: {t['question']}\nAssistant: "
                     f"{', '.join(t['answer']) if t['answer'] else 'NA'}" for t in conv.turns)


def as_data(conv: Conversation) -> str:
    """A conversation for a prompt's data block: one JSON object per turn (its questions and
    answers are dataset text, never instructions)."""
    return data_block([{"user": t["question"],
                        "assistant": ", ".join(t["answer"]) if t["answer"] else "NA"}
                       for t in conv.turns])


class RateConversations(Stage):
    """The paper's psychometric rubric, 1-5 per dimension, by an LLM rater."""

    name = "rate"
    reads = ("conversations", "turns")
    writes = ("conversation_ratings",)

    def __init__(self, ctx, config=None) -> None:
        super().__init__(ctx, config)
        self.prompt = load_prompt("rate_conversation.md")
        self.client = ctx.client("rater", self.prompt.hash)
        self.convs = select_conversations(self.con, self.config.config_names, self.config.runs,
                                          self.config.limit)

    def default_config(self, ctx):
        from convkgyarn.config import ConversationSelection

        return ConversationSelection()

    def process(self) -> dict[str, Any]:
        if self.client is None:
            raise UserError("rating needs an LLM endpoint: set OPENAI_BASE_URL / "
                            "OPENAI_API_KEY or [llm] in convkgyarn.toml")
        if not self.convs:
            raise UserError("no conversations to rate; run `convkgyarn generate` first")
        results = self.client.run([LLMRequest(
            [{"role": "user", "content": self.prompt.render(conversation=as_data(c))}],
            schema=Psychometric) for c in self.convs])
        model = self.client.model.model
        rows = []
        for conv, res in zip(self.convs, results):
            if not res.ok:
                if not res.dry_run:
                    self.drop(conv.conversation_id, "rating reply unusable", res.error or "")
                continue
            p = res.parsed
            rows.append({"conversation_id": conv.conversation_id,
                         "config_name": conv.config_name, "model": model,
                         "prompt_hash": self.prompt.hash, "fluency": p.fluency,
                         "relevance": p.relevance, "diversity": p.diversity,
                         "grammar": p.grammar})
        with transaction(self.con) as con:
            for r in rows:
                con.execute("DELETE FROM conversation_ratings WHERE conversation_id = ? AND "
                            "model = ?", [r["conversation_id"], model])
            insert_rows(con, "conversation_ratings", rows)
        return {"rated": len(rows), "conversations": len(self.convs)}

    def replace_drops(self, con) -> None:
        """A conversation's unusable-rating drop is replaced when it is rated again."""
        self.replace_drops_by_key(con, "{item}", [c.conversation_id for c in self.convs], None)


def rating_summary(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    return [dict(zip(("config", "model", "n", *DIMENSIONS), r)) for r in con.execute(
        "SELECT config_name, model, count(*), avg(fluency), avg(relevance), avg(diversity), "
        "avg(grammar) FROM conversation_ratings GROUP BY 1, 2 ORDER BY 1, 2").fetchall()]


class CompareConversations(Stage):
    """Pairwise preference, ours vs reference, with the order randomised per pair; a pair
    compared again by the same model replaces its earlier verdicts (never counted twice)."""

    name = "compare"
    reads = ("conversations", "turns")
    writes = ("conversation_comparisons",)

    def __init__(self, ctx, config) -> None:
        super().__init__(ctx, config)
        self.prompt = load_prompt("compare_conversations.md")
        self.client = ctx.client("rater", self.prompt.hash)
        cfg = self.config
        self.ours = select_conversations(self.con, [cfg.ours], limit=cfg.pairs)
        self.theirs = select_conversations(self.con, runs=[cfg.theirs_run], limit=cfg.pairs)

    def process(self) -> dict[str, Any]:
        if self.client is None:
            raise UserError("comparison needs an LLM endpoint")
        if not self.ours:
            raise UserError(f"no conversations of configuration {self.config.ours!r}")
        pairs = list(zip(self.ours, self.theirs))
        rng = random.Random(self.config.seed)
        orders = [rng.random() < 0.5 for _ in pairs]  # True: ours shown as A
        requests = []
        for (o, t), ours_first in zip(pairs, orders):
            a, b = (o, t) if ours_first else (t, o)
            requests.append(LLMRequest([{"role": "user", "content": self.prompt.render(
                a=as_data(a), b=as_data(b))}], schema=Preference))
        model = self.client.model.model
        wins: Counter = Counter()
        rows = []
        for (o, t), ours_first, res in zip(pairs, orders, self.client.run(requests)):
            if not res.ok:
                continue
            for dim in DIMENSIONS:
                choice = getattr(res.parsed, dim)
                winner = "ours" if (choice == "A") == ours_first else "theirs"
                wins[(dim, winner)] += 1
                rows.append({"ours_id": o.conversation_id, "theirs_id": t.conversation_id,
                             "ours_config": o.config_name, "theirs_config": t.config_name,
                             "ours_shown_first": ours_first, "model": model, "dimension": dim,
                             "winner": winner})
        with transaction(self.con) as con:  # a pair compared again replaces its verdicts
            for o, t in {(r["ours_id"], r["theirs_id"]) for r in rows}:  # (as a rating does)
                con.execute("DELETE FROM conversation_comparisons WHERE ours_id = ? AND "
                            "theirs_id = ? AND model = ?", [o, t, model])
            insert_rows(con, "conversation_comparisons", rows)
        return {dim: {"ours": wins[(dim, "ours")], "theirs": wins[(dim, "theirs")]}
                for dim in DIMENSIONS} | {"pairs": len(pairs),
                                          "ours_shown_first": sum(orders)}


def export_annotation_sample(convs: list[Conversation], n: int, seed: int, path: Path,
                             force: bool = False) -> Path:
    """A CSV for human annotators: one row per sampled conversation, blank rating columns.
    An existing file is replaced only when it is such a sample nobody has filled in yet
    (or with ``force``): a filled-in sample is an annotator's work."""
    from convkgyarn.outputs import ANNOTATION_CSV, replacing_file

    rng = random.Random(seed)
    sample = sorted(rng.sample(convs, min(n, len(convs))), key=lambda c: c.conversation_id)
    with replacing_file(path, ANNOTATION_CSV, force=force) as tmp, \
            open(tmp, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["conversation_id", "config", "conversation", *DIMENSIONS])
        for c in sample:
            w.writerow([c.conversation_id, c.config_name, render(c), "", "", "", ""])
    return path


def _annotation_rows(path: Path) -> list[tuple[int, dict]]:
    """A filled-in sample's rows with their line numbers; a file without the sample's
    columns is refused naming what it lacks."""
    with open(path, newline="", encoding="utf-8-sig") as fh:  # a spreadsheet's BOM too
        reader = csv.DictReader(fh)
        missing = [c for c in ("conversation_id", *DIMENSIONS) if c not in
                   (reader.fieldnames or [])]
        if missing:
            raise ValueError(f"{path}:1: not an annotation sample (no {', '.join(missing)} "
                             "column); fill in the CSV `convkgyarn annotations export` wrote")
        try:
            return list(enumerate(reader, start=2))
        except csv.Error as exc:  # a cell past csv's field limit, an unclosed quote
            raise ValueError(f"{path}:{reader.line_num}: not a readable CSV ({exc})") from None


def majority_agreement(files: list[Path]) -> dict[str, Any]:
    """Per dimension: the share of conversations whose ratings have a strict majority value
    across annotators, and the mean of those majority ratings."""
    ratings: dict[tuple[str, str], list[int]] = defaultdict(list)
    for f in files:
        try:
            rows = _annotation_rows(f)
        except UnicodeDecodeError as exc:
            raise ValueError(f"{f}: not UTF-8 text (byte {exc.start}): save the sheet as "
                             "CSV UTF-8") from None
        for line_no, row in rows:
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
    if not ratings:
        raise ValueError(f"no ratings in {', '.join(map(str, files))}: fill in the "
                         f"{', '.join(DIMENSIONS)} columns (1-5) first")
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
