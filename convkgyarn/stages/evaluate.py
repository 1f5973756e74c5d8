"""LLM fact recall, turn by turn with gold history: answer, match, judge, measure.

Each turn is asked with the earlier questions and their gold answers before it, so turns
are independent requests (all can be in flight at once) and a re-run asks nothing that
was answered before (the LLM cache). A deterministic matcher decides clear matches and
NA; an LLM judge, told not to use its own knowledge, decides the rest.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from typing import Any

import duckdb
import numpy as np

from convkgyarn import scoring
from convkgyarn.conversations import Conversation, select_conversations
from convkgyarn.errors import UserError
from convkgyarn.llm import LLMRequest
from convkgyarn.resources import load_prompt
from convkgyarn.scoring import (  # noqa: F401  (the scoring of one reply, re-exported)
    NA_WORDS, OUTCOMES, ParsedAnswer, as_date, as_number, gold_lists, match, matcher_verdict,
    normalise, parse_answer, ratings_model)
from convkgyarn.stage import Stage, utcnow
from convkgyarn.store import insert_rows, transaction


def gold_variants(con: duckdb.DuckDBPyConnection, convs: list[Conversation]) -> dict[str, list[str]]:
    """Labels and Wikidata aliases of every answer id, for the matcher."""
    ids = sorted({i for c in convs for t in c.turns
                  for i in [*t["answer_ids"], *t.get("outdated_ids", [])] if i})
    if not ids:
        return {}
    return {r[0]: [r[1], *(r[2] or [])] for r in con.execute(
        "SELECT id, label, aliases FROM entities WHERE list_contains(?, id)", [ids]).fetchall()}


def history_messages(system: str, conv: Conversation, upto: int) -> list[dict[str, str]]:
    return scoring.history_messages(system, conv.turns, upto)


def outcome_of(parsed: ParsedAnswer, score: int | None, turn: dict,
               variants: dict[str, list[str]]) -> str:
    return scoring.outcome(parsed, score, gold_lists(turn.get("outdated") or [],
                                                     turn.get("outdated_ids"), variants))


class Evaluate(Stage):
    """Answer every turn with each model under test, match, judge, store per-turn results."""

    name = "evaluate"
    reads = ("conversations", "turns")
    writes = ("eval_turns",)

    def __init__(self, ctx, config=None) -> None:
        super().__init__(ctx, config)
        self.answer_prompt = load_prompt("answer_system.md")
        self.judge_prompt = load_prompt("judge.md")
        self.convs = select_conversations(self.con, self.config.config_names, self.config.runs,
                                          self.config.limit)

    def default_config(self, ctx):
        return ctx.config.evaluate

    def process(self) -> dict[str, Any]:
        if not self.convs:
            raise UserError("no conversations to evaluate; run `convkgyarn generate` first")
        variants = gold_variants(self.con, self.convs)
        stats: dict[str, Any] = {"models": {}, "turns": 0}
        models = self.config.models or [self.ctx.config.llm.stages.answerer.model]
        for model in models:
            stats["models"][model] = self.evaluate_model(model, variants)
        stats["turns"] = sum(len(c.turns) for c in self.convs)
        return stats

    def evaluate_model(self, model: str, variants: dict[str, list[str]]) -> dict[str, int]:
        answerer = self.ctx.client("answerer", self.answer_prompt.hash, model=model)
        if answerer is None:
            raise UserError("evaluation needs an LLM endpoint: set OPENAI_BASE_URL / "
                            "OPENAI_API_KEY or [llm] in convkgyarn.toml")
        index = [(c, i) for c in self.convs for i in range(len(c.turns))]
        results = answerer.run([LLMRequest(history_messages(self.answer_prompt.text, c, i))
                                for c, i in index])
        rows = []
        for (conv, i), res in zip(index, results):
            t = conv.turns[i]
            parsed = parse_answer(res.text)
            golds = gold_lists(t["answer"], t["answer_ids"], variants)
            verdict = matcher_verdict(parsed, golds)
            if res.dry_run:  # not asked: the judge may be needed for it (an upper bound)
                verdict = None
            rows.append({"conv": conv, "turn": t, "raw": res.text, "parsed": parsed,
                         "matcher": verdict})
        judge_model = self.judge(rows)
        if self.ctx.config.llm.dry_run:  # answers and judge calls counted, nothing stored
            return {"asked": len(index)}
        eval_id = hashlib.sha256(json.dumps([model, self.answer_prompt.hash,
                                             [c.conversation_id for c in self.convs]]
                                            ).encode()).hexdigest()[:16]
        now = utcnow()
        out = []
        for r in rows:
            score = r["matcher"] if r["matcher"] is not None else r.get("judge")
            decided = "matcher" if r["matcher"] is not None else (
                "judge" if r.get("judge") is not None else "undecided")
            outcome = outcome_of(r["parsed"], score, r["turn"], variants)
            out.append({
                "eval_id": eval_id, "model": model, "config_name": r["conv"].config_name,
                "conversation_id": r["conv"].conversation_id, "turn": r["turn"]["turn"],
                "question": r["turn"]["question"], "gold": r["turn"]["answer"],
                "answer_raw": r["raw"], "answer_parsed": r["parsed"].candidates,
                "na": r["parsed"].na, "unparsable": r["parsed"].unparsable,
                "matcher_verdict": r["matcher"], "judge_verdict": r.get("judge"),
                "score": score, "decided_by": decided,
                "answer_prompt_hash": self.answer_prompt.hash,
                "judge_model": judge_model if decided == "judge" else None, "created_at": now,
                "outcome": outcome})
        with transaction(self.con) as con:
            con.execute("DELETE FROM eval_turns WHERE eval_id = ?", [eval_id])
            insert_rows(con, "eval_turns", out)
        return {"turns": len(rows), "matcher": sum(r["matcher"] is not None for r in rows),
                "judge": sum(r.get("judge") is not None for r in rows),
                "unparsable": sum(r["parsed"].unparsable for r in rows),
                "na": sum(r["parsed"].na for r in rows)}

    def judge(self, rows: list[dict]) -> str | None:
        """One judge call per conversation, for its undecided turns only; returns the judge
        model as the server reported it."""
        pending: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            if r["matcher"] is None:
                pending[r["conv"].conversation_id].append(r)
        if not pending:
            return None
        judge = self.ctx.client("judge", self.judge_prompt.hash)
        requests, groups = [], []
        for group in pending.values():
            # the questions, gold answers and candidates are data (KG text, dataset text,
            # a model's reply): scoring puts them only inside the prompt's data block
            text = scoring.judge_prompt(self.judge_prompt.text, [
                (r["turn"]["question"], r["turn"]["answer"], r["parsed"].candidates)
                for r in group])
            requests.append(LLMRequest([{"role": "user", "content": text}],
                                       schema=ratings_model(len(group))))
            groups.append(group)
        for group, res in zip(groups, judge.run(requests)):
            if not res.ok:
                continue  # recorded in llm_failures; the turns stay undecided
            for r, rating in zip(group, res.parsed.ratings):
                r["judge"] = scoring.judge_verdict(rating)
        return judge.answered_by


# -- metrics --------------------------------------------------------------------------------

def bootstrap_ci(values_by_conv: list[list[float]], stat, n: int = 1000,
                 seed: int = 0) -> tuple[float, float]:
    """95% CI of ``stat`` by resampling conversations (turns stay with their conversation)."""
    rng = np.random.default_rng(seed)
    k = len(values_by_conv)
    if k == 0:
        return (float("nan"), float("nan"))
    samples = [stat([values_by_conv[i] for i in rng.integers(0, k, k)]) for _ in range(n)]
    return (float(np.percentile(samples, 2.5)), float(np.percentile(samples, 97.5)))


def mean_turn(convs: list[list[float]]) -> float:
    flat = [x for c in convs for x in c]
    return float(np.mean(flat)) if flat else float("nan")


def mean_conversation(convs: list[list[float]]) -> float:
    means = [np.mean(c) for c in convs if c]
    return float(np.mean(means)) if means else float("nan")


def metrics(con: duckdb.DuckDBPyConnection, bootstrap: int = 1000) -> list[dict[str, Any]]:
    """Per model and configuration: mean turn score, mean conversation score, NA ratio
    (with 95% bootstrap intervals), and how many turns the matcher and the judge decided."""
    rows = con.execute(
        "SELECT model, config_name, conversation_id, turn, coalesce(score, 0), na, decided_by, "
        "outcome FROM eval_turns ORDER BY model, config_name, conversation_id, turn").fetchall()
    grouped: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    decided: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    outcomes: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for model, config, cid, _turn, score, na, by, outcome in rows:
        grouped[(model, config)][cid].append((float(score), 1.0 if na else 0.0))
        decided[(model, config)][by] += 1
        outcomes[(model, config)][outcome or "unknown"] += 1
    out = []
    for (model, config), convs in sorted(grouped.items()):
        scores = [[s for s, _ in turns] for turns in convs.values()]
        nas = [[n for _, n in turns] for turns in convs.values()]
        out.append({
            "model": model, "config": config, "conversations": len(scores),
            "turns": sum(len(s) for s in scores),
            "mean_turn": mean_turn(scores),
            "mean_turn_ci": bootstrap_ci(scores, mean_turn, bootstrap),
            "mean_conversation": mean_conversation(scores),
            "mean_conversation_ci": bootstrap_ci(scores, mean_conversation, bootstrap),
            "na_ratio": mean_turn(nas),
            "na_ratio_ci": bootstrap_ci(nas, mean_turn, bootstrap),
            "decided_by_matcher": decided[(model, config)]["matcher"],
            "decided_by_judge": decided[(model, config)]["judge"],
            "undecided": decided[(model, config)]["undecided"],
            **{f"{o}_share": outcomes[(model, config)][o] / max(1, sum(len(s) for s in scores))
               for o in OUTCOMES},
        })
    return out



# -- paired phenomenon effects --------------------------------------------------------------

def base_config(name: str) -> str | None:
    """The configuration a phenomenon is measured against: its interaction alone
    ("voice-deixis" -> "voice"); None for a base itself or a configuration with other parts
    (related entities, imported datasets)."""
    parts = name.split("-")
    if parts[0] not in ("voice", "text") or len(parts) == 1 or "related" in parts:
        return None
    return parts[0]


def mcnemar_p(b: int, c: int) -> float:
    """Exact two-sided McNemar test: b pairs right only in the base, c right only with the
    phenomenon; under no effect each discordant pair goes either way with probability 1/2."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def paired_effects(con: duckdb.DuckDBPyConnection, bootstrap: int = 1000,
                   seed: int = 0) -> list[dict[str, Any]]:
    """Per model, each phenomenon's effect on the turn score against its base configuration,
    over the same facts: turns are paired by the statement they ask about (configurations
    generated with the same facts share them). Effect = mean(phenomenon - base) with a 95%
    bootstrap interval resampling subject entities, and the exact McNemar test."""
    rows = con.execute(
        """
        SELECT e.model, e.config_name, c.entity_id, t.subject_id, t.property_id,
               coalesce(t.qualifier_property_id, ''), t.statement_id,
               any_value(coalesce(e.score, 0))
        FROM eval_turns e
        JOIN conversations c ON c.conversation_id = e.conversation_id
                             AND c.config_name = e.config_name
        JOIN turns t ON t.run_id = c.run_id AND t.conversation_id = e.conversation_id
                     AND t.turn = e.turn
        GROUP BY ALL
        """).fetchall()
    scores: dict[tuple[str, str], dict[tuple, tuple[str, int]]] = defaultdict(dict)
    for model, config, entity, *fact, score in rows:
        scores[(model, config)][tuple(fact)] = (entity, int(score))
    out = []
    for (model, config), mine in sorted(scores.items()):
        base = base_config(config)
        theirs = scores.get((model, base)) if base else None
        if not theirs:
            continue
        pairs = [(mine[f][0], theirs[f][1], mine[f][1]) for f in mine.keys() & theirs.keys()]
        if not pairs:
            continue
        by_entity: dict[str, list[float]] = defaultdict(list)
        for entity, b, p in pairs:
            by_entity[entity].append(p - b)
        diffs = [d for ds in by_entity.values() for d in ds]
        b_only = sum(1 for _, b, p in pairs if b == 1 and p == 0)
        p_only = sum(1 for _, b, p in pairs if b == 0 and p == 1)
        out.append({
            "model": model, "config": config, "base": base, "pairs": len(pairs),
            "base_mean": float(np.mean([b for _, b, _ in pairs])),
            "mean": float(np.mean([p for _, _, p in pairs])),
            "effect": float(np.mean(diffs)),
            "effect_ci": bootstrap_ci(list(by_entity.values()), mean_turn, bootstrap, seed),
            "base_only_right": b_only, "phenomenon_only_right": p_only,
            "mcnemar_p": mcnemar_p(b_only, p_only),
        })
    return out
