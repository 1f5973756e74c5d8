"""Croissant metadata (``croissant.json``, Croissant 1.0 JSON-LD) for a Hugging Face export.

Dataset venues ask for Croissant: it says what the files are (each ``data/{config}.jsonl``
with its SHA-256) and how to read records from them. Each configuration is a record set
whose fields read the conversation record (``conversation_id``, ``config``, ``seed``, the
entity) and, as a repeated field, its turns (question, answer values as people say them,
the property asked, the Wikidata statements and the SPARQL query behind the answer, ...).

Written by hand as plain JSON (no dependency at export time) and held to the format by
the tests: ``mlcroissant`` validates it and reads every record back equal to the JSONL.
Deterministic: the same export gives the same bytes (no dates of writing).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

CONFORMS_TO = "http://mlcommons.org/croissant/1.0"
# the standard @context of Croissant 1.0 (as mlcroissant writes it)
CONTEXT: dict[str, Any] = {
    "@language": "en", "@vocab": "https://schema.org/", "citeAs": "cr:citeAs",
    "column": "cr:column", "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/", "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"}, "dct": "http://purl.org/dc/terms/",
    "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract",
    "field": "cr:field", "fileProperty": "cr:fileProperty", "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet", "format": "cr:format", "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset", "jsonPath": "cr:jsonPath", "key": "cr:key",
    "md5": "cr:md5", "parentField": "cr:parentField", "path": "cr:path",
    "recordSet": "cr:recordSet", "references": "cr:references", "regex": "cr:regex",
    "repeated": "cr:repeated", "replace": "cr:replace", "samplingRate": "cr:samplingRate",
    "sc": "https://schema.org/", "separator": "cr:separator", "source": "cr:source",
    "subField": "cr:subField", "transform": "cr:transform",
}
CITATION = ("Pradeep et al. (2024). ConvKGYarn: Spinning Configurable and Scalable "
            "Conversational Knowledge Graph QA Datasets with Large Language Models. "
            "(The method; cite the dataset as its publisher asks.)")

# (field, Croissant type, path in the record: column[.json path inside it], repeated)
CONVERSATION_FIELDS = (
    ("conversation_id", "sc:Text", "conversation_id", False),
    ("config", "sc:Text", "config.name", False),
    ("seed", "sc:Integer", "seed", False),
    ("language", "sc:Text", "language", False),
    ("fact_set_id", "sc:Text", "fact_set_id", False),
    ("plan_id", "sc:Text", "plan_id", False),
    ("entity_id", "sc:Text", "entity.id", False),
    ("entity_label", "sc:Text", "entity.label", False),
    ("entity_types", "sc:Text", "entity.types", True),
)
TURN_FIELDS = (
    ("turn", "sc:Integer", "turn"),
    ("question", "sc:Text", "question"),
    ("answer", "sc:Text", "answer"),
    ("answer_ids", "sc:Text", "answer_ids"),
    ("answer_languages", "sc:Text", "answer_languages"),
    ("subject_id", "sc:Text", "subject_id"),
    ("hop_from", "sc:Integer", "hop_from"),
    ("question_kind", "sc:Text", "question_kind"),
    ("answer_sentence", "sc:Text", "answer_sentence"),
    ("property_id", "sc:Text", "property_id"),
    ("qualifier_property_id", "sc:Text", "qualifier_property_id"),
    ("tense", "sc:Text", "tense"),
    ("phenomenon", "sc:Text", "phenomenon"),
    ("question_before_typo", "sc:Text", "question_before_typo"),
    ("statement_ids", "sc:Text", "statement_ids"),
    ("sparql", "sc:Text", "sparql"),
    ("outdated_answer", "sc:Text", "outdated_answer"),
)
DESCRIPTIONS = {
    "conversation_id": "Stable id of the conversation.",
    "config": "The configuration: interaction (voice or text) with its phenomena.",
    "seed": "The generation seed.",
    "language": "The language the conversation is said in (BCP-47: en, de, ja, zh).",
    "fact_set_id": "The facts of the conversation's plan: the same for the plan's "
                   "conversations in every language (and, with same facts, every "
                   "configuration).",
    "plan_id": "The plan the conversation says: its conversations in every language "
               "share it.",
    "entity_id": "Wikidata id of the entity the conversation is about.",
    "entity_label": "Its label in the conversation's language.",
    "entity_types": "Its types (Wikidata ids of P31, and P106 for people).",
    "turns": "The turns in order.",
    "turn": "Turn number, from 1.",
    "question": "The question (voice) or query (text).",
    "answer": "Every value that answers it, as a person says it.",
    "answer_ids": "Wikidata ids of the item values (null for dates, amounts, text).",
    "answer_languages": "The language of the label each item value is said with: the "
                        "conversation's own or a variant of it (zh-hans), else the one its "
                        "fallback found (mul, en) where it has none (null for dates, "
                        "amounts, text, yes and no).",
    "subject_id": "Wikidata id of the entity the turn asks about.",
    "hop_from": "With hops: the earlier turn whose answer the subject is.",
    "question_kind": "fact, count, verify (yes/no) or before.",
    "answer_sentence": "With sentence answers: the answer as one grounded sentence.",
    "property_id": "The Wikidata property asked.",
    "qualifier_property_id": "The qualifier asked, for a qualifier question.",
    "tense": "present or past, as the question asks.",
    "phenomenon": "The phrasing: original, deixis, disfluency, typos, ellipsis ...",
    "question_before_typo": "For typed queries: the query before its typo.",
    "statement_ids": "The Wikidata statements behind the answer.",
    "sparql": "A SPARQL query over Wikidata whose ?answer rows are the answer values.",
    "outdated_answer": "Values the fact held before (ended or superseded statements).",
}


def write_croissant(folder: Path, info: dict[str, Any]) -> Path:
    """Write ``folder/croissant.json`` for the HF export being written in ``folder``."""
    path = folder / "croissant.json"
    path.write_text(json.dumps(croissant(folder, info), indent=2, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    return path


def croissant(folder: Path, info: dict[str, Any]) -> dict[str, Any]:
    """The metadata of the HF export in ``folder`` (its ``data/*.jsonl`` already written);
    ``info`` is the export's summary (counts, dump date)."""
    distribution, record_sets = [], []
    for path in sorted((folder / "data").glob("*.jsonl")):
        file_id = f"data/{path.name}"
        distribution.append({
            "@type": "cr:FileObject", "@id": file_id, "name": file_id,
            "description": f"The conversations of configuration {path.stem}, one a line.",
            "contentUrl": file_id, "encodingFormat": "application/jsonlines",
            "sha256": _sha256(path)})
        record_sets.append(_record_set(path.stem, file_id))
    configs = ", ".join(f"{name} ({n})" for name, n in info["configurations"].items())
    source = f"dump of {info['dump_date']}" if info.get("dump_date") else "snapshot"
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": "convkgyarn-conversations",
        "description": (
            "Conversational question answering over Wikidata, generated by convkgyarn (the "
            f"ConvKGYarn method) from a Wikidata {source}: {info['conversations']} "
            f"conversations, {info['turns']} turns over "
            f"{info['distinct_facts']} facts. Configurations (conversations): {configs}. "
            "Each turn carries its gold answer, the Wikidata statements behind it and a "
            "SPARQL query that checks it."),
        "conformsTo": CONFORMS_TO,
        "license": "https://creativecommons.org/publicdomain/zero/1.0/",
        "citeAs": CITATION,
        "keywords": ["conversational question answering", "knowledge graph", "Wikidata",
                     "LLM evaluation"],
        "rai:dataCollection": (
            "Generated, not collected: questions come from templates (written by rules or "
            "an LLM and validated) filled with facts of the Wikidata dump; answers are the "
            "dump's values. No person wrote or annotated a turn."),
        "rai:personalSensitiveInformation": (
            "Facts about public Wikidata entities, many of them living people (dates of "
            "birth, spouses, positions). Properties that are sensitive personal data "
            "(sex or gender, ethnic group, sexual orientation, medical condition) are never "
            "asked."),
        "distribution": distribution,
        "recordSet": record_sets,
    }


def _record_set(name: str, file_id: str) -> dict[str, Any]:
    def field(field_id: str, label: str, dtype: str, path: str, repeated: bool) -> dict:
        column, _, inner = path.partition(".")
        source: dict[str, Any] = {"fileObject": {"@id": file_id},
                                  "extract": {"column": column}}
        if inner:
            source["transform"] = {"jsonPath": inner}
        out = {"@type": "cr:Field", "@id": field_id, "name": label,
               "description": DESCRIPTIONS[label], "dataType": dtype, "source": source}
        if repeated:
            out["repeated"] = True
        return out

    fields = [field(f"{name}/{label}", label, dtype, path, repeated)
              for label, dtype, path, repeated in CONVERSATION_FIELDS]
    fields.append({
        "@type": "cr:Field", "@id": f"{name}/turns", "name": "turns",
        "description": DESCRIPTIONS["turns"], "dataType": "sc:Text", "repeated": True,
        "subField": [field(f"{name}/turns/{label}", label, dtype, f"turns.{path}", True)
                     for label, dtype, path in TURN_FIELDS]})
    return {"@type": "cr:RecordSet", "@id": name, "name": name,
            "description": f"Conversations of configuration {name}.",
            "key": {"@id": f"{name}/conversation_id"}, "field": fields}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
