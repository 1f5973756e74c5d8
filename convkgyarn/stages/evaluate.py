"""LLM fact recall, turn by turn with gold history: answer, match, judge, measure.

Each turn is asked with the earlier questions and their gold answers before it, so turns
are independent requests (all can be in flight at once) and a re-run asks nothing that
was answered before (the LLM cache). A deterministic matcher decides clear matches and
NA; an LLM judge, told not to use its own knowledge, decides the rest.

Conversations in several languages (issue #35): a conversation is asked in its own
language (the answer prompt, then that language's paragraph, ``prompts/answer_LANG.md``),
matched as its language writes names, dates and numbers, against gold answers as said in
that language plus each item's labels and aliases in the language (and its script variants
and ``mul``) and, accepted too, its English label and aliases, and judged with a note that
names its language (``prompts/judge_language.md``). English requests are exactly what they
were, so their cached replies stay valid. Metrics are per model, configuration and
language; ``language_effects`` pairs each language's turns with English's over the same
plans (``fact_set_id``), with the bootstrap the phenomenon effects use.
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
from convkgyarn.config import LANGUAGES
from convkgyarn.conversations import Conversation, select_conversations
from convkgyarn.errors import EndpointError, UserError
from convkgyarn.kg.languages import fallback_chain
from convkgyarn.llm import LLMRequest
from convkgyarn.resources import combined_hash, load_prompt
from convkgyarn.scoring import (  # noqa: F401  (the scoring of one reply, re-exported)
    NA_WORDS, OUTCOMES, ParsedAnswer, as_date, as_number, gold_lists, match, matcher_verdict,
    normalise, parse_answer, ratings_model)
from convkgyarn.stage import Stage, utcnow
from convkgyarn.store import insert_rows, transaction

ENGLISH = "en"
# each language besides English: the paragraph its conversations' answer prompt ends with
ANSWER_LANGUAGE_PROMPTS = {code: f"answer_{code}.md" for code in LANGUAGES if code != ENGLISH}
JUDGE_LANGUAGE_PROMPT = "judge_language.md"


def gold_variants(con: duckdb.DuckDBPyConnection, convs: list[Conversation],
                  language: str = ENGLISH) -> dict[str, list[str]]:
    """Every way the matcher accepts to name each answer id of ``convs`` (and each value the
    fact held before). English: its label and Wikidata aliases. Another language: its labels
    and aliases in that language's fallback chain before English (the language, its script
    variants such as zh-hans and zh-hant, ``mul``), then its English label and aliases."""
    ids = sorted({i for c in convs for t in c.turns
                  for i in [*t["answer_ids"], *t.get("outdated_ids", [])] if i})
    if not ids:
        return {}
    if language == ENGLISH:
        return {r[0]: [r[1], *(r[2] or [])] for r in con.execute(
            "SELECT id, label, aliases FROM entities WHERE list_contains(?, id)",
            [ids]).fetchall()}
    chain = [code for code in fallback_chain(language) if code != ENGLISH]
    ways: dict[str, list[str]] = defaultdict(list)
    for i, label, aliases in con.execute(
            "SELECT id, label, aliases FROM ("
            "  SELECT id, language, label, NULL::VARCHAR[] AS aliases, 0 AS kind "
            "  FROM labels_by_language WHERE language <> 'en' "
            "  UNION ALL SELECT id, language, NULL, aliases, 1 FROM entity_labels "
            "  UNION ALL SELECT id, 'en', label, NULL, 0 FROM labels "
            "  UNION ALL SELECT id, 'en', NULL, aliases, 1 FROM entities"
            ") WHERE list_contains($ids, id) AND list_contains($chain, language) "
            "ORDER BY id, list_position($chain, language), kind",
            {"ids": ids, "chain": [*chain, ENGLISH]}).fetchall():
        ways[i] += [label] if label else list(aliases or [])
    return {i: list(dict.fromkeys(w)) for i, w in ways.items() if w}


def history_messages(system: str, conv: Conversation, upto: int) -> list[dict[str, str]]:
    return scoring.history_messages(system, conv.turns, upto)


def outcome_of(parsed: ParsedAnswer, score: int | None, turn: dict,
               variants: dict[str, list[str]], language: str = ENGLISH) -> str:
    return scoring.outcome(parsed, score, gold_lists(turn.get("outdated") or [],
                                                     turn.get("outdated_ids"), variants,
                                                     turn.get("outdated_amounts")),
                           language)


class Evaluate(Stage):
    """Answer every turn with each model under test, match, judge, store per-turn results."""

    name = "evaluate"
    reads = ("conversations", "turns", "entities", "labels", "entity_labels",
             "labels_by_language")
    writes = ("eval_turns",)

    def __init__(self, ctx, config=None) -> None:
        super().__init__(ctx, config)
        self.answer_prompt = load_prompt("answer_system.md")
        self.judge_prompt = load_prompt("judge.md")
        self.answer_languages = {code: load_prompt(name)
                                 for code, name in ANSWER_LANGUAGE_PROMPTS.items()}
        self.judge_language = load_prompt(JUDGE_LANGUAGE_PROMPT)
        # the prompt hashes in the cache keys: English is asked with the answer and judge
        # prompts alone, as before; every other language with its language prompts too (all
        # of them: one client, one batch, for the languages besides English)
        self.local_answer_hash = combined_hash(self.answer_prompt,
                                               *self.answer_languages.values())
        self.local_judge_hash = combined_hash(self.judge_prompt, self.judge_language)
        self.convs = select_conversations(self.con, self.config.config_names, self.config.runs,
                                          self.config.limit)

    def default_config(self, ctx):
        return ctx.config.evaluate

    def process(self) -> dict[str, Any]:
        if not self.convs:
            raise UserError("no conversations to evaluate; run `convkgyarn generate` first")
        languages = sorted({c.language for c in self.convs}, key=language_order)
        unknown = [code for code in languages
                   if code != ENGLISH and code not in self.answer_languages]
        if unknown:
            raise UserError(f"conversations in {', '.join(unknown)}: evaluate asks in "
                            f"{', '.join(LANGUAGES)} (an answer prompt for each is in "
                            "prompts/)")
        variants = {code: gold_variants(self.con, [c for c in self.convs if c.language == code],
                                        code) for code in languages}
        stats: dict[str, Any] = {"models": {}, "turns": 0}
        models = self.config.models or [self.ctx.config.llm.stages.answerer.model]
        for model in models:
            stats["models"][model] = self.evaluate_model(model, variants)
        stats["turns"] = sum(len(c.turns) for c in self.convs)
        return stats

    def system_prompt(self, language: str) -> str:
        return scoring.answer_system(self.answer_prompt.text, language,
                                     {code: p.text for code, p in self.answer_languages.items()})

    def evaluate_model(self, model: str,
                       variants: dict[str, dict[str, list[str]]]) -> dict[str, Any]:
        index = [(c, i) for c in self.convs for i in range(len(c.turns))]
        results: list[Any] = [None] * len(index)
        for local in (False, True):  # English as before, then every other language
            positions = [k for k, (c, _) in enumerate(index) if (c.language != ENGLISH) == local]
            if not positions:
                continue
            answerer = self.ctx.client(
                "answerer", self.local_answer_hash if local else self.answer_prompt.hash,
                model=model)
            if answerer is None:
                raise UserError("evaluation needs an LLM endpoint: set OPENAI_BASE_URL / "
                                "OPENAI_API_KEY or [llm] in convkgyarn.toml")
            systems = {c.language: self.system_prompt(c.language) for c, _ in
                       (index[k] for k in positions)}
            replies = answerer.run([LLMRequest(history_messages(
                systems[index[k][0].language], index[k][0], index[k][1])) for k in positions])
            for k, res in zip(positions, replies):
                results[k] = res
        failed = [r for r in results if not r.ok and not r.dry_run]
        if failed:  # never judged as wrong answers: the model was not heard
            raise EndpointError(
                f"answerer ({model}): {len(failed):,} of {len(results):,} replies unusable "
                f"({failed[0].error}); nothing was stored for {model}: run `convkgyarn "
                "evaluate` again (the usable replies are cached)")
        rows = []
        for (conv, i), res in zip(index, results):
            t = conv.turns[i]
            parsed = parse_answer(res.text)
            golds = gold_lists(t["answer"], t["answer_ids"], variants[conv.language],
                               t.get("amounts"))
            verdict = matcher_verdict(parsed, golds, conv.language)
            if res.dry_run:  # not asked: the judge may be needed for it (an upper bound)
                verdict = None
            rows.append({"conv": conv, "turn": t, "raw": res.text, "parsed": parsed,
                         "matcher": verdict})
        self.judge(rows)
        if self.ctx.config.llm.dry_run:  # answers and judge calls counted, nothing stored
            return {"asked": len(index)}
        key: list[Any] = [model, self.answer_prompt.hash,
                          [c.conversation_id for c in self.convs]]
        if any(c.language != ENGLISH for c in self.convs):
            key.append(self.local_answer_hash)
        eval_id = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]
        now = utcnow()
        out = []
        for r in rows:
            score = r["matcher"] if r["matcher"] is not None else r.get("judge")
            decided = "matcher" if r["matcher"] is not None else (
                "judge" if r.get("judge") is not None else "undecided")
            r["score"], r["decided"] = score, decided
            language = r["conv"].language
            outcome = outcome_of(r["parsed"], score, r["turn"], variants[language], language)
            out.append({
                "eval_id": eval_id, "model": model, "config_name": r["conv"].config_name,
                "conversation_id": r["conv"].conversation_id, "turn": r["turn"]["turn"],
                "question": r["turn"]["question"], "gold": r["turn"]["answer"],
                "answer_raw": r["raw"], "answer_parsed": r["parsed"].candidates,
                "na": r["parsed"].na, "unparsable": r["parsed"].unparsable,
                "matcher_verdict": r["matcher"], "judge_verdict": r.get("judge"),
                "score": score, "decided_by": decided,
                "answer_prompt_hash": (self.local_answer_hash if language != ENGLISH
                                       else self.answer_prompt.hash),
                "judge_model": r.get("judge_model") if decided == "judge" else None,
                "created_at": now, "outcome": outcome})
        with transaction(self.con) as con:
            con.execute("DELETE FROM eval_turns WHERE eval_id = ?", [eval_id])
            insert_rows(con, "eval_turns", out)
        by_language: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            by_language[r["conv"].language].append(r)
        return {**counts(rows), "languages": {
            code: {**counts(by_language[code]),
                   "right": sum(r["score"] == 1 for r in by_language[code])}
            for code in sorted(by_language, key=language_order)}}

    def judge(self, rows: list[dict]) -> None:
        """One judge call per conversation, for its undecided turns only; each judged row
        records the judge model as the server reported it."""
        pending: dict[str, list[dict]] = defaultdict(list)
        for r in rows:
            if r["matcher"] is None:
                pending[r["conv"].conversation_id].append(r)
        for local in (False, True):  # English as before, then every other language
            groups = [g for g in pending.values() if (g[0]["conv"].language != ENGLISH) == local]
            if not groups:
                continue
            judge = self.ctx.client("judge", self.local_judge_hash if local
                                    else self.judge_prompt.hash)
            requests = []
            for group in groups:
                # the questions, gold answers and candidates are data (KG text, dataset
                # text, a model's reply): scoring puts them only inside the data block
                note = scoring.language_note(self.judge_language.text, group[0]["conv"].language)
                text = scoring.judge_prompt(self.judge_prompt.text, [
                    (r["turn"]["question"], r["turn"]["answer"], r["parsed"].candidates)
                    for r in group], note)
                requests.append(LLMRequest([{"role": "user", "content": text}],
                                           schema=ratings_model(len(group))))
            for group, res in zip(groups, judge.run(requests)):
                if not res.ok:
                    continue  # recorded in llm_failures; the turns stay undecided
                for r, rating in zip(group, res.parsed.ratings):
                    r["judge"] = scoring.judge_verdict(rating)
                    r["judge_model"] = judge.answered_by


def counts(rows: list[dict]) -> dict[str, int]:
    """Turns, who decided them, replies that could not be parsed and NA replies."""
    return {"turns": len(rows), "matcher": sum(r["matcher"] is not None for r in rows),
            "judge": sum(r.get("judge") is not None for r in rows),
            "unparsable": sum(r["parsed"].unparsable for r in rows),
            "na": sum(r["parsed"].na for r in rows)}


def language_order(code: str) -> tuple[int, str]:
    """English first (every plan's pivot), then the others by code."""
    return (code != ENGLISH, code)


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


def config_languages(name: str) -> list[str]:
    """The languages a configuration's name lists (``voice-deixis-en-de``: en, de); none
    for a configuration made in English alone."""
    return [part for part in name.split("-") if part in LANGUAGES]


# each evaluated conversation's language, where its conversation is still stored
_LANGUAGE_OF = """
    LEFT JOIN (SELECT conversation_id, config_name, any_value(coalesce(language, 'en'))
                      AS language
               FROM conversations GROUP BY ALL) c
           ON c.conversation_id = e.conversation_id AND c.config_name = e.config_name"""


def _language(stored: str | None, config: str) -> str:
    """A turn's language: its conversation's; for a conversation no longer stored, the one
    its configuration's name lists (English when it lists none), else "unknown"."""
    if stored:
        return stored
    named = config_languages(config)
    return named[0] if len(named) == 1 else (ENGLISH if not named else "unknown")


def metrics(con: duckdb.DuckDBPyConnection, bootstrap: int = 1000) -> list[dict[str, Any]]:
    """Per model, configuration and language (a configuration made in one language has one
    row): mean turn score, mean conversation score, NA ratio (with 95% bootstrap intervals),
    and how many turns the matcher and the judge decided."""
    rows = con.execute(
        "SELECT e.model, e.config_name, c.language, e.conversation_id, e.turn, "
        "coalesce(e.score, 0), e.na, e.decided_by, e.outcome FROM eval_turns e" + _LANGUAGE_OF +
        " ORDER BY e.model, e.config_name, e.conversation_id, e.turn").fetchall()
    grouped: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    decided: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    outcomes: dict[tuple, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for model, config, stored, cid, _turn, score, na, by, outcome in rows:
        key = (model, config, _language(stored, config))
        grouped[key][cid].append((float(score), 1.0 if na else 0.0))
        decided[key][by] += 1
        outcomes[key][outcome or "unknown"] += 1
    out = []
    for key in sorted(grouped, key=lambda k: (k[0], k[1], language_order(k[2]))):
        model, config, language = key
        convs = grouped[key]
        scores = [[s for s, _ in turns] for turns in convs.values()]
        nas = [[n for _, n in turns] for turns in convs.values()]
        out.append({
            "model": model, "config": config, "language": language,
            "conversations": len(scores), "turns": sum(len(s) for s in scores),
            "mean_turn": mean_turn(scores),
            "mean_turn_ci": bootstrap_ci(scores, mean_turn, bootstrap),
            "mean_conversation": mean_conversation(scores),
            "mean_conversation_ci": bootstrap_ci(scores, mean_conversation, bootstrap),
            "na_ratio": mean_turn(nas),
            "na_ratio_ci": bootstrap_ci(nas, mean_turn, bootstrap),
            "decided_by_matcher": decided[key]["matcher"],
            "decided_by_judge": decided[key]["judge"],
            "undecided": decided[key]["undecided"],
            **{f"{o}_share": outcomes[key][o] / max(1, sum(len(s) for s in scores))
               for o in OUTCOMES},
        })
    return out


# -- paired effects: phenomena against their base, languages against English -------------

def base_config(name: str) -> str | None:
    """The configuration a phenomenon is measured against: its interaction alone, in the
    same languages ("voice-deixis" -> "voice", "voice-deixis-en-de" -> "voice-en-de"); None
    for a base itself or a configuration with other parts (related entities, imported
    datasets)."""
    parts = name.split("-")
    if parts[0] not in ("voice", "text") or "related" in parts:
        return None
    languages = config_languages(name)
    if len(parts) == 1 + len(languages):
        return None
    return "-".join([parts[0], *languages])


def mcnemar_p(b: int, c: int) -> float:
    """Exact two-sided McNemar test: b pairs right only in the base, c right only with the
    phenomenon; under no effect each discordant pair goes either way with probability 1/2."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def paired_difference(pairs: list[tuple[str, float, float]], bootstrap: int = 1000,
                      seed: int = 0) -> dict[str, Any]:
    """Paired scores ``(cluster, base, other)``: each side's mean and the effect, the mean
    of other - base, with a 95% bootstrap interval resampling clusters (subject entities:
    the pairs of one entity stay together)."""
    by_cluster: dict[str, list[float]] = defaultdict(list)
    for cluster, base, other in pairs:
        by_cluster[cluster].append(other - base)
    diffs = [d for ds in by_cluster.values() for d in ds]
    return {"pairs": len(pairs), "base_mean": float(np.mean([b for _, b, _ in pairs])),
            "mean": float(np.mean([o for _, _, o in pairs])), "effect": float(np.mean(diffs)),
            "effect_ci": bootstrap_ci(list(by_cluster.values()), mean_turn, bootstrap, seed)}


def discordant(pairs: list[tuple[str, int, int]]) -> tuple[int, int, float]:
    """Of paired right/wrong scores: how many only the base got right, how many only the
    other side, and McNemar's exact p over those."""
    base_only = sum(1 for _, b, o in pairs if b == 1 and o == 0)
    other_only = sum(1 for _, b, o in pairs if b == 0 and o == 1)
    return base_only, other_only, mcnemar_p(base_only, other_only)


def paired_effects(con: duckdb.DuckDBPyConnection, bootstrap: int = 1000,
                   seed: int = 0) -> list[dict[str, Any]]:
    """Per model and language, each phenomenon's effect on the turn score against its base
    configuration, over the same facts: turns are paired by the statement they ask about
    (configurations generated with the same facts share them). Effect = mean(phenomenon -
    base) with a 95% bootstrap interval resampling subject entities, and the exact McNemar
    test."""
    rows = con.execute(
        """
        SELECT e.model, e.config_name, coalesce(c.language, 'en'), c.entity_id, t.subject_id,
               t.property_id, coalesce(t.qualifier_property_id, ''), t.statement_id,
               any_value(coalesce(e.score, 0))
        FROM eval_turns e
        JOIN conversations c ON c.conversation_id = e.conversation_id
                             AND c.config_name = e.config_name
        JOIN turns t ON t.run_id = c.run_id AND t.conversation_id = e.conversation_id
                     AND t.turn = e.turn
        GROUP BY ALL
        """).fetchall()
    scores: dict[tuple[str, str, str], dict[tuple, tuple[str, int]]] = defaultdict(dict)
    for model, config, language, entity, *fact, score in rows:
        scores[(model, config, language)][tuple(fact)] = (entity, int(score))
    out = []
    for (model, config, language), mine in sorted(
            scores.items(), key=lambda kv: (kv[0][0], kv[0][1], language_order(kv[0][2]))):
        base = base_config(config)
        theirs = scores.get((model, base, language)) if base else None
        if not theirs:
            continue
        shared = sorted(mine.keys() & theirs.keys(),  # an order that never varies
                        key=lambda f: tuple("" if x is None else x for x in f))
        pairs = [(mine[f][0], theirs[f][1], mine[f][1]) for f in shared]
        if not pairs:
            continue
        base_only, phenomenon_only, p = discordant(pairs)
        out.append({"model": model, "config": config, "base": base, "language": language,
                    **paired_difference(pairs, bootstrap, seed),
                    "base_only_right": base_only, "phenomenon_only_right": phenomenon_only,
                    "mcnemar_p": p})
    return out


def language_effects(con: duckdb.DuckDBPyConnection, bootstrap: int = 1000,
                     seed: int = 0) -> list[dict[str, Any]]:
    """Per model and configuration, each language's recall against English over the same
    plans: a plan's conversations in its languages share its ``fact_set_id`` (and its
    ordinal in the run) and ask the same statements turn by turn, so turns pair by (plan,
    turn). Per turn: mean(language - English) with a 95% bootstrap interval over subject
    entities and McNemar's exact test; per conversation: the mean over plans of (the
    language's mean over the plan's paired turns - English's), its interval the same way.
    A configuration without English conversations has none."""
    rows = con.execute(
        """
        SELECT e.model, e.config_name, coalesce(c.language, 'en'), c.fact_set_id, c.ordinal,
               c.entity_id, e.turn, any_value(coalesce(e.score, 0))
        FROM eval_turns e
        JOIN conversations c ON c.conversation_id = e.conversation_id
                             AND c.config_name = e.config_name
        WHERE c.fact_set_id IS NOT NULL
        GROUP BY ALL
        """).fetchall()
    scores: dict[tuple[str, str, str], dict[tuple, tuple[str, int]]] = defaultdict(dict)
    for model, config, language, fact_set, ordinal, entity, turn, score in rows:
        scores[(model, config, language)][(fact_set, ordinal, turn)] = (entity, int(score))
    out = []
    for (model, config, language), mine in sorted(scores.items()):
        english = scores.get((model, config, ENGLISH))
        if language == ENGLISH or not english:
            continue
        keys = sorted(mine.keys() & english.keys())
        if not keys:
            continue
        pairs = [(mine[k][0], english[k][1], mine[k][1]) for k in keys]
        english_only, language_only, p = discordant(pairs)
        plans: dict[tuple, list[tuple[str, int, int]]] = defaultdict(list)
        for k, pair in zip(keys, pairs):
            plans[k[:2]].append(pair)
        per_plan = [(turns[0][0], float(np.mean([b for _, b, _ in turns])),
                     float(np.mean([o for _, _, o in turns]))) for turns in plans.values()]
        conv = paired_difference(per_plan, bootstrap, seed)
        out.append({"model": model, "config": config, "language": language,
                    "base_language": ENGLISH, **paired_difference(pairs, bootstrap, seed),
                    "base_only_right": english_only, "language_only_right": language_only,
                    "mcnemar_p": p, "conversations": conv["pairs"],
                    "conversation_base_mean": conv["base_mean"],
                    "conversation_mean": conv["mean"], "conversation_effect": conv["effect"],
                    "conversation_effect_ci": conv["effect_ci"]})
    return out
