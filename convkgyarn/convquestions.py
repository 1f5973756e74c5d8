"""Import conversations in ConvQuestions' JSON format, to evaluate and compare them like ours."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import duckdb

from convkgyarn.conversations import IMPORTED, RunRecord, store_run
from convkgyarn.errors import ImportError_
from convkgyarn.runtime import code_version

_QID = re.compile(r"wikidata\.org/(?:wiki|entity)/(Q\d+)")
CONFIG_NAME = "convquestions"


def import_convquestions(con: duckdb.DuckDBPyConnection, path: Path) -> tuple[str, int]:
    """Store the file's conversations as one run; returns (run id, conversations)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ImportError_(f"{path}: not readable JSON ({exc})") from exc
    if not isinstance(data, list):
        raise ImportError_(f"{path}: expected a list of conversations")
    if not data:
        raise ImportError_(f"{path}: holds no conversations (an empty list)")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    run_id = f"convquestions-{digest}"
    convs, turns = [], []
    seen: set[str] = set()
    for n, conv in enumerate(data):
        where = f"{path}: conversation {n}"
        try:
            seed_url = conv["seed_entity"]
            questions = conv["questions"]
        except (KeyError, TypeError) as exc:
            raise ImportError_(f"{where}: missing field {exc}") from None
        for name in ("seed_entity", "seed_entity_text", "domain"):  # text, or left out
            if conv.get(name) is not None and not isinstance(conv[name], str):
                raise ImportError_(f"{where}: '{name}' must be text, not "
                                   f"{type(conv[name]).__name__}")
        m = _QID.search(seed_url or "")
        seed = m.group(1) if m else seed_url
        cid = f"cq-{conv.get('conv_id', n)}"
        if cid in seen:
            raise ImportError_(f"{where}: conv_id {conv.get('conv_id')!r} appears twice")
        seen.add(cid)
        convs.append({"conversation_id": cid, "config_name": CONFIG_NAME,
                      "seed": 0, "entity_id": seed,
                      "entity_label": conv.get("seed_entity_text") or seed,
                      "entity_type": conv.get("domain"), "entity_types": [conv.get("domain")]
                      if conv.get("domain") else [], "related_entity_id": None,
                      "related_entity_label": None, "fact_set_id": None, "ordinal": n})
        if not isinstance(questions, list) or not all(isinstance(q, dict) for q in questions):
            raise ImportError_(f"{where}: 'questions' must be a list of objects")
        if not questions:
            raise ImportError_(f"{where}: has no questions")
        # turns numbered 1..n in the file's turn order (a number stored twice would be ambiguous)
        ordered = sorted(questions, key=lambda q: q.get("turn", 0)
                         if isinstance(q.get("turn", 0), int) else 0)
        for k, q in enumerate(ordered, start=1):
            if "question" not in q or "answer" not in q:
                raise ImportError_(f"{where}, question {k}: needs 'question' and 'answer'")
            if not isinstance(q["question"], str):
                raise ImportError_(f"{where}, question {k}: 'question' must be text, not "
                                   f"{type(q['question']).__name__}")
            raw = [a.strip() for a in str(q["answer"]).split(";") if a.strip()]
            ids = [(_QID.search(a).group(1) if _QID.search(a) else None) for a in raw]
            texts = [t.strip() for t in str(q.get("answer_text") or "").split(";") if t.strip()]
            labels = texts if len(texts) == len(raw) else [
                (texts[0] if texts and len(raw) == 1 else (i or a)) for a, i in zip(raw, ids)]
            turns.append({"conversation_id": cid, "turn": k, "question": q["question"],
                          "question_before_typo": None, "answer": labels, "answer_ids": ids,
                          "subject_id": seed, "property_id": None, "qualifier_property_id": None,
                          "statement_id": None, "phenomenon": "original", "template_id": None,
                          "writer": "convquestions"})
    store_run(con, RunRecord(run_id, CONFIG_NAME, {"source": str(path)}, 0, source=IMPORTED,
                             code_version=code_version()), convs, turns)
    return run_id, len(convs)
