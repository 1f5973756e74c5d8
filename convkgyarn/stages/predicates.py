"""Predicates per type: F(t), every property used by the entities of type t, and G(t, F(t)),
the ones worth asking about, chosen by an LLM or by rules."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime, timezone
from typing import Any

import duckdb
from pydantic import BaseModel, Field

from convkgyarn.config import LLMConfig, PredicatesConfig
from convkgyarn.llm import CostMeter, LLMRequest, build_client
from convkgyarn.prompts import load_prompt
from convkgyarn.stage import Stage

SELECTION_SCHEMA = """
CREATE TABLE IF NOT EXISTS selected_predicates (
    type_id VARCHAR, property_id VARCHAR, qualifier_property_id VARCHAR,
    selected_by VARCHAR, model VARCHAR, prompt_hash VARCHAR, input_hash VARCHAR,
    run_id VARCHAR, created_at TIMESTAMP
);
CREATE TABLE IF NOT EXISTS selection_inputs (
    type_id VARCHAR, input_hash VARCHAR, selected_by VARCHAR, run_id VARCHAR
);
"""

# Value types that never make a spoken factoid answer.
EXCLUDED_DATATYPES = {
    "external-id", "commonsMedia", "commonsmedia", "url", "geo-shape", "tabular-data", "math",
    "musical-notation", "wikibase-lexeme", "wikibase-form", "wikibase-sense", "entity-schema",
    "wikibase-property", "globe-coordinate",
}
# Curated exclusions: names (obvious from the question), housekeeping, ontology, sensitive.
EXCLUDED_PROPERTIES = {
    "P31": "instance of (the type itself)", "P279": "subclass of (ontology)",
    "P735": "given name", "P734": "family name", "P1559": "name in native language",
    "P1477": "birth name", "P1449": "nickname", "P742": "pseudonym", "P1813": "short name",
    "P1448": "official name", "P2561": "name", "P1705": "native label", "P373": "Commons category",
    "P910": "topic's main category", "P935": "Commons gallery", "P1343": "described by source",
    "P5008": "on focus list of Wikimedia project", "P1889": "different from",
    "P460": "said to be the same as", "P2888": "exact match", "P1424": "topic's main template",
    "P6104": "maintained by WikiProject", "P21": "sex or gender", "P172": "ethnic group",
    "P1050": "medical condition", "P143": "imported from Wikimedia project",
    "P18": "image", "P8687": "social media followers",
}
# Qualifiers worth a question when no LLM chooses them.
USEFUL_QUALIFIER_DATATYPES = {"time"}
USEFUL_QUALIFIERS = {"P453": "character role", "P1686": "for work", "P642": "of"}
MAX_PER_CALL = 50


class Selection(BaseModel):
    selected: list[str] = Field(description="chosen property ids")
    qualifiers: dict[str, list[str]] = Field(default_factory=dict)


class ExtractPredicates(Stage):
    """Build ``type_predicates``: per type, each property with how many of its entities use it."""

    name = "predicates.extract"

    def __init__(self, con: duckdb.DuckDBPyConnection, config: PredicatesConfig,
                 run_id: str | None = None) -> None:
        super().__init__(con, run_id)
        self.config = config

    def process(self) -> dict[str, Any]:
        con = self.con
        con.execute("BEGIN")
        con.execute("DELETE FROM type_predicates")
        con.execute(
            """
            INSERT INTO type_predicates
            WITH sized AS (
                SELECT type_id, count(DISTINCT entity_id) AS n FROM entity_types GROUP BY 1
                HAVING count(DISTINCT entity_id) >= ?
            ), typed AS (
                SELECT DISTINCT t.type_id, t.entity_id FROM entity_types t
                JOIN sized USING (type_id)
            )
            SELECT t.type_id, f.property_id, count(*) AS entities, any_value(s.n),
                   count(*) / any_value(s.n),
                   count(*) FILTER (WHERE f.kind = 'simple'),
                   count(*) FILTER (WHERE f.kind = 'complex'),
                   count(*) FILTER (WHERE f.kind = 'qualified')
            FROM typed t JOIN facts f ON f.entity_id = t.entity_id
            JOIN sized s ON s.type_id = t.type_id
            GROUP BY t.type_id, f.property_id
            """,
            [self.config.min_type_entities],
        )
        con.execute("COMMIT")
        types, rows = con.execute(
            "SELECT count(DISTINCT type_id), count(*) FROM type_predicates").fetchone()
        skipped = con.execute(
            "SELECT count(*) FROM (SELECT type_id FROM entity_types GROUP BY 1 "
            "HAVING count(DISTINCT entity_id) < ?)", [self.config.min_type_entities]).fetchone()[0]
        return {"types": types, "type_predicates": rows, "types_below_min_entities": skipped}


def type_label(con: duckdb.DuckDBPyConnection, type_id: str) -> str:
    row = con.execute("SELECT label FROM labels WHERE id = ? LIMIT 1", [type_id]).fetchone()
    label = (row[0] if row else type_id).lower()
    return "person" if type_id == "Q5" else label


class SelectPredicates(Stage):
    """Choose G(t, F(t)) per type: rules always pre-filter; the LLM decides when configured."""

    name = "predicates.select"

    def __init__(self, con: duckdb.DuckDBPyConnection, config: PredicatesConfig,
                 llm: LLMConfig, meter: CostMeter, run_id: str | None = None,
                 types: list[str] | None = None) -> None:
        super().__init__(con, run_id)
        con.execute(SELECTION_SCHEMA)
        self.config = config
        self.prompt = load_prompt("select_predicates.md")
        self.client = build_client(con, llm, "selector", self.prompt.hash, meter)
        self.types = types

    @property
    def path(self) -> str:
        return "llm" if self.client else "rules"

    def candidates(self, type_id: str) -> list[dict]:
        """F(t) after the rules pre-filter, each with its qualifier candidates."""
        rows = self.con.execute(
            """
            SELECT tp.property_id, coalesce(p.label, tp.property_id), p.datatype, tp.share,
                   tp.fact_kind_qualified
            FROM type_predicates tp LEFT JOIN property_info p ON p.id = tp.property_id
            WHERE tp.type_id = ? ORDER BY tp.entities DESC, tp.property_id
            """, [type_id]).fetchall()
        out = []
        for pid, label, datatype, share, n_qualified in rows:
            reason = None
            if datatype in EXCLUDED_DATATYPES:
                reason = f"datatype {datatype}"
            elif pid in EXCLUDED_PROPERTIES:
                reason = f"excluded property: {EXCLUDED_PROPERTIES[pid]}"
            elif share < self.config.min_share:
                reason = f"used by {share:.1%} of the type, below {self.config.min_share:.0%}"
            if reason:
                self.drop(f"{type_id}/{pid}", "rules pre-filter", reason)
                continue
            quals = []
            if n_qualified:
                quals = self.con.execute(
                    """
                    SELECT q.qualifier_property_id, coalesce(p.label, q.qualifier_property_id),
                           p.datatype, count(DISTINCT q.statement_id)
                    FROM qualifiers q JOIN entity_types t ON t.entity_id = q.entity_id
                    LEFT JOIN property_info p ON p.id = q.qualifier_property_id
                    WHERE t.type_id = ? AND q.property_id = ?
                    GROUP BY 1, 2, 3 ORDER BY 4 DESC, 1
                    """, [type_id, pid]).fetchall()
            out.append({"id": pid, "label": label, "datatype": datatype,
                        "qualifiers": [{"id": q[0], "label": q[1], "datatype": q[2]}
                                       for q in quals]})
        return out

    def process(self) -> dict[str, Any]:
        types = self.types or [r[0] for r in self.con.execute(
            "SELECT DISTINCT type_id FROM type_predicates ORDER BY 1").fetchall()]
        stats = {"path": self.path, "types": 0, "unchanged": 0, "selected": 0,
                 "qualifiers": 0, "dropped_ids": 0}
        for type_id in types:
            candidates = self.candidates(type_id)
            # what the selector sees, not usage counts: a shift in counts alone asks nothing
            table = sorted(({**c, "qualifiers": sorted(q["id"] for q in c["qualifiers"])}
                            for c in candidates), key=lambda c: c["id"])
            input_hash = hashlib.sha256(json.dumps(
                [table, self.path, self.prompt.hash, self.config.model_dump()],
                sort_keys=True).encode()).hexdigest()[:16]
            prev = self.con.execute(
                "SELECT input_hash FROM selection_inputs WHERE type_id = ?", [type_id]).fetchone()
            if prev and prev[0] == input_hash:
                stats["unchanged"] += 1
                continue
            if self.client:
                chosen, model = self._select_llm(type_id, candidates, stats)
            else:
                chosen, model = self._select_rules(candidates), None
            self._store(type_id, chosen, model, input_hash)
            stats["types"] += 1
            stats["selected"] += sum(1 for _, q in chosen if q is None)
            stats["qualifiers"] += sum(1 for _, q in chosen if q is not None)
        return stats

    def _select_rules(self, candidates: list[dict]) -> list[tuple[str, str | None]]:
        chosen: list[tuple[str, str | None]] = []
        for c in candidates:
            chosen.append((c["id"], None))
            for q in c["qualifiers"]:
                if q["datatype"] in USEFUL_QUALIFIER_DATATYPES or q["id"] in USEFUL_QUALIFIERS:
                    chosen.append((c["id"], q["id"]))
        return chosen

    def _select_llm(self, type_id: str, candidates: list[dict],
                    stats: dict) -> tuple[list[tuple[str, str | None]], str]:
        label = type_label(self.con, type_id)
        segments = [candidates[i:i + MAX_PER_CALL] for i in range(0, len(candidates), MAX_PER_CALL)]
        requests = []
        for seg in segments:
            lines = []
            for c in seg:
                line = f"{c['id']}: {c['label']}"
                if c["qualifiers"]:
                    line += " (qualifiers: " + ", ".join(
                        f"{q['id']} {q['label']}" for q in c["qualifiers"]) + ")"
                lines.append(line)
            text = self.prompt.render(type_label=label, table="\n".join(lines))
            requests.append(LLMRequest([{"role": "user", "content": text}], schema=Selection))
        chosen: list[tuple[str, str | None]] = []
        for seg, result in zip(segments, self.client.run(requests)):
            if not result.ok:
                if not result.dry_run:
                    self.drop(type_id, "selector reply unusable", result.error or "")
                continue
            offered = {c["id"]: {q["id"] for q in c["qualifiers"]} for c in seg}
            for pid in dict.fromkeys(result.parsed.selected):
                if pid not in offered:
                    stats["dropped_ids"] += 1
                    self.drop(f"{type_id}/{pid}", "selector returned an id not in the table",
                              result.text or "")
                    continue
                chosen.append((pid, None))
            for pid, quals in result.parsed.qualifiers.items():
                if (pid, None) not in chosen:
                    continue
                for qid in dict.fromkeys(quals):
                    if qid in offered[pid]:
                        chosen.append((pid, qid))
                    else:
                        stats["dropped_ids"] += 1
                        self.drop(f"{type_id}/{pid}/{qid}",
                                  "selector returned a qualifier not offered", result.text or "")
        return chosen, self.client.model.model

    def _store(self, type_id: str, chosen: list[tuple[str, str | None]], model: str | None,
               input_hash: str) -> None:
        if self.client and self.client.config.dry_run:
            return
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        con = self.con
        con.execute("BEGIN")
        con.execute("DELETE FROM selected_predicates WHERE type_id = ?", [type_id])
        con.execute("DELETE FROM selection_inputs WHERE type_id = ?", [type_id])
        for pid, qid in chosen:
            con.execute("INSERT INTO selected_predicates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [type_id, pid, qid, self.path, model,
                         self.prompt.hash if self.client else None, input_hash, self.run_id, now])
        con.execute("INSERT INTO selection_inputs VALUES (?, ?, ?, ?)",
                    [type_id, input_hash, self.path, self.run_id])
        con.execute("COMMIT")
