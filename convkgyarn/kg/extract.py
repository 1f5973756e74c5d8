"""Turn dump lines into column batches: entities, types, properties, statements, qualifiers.

Definitions (shared with ``kg stats`` and its tests):
- statement: a claim whose rank is not deprecated and whose main snak is a value;
- truthy: a statement of best rank within its (entity, property): preferred if
  any statement there is preferred, else normal;
- qualified: a statement with at least one qualifier snak carrying a value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import msgspec
import pyarrow as pa

from convkgyarn.kg.model import Claim, EnAliases, EnLabel, Entity, entity_decoder
from convkgyarn.kg.values import render_value

HUMAN = "Q5"
INSTANCE_OF = "P31"
OCCUPATION = "P106"
SNIPPET_CHARS = 200

COLUMNS: dict[str, tuple[str, ...]] = {
    "entities": (
        "id", "label", "description", "aliases", "sitelinks", "modified", "file_id", "line_no",
    ),
    "properties": ("id", "label", "description", "aliases", "datatype", "file_id"),
    "entity_types": ("entity_id", "type_id", "via", "file_id", "line_no"),
    "statements": (
        "statement_id", "entity_id", "property_id", "rank", "datatype", "value_type",
        "value_id", "value_text", "unit_id", "value_raw", "truthy", "qualified", "ordinal",
        "file_id", "line_no",
    ),
    "qualifiers": (
        "statement_id", "entity_id", "property_id", "qualifier_property_id", "datatype",
        "value_type", "value_id", "value_text", "unit_id", "value_raw", "ordinal", "file_id",
        "line_no",
    ),
    "load_rejects": ("file_id", "file", "line_no", "reason", "snippet"),
}


@dataclass
class Batch:
    """Column lists for every KG table, plus counters of what was skipped and why."""

    file_id: int
    file: str
    cols: dict[str, dict[str, list]] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    lines: int = 0
    max_modified: str | None = None

    def __post_init__(self) -> None:
        self.cols = {t: {c: [] for c in cs} for t, cs in COLUMNS.items()}

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def reject(self, line_no: int, reason: str, line: bytes) -> None:
        r = self.cols["load_rejects"]
        r["file_id"].append(self.file_id)
        r["file"].append(self.file)
        r["line_no"].append(line_no)
        r["reason"].append(reason)
        r["snippet"].append(line[:SNIPPET_CHARS].decode("utf-8", "replace"))

    def rows(self, table: str) -> int:
        return len(self.cols[table][COLUMNS[table][0]])

    def to_arrow(self) -> dict[str, pa.Table]:
        out = {}
        for table, cols in self.cols.items():
            if cols[COLUMNS[table][0]]:
                out[table] = pa.table(cols)
        return out


def _text(lang_map: EnLabel | list) -> str | None:
    if isinstance(lang_map, EnLabel) and lang_map.en is not None:
        return lang_map.en.value
    return None


def _aliases(aliases: EnAliases | list) -> list[str]:
    if isinstance(aliases, EnAliases):
        return [a.value for a in aliases.en]
    return []


def _clean_line(line: bytes) -> bytes:
    line = line.strip()
    if line.endswith(b","):
        line = line[:-1]
    return line


def parse_lines(lines: list[bytes], first_line_no: int, file_id: int, file: str) -> Batch:
    """Parse a block of dump lines; bad lines become rejects, never exceptions."""
    batch = Batch(file_id=file_id, file=file)
    for offset, raw_line in enumerate(lines):
        batch.lines += 1
        line = _clean_line(raw_line)
        if not line or line in (b"[", b"]"):
            continue
        line_no = first_line_no + offset
        try:
            entity = entity_decoder.decode(line)
        except msgspec.ValidationError as exc:
            batch.reject(line_no, f"invalid entity: {exc}", raw_line)
            continue
        except msgspec.DecodeError as exc:
            batch.reject(line_no, f"invalid JSON: {exc}", raw_line)
            continue
        add_entity(batch, entity, line_no)
    return batch


def add_entity(batch: Batch, entity: Entity, line_no: int) -> None:
    label = _text(entity.labels)
    if entity.type == "property":
        p = batch.cols["properties"]
        p["id"].append(entity.id)
        p["label"].append(label)
        p["description"].append(_text(entity.descriptions))
        p["aliases"].append(_aliases(entity.aliases))
        p["datatype"].append(entity.datatype)
        p["file_id"].append(batch.file_id)
        return
    if entity.type != "item":
        batch.skip(f"entity type {entity.type}")
        return
    if label is None:
        batch.skip("no English label")
        return
    if entity.modified and (batch.max_modified is None or entity.modified > batch.max_modified):
        batch.max_modified = entity.modified
    e = batch.cols["entities"]
    e["id"].append(entity.id)
    e["label"].append(label)
    e["description"].append(_text(entity.descriptions))
    e["aliases"].append(_aliases(entity.aliases))
    e["sitelinks"].append(len(entity.sitelinks))
    e["modified"].append(entity.modified)
    e["file_id"].append(batch.file_id)
    e["line_no"].append(line_no)
    if isinstance(entity.claims, dict):
        _add_claims(batch, entity.id, entity.claims, line_no)


def _add_claims(batch: Batch, entity_id: str, claims: dict[str, list[Claim]],
                line_no: int) -> None:
    s = batch.cols["statements"]
    q = batch.cols["qualifiers"]
    t = batch.cols["entity_types"]
    file_id = batch.file_id
    type_values: dict[str, list[str]] = {}
    for prop, group in claims.items():
        kept = [c for c in group if c.rank != "deprecated" and c.mainsnak.snaktype == "value"
                and c.mainsnak.datavalue is not None]
        if len(kept) != len(group):
            batch.skip("claim deprecated or not a value", len(group) - len(kept))
        if not kept:
            continue
        best = "preferred" if any(c.rank == "preferred" for c in kept) else "normal"
        for ordinal, claim in enumerate(kept):
            snak = claim.mainsnak
            dv = snak.datavalue
            value = render_value(dv.type, dv.value)
            statement_id = claim.id or f"{entity_id}${prop}${ordinal}"
            truthy = claim.rank == best
            n_quals = 0
            if isinstance(claim.qualifiers, dict):
                for qprop, snaks in claim.qualifiers.items():
                    for qord, qsnak in enumerate(snaks):
                        if qsnak.snaktype != "value" or qsnak.datavalue is None:
                            continue
                        qv = render_value(qsnak.datavalue.type, qsnak.datavalue.value)
                        q["statement_id"].append(statement_id)
                        q["entity_id"].append(entity_id)
                        q["property_id"].append(prop)
                        q["qualifier_property_id"].append(qprop)
                        q["datatype"].append(qsnak.datatype)
                        q["value_type"].append(qsnak.datavalue.type)
                        q["value_id"].append(qv.value_id)
                        q["value_text"].append(qv.value_text)
                        q["unit_id"].append(qv.unit_id)
                        q["value_raw"].append(qv.raw)
                        q["ordinal"].append(qord)
                        q["file_id"].append(file_id)
                        q["line_no"].append(line_no)
                        n_quals += 1
            s["statement_id"].append(statement_id)
            s["entity_id"].append(entity_id)
            s["property_id"].append(prop)
            s["rank"].append(claim.rank)
            s["datatype"].append(snak.datatype)
            s["value_type"].append(dv.type)
            s["value_id"].append(value.value_id)
            s["value_text"].append(value.value_text)
            s["unit_id"].append(value.unit_id)
            s["value_raw"].append(value.raw)
            s["truthy"].append(truthy)
            s["qualified"].append(n_quals > 0)
            s["ordinal"].append(ordinal)
            s["file_id"].append(file_id)
            s["line_no"].append(line_no)
            if truthy and value.value_id and prop in (INSTANCE_OF, OCCUPATION):
                type_values.setdefault(prop, []).append(value.value_id)
    instance_of = type_values.get(INSTANCE_OF, [])
    typed = [(v, INSTANCE_OF) for v in instance_of]
    if HUMAN in instance_of:
        typed += [(v, OCCUPATION) for v in type_values.get(OCCUPATION, [])]
    seen = set()
    for type_id, via in typed:
        if type_id in seen:
            continue
        seen.add(type_id)
        t["entity_id"].append(entity_id)
        t["type_id"].append(type_id)
        t["via"].append(via)
        t["file_id"].append(file_id)
        t["line_no"].append(line_no)
