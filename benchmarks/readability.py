"""Readability detectors (issue #33) for what ../shared/tools/flow_defects.py does not count,
per configuration of an export, with examples:

- ``same_answer_any``: conversations in which two turns about the same subject have the
  same answer, qualifier turns included (flow_defects counts plain facts; "founded 2007"
  and "opened 2007" are one question asked twice whatever the property).
- ``data_date``: follow-ups asking when a figure held ("As of when?" after a population),
  a share of follow-ups: a reader hears a database, not a person.
- ``trivia_opener``: conversations whose first question is not a good opener
  (``salience.good_opener``: languages spoken, time zone, heritage designation, ...).
- ``long_name_repeated``: spoken conversations that say a long name that has a short form
  (``naming.short_name``: "Sir John Ramsden, 5th Baronet") in three questions or more.
- ``type_reference``: follow-ups that point back with "this <type>" ("this college town");
  flow_defects counts multi-word type labels only, this counts any "this <noun>".
- ``built_on`` (a share to raise, not a defect): conversations with a turn that builds on
  an earlier answer, as readers found the best conversations do: a yes/no, count, "before"
  or span question, a date of the statement just named ("Since when?"), a side topic
  (``hop_from``), or a question about what the turn before named ("Where was that?",
  "Which part of Poland is it in?", "What are their names?").

Each detector reads only the exported records, so it can be run on any export:
``python benchmarks/readability.py EXPORT.jsonl`` prints one JSON line per configuration.
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from convkgyarn.stages.naming import short_name  # noqa: E402
from convkgyarn.stages.salience import good_opener  # noqa: E402

THIS_REFERENCE = re.compile(r"\bthis (?!person\b)[a-z]+", re.I)
EXAMPLES = 3


def value_kind(turn: dict) -> str:
    values = turn.get("answer_values") or []
    first = values[0] if values else {}
    if "quantity" in first or "amount" in first:
        return "quantity"
    if "time" in first:
        return "time"
    return "thing"


REFERS_BACK = re.compile(r"\b(that|they|them|their)\b", re.I)


def builds_on(t: dict, before: dict | None) -> bool:
    """Whether a turn builds on the answer before it (see ``built_on``)."""
    if before is None:
        return False
    if t.get("question_kind", "fact") != "fact" or t.get("hop_from") is not None:
        return True
    if t.get("qualifier_property_id") and t["property_id"] == before["property_id"]:
        return True
    q = t["question"].lower()
    return bool(REFERS_BACK.search(q)) or any(
        len(a) >= 3 and a.lower() in q for a in before.get("answer") or [])


def detect(records: list[dict], type_labels: dict[str, str] | None = None) -> dict[str, dict]:
    """Counts, shares and examples per configuration (``type_labels``: id -> label, for
    the opener check; without it the opener is judged by its property alone)."""
    labels = type_labels or {}
    counts: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    examples: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))

    def example(config: str, name: str, text: str) -> None:
        if len(examples[config][name]) < EXAMPLES:
            examples[config][name].append(text)

    for r in records:
        config = r["config"]["name"]
        voice = r["config"].get("interaction") == "voice"
        c = counts[config]
        c["conversations"] += 1
        turns = r["turns"]
        seen: dict[tuple, dict] = {}
        repeated = False
        for t in turns:
            key = (t["subject_id"], tuple(sorted(t["answer"])))
            if t["answer"] and t.get("question_kind", "fact") in ("fact", "before"):
                if key in seen and not repeated:
                    repeated = True
                    example(config, "same_answer_any",
                            f"{seen[key]['question']} / {t['question']} -> {t['answer']}")
                seen.setdefault(key, t)
        c["same_answer_any"] += repeated
        by_turn = {t["turn"]: t for t in turns}
        if any(builds_on(t, by_turn.get(t["turn"] - 1)) for t in turns[1:]):
            c["built_on"] += 1
        for t in turns[1:]:
            c["follow_ups"] += 1
            if THIS_REFERENCE.search(t["question"]):
                c["type_reference"] += 1
                example(config, "type_reference", t["question"])
            if t.get("qualifier_property_id") == "P585":
                before = by_turn.get(t["turn"] - 1)
                if before and before.get("property_id") == t["property_id"] and \
                        value_kind(before) == "quantity":
                    c["data_date"] += 1
                    example(config, "data_date", f"{before['question']} -> "
                            f"{before['answer']} / {t['question']}")
        first = turns[0] if turns else None
        if first is not None:
            entity = r["entity"]
            type_id = (r.get("provenance") or {}).get("entity_type")
            human = "Q5" in (entity.get("types") or [])
            if first.get("question_kind", "fact") == "fact" and not good_opener(
                    first["property_id"], first.get("qualifier_property_id"),
                    labels.get(type_id), value_kind(first), human=human or None):
                c["trivia_opener"] += 1
                example(config, "trivia_opener", f"{entity['label']}: {first['question']}")
        name = r["entity"]["label"]
        if voice and short_name(name, "Q5" in (r["entity"].get("types") or [])):
            said = sum(name.lower() in t["question"].lower() for t in turns)
            if said >= 3:
                c["long_name_repeated"] += 1
                example(config, "long_name_repeated", f"{name}: said {said} times")
    out = {}
    for config, c in sorted(counts.items()):
        conv, follow = max(c["conversations"], 1), max(c["follow_ups"], 1)
        out[config] = {
            "conversations": c["conversations"],
            "same_answer_any": round(c["same_answer_any"] / conv, 4),
            "trivia_opener": round(c["trivia_opener"] / conv, 4),
            "long_name_repeated": round(c["long_name_repeated"] / conv, 4),
            "data_date": round(c["data_date"] / follow, 4),
            "type_reference": round(c["type_reference"] / follow, 4),
            "built_on": round(c["built_on"] / conv, 4),
            "examples": {k: v for k, v in examples[config].items()},
        }
    return out


def main() -> None:
    export = Path(sys.argv[1])
    labels = json.loads(Path(sys.argv[sys.argv.index("--labels") + 1]).read_text()) \
        if "--labels" in sys.argv else None
    records = [json.loads(line) for line in export.read_text().splitlines() if line]
    for config, figures in detect(records, labels).items():
        print(config, json.dumps(figures, ensure_ascii=False))


if __name__ == "__main__":
    main()
