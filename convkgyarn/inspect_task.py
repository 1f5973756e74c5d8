"""convkgyarn conversations as an Inspect task: fact recall over multi-turn conversations.

Written by `convkgyarn export --format inspect` as ``task.py`` of a task folder, beside
``convkgyarn_scoring.py`` (convkgyarn's scoring code, copied verbatim), ``prompts/``,
``conversations.jsonl`` and ``task.json``. It needs only ``inspect-ai`` (and the SDK of
the model provider, e.g. ``openai``); convkgyarn itself never imports this file. Run it
with any Inspect model::

    inspect eval task.py --model openai/gpt-4o-mini --model-role grader=openai/gpt-4o

Each conversation is one sample. Every turn is asked on its own with the gold history (the
system prompt, then each earlier question with its gold answer as the assistant's reply),
exactly the request `convkgyarn evaluate` sends; the turns of a conversation are asked
concurrently. The scorer parses each reply and lets convkgyarn's deterministic matcher
decide clear cases; the turns it leaves undecided go to the judge (the ``grader`` model
role, by default the model under test) in one call per conversation, with convkgyarn's
judge prompt and rating format, re-asked as convkgyarn re-asks. Metrics are grouped by
configuration (``voice-deixis``, ...): mean score per turn and per conversation, the share
of NA replies and of replies naming a value the fact held before; ``all/...`` over every
conversation. On the same replies these are `convkgyarn evaluate`'s figures. A
conversation in another language than English is asked with the answer prompt and that
language's paragraph, matched as the language writes names, dates and numbers, and judged
with a note naming its language; its configuration's metrics are per language
(``voice-en-de/de/...``).

Task options (``-T name=value``): ``configs``, a comma-separated list of configurations to
run (default: all).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample, json_dataset
from inspect_ai.model import (
    ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, GenerateConfig,
    ResponseSchema, get_model)
from inspect_ai.scorer import Score, SampleScore, Target, grouped, metric, scorer
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.util import JSONSchema
from pydantic import ValidationError

import convkgyarn_scoring as scoring

HERE = Path(__file__).resolve().parent
SETTINGS: dict[str, Any] = json.loads((HERE / "task.json").read_text(encoding="utf-8"))
ANSWER_SYSTEM = (HERE / SETTINGS["prompts"]["answer"]).read_text(encoding="utf-8")
JUDGE_TEMPLATE = (HERE / SETTINGS["prompts"]["judge"]).read_text(encoding="utf-8")
JUDGE_LANGUAGE = (HERE / SETTINGS["prompts"]["judge_language"]).read_text(encoding="utf-8")
ANSWER_LANGUAGES = {code: (HERE / path).read_text(encoding="utf-8")
                    for code, path in SETTINGS["answer_language_prompts"].items()}
CONFIG_KEY = "config"
GROUP_KEY = "group"  # the configuration, and the language where it has several


def chat(messages: list[dict[str, str]]) -> list[ChatMessage]:
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser,
             "assistant": ChatMessageAssistant}
    return [kinds[m["role"]](content=m["content"]) for m in messages]


def record_to_sample(record: dict[str, Any]) -> Sample:
    turns = record["turns"]
    return Sample(
        id=record["id"],
        input=turns[0]["question"],
        target=["; ".join(t["answer"]) for t in turns],
        metadata={CONFIG_KEY: record["config"], GROUP_KEY: record["group"],
                  "language": record["language"], "conversation_id": record["conversation_id"],
                  "run_id": record["run_id"], "entity": record.get("entity"), "turns": turns})


@solver
def answer_with_gold_history():
    """Ask every turn with the gold history before it; the replies go to the store."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        model = get_model()
        turns = state.metadata["turns"]
        system = scoring.answer_system(ANSWER_SYSTEM, state.metadata["language"],
                                       ANSWER_LANGUAGES)
        outputs = await asyncio.gather(*[
            model.generate(chat(scoring.history_messages(system, turns, i)))
            for i in range(len(turns))])
        replies = [o.completion for o in outputs]
        state.store.set("replies", replies)
        # the transcript as a reader follows it: each question and the model's reply (each
        # was asked with the gold answers before it, as the model events show)
        state.messages = [ChatMessageSystem(content=system)]
        for t, reply in zip(turns, replies):
            state.messages += [ChatMessageUser(content=t["question"]),
                               ChatMessageAssistant(content=reply)]
        state.output = outputs[-1]
        return state

    return solve


# -- metrics over the per-conversation counts in each score's value -------------------------

def _total(scores: list[SampleScore], key: str) -> float:
    return float(sum(s.score.value[key] for s in scores))


@metric
def mean_turn():
    """Mean turn score: right turns over all turns (a turn nobody decided counts 0)."""
    def compute(scores: list[SampleScore]) -> float:
        return _total(scores, "correct") / _total(scores, "turns") if scores else float("nan")
    return compute


@metric
def mean_conversation():
    """Mean over conversations of each conversation's mean turn score."""
    def compute(scores: list[SampleScore]) -> float:
        per = [s.score.value["correct"] / s.score.value["turns"] for s in scores]
        return sum(per) / len(per) if per else float("nan")
    return compute


@metric
def na_ratio():
    """Share of turns answered NA."""
    def compute(scores: list[SampleScore]) -> float:
        return _total(scores, "na") / _total(scores, "turns") if scores else float("nan")
    return compute


@metric
def outdated_share():
    """Share of turns answered with a value the fact held before (not the current one)."""
    def compute(scores: list[SampleScore]) -> float:
        return _total(scores, "outdated") / _total(scores, "turns") if scores else float("nan")
    return compute


def by_config(m, name: str):
    return grouped(m, GROUP_KEY, name_template="{group_name}/" + name,
                   all_label="all/" + name)


# -- the scorer -----------------------------------------------------------------------------

async def judge(items: list[tuple[str, list[str], list[str]]],
                language: str) -> list[int] | None:
    """One judge call for a conversation's undecided turns: the verdicts, or None when no
    reply was usable after the configured attempts (the turns stay undecided)."""
    settings = SETTINGS["judge"]
    grader = get_model(role="grader")
    model = scoring.ratings_model(len(items))
    config = GenerateConfig(
        temperature=settings["temperature"], max_tokens=settings["max_tokens"],
        response_schema=ResponseSchema(name=model.__name__, strict=False,
                                       json_schema=JSONSchema.model_validate(
                                           model.model_json_schema())))
    note = scoring.language_note(JUDGE_LANGUAGE, language)
    request = [{"role": "user", "content": scoring.judge_prompt(JUDGE_TEMPLATE, items, note)}]
    messages = list(request)
    for _attempt in range(settings["attempts"]):
        output = await grader.generate(chat(messages), config=config)
        try:
            ratings = model.model_validate(scoring.parse_json_reply(output.completion)).ratings
            return [scoring.judge_verdict(r) for r in ratings]
        except (ValueError, ValidationError) as exc:
            messages = request + [scoring.reask_message(scoring.short_error(exc))]
    return None


@scorer(metrics=[by_config(mean_turn(), "mean_turn"),
                 by_config(mean_conversation(), "mean_conversation"),
                 by_config(na_ratio(), "na_ratio"),
                 by_config(outdated_share(), "outdated_share")])
def convkgyarn_scorer():
    """convkgyarn's scoring: parse, match, then judge the undecided turns in one call."""

    async def score(state: TaskState, target: Target) -> Score:
        turns = state.metadata["turns"]
        language = state.metadata["language"]
        replies = state.store.get("replies")
        parsed = [scoring.parse_answer(r) for r in replies]
        matcher = [scoring.matcher_verdict(p, t["golds"], language)
                   for p, t in zip(parsed, turns)]
        pending = [i for i, v in enumerate(matcher) if v is None]
        judged: dict[int, int] = {}
        if pending:
            verdicts = await judge([(turns[i]["question"], turns[i]["answer"],
                                     parsed[i].candidates) for i in pending], language)
            if verdicts is not None:
                judged = dict(zip(pending, verdicts))
        rows = []
        for i, (t, p, reply) in enumerate(zip(turns, parsed, replies)):
            s = matcher[i] if matcher[i] is not None else judged.get(i)
            rows.append({
                "turn": t["turn"], "reply": reply, "parsed": p.candidates, "na": p.na,
                "unparsable": p.unparsable, "matcher": matcher[i], "judge": judged.get(i),
                "score": s, "decided_by": "matcher" if matcher[i] is not None else (
                    "judge" if i in judged else "undecided"),
                "outcome": scoring.outcome(p, s, t["outdated_golds"], language)})
        value = {"turns": len(rows), "correct": sum(r["score"] or 0 for r in rows),
                 "na": sum(r["na"] for r in rows),
                 **{o: sum(r["outcome"] == o for r in rows) for o in ("outdated", "wrong")},
                 "decided_by_judge": sum(r["decided_by"] == "judge" for r in rows),
                 "undecided": sum(r["decided_by"] == "undecided" for r in rows)}
        explanation = "\n".join(
            f"turn {r['turn']}: {r['outcome']} (score {r['score']}, {r['decided_by']}): "
            f"{json.dumps(r['parsed'], ensure_ascii=False)} vs "
            f"{json.dumps(t['answer'], ensure_ascii=False)}" for r, t in zip(rows, turns))
        return Score(value=value, answer=json.dumps(replies, ensure_ascii=False),
                     explanation=explanation, metadata={"turns": rows})

    return score


@task
def convkgyarn_recall(configs: str | list[str] | None = None) -> Task:
    """Fact recall over convkgyarn conversations, scored as `convkgyarn evaluate` scores.
    ``configs``: only these configurations (``-T configs=a,b`` gives a list)."""
    if isinstance(configs, str):
        configs = configs.split(",")
    wanted = {c.strip() for c in configs or [] if c.strip()}
    dataset = json_dataset(str(HERE / SETTINGS["conversations"]), record_to_sample)
    if wanted:
        unknown = wanted - set(SETTINGS["configurations"])
        if unknown:
            raise ValueError(f"no configuration {', '.join(sorted(unknown))} in this task; it "
                             f"has {', '.join(SETTINGS['configurations'])}")
        dataset = dataset.filter(lambda s: s.metadata[CONFIG_KEY] in wanted)
    answerer = SETTINGS["answerer"]
    return Task(dataset=dataset, solver=answer_with_gold_history(),
                scorer=convkgyarn_scorer(),
                config=GenerateConfig(temperature=answerer["temperature"],
                                      max_tokens=answerer["max_tokens"]))
