"""Which entity types get conversations: rules always, an LLM selector when configured.

Rules leave out Wikimedia-internal types (categories, disambiguation pages, templates,
lists), bibliographic records (scholarly articles and the like), Wikidata's own meta
classes, and science records (genes, proteins, chemical compounds, taxa) unless asked for;
types below the entity minimum never reach this stage (``type_predicates``). Every decision
is a row of ``selected_types`` with its reason; ``types.include`` and ``types.exclude`` (or
``generate --type``) override everything. A type without an English label may still be
selected: its templates name it with a neutral placeholder, never its id.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from pydantic import BaseModel, Field

from convkgyarn.resources import data_block, load_prompt
from convkgyarn.stage import Stage, utcnow
from convkgyarn.store import insert_rows, transaction

WIKIMEDIA = "Wikimedia-internal page"
BIBLIOGRAPHIC = "bibliographic record"
META = "Wikidata meta class"
SCIENCE = "science record (genes, proteins, compounds, taxa); include it by id to use it"

EXCLUDED_TYPES = {
    "Q4167836": WIKIMEDIA, "Q4167410": WIKIMEDIA, "Q11266439": WIKIMEDIA,
    "Q13406463": WIKIMEDIA, "Q17633526": WIKIMEDIA, "Q15184295": WIKIMEDIA,
    "Q14204246": WIKIMEDIA, "Q17362920": WIKIMEDIA, "Q22808320": WIKIMEDIA,
    "Q15407973": WIKIMEDIA, "Q24046192": WIKIMEDIA, "Q20010800": WIKIMEDIA,
    "Q59541917": WIKIMEDIA, "Q21528878": WIKIMEDIA, "Q11753321": WIKIMEDIA,
    "Q13442814": BIBLIOGRAPHIC, "Q191067": BIBLIOGRAPHIC, "Q18918145": BIBLIOGRAPHIC,
    "Q1980247": BIBLIOGRAPHIC, "Q3331189": BIBLIOGRAPHIC, "Q871232": BIBLIOGRAPHIC,
    "Q7318358": BIBLIOGRAPHIC, "Q23927052": BIBLIOGRAPHIC, "Q1266946": BIBLIOGRAPHIC,
    "Q187685": BIBLIOGRAPHIC, "Q10870555": BIBLIOGRAPHIC, "Q19389637": BIBLIOGRAPHIC,
    "Q17329259": BIBLIOGRAPHIC, "Q13433827": BIBLIOGRAPHIC, "Q45182324": BIBLIOGRAPHIC,
    "Q58632367": BIBLIOGRAPHIC, "Q1348305": BIBLIOGRAPHIC, "Q56478588": BIBLIOGRAPHIC,
    "Q19478619": META, "Q23958852": META, "Q24017414": META, "Q21522864": META,
    "Q24017465": META, "Q16889133": META, "Q151885": META, "Q2095": META,
    "Q7187": SCIENCE, "Q8054": SCIENCE, "Q11173": SCIENCE, "Q16521": SCIENCE,
    "Q20747295": SCIENCE, "Q277338": SCIENCE, "Q427087": SCIENCE, "Q43460564": SCIENCE,
    "Q113145171": SCIENCE, "Q310899": SCIENCE, "Q863908": SCIENCE,
}
LABEL_RULES = (
    (re.compile(r"\bwikimedia\b|\bwikipedia\b|\bwikinews\b|\bwikidata\b|"
                r"\bdisambiguation page\b|^category\b"), WIKIMEDIA),
    (re.compile(r"\b(scholarly|scientific|academic|review|encyclopedi\w+|biographical|"
                r"journal|news) article\b|^article$|\bconference paper\b|\bthesis\b|"
                r"\bpreprint\b|^chapter$|\bversion, edition\b"), BIBLIOGRAPHIC),
    (re.compile(r"\bmetaclass\b|\border class\b|\bclass of\b.*\bontology\b"), META),
    (re.compile(r"\b(gene|pseudogene|protein|chemical compound|chemical entity|taxon|"
                r"enzyme|protein family|genomic region)\b"), SCIENCE),
)


def rules_reason(type_id: str, label: str | None) -> str | None:
    """Why the rules leave a type out (None: it may have conversations)."""
    if type_id in EXCLUDED_TYPES:
        return EXCLUDED_TYPES[type_id]
    low = (label or "").lower()
    for rule, why in LABEL_RULES:
        if rule.search(low):
            return why
    return None


class TypeSelection(BaseModel):
    selected: list[str] = Field(description="chosen type ids")


class SelectTypes(Stage):
    """Decide per type whether its entities get conversations (``selected_types``)."""

    name = "types.select"
    reads = ("type_predicates", "entity_types", "entities", "class_labels", "property_info")
    writes = ("selected_types",)
    PER_CALL = 50

    def __init__(self, ctx, config=None) -> None:
        super().__init__(ctx, config)
        self.prompt = load_prompt("select_types.md")
        self.prompt_hash = self.prompt.hash
        self.client = ctx.client("selector", self.prompt.hash)

    def default_config(self, ctx):
        return ctx.config.types

    def candidates(self) -> list[dict[str, Any]]:
        """Every type with predicates, its label, size, example entities and top properties."""
        rows = self.con.execute(
            """
            WITH sized AS (SELECT type_id, any_value(type_entities) AS n FROM type_predicates
                           GROUP BY 1)
            SELECT s.type_id, l.label, s.n,
                   (SELECT list(e.label ORDER BY e.sitelinks DESC, e.id)[1:3] FROM entity_types t
                    JOIN entities e ON e.id = t.entity_id WHERE t.type_id = s.type_id),
                   (SELECT list(p.label ORDER BY tp.entities DESC, tp.property_id)[1:8]
                    FROM type_predicates tp JOIN property_info p ON p.id = tp.property_id
                    WHERE tp.type_id = s.type_id AND p.label IS NOT NULL)
            FROM sized s LEFT JOIN class_labels l ON l.id = s.type_id ORDER BY s.n DESC, s.type_id
            """).fetchall()
        return [{"id": r[0], "label": r[1], "entities": r[2], "examples": r[3] or [],
                 "properties": r[4] or []} for r in rows]

    def process(self) -> dict[str, Any]:
        cfg = self.config
        candidates = self.candidates()
        decided: dict[str, tuple[bool, str, str, str | None]] = {}  # id -> (keep, why, by, model)
        undecided = []
        for c in candidates:
            if c["id"] in cfg.exclude:
                decided[c["id"]] = (False, "excluded in the config (types.exclude)", "config", None)
            elif c["id"] in cfg.include:
                decided[c["id"]] = (True, "included in the config (types.include)", "config", None)
            elif (why := rules_reason(c["id"], c["label"])) is not None:
                decided[c["id"]] = (False, why, "rules", None)
            else:
                undecided.append(c)
        input_hash = hashlib.sha256(json.dumps(
            [[c["id"], c["label"], c["examples"], c["properties"]] for c in undecided]
            + [self.path, self.decisive_key()], sort_keys=True).encode()).hexdigest()[:16]
        previous = dict(self.con.execute(
            "SELECT type_id, input_hash FROM selected_types WHERE selected_by = 'llm'").fetchall())
        stats = {"path": self.path, "types": len(candidates), "failed_calls": 0}
        self._asked = True
        if self.client and undecided and all(previous.get(c["id"]) == input_hash
                                             for c in undecided):
            stats["unchanged"] = len(undecided)
            self._asked = False
            keep = {r[0]: r[1:] for r in self.con.execute(
                "SELECT type_id, selected, reason, selected_by, model FROM selected_types "
                "WHERE selected_by = 'llm'").fetchall()}
            decided |= {c["id"]: tuple(keep[c["id"]]) for c in undecided}
        elif self.client and undecided:
            chosen, failed = self._ask(undecided)
            stats["failed_calls"] = len(failed)
            model = self.client.model.model
            for c in undecided:
                if c["id"] in failed:  # not done: the rules decide meanwhile, the next run asks
                    decided[c["id"]] = (True, "kept by the rules (the selector's reply was "
                                        "unusable)", "rules", None)
                elif c["id"] in chosen:
                    decided[c["id"]] = (True, "chosen by the type selector", "llm", model)
                else:
                    decided[c["id"]] = (False, "not chosen by the type selector", "llm", model)
        else:
            for c in undecided:
                decided[c["id"]] = (True, "kept by the rules", "rules", None)
        rows = []
        now = utcnow()
        for c in candidates:
            keep, why, by, model = decided[c["id"]]
            if not keep:
                self.drop(c["id"], "type left out", why)
            rows.append({"type_id": c["id"], "label": c["label"], "entities": c["entities"],
                         "selected": keep, "reason": why, "selected_by": by, "model": model,
                         "prompt_hash": self.prompt.hash if by == "llm" else None,
                         "input_hash": input_hash if by == "llm" else None,
                         "run_id": self.run_id, "created_at": now})
        with transaction(self.con) as con:
            con.execute("DELETE FROM selected_types")
            insert_rows(con, "selected_types", rows)
        stats["selected"] = sum(r["selected"] for r in rows)
        return stats

    def replace_drops(self, con) -> None:
        """Every run decides every type, so its drops replace the earlier ones; a run that
        reused the selector's stored decisions (nothing changed) keeps what the selector's
        replies were found to hold back then (ids it returned that were not offered)."""
        if getattr(self, "_asked", True):
            con.execute("DELETE FROM dropped WHERE stage = ?", [self.name])
        else:
            con.execute("DELETE FROM dropped WHERE stage = ? AND reason = 'type left out'",
                        [self.name])

    def _ask(self, undecided: list[dict]) -> tuple[set[str], set[str]]:
        """(types chosen, types whose call failed)."""
        from convkgyarn.llm import LLMRequest

        segments = [undecided[i:i + self.PER_CALL]
                    for i in range(0, len(undecided), self.PER_CALL)]
        requests = [LLMRequest([{"role": "user", "content": self.prompt.render(data=data_block(
            [[c["id"], c["label"] or "(no English label)", c["entities"], c["examples"],
              c["properties"]] for c in seg]))}], schema=TypeSelection) for seg in segments]
        chosen: set[str] = set()
        failed: set[str] = set()
        for seg, result in zip(segments, self.client.run(requests)):
            if result.dry_run:  # not asked (a dry run): assume it keeps every type offered,
                chosen |= {c["id"] for c in seg}  # so the stages after it are estimated too
                continue
            if not result.ok:
                if not result.dry_run:
                    failed |= {c["id"] for c in seg}
                    self.drop(f"{len(seg)} types", "type selector reply unusable",
                              result.error or "")
                continue
            offered = {c["id"] for c in seg}
            for tid in result.parsed.selected:
                if tid in offered:
                    chosen.add(tid)
                else:
                    self.drop(tid, "type selector returned an id not offered",
                              (result.text or "")[:300])
        return chosen, failed


def selected_type_rows(con, only_selected: bool = False) -> list[tuple]:
    return con.execute(
        "SELECT type_id, label, entities, selected, reason, selected_by FROM selected_types "
        + ("WHERE selected " if only_selected else "") + "ORDER BY selected DESC, entities DESC, "
        "type_id").fetchall()
