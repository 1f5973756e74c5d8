"""Export conversations: JSONL, Parquet, or a Hugging Face dataset folder with a card."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa
import pyarrow.parquet as pq

from convkgyarn import export_schema
from convkgyarn.config import LLMConfig
from convkgyarn.export_schema import TURN_FIELDS
from convkgyarn.kg.ids import is_item, is_property
from convkgyarn.llm import new_meter
from convkgyarn.memory import gc_paused
from convkgyarn.outputs import (
    CONVERSATIONS_JSONL, CONVERSATIONS_PARQUET, HF_FOLDER, SUMMARY_JSON, OutputKind,
    replacing_file, replacing_folder)
from convkgyarn.store import registered

# how each exported field is read from the turns table
_TURN_SQL = {f: f"t.{f}" for f in TURN_FIELDS} | {
    "statement_ids": "string_split(t.statement_id, ',')", "sparql": "t.query_id"}


CHUNK = 5000  # conversations read at once by iter_records


def records(con: duckdb.DuckDBPyConnection, runs: list[str]) -> list[dict[str, Any]]:
    """One record per conversation, in a stable order, with its provenance."""
    if not runs:
        return []
    with gc_paused():
        return list(iter_records(con, runs))


def iter_records(con: duckdb.DuckDBPyConnection, runs: list[str],
                 chunk: int = CHUNK) -> Iterator[dict[str, Any]]:
    """``records()`` read ``chunk`` conversations at a time: memory stays bounded whatever
    the number of conversations (the main job's files are written this way). Ordered by
    configuration, then the order conversations were made in (then run, where several
    runs of one configuration are read together)."""
    if not runs:
        return
    run_info = {r[0]: r[1:] for r in con.execute(
        "SELECT run_id, config, seed, dump_date, code_version, config_name FROM generation_runs "
        "WHERE list_contains(?, run_id)", [runs]).fetchall()}
    configs = {run_id: json.loads(info[0]) for run_id, info in run_info.items()}
    provenance: dict[frozenset, list[dict]] = {}  # the same few writer sets, built once
    after: tuple | None = None
    while True:
        with gc_paused():
            recs, after = _chunk(con, runs, run_info, configs, provenance, after, chunk)
        yield from recs
        if after is None:
            return


def _chunk(con: duckdb.DuckDBPyConnection, runs: list[str], run_info: dict, configs: dict,
           provenance: dict, after: tuple | None, size: int
           ) -> tuple[list[dict[str, Any]], tuple | None]:
    """The records of the next ``size`` conversations after ``after`` (config name,
    ordinal, run id), and where the next chunk starts (None: none is left)."""
    where, params = "", [runs]
    if after is not None:
        where = (" AND (config_name > ? OR (config_name = ? AND (ordinal > ? OR (ordinal = ? "
                 "AND (run_id > ? OR (run_id = ? AND coalesce(language, 'en') > ?))))))")
        params += [after[0], after[0], after[1], after[1], after[2], after[2], after[3]]
    # one plan's conversations in several languages share its ordinal: they follow each
    # other, by language code
    convs = con.execute(
        "SELECT conversation_id, run_id, seed, entity_id, entity_label, entity_types, "
        "related_entity_id, related_entity_label, entity_type, config_name, ordinal, "
        "coalesce(language, 'en') AS lang, fact_set_id, coalesce(plan_id, conversation_id) "
        "FROM "
        f"conversations WHERE list_contains(?, run_id){where} "
        "ORDER BY config_name, ordinal, run_id, lang LIMIT ?", params + [size]).fetchall()
    if not convs:
        return [], None
    turns: dict[tuple[str, str], list[dict]] = {}
    made_by: dict[tuple[str, str], set[tuple]] = {}
    json_at = [TURN_FIELDS.index(f) for f in ("answer_values", "outdated_values", "change")]
    key, conv_turns, conv_made_by = None, [], set()
    with registered(con, "_chunk", {"run_id": [c[1] for c in convs],
                                    "conversation_id": [c[0] for c in convs]}) as view:
        for row in con.execute(
                f"SELECT t.run_id, t.conversation_id, t.writer, t.model, t.prompt_hash, "
                f"{', '.join(_TURN_SQL[f] for f in TURN_FIELDS)} "
                f"FROM turns t JOIN {view} c ON c.run_id = t.run_id AND c.conversation_id = "
                "t.conversation_id ORDER BY t.run_id, t.conversation_id, t.turn").fetchall():
            if (row[0], row[1]) != key:  # rows come grouped by conversation
                key = (row[0], row[1])
                conv_turns = turns[key] = []
                conv_made_by = made_by[key] = set()
            fields = list(row[5:])
            for i in json_at:
                if fields[i]:
                    fields[i] = orjson.loads(fields[i])
            conv_turns.append(dict(zip(TURN_FIELDS, fields)))
            conv_made_by.add(row[2:5])
        # each query's text once (turns hold its id)
        queries = dict(con.execute(
            "SELECT query_id, sparql FROM turn_queries WHERE query_id IN (SELECT t.query_id "
            f"FROM turns t JOIN {view} c ON c.run_id = t.run_id AND c.conversation_id = "
            "t.conversation_id)").fetchall())
    for conv in turns.values():
        for t in conv:
            t["sparql"] = queries.get(t["sparql"])
    out = []
    for (cid, run_id, seed, eid, elabel, etypes, rid, rlabel, etype, _, _, lang,
         fact_set, plan) in convs:
        _, _, dump_date, version, name = run_info[run_id]
        conv_turns = turns.get((run_id, cid), [])
        # the writer, model and prompt of each turn's template as it was when the turn was
        # made (stored with the turn: templates may have been rewritten since)
        key = frozenset(made_by.get((run_id, cid), ()))
        used = provenance.get(key)
        if used is None:
            used = provenance[key] = sorted(
                ({"model": m, "prompt_hash": h, "writer": w} for w, m, h in key),
                key=lambda d: json.dumps(d, sort_keys=True))
        out.append({
            "conversation_id": cid,
            "config": {"name": name, **configs[run_id]},
            "seed": seed,
            "language": lang,
            "fact_set_id": fact_set,
            "plan_id": plan,
            "entity": {"id": eid, "label": elabel, "types": etypes},
            "related_entity": {"id": rid, "label": rlabel} if rid else None,
            "turns": conv_turns,
            "provenance": {"run_id": run_id, "dump_date": dump_date, "code_version": version,
                           "entity_type": etype, "templates": used},
        })
    last = convs[-1]
    return out, ((last[9], last[10], last[1], last[11]) if len(convs) == size else None)


def write_jsonl(recs: Iterable[dict], path: Path, *, force: bool = False,
                protected: Iterable[Path] = ()) -> Path:
    """Conversations as JSON lines; replaces ``path`` only when complete, and only when it
    is a previous JSONL export (or empty, or ``force``): see ``convkgyarn.outputs``."""
    with replacing_file(path, CONVERSATIONS_JSONL, force=force, protected=protected) as tmp:
        _jsonl(recs, tmp)
    return path


def _jsonl(recs: Iterable[dict], path: Path) -> None:
    with open(path, "wb") as fh:
        for r in recs:
            fh.write(orjson.dumps(r) + b"\n")


def write_json(data: Any, path: Path, kind: OutputKind = SUMMARY_JSON, *, force: bool = False,
               protected: Iterable[Path] = ()) -> Path:
    with replacing_file(path, kind, force=force, protected=protected) as tmp:
        tmp.write_text(json.dumps(data, indent=2) + "\n")
    return path


def write_parquet(recs: Iterable[dict], path: Path, *, force: bool = False,
                  protected: Iterable[Path] = (), chunk: int = CHUNK) -> Path:
    """One row per conversation, with ``export_schema.CONVERSATION`` (``config`` and
    ``provenance`` nested structs, as in JSONL and the hf folder), written a row group of
    ``chunk`` records at a time: memory stays bounded however many there are. The schema's
    metadata names convkgyarn, so a later export recognises the file as its own."""
    schema = export_schema.CONVERSATION.with_metadata(
        {"convkgyarn": json.dumps({"kind": "conversations", "written_by": _written_by()})})
    with replacing_file(path, CONVERSATIONS_PARQUET, force=force, protected=protected) as tmp:
        with pq.ParquetWriter(tmp, schema) as writer:
            batch: list[dict] = []
            for rec in recs:
                batch.append(rec)
                if len(batch) == chunk:
                    writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                    batch = []
            if batch:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    return path


def _written_by() -> str:
    from convkgyarn import __version__

    return f"convkgyarn {__version__}"


class Summary:
    """The main job's summary, gathered record by record (so records can stream past it)."""

    def __init__(self) -> None:
        self.conversations = self.turns = self.followups = self.hops = self.ellipses = 0
        self.topics = 0
        self.configurations: Counter = Counter()
        self.languages: Counter = Counter()
        self.types: Counter = Counter()
        self.predicates: Counter = Counter()
        self.phenomena: Counter = Counter()
        self.writers: Counter = Counter()
        self.facts: set[tuple] = set()
        self.runs: dict[str, set[str]] = {}
        self.dump_date: str | None = None

    def add(self, rec: dict[str, Any]) -> dict[str, Any]:
        if not self.conversations:
            self.dump_date = rec["provenance"]["dump_date"]
        self.conversations += 1
        self.configurations[rec["config"]["name"]] += 1
        self.languages[rec.get("language") or "en"] += 1
        self.runs.setdefault(rec["config"]["name"], set()).add(rec["provenance"]["run_id"])
        self.types[rec["provenance"]["entity_type"]] += 1
        self.writers.update(tp["writer"] + (f" ({tp['model']})" if tp.get("model") else "")
                            for tp in rec["provenance"]["templates"])
        self.topics += len({t["subject_id"] for t in rec["turns"]})
        for t in rec["turns"]:
            self.turns += 1
            self.facts.add((t["subject_id"], t["property_id"], t["qualifier_property_id"]))
            self.predicates[t["property_id"]] += 1
            self.phenomena[t["phenomenon"]] += 1
            if t["turn"] > 1:
                self.followups += 1
                self.hops += t.get("hop_from") is not None
                self.ellipses += t["phenomenon"].startswith("ellipsis")
        return rec

    def flow(self) -> dict[str, Any]:
        """How conversations move: turns per conversation, entities talked about, the share
        of follow-ups that move to an earlier answer (hops) or leave the subject out
        (ellipsis)."""
        n, convs = max(self.followups, 1), max(self.conversations, 1)
        return {"mean_turns": round(self.turns / convs, 2),
                "mean_topics": round(self.topics / convs, 2),
                "hop_followups": round(self.hops / n, 3),
                "ellipsis_followups": round(self.ellipses / n, 3)}

    def result(self, con: duckdb.DuckDBPyConnection, llm: LLMConfig) -> dict[str, Any]:
        """The summary: counts, and every type and property with its English label (the
        ``class_labels`` view: entities, property entities, --labels files, as generation
        named them; never a --value-labels file's) beside its id; ids of Wikidata's form that
        have none are listed under ``labels_missing``."""
        facts = len(self.facts)
        labels = labels_of(con, [*self.types, *self.predicates])
        missing = {"types": _unlabelled(self.types, labels, is_item),
                   "predicates": _unlabelled(self.predicates, labels, is_property)}
        return {
            "conversations": self.conversations,
            "turns": self.turns,
            "configurations": dict(sorted(self.configurations.items())),
            "languages": dict(sorted(self.languages.items())),
            "runs": {name: sorted(runs) for name, runs in sorted(self.runs.items())},
            "types": _labelled(self.types, labels, "conversations"),
            "predicates": _labelled(self.predicates, labels, "turns"),
            "labels_missing": {k: v for k, v in missing.items() if v},
            "phenomena": dict(sorted(self.phenomena.items())),
            "distinct_facts": facts,
            "flow": self.flow(),
            "questions_per_fact": round(self.turns / facts, 3) if facts else 0,
            "dump_date": self.dump_date,
            "template_writers": dict(sorted(self.writers.items())),
            "llm_cost_usd": llm_cost(con, llm),
        }


def labels_of(con: duckdb.DuckDBPyConnection, ids: Iterable[str | None]) -> dict[str, str]:
    """The English label of each type or property id that has one (the ``class_labels``
    view: as generation named them)."""
    wanted = sorted({i for i in ids if i})
    if not wanted:
        return {}
    return dict(con.execute("SELECT id, label FROM class_labels WHERE list_contains(?, id) "
                            "AND label IS NOT NULL", [wanted]).fetchall())


def _labelled(counts: Counter, labels: dict[str, str], what: str) -> dict[str, dict]:
    """``{id: {"label", what}}``, the most frequent first (then by id)."""
    return {str(k): {"label": labels.get(k), what: n}
            for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], str(kv[0])))}


def _unlabelled(counts: Counter, labels: dict[str, str], is_id) -> list[str]:
    return sorted(k for k in counts if is_id(k) and k not in labels)


def with_label(key: str, entry: dict[str, Any]) -> str:
    """How a person reads an id: "human (Q5)", or "Q123 (no English label)"."""
    label = entry.get("label")
    if label:
        return f"{label} ({key})"
    return f"{key} (no English label)" if is_item(key) or is_property(key) else key


def missing_labels_note(info: dict[str, Any]) -> str | None:
    """One sentence saying how many types and properties have no English label, or None."""
    missing = info.get("labels_missing") or {}
    types, props = len(missing.get("types", ())), len(missing.get("predicates", ()))
    parts = ([f"{types} type{'s' if types > 1 else ''}"] if types else []) + \
        ([f"{props} propert{'ies' if props > 1 else 'y'}"] if props else [])
    if not parts:
        return None
    return (f"{' and '.join(parts)} {'has' if types + props == 1 else 'have'} no English "
            "label in the loaded files (shown by id): `kg load --labels FILE` adds labels")


def summary(con: duckdb.DuckDBPyConnection, recs: list[dict], llm: LLMConfig) -> dict[str, Any]:
    gathered = Summary()
    for rec in recs:
        gathered.add(rec)
    return gathered.result(con, llm)


def flow(recs: list[dict]) -> dict[str, Any]:
    gathered = Summary()
    for rec in recs:
        gathered.add(rec)
    return gathered.flow()


def llm_cost(con: duckdb.DuckDBPyConnection, llm: LLMConfig) -> dict[str, Any]:
    """Tokens and USD per stage recorded in the response cache."""
    meter = new_meter(llm)
    out = {}
    for stage, model, p, c, n in con.execute(
            "SELECT stage, model, sum(prompt_tokens), sum(completion_tokens), count(*) "
            "FROM llm_cache GROUP BY 1, 2 ORDER BY 1, 2").fetchall():
        entry = out.setdefault(stage, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0,
                                       "usd": 0.0})
        entry["calls"] += n
        entry["prompt_tokens"] += p
        entry["completion_tokens"] += c
        entry["usd"] = round(entry["usd"] + meter.cost(model, p, c), 6)
    return out


def write_hf(recs: Iterable[dict], folder: Path,
             summarise: Callable[[Summary], dict[str, Any]], *,
             protected: Iterable[Path] = ()) -> Path:
    """A folder ``datasets.load_dataset`` reads: ``data/CONFIG.jsonl`` per configuration,
    a dataset card whose ``dataset_info`` gives every configuration the same features
    (``export_schema``), Croissant metadata, and our marker file. Records stream through
    (they come ordered by configuration), the summary gathered on the way
    (``summarise`` turns it into the card's figures). It replaces ``folder`` whole once
    everything is written, and only when that folder is new, empty or a previous export of
    ours (never a folder of other files, never the current folder)."""
    from convkgyarn.croissant import write_croissant

    with replacing_folder(folder, HF_FOLDER, command="export --format hf",
                          protected=protected) as tmp:
        gathered = Summary()
        names = _hf_data(map(gathered.add, recs), tmp / "data")
        info = summarise(gathered)
        _hf_card(tmp, names, info)
        write_croissant(tmp, info)  # croissant.json beside the card: dataset venues ask for it
    return folder


def _hf_data(recs: Iterable[dict], data: Path) -> list[str]:
    """Each configuration's records to ``data/NAME.jsonl``, one file open at a time;
    returns the configuration names in order."""
    data.mkdir(parents=True, exist_ok=True)
    names: list[str] = []
    fh = None
    try:
        for rec in recs:
            name = rec["config"]["name"]
            if not names or names[-1] != name:
                if name in names:
                    raise ValueError(f"records of configuration {name} are not together")
                if fh is not None:
                    fh.close()
                names.append(name)
                fh = open(data / f"{name}.jsonl", "wb")
            fh.write(orjson.dumps(rec) + b"\n")
    finally:
        if fh is not None:
            fh.close()
    return names


def _hf_card(folder: Path, names: list[str], info: dict[str, Any]) -> None:
    yaml_configs = "\n".join(
        f"- config_name: {name}\n  data_files:\n  - split: train\n    path: data/{name}.jsonl"
        for name in names)
    default = names[0] if names else "default"
    missing = missing_labels_note(info)
    languages_yaml = "\n".join(f"- {code}" for code in (info.get("languages") or {"en": 0}))
    card = f"""---
configs:
{yaml_configs}
{export_schema.hf_features_yaml(names)}
license: cc0-1.0
language:
{languages_yaml}
task_categories:
- question-answering
tags:
- conversational-qa
- knowledge-graph
- wikidata
- convkgyarn
---

# Conversational KGQA from Wikidata (convkgyarn)

Conversations generated by convkgyarn (the ConvKGYarn method) from a Wikidata snapshot.
Load one configuration with `datasets.load_dataset(PATH, "{default}")`; every
configuration has the same features, so `datasets.concatenate_datasets` joins them.

## Configuration and counts

{_md_table(info["configurations"], "configuration", "conversations")}

- conversations: {info["conversations"]}, turns: {info["turns"]}
- distinct facts: {info["distinct_facts"]}, questions per fact: {info["questions_per_fact"]}
- source Wikidata dump date: {info["dump_date"]}

## Types (conversation subjects)

{_md_table(_readable(info["types"], "conversations"), "type", "conversations")}

## Predicates asked

{_md_table(_readable(info["predicates"], "turns"), "property", "turns")}
{chr(10) + missing + chr(10) if missing else ""}
## Phenomena

{_md_table(info["phenomena"], "phenomenon", "turns")}

## Conversation flow

{_md_table(info.get("flow", {}), "measure", "value")}

`hop_followups`: follow-ups about an item an earlier turn answered (`--hops`, each such turn
names it in `hop_from`); `ellipsis_followups`: follow-ups that leave the subject out
(`--ellipsis`); `mean_topics`: entities a conversation talks about.

## Writers and models

Template writers (rules: the deterministic built-in writer; llm: the templater model):

{_md_table(info["template_writers"], "writer", "conversations using it")}

LLM cost recorded for this project (USD from the configured price table):

```json
{json.dumps(info["llm_cost_usd"], indent=2)}
```

## Record format

One record per conversation: `conversation_id`, `config`, `seed`, `language` (BCP-47; a
configuration made in several languages has one conversation per language for each plan,
over the same statements turn by turn), `fact_set_id` (the plan's facts: equal across a
plan's languages), `entity` (`id`, `label` in that language,
`types`), `plan_id` (the plan: its conversations in every language share it),
`related_entity`, `turns` (`turn`, `question`, `answer` (written for people:
labels, dates in words, amounts with units), `answer_values` (the exact values: `{"id"}`,
`{"time", "precision"}`, `{"amount", "unit"}` or `{"text"}`), `answer_ids`,
`answer_languages` (the language of the label each item value is said with: the
conversation's or a variant of it, else the fallback's, "mul" or "en"; null for dates,
amounts, yes and no), `subject_id`
(whom the turn asks about), `hop_from` (with `--hops`: the earlier turn whose answer the
subject is, else null), `question_kind` (fact, or with `--kind`: count, verify, before),
`answer_sentence` (with `--answer-style sentence`), `property_id`, `qualifier_property_id`, `tense`, `phenomenon`, `template_id`,
`question_before_typo`, `statement_ids` (the Wikidata statements behind the answer) and
`sparql` (a query over Wikidata's RDF model whose `?answer` rows are exactly
`answer_values`: run it, or `convkgyarn verify`, to see whether the fact still holds),
`outdated_answer`, `outdated_values` and `change` (what the fact held before, and for
`--changed-since` probes when it changed)) and `provenance` (run, dump date, code version,
template writers, models and prompt hashes). The features in this card's `dataset_info`
are the same for every configuration: read through `datasets` (or from Parquet), a value
of `answer_values` has all of `id`, `time`, `precision`, `amount`, `unit` and `text`, the
ones it does not use null.
"""
    (folder / "README.md").write_text(card, encoding="utf-8")


def _readable(entries: dict[str, dict], what: str) -> dict[str, int]:
    """``{"label (id)": count}`` of a summary's labelled counts."""
    return {with_label(k, e): e[what] for k, e in entries.items()}


def _md_table(counts: dict[str, int], key: str, value: str) -> str:
    lines = [f"| {key} | {value} |", "|---|---|"]
    lines += [f"| {str(k).replace('|', chr(92) + '|')} | {v} |" for k, v in counts.items()]
    return "\n".join(lines)
