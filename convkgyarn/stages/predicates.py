"""Predicates per type: F(t), every property used by the entities of type t, and G(t, F(t)),
the ones worth asking about, chosen by an LLM or by rules.

A type's selection is recorded as done (``selection_inputs``) only when every call for it
gave a usable reply; otherwise its previous selection stays and the next run asks again.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import BaseModel, Field

from convkgyarn.errors import UserError
from convkgyarn.kg.snapshot import type_label
from convkgyarn.resources import data_block, load_prompt
from convkgyarn.stage import Stage, utcnow
from convkgyarn.stages import housekeeping
from convkgyarn.store import insert_rows, transaction

# Qualifiers worth a question when no LLM chooses them.
USEFUL_QUALIFIER_DATATYPES = {"time"}
USEFUL_QUALIFIERS = {"P453": "character role", "P1686": "for work", "P642": "of"}
# ... and of one property only, where a curated question says them: whom an office holder
# succeeded, and who followed (0.8.18; of a mayor, P6, no phrase reads as English: "Who was
# the replaces when ...?")
USEFUL_QUALIFIER_PAIRS = frozenset({("P39", "P1365"), ("P39", "P1366")})
MAX_PER_CALL = 50


class Selection(BaseModel):
    selected: list[str] = Field(description="chosen property ids")
    qualifiers: dict[str, list[str]] = Field(default_factory=dict)


class ExtractPredicates(Stage):
    """Build ``type_predicates``: per type, each property with how many of its entities use it."""

    name = "predicates.extract"
    reads = ("entity_types", "facts")
    writes = ("type_predicates",)
    skip_unchanged = True  # a KG and config it extracted from before: nothing to do

    def default_config(self, ctx):
        return ctx.config.predicates

    def process(self) -> dict[str, Any]:
        """Recomputed only when its input key changed (``skip_unchanged``: the KG's version, the
        entity minimum, the code): every ``generate`` runs this stage, and on a KG of a million
        entities the join takes 15 CPU-seconds and 1.6 GB of DuckDB's memory (linear in the
        statements: ~100 CPU-s at 196M)."""
        con = self.con
        with transaction(con):
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
        return self._counts()

    def unchanged_stats(self) -> dict[str, Any]:
        return self._counts()

    def _counts(self) -> dict[str, int]:
        types, rows = self.con.execute(
            "SELECT count(DISTINCT type_id), count(*) FROM type_predicates").fetchone()
        skipped = self.con.execute(
            "SELECT count(*) FROM (SELECT type_id FROM entity_types GROUP BY 1 "
            "HAVING count(DISTINCT entity_id) < ?)", [self.config.min_type_entities]).fetchone()[0]
        return {"types": types, "type_predicates": rows, "types_below_min_entities": skipped}


class SelectPredicates(Stage):
    """Choose G(t, F(t)) per type: rules always pre-filter; the LLM decides when configured."""

    name = "predicates.select"
    reads = ("type_predicates", "selected_types", "entity_types", "class_labels", "properties",
             "property_info", "qualifiers")
    writes = ("selected_predicates", "selection_inputs")

    def __init__(self, ctx, config=None) -> None:
        super().__init__(ctx, config)
        self.prompt = load_prompt("select_predicates.md")
        self.prompt_hash = self.prompt.hash
        self.client = ctx.client("selector", self.prompt.hash)

    def default_config(self, ctx):
        return ctx.config.predicates

    def key_config(self):
        """The types asked for choose which types are selected for, not how."""
        return self.config.model_dump(mode="json", exclude={"types"})

    def types(self) -> list[str]:
        """Types to select for: those with predicates (and, once types are selected, only the
        selected ones), or the ones asked for."""
        if self.config.types:
            return list(self.config.types)
        return [r[0] for r in self.con.execute(
            "SELECT DISTINCT type_id FROM type_predicates WHERE type_id NOT IN "
            "(SELECT type_id FROM selected_types WHERE NOT selected) ORDER BY 1").fetchall()]

    def _load(self) -> None:
        """Property info, type predicates and qualifiers, each read once (not per type)."""
        if hasattr(self, "_props"):
            return
        self._props = {r[0]: r[1:] for r in self.con.execute(
            "SELECT id, label, datatype, classes FROM property_info").fetchall()}
        self._class_labels = dict(self.con.execute(
            "SELECT id, label FROM class_labels WHERE id IN (SELECT unnest(classes) FROM "
            "properties)"
        ).fetchall())
        self._by_type: dict[str, list[tuple]] = {}
        for type_id, pid, share in self.con.execute(
                "SELECT type_id, property_id, share FROM type_predicates "
                "ORDER BY type_id, entities DESC, property_id").fetchall():
            self._by_type.setdefault(type_id, []).append((pid, share))
        self._quals: dict[tuple[str, str], list[str]] = {}
        for type_id, pid, qid in self.con.execute(
                """
                SELECT t.type_id, q.property_id, q.qualifier_property_id
                FROM qualifiers q JOIN entity_types t ON t.entity_id = q.entity_id
                WHERE t.type_id IN (SELECT DISTINCT type_id FROM type_predicates)
                  AND q.value_type <> 'somevalue'  -- an unknown end time is asked nothing
                GROUP BY 1, 2, 3 ORDER BY 1, 2, count(DISTINCT q.statement_id) DESC, 3
                """).fetchall():
            self._quals.setdefault((type_id, pid), []).append(qid)

    def candidates(self, type_id: str) -> list[dict]:
        """F(t) after the rules pre-filter, each with its qualifier candidates."""
        self._load()
        out = []
        for pid, share in self._by_type.get(type_id, []):
            label, datatype, classes = self._props.get(pid, (None, None, None))
            reason = housekeeping.reason(pid, label, datatype, classes, class_labels=[
                self._class_labels.get(c) for c in classes or ()])
            if reason is None and share < self.config.min_share:
                reason = f"used by {share:.1%} of the type, below {self.config.min_share:.0%}"
            if reason:
                self.drop(f"{type_id}/{pid}", "rules pre-filter", reason)
                continue
            quals = []
            for qid in self._quals.get((type_id, pid), []):
                qlabel, qtype, qclasses = self._props.get(qid, (None, None, None))
                why = housekeeping.reason(qid, qlabel, qtype, qclasses, qualifier=True)
                if why is None:
                    quals.append({"id": qid, "label": qlabel, "datatype": qtype})
                else:
                    self.drop(f"{type_id}/{pid}/{qid}", "rules pre-filter (qualifier)", why)
            out.append({"id": pid, "label": label, "datatype": datatype, "qualifiers": quals})
        return out

    def process(self) -> dict[str, Any]:
        types = self.types()
        stats = {"path": self.path, "types": 0, "unchanged": 0, "selected": 0,
                 "qualifiers": 0, "dropped_ids": 0, "failed_types": 0}
        self._forget_other_types()
        self._types, self._redone, self._finished = types, set(), set()
        for type_id in types:
            mark = len(self._dropped)
            candidates = self.candidates(type_id)
            # what the selector sees, not usage counts: a shift in counts alone asks nothing
            table = sorted(({**c, "qualifiers": sorted(q["id"] for q in c["qualifiers"])}
                            for c in candidates), key=lambda c: c["id"])
            input_hash = hashlib.sha256(json.dumps(
                [table, self.path, self.decisive_key()],
                sort_keys=True).encode()).hexdigest()[:16]
            prev = self.con.execute(
                "SELECT input_hash FROM selection_inputs WHERE type_id = ?", [type_id]).fetchone()
            if prev and prev[0] == input_hash:
                stats["unchanged"] += 1
                del self._dropped[mark:]  # its drops were recorded when it was selected
                continue
            self._redone.add(type_id)
            if self.client:
                chosen, model, complete = self._select_llm(type_id, candidates, stats)
            else:
                chosen, model, complete = self._select_rules(candidates), None, True
            if not complete:
                self._finished.add(type_id)  # asked: its reasons replace the earlier ones
                stats["failed_types"] += 1
                continue  # the previous selection stays; the next run asks again
            self._store(type_id, chosen, model, input_hash)
            self._finished.add(type_id)
            stats["types"] += 1
            stats["selected"] += sum(1 for _, q in chosen if q is None)
            stats["qualifiers"] += sum(1 for _, q in chosen if q is not None)
        self._require_some(types, stats)
        return stats

    def drop_key(self, item: str) -> str:
        return item.split("/")[0]  # as replace_drops's key_sql

    def replace_drops(self, con) -> None:
        """A type's drops are those of the latest run that selected for it (or tried to:
        a failed attempt's reasons replace the earlier ones); types no longer selected for
        lose theirs."""
        self.replace_drops_by_key(con, "split_part({item}, '/', 1)", getattr(self, "_redone", ()),
                                  None if self.config.types else getattr(self, "_types", None))

    def _require_some(self, types: list[str], stats: dict) -> None:
        """A selection that ends empty stops the run loudly (never empty outputs)."""
        if not types or (self.client and self.client.dry_run):
            return
        n = self.con.execute("SELECT count(*) FROM selected_predicates WHERE "
                             "list_contains(?, type_id)", [types]).fetchone()[0]
        if n:
            return
        if stats["failed_types"]:
            from convkgyarn.errors import EndpointError

            raise EndpointError(
                f"no predicates selected: the selector's replies for {stats['failed_types']} "
                f"type(s) were unusable ({self.client.where}; see llm_failures); "
                "nothing was recorded as done, so a re-run asks again")
        unlabelled = sum(1 for d in self._dropped if d["detail"].startswith("no English label"))
        hint = (f"; {unlabelled} properties have no English label: give --labels with a "
                "property list ({id: label}) or load a dump with property entities"
                if unlabelled else "")
        raise UserError(f"no predicates selected: no type has askable facts{hint} "
                        "(see `convkgyarn drops`)")

    def _forget_other_types(self) -> None:
        """Selections of types that no longer have predicates go (the KG changed)."""
        if self.config.types:
            return
        with transaction(self.con):
            for table in ("selected_predicates", "selection_inputs"):
                self.con.execute(f"DELETE FROM {table} WHERE type_id NOT IN "
                                 "(SELECT type_id FROM type_predicates) OR type_id IN "
                                 "(SELECT type_id FROM selected_types WHERE NOT selected)")

    def _select_rules(self, candidates: list[dict]) -> list[tuple[str, str | None]]:
        chosen: list[tuple[str, str | None]] = []
        for c in candidates:
            chosen.append((c["id"], None))
            for q in c["qualifiers"]:
                if q["datatype"] in USEFUL_QUALIFIER_DATATYPES or q["id"] in USEFUL_QUALIFIERS \
                        or (c["id"], q["id"]) in USEFUL_QUALIFIER_PAIRS:
                    chosen.append((c["id"], q["id"]))
        return chosen

    def _select_llm(self, type_id: str, candidates: list[dict],
                    stats: dict) -> tuple[list[tuple[str, str | None]], str, bool]:
        label = type_label(self.con, type_id) or "(no English label)"
        segments = [candidates[i:i + MAX_PER_CALL] for i in range(0, len(candidates), MAX_PER_CALL)]
        requests = []
        for seg in segments:
            rows = [label] + [[c["id"], c["label"] or c["id"],
                               [[q["id"], q["label"] or q["id"]] for q in c["qualifiers"]]]
                              for c in seg]
            text = self.prompt.render(data=data_block(rows))
            requests.append(self._request(text))
        chosen: list[tuple[str, str | None]] = []
        complete = True
        for seg, result in zip(segments, self.client.run(requests)):
            if result.dry_run:  # not asked (a dry run): assume it keeps everything offered,
                for c in seg:     # so that the templates stage is estimated for all of it
                    chosen += [(c["id"], None)] + [(c["id"], q["id"]) for q in c["qualifiers"]]
                continue
            if not result.ok:
                if not result.dry_run:
                    complete = False
                    self.drop(type_id, "selector reply unusable", result.error or "")
                continue
            offered = {c["id"]: {q["id"] for q in c["qualifiers"]} for c in seg}
            for pid in dict.fromkeys(result.parsed.selected):
                if pid not in offered:
                    stats["dropped_ids"] += 1
                    self.drop(f"{type_id}/{pid}", "selector returned an id not in the table",
                              (result.text or "")[:500])
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
                                  "selector returned a qualifier not offered",
                                  (result.text or "")[:500])
        return chosen, self.client.model.model, complete

    def _request(self, text: str):
        from convkgyarn.llm import LLMRequest

        return LLMRequest([{"role": "user", "content": text}], schema=Selection)

    def _store(self, type_id: str, chosen: list[tuple[str, str | None]], model: str | None,
               input_hash: str) -> None:
        now = utcnow()
        with transaction(self.con) as con:
            con.execute("DELETE FROM selected_predicates WHERE type_id = ?", [type_id])
            con.execute("DELETE FROM selection_inputs WHERE type_id = ?", [type_id])
            insert_rows(con, "selected_predicates", [{
                "type_id": type_id, "property_id": pid, "qualifier_property_id": qid,
                "selected_by": self.path, "model": model,
                "prompt_hash": self.prompt.hash if self.client else None,
                "input_hash": input_hash, "run_id": self.run_id, "created_at": now}
                for pid, qid in chosen])
            insert_rows(con, "selection_inputs", [{
                "type_id": type_id, "input_hash": input_hash, "selected_by": self.path,
                "run_id": self.run_id}])


def type_predicate_rows(con, type_id: str) -> list[tuple]:
    """F(t) for one type: (property, label, datatype, entities, share), most used first."""
    return con.execute(
        "SELECT tp.property_id, p.label, p.datatype, tp.entities, tp.share FROM type_predicates tp "
        "LEFT JOIN property_info p ON p.id = tp.property_id WHERE tp.type_id = ? "
        "ORDER BY tp.entities DESC, tp.property_id", [type_id]).fetchall()


def selection_rows(con, type_id: str) -> list[tuple]:
    """G(t): (property, label, qualifier, qualifier label, selected by, model, prompt hash)."""
    return con.execute(
        "SELECT s.property_id, p.label, s.qualifier_property_id, q.label, s.selected_by, "
        "coalesce(s.model, ''), coalesce(s.prompt_hash, '') FROM selected_predicates s "
        "LEFT JOIN property_info p ON p.id = s.property_id "
        "LEFT JOIN property_info q ON q.id = s.qualifier_property_id WHERE s.type_id = ? "
        "ORDER BY 1, 3 NULLS FIRST", [type_id]).fetchall()
