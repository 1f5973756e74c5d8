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

from convkgyarn.kg.model import EnAliases, EnLabel, entity_decoder, raw_entity_decoder
from convkgyarn.kg.values import TAGS, render_typed, render_value
from convkgyarn.store.schema import arrow_schema

HUMAN = "Q5"
INSTANCE_OF = "P31"
OCCUPATION = "P106"
SNIPPET_CHARS = 200

TABLES = ("entities", "properties", "entity_types", "statements", "qualifiers",
          "load_rejects")


def schema_of(table: str) -> pa.Schema:
    """Column order of the row tuples below: the table's DDL order."""
    return arrow_schema(table)


@dataclass
class Batch:
    """Rows (tuples in schema order) for every KG table, plus counters of what was skipped."""

    file_id: int
    file: str
    rows_by_table: dict[str, list[tuple]] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    lines: int = 0
    max_modified: str | None = None

    def __post_init__(self) -> None:
        self.rows_by_table = {t: [] for t in TABLES}

    def skip(self, reason: str, n: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def reject(self, line_no: int, reason: str, line: bytes) -> None:
        self.rows_by_table["load_rejects"].append(
            (self.file_id, self.file, line_no, reason,
             line[:SNIPPET_CHARS].decode("utf-8", "replace")))

    def rows(self, table: str) -> int:
        return len(self.rows_by_table[table])

    def to_arrow(self) -> dict[str, pa.Table]:
        """Columnar tables: one C-level transpose per table, typed arrays (no inference)."""
        out = {}
        for table, rows in self.rows_by_table.items():
            if rows:
                schema = schema_of(table)
                cols = list(zip(*rows))
                out[table] = pa.Table.from_arrays(
                    [pa.array(c, type=f.type) for c, f in zip(cols, schema)], schema=schema)
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


def parse_lines(lines: list[bytes], first_line_no: int, file_id: int, file: str,
                rejects: tuple = ()) -> Batch:
    """Parse a block of dump lines; bad lines become rejects, never exceptions.

    ``rejects`` are lines the reader already refused (line number, reason, start)."""
    batch = Batch(file_id=file_id, file=file)
    for line_no, reason, start in rejects:
        batch.reject(line_no, reason, start)
    for offset, raw_line in enumerate(lines):
        batch.lines += 1
        line = _clean_line(raw_line)
        if not line or line in (b"[", b"]"):
            continue
        line_no = first_line_no + offset
        try:
            entity = _decode(line)
        except msgspec.ValidationError as exc:
            batch.reject(line_no, f"invalid entity: {exc}", raw_line)
            continue
        except msgspec.DecodeError as exc:
            batch.reject(line_no, f"invalid JSON: {exc}", raw_line)
            continue
        except RecursionError:
            batch.reject(line_no, "invalid entity: nested too deeply", raw_line)
            continue
        add_entity(batch, entity, line_no)
    return batch


def _decode(line: bytes):
    try:
        return entity_decoder.decode(line)
    except msgspec.ValidationError:
        # An odd or unknown value type: decode values raw (slower) and keep them raw.
        return raw_entity_decoder.decode(line)


def add_entity(batch: Batch, entity, line_no: int) -> None:
    label = _text(entity.labels)
    file_id = batch.file_id
    if entity.type == "property":
        classes = []
        if isinstance(entity.claims, dict):
            for claim in entity.claims.get(INSTANCE_OF, []):
                dv = claim.mainsnak.datavalue
                if dv is not None and claim.rank != "deprecated":
                    value_id = _value(dv)[1].value_id
                    if value_id:
                        classes.append(value_id)
        batch.rows_by_table["properties"].append(
            (entity.id, label, _text(entity.descriptions), _aliases(entity.aliases),
             entity.datatype, classes, file_id))
        return
    if entity.type != "item":
        batch.skip(f"entity type {entity.type}")
        return
    if label is None:
        batch.skip("no English label")
        return
    if entity.modified and (batch.max_modified is None or entity.modified > batch.max_modified):
        batch.max_modified = entity.modified
    batch.rows_by_table["entities"].append(
        (entity.id, label, _text(entity.descriptions), _aliases(entity.aliases),
         len(entity.sitelinks) if entity.sitelink_count is None else entity.sitelink_count,
         entity.modified, file_id, line_no))
    if isinstance(entity.claims, dict):
        _add_claims(batch, entity.id, entity.claims, line_no)


def _value(dv) -> tuple:
    tag = TAGS.get(type(dv))
    if tag is not None:
        return tag, render_typed(dv)
    return dv.type, render_value(dv.type, dv.value)


def _add_claims(batch: Batch, entity_id: str, claims: dict, line_no: int) -> None:
    statements = batch.rows_by_table["statements"]
    qualifiers = batch.rows_by_table["qualifiers"]
    file_id = batch.file_id
    type_values: dict[str, list[str]] = {}
    dropped = 0
    for prop, group in claims.items():
        kept = [c for c in group if c.rank != "deprecated" and c.mainsnak.snaktype == "value"
                and c.mainsnak.datavalue is not None]
        dropped += len(group) - len(kept)
        if not kept:
            continue
        best = "normal"
        for c in kept:
            if c.rank == "preferred":
                best = "preferred"
                break
        for ordinal, claim in enumerate(kept):
            snak = claim.mainsnak
            dv = snak.datavalue
            vtype, value = _value(dv)
            statement_id = claim.id or f"{entity_id}${prop}${ordinal}"
            truthy = claim.rank == best
            n_quals = 0
            if claim.qualifiers and isinstance(claim.qualifiers, dict):
                for qprop, snaks in claim.qualifiers.items():
                    for qord, qsnak in enumerate(snaks):
                        qdv = qsnak.datavalue
                        if qsnak.snaktype != "value" or qdv is None:
                            continue
                        qtype, qv = _value(qdv)
                        qualifiers.append(
                            (statement_id, entity_id, prop, qprop, qsnak.datatype, qtype,
                             qv.value_id, qv.value_text, qv.unit_id, qv.raw, qv.precision,
                             qord, file_id, line_no))
                        n_quals += 1
            statements.append(
                (statement_id, entity_id, prop, claim.rank, snak.datatype, vtype,
                 value.value_id, value.value_text, value.unit_id, value.raw, value.precision,
                 truthy, n_quals > 0, ordinal, file_id, line_no))
            if truthy and value.value_id and (prop == INSTANCE_OF or prop == OCCUPATION):
                type_values.setdefault(prop, []).append(value.value_id)
    if dropped:
        batch.skip("claim deprecated or not a value", dropped)
    if not type_values:
        return
    instance_of = type_values.get(INSTANCE_OF, [])
    typed = [(v, INSTANCE_OF) for v in instance_of]
    if HUMAN in instance_of:
        typed += [(v, OCCUPATION) for v in type_values.get(OCCUPATION, [])]
    seen = set()
    types = batch.rows_by_table["entity_types"]
    for type_id, via in typed:
        if type_id not in seen:
            seen.add(type_id)
            types.append((entity_id, type_id, via, file_id, line_no))
