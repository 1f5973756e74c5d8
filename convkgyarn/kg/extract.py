"""Turn dump lines into column batches: entities, types, properties, statements, qualifiers.

Definitions (shared with ``kg stats`` and its tests):
- statement: a claim whose rank is not deprecated and whose main snak is a value;
- truthy: a statement of best rank within its (entity, property): preferred if
  any statement there is preferred, else normal;
- qualified: a statement with at least one qualifier snak carrying a value.

What is checked on the way (each a ``load_rejects`` row with the file, line, field and
reason; the rest of the entity loads): an entity id not of Wikidata's form rejects its line
(``kg.ids``); a property id, statement id or value that is not one (``kg.values``) leaves
out that statement (a qualifier value: that value); a blank English label (empty,
whitespace, invisible characters) is read as no label. Each id is matched once: statement
and item ids a column at a time after the block is parsed (``ids_ok``, Arrow's RE2), the
property ids and units, which repeat, once per process.

Labels in other languages (``Keep.languages``, ``kg load --language``) go to
``entity_labels``, one row per entity and language with its label, description and aliases,
for items (those without an English label too: an answer in German can still name them) and
property entities. Each language's text is decoded and checked on its own: a malformed or
blank label of one language is a reject (field ``labels.de``) and the rest of the entity
loads. English is decoded exactly as without languages.

An unknown end time (a ``somevalue`` snak of P582, end time) is kept as a qualifier row of
value type ``somevalue`` with no value: the statement has ended, when is not known
(Wikidata's RDF writes ``pq:P582`` for it, and a turn's query reads it so). Other
``somevalue`` and ``novalue`` qualifiers carry nothing a question can use and are not kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import msgspec
import pyarrow as pa
import pyarrow.compute as pc

from convkgyarn.kg.ids import ENTITY_VALUE, LANGUAGE, PROPERTY, STATEMENT, entity_id_problem
from convkgyarn.kg.languages import ALL
from convkgyarn.kg.model import (
    ENGLISH_ONLY, Decoders, EnAliases, EnLabel, EntityValue, StringValue,
    all_languages_decoder, decoders_for, entity_decoder, raw_entity_decoder,
    tagged_text_decoder, tagged_texts_decoder)
from convkgyarn.kg.values import (
    TAGS, BadValue, entity_value_id, is_blank, render_typed, render_value)
from convkgyarn.memory import gc_paused
from convkgyarn.store.schema import arrow_schema

HUMAN = "Q5"
INSTANCE_OF = "P31"
OCCUPATION = "P106"
END_TIME = "P582"
SOMEVALUE = "somevalue"
SNIPPET_CHARS = 200
LABEL_ONLY = "item kept as id, label and types only (not of a --type kept whole)"

TABLES = ("entities", "properties", "entity_types", "statements", "qualifiers",
          "load_rejects", "entity_labels")
OTHER_LANGUAGE = "label given for another language (an API's language fallback), left out"


@dataclass(frozen=True)
class Keep:
    """What a load keeps beyond every item's English row, part of a file's identity
    (``load_files.keep_types``, ``load_files.languages``): ``types``, the types whose items
    are kept whole (None: every item); ``languages``, the languages besides English whose
    labels, descriptions and aliases go to ``entity_labels`` (``kg.languages.kept_languages``;
    ``("all",)``: every language; None: English only). Small and frozen: it travels to
    worker processes and Spark executors with every block."""

    types: frozenset[str] | None = None
    languages: tuple[str, ...] | None = None

    def tables(self) -> tuple[str, ...]:
        """The tables a load with this keeps writes to."""
        return TABLES if self.languages else tuple(t for t in TABLES if t != "entity_labels")


NOTHING_MORE = Keep()


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
        """A line that loads nothing (its ``field`` is NULL)."""
        self.rows_by_table["load_rejects"].append(
            (self.file_id, self.file, line_no, reason,
             line[:SNIPPET_CHARS].decode("utf-8", "replace"), None))

    def reject_value(self, line_no: int, field: str, reason: str, snippet: str) -> None:
        """A value left out of an entity that otherwise loads: ``field`` says where
        (``claims.P569``, ``claims.P39.qualifiers.P580``, ``labels.en``), ``snippet``
        holds the statement id and the value."""
        self.rows_by_table["load_rejects"].append(
            (self.file_id, self.file, line_no, reason, snippet[:SNIPPET_CHARS], field))

    def rows(self, table: str) -> int:
        return len(self.rows_by_table[table])

    def to_arrow(self) -> dict[str, pa.Table]:
        """Columnar tables, typed by the schema (no inference): the row tuples go to Arrow
        as one struct array in a single C++ pass (measured 2x faster than transposing them
        into columns in Python first)."""
        out = {}
        for table, rows in self.rows_by_table.items():
            if rows:
                structs = pa.array(rows, type=_struct_of(table))
                out[table] = pa.Table.from_batches([pa.RecordBatch.from_struct_array(structs)])
        return out


@cache
def _struct_of(table: str) -> pa.StructType:
    return pa.struct(schema_of(table))


def _text(lang_map: EnLabel | list) -> str | None:
    """The English text of a label or description map; blank text is none."""
    if isinstance(lang_map, EnLabel) and lang_map.en is not None:
        text = lang_map.en.value
        return None if is_blank(text) else text
    return None


def _label(batch: Batch, entity, line_no: int) -> str | None:
    """The entity's English label; a blank one is recorded and read as none (so an item
    with only a blank label is skipped like one without)."""
    labels = entity.labels
    if isinstance(labels, EnLabel) and labels.en is not None:
        text = labels.en.value
        if not is_blank(text):
            return text
        batch.reject_value(line_no, "labels.en", "blank English label (read as no label)",
                           f"{entity.id} {_json(text)}")
    return None


def _aliases(aliases: EnAliases | list) -> list[str]:
    """English aliases, blank ones dropped (three C-level passes find that there are none:
    entities have dozens of aliases, and a call per alias showed in the parse time)."""
    if not isinstance(aliases, EnAliases):
        return []
    values = [a.value for a in aliases.en]
    if "" in values or any(map(str.isspace, values)) or not all(map(str.isprintable, values)):
        values = [v for v in values if not is_blank(v)]
    return values


def _json(value) -> str:
    """A value as JSON, for the snippet of a rejected one (quoted: newlines stay visible)."""
    return msgspec.json.encode(value).decode()[:SNIPPET_CHARS]


def _clean_line(line: bytes) -> bytes:
    line = line.strip()
    if line.endswith(b","):
        line = line[:-1]
    return line


def parse_lines(lines: list[bytes], first_line_no: int, file_id: int, file: str,
                rejects: tuple = (), keep: Keep | None = None) -> Batch:
    """Parse a block of dump lines; bad lines become rejects, never exceptions.

    ``rejects`` are lines the reader already refused (line number, reason, start). With
    ``keep.types``, an item none of whose types (as ``entity_types`` defines them) is in it
    keeps only its entity row and its types: a first decode reads just the labels and the
    P31 / P106 claims, and only kept items are decoded whole. With ``keep.languages``, the
    labels of those languages go to ``entity_labels`` too.

    The cycle collector is paused meanwhile: a block makes hundreds of thousands of row
    tuples, never cycles, and each 700 allocations set off a collection (measured: ~10%
    of parse time)."""
    batch = Batch(file_id=file_id, file=file)
    with gc_paused():
        _parse_into(batch, lines, first_line_no, rejects, keep or NOTHING_MORE)
        reject_bad_ids(batch)
    return batch


def parse_to_arrow(lines: list[bytes], first_line_no: int, file_id: int, file: str,
                   rejects: tuple = (), keep: Keep | None = None
                   ) -> tuple[dict[str, pa.Table], Batch]:
    """``parse_lines`` then ``Batch.to_arrow``, what a load does with every block; the
    returned batch keeps its counters but not its rows (count those in the tables).

    The cycle collector stays paused until the row tuples are freed: resumed earlier, it
    scanned every tuple of the block at the first allocation after the parse (measured:
    7-15% of parse time)."""
    batch = Batch(file_id=file_id, file=file)
    with gc_paused():
        _parse_into(batch, lines, first_line_no, rejects, keep or NOTHING_MORE)
        tables = batch.to_arrow()
        if not ids_ok(tables):  # rare: a bad id; find it row by row, then build again
            reject_bad_ids(batch)
            tables = batch.to_arrow()
        batch.rows_by_table = {}
    return tables, batch


# Statement ids and item ids are checked a column at a time with Arrow's RE2 (C++), not in
# the parse loop with Python's re: measured on the real files, ~110-150 ns against ~650 ns
# per statement id (~40 against ~190 ns per item id), where the whole parse of a statement
# takes a few microseconds. The patterns are ``kg.ids``' own, anchored. (Types need no
# check of their own: a full item's come from its statements' values, checked here, and a
# label-only item's from ``_truthy_ids``, checked in Python.)
_COLUMN_CHECKS = (("statements", "statement_id", "^(?:" + STATEMENT.pattern + ")$"),
                  ("statements", "value_id", "^(?:" + ENTITY_VALUE.pattern + ")$"),
                  ("qualifiers", "value_id", "^(?:" + ENTITY_VALUE.pattern + ")$"))


def ids_ok(tables: dict[str, pa.Table]) -> bool:
    """Whether every statement id and entity value id of a parsed block has Wikidata's form
    (nulls, values that are no entity, pass)."""
    for table, column, pattern in _COLUMN_CHECKS:
        if table in tables and not pc.all(
                pc.match_substring_regex(tables[table][column], pattern)).as_py():
            return False
    return True


def reject_bad_ids(batch: Batch) -> None:
    """Move statements whose id or item value is not of Wikidata's form (``kg.ids``), with
    their qualifiers and the types they gave, and qualifier values that are not, from the
    batch's rows to its rejects (field ``claims.P..``; snippet: the statement id and the
    value). Row by row in Python: every block of ``parse_lines``, and a block of
    ``parse_to_arrow`` only when ``ids_ok`` found something."""
    rows = batch.rows_by_table
    statement_ok, value_ok = STATEMENT.fullmatch, ENTITY_VALUE.fullmatch
    bad_statements: set[str] = set()
    bad_types: set[tuple[str, str]] = set()
    statements = []
    for row in rows["statements"]:
        sid, entity_id, prop, value_id, line_no = row[0], row[1], row[2], row[6], row[-1]
        if statement_ok(sid) is None:
            batch.reject_value(line_no, f"claims.{prop}",
                               "statement id is not of Wikidata's form (Q42$GUID)", _json(sid))
        elif value_id is not None and value_ok(value_id) is None:
            batch.reject_value(line_no, f"claims.{prop}",
                               "entity value id is not of Wikidata's form",
                               f"{sid} {_json(value_id)}")
        else:
            statements.append(row)
            continue
        bad_statements.add(sid)
        if prop == INSTANCE_OF or prop == OCCUPATION:
            bad_types.add((entity_id, value_id))
    bad_types -= {(row[1], row[6]) for row in statements
                  if row[2] == INSTANCE_OF or row[2] == OCCUPATION}
    qualifiers, qualified = [], set()
    for row in rows["qualifiers"]:
        sid, value_id = row[0], row[6]
        if sid in bad_statements:
            continue
        if value_id is not None and value_ok(value_id) is None:
            batch.reject_value(row[-1], f"claims.{row[2]}.qualifiers.{row[3]}",
                               "entity value id is not of Wikidata's form",
                               f"{sid} {_json(value_id)}")
            continue
        qualifiers.append(row)
        if row[5] != SOMEVALUE:
            qualified.add(sid)
    qualified_col = schema_of("statements").names.index("qualified")
    rows["statements"] = [
        row if not row[qualified_col] or row[0] in qualified
        else (*row[:qualified_col], False, *row[qualified_col + 1:]) for row in statements]
    rows["qualifiers"] = qualifiers
    rows["entity_types"] = [row for row in rows["entity_types"]
                            if value_ok(row[1]) is not None and (row[0], row[1]) not in bad_types]


def _parse_into(batch: Batch, lines: list[bytes], first_line_no: int, rejects: tuple,
                keep: Keep) -> None:
    for line_no, reason, start in rejects:
        batch.reject(line_no, reason, start)
    keep_types, languages = keep.types, keep.languages
    decoders = (ENGLISH_ONLY if languages is None or languages == (ALL,)
                else decoders_for(languages))
    typing_decoders = (decoders.typing, decoders.raw_typing)
    whole_decoders = (decoders.entity, decoders.raw_entity)
    for offset, raw_line in enumerate(lines):
        batch.lines += 1
        line = _clean_line(raw_line)
        if not line or line in (b"[", b"]"):
            continue
        line_no = first_line_no + offset
        try:
            if keep_types is not None:
                light = _decode(line, *typing_decoders)
                if (problem := entity_id_problem(light.type, light.id)) is not None:
                    batch.reject(line_no, f"invalid entity: {problem}", raw_line)
                    continue
                if light.type == "item":
                    problems: list = []
                    types = _light_types(light, problems)
                    if not _keeps(types, keep_types):
                        add_label_only(batch, light, types, line_no, problems)
                        if languages is not None:
                            add_languages(batch, light, line, line_no, decoders, aliases=False)
                        continue
            entity = _decode(line, *whole_decoders)
            if (problem := entity_id_problem(entity.type, entity.id)) is not None:
                batch.reject(line_no, f"invalid entity: {problem}", raw_line)
                continue
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
        if languages is not None and entity.type in _WITH_LABELS:
            add_languages(batch, entity, line, line_no, decoders)


_WITH_LABELS = ("item", "property")


def _decode(line: bytes, typed=entity_decoder, raw=raw_entity_decoder):
    try:
        return typed.decode(line)
    except msgspec.ValidationError:
        # An odd or unknown value type: decode values raw (slower) and keep them raw.
        return raw.decode(line)


def _statements(group: list) -> tuple[list, str]:
    """A property's claims that are statements (not deprecated, a value), and the best rank
    among them: the statements of that rank are the truthy ones."""
    kept = [c for c in group if c.rank != "deprecated" and c.mainsnak.snaktype == "value"
            and c.mainsnak.datavalue is not None]
    best = "normal"
    for c in kept:
        if c.rank == "preferred":
            best = "preferred"
            break
    return kept, best


def _truthy_ids(group: list, prop: str, problems: list) -> list[str]:
    """Item ids of a property's truthy statements; values that are none go to ``problems``
    as (field, reason, snippet)."""
    kept, best = _statements(group)
    ids = []
    for c in kept:
        if c.rank == best:
            try:
                value_id = _value(c.mainsnak.datavalue)[1]
            except BadValue as exc:
                problems.append((f"claims.{prop}", str(exc),
                                 f"{c.id} {_json(c.mainsnak.datavalue.value)}"))
                continue
            if value_id:
                ids.append(value_id)
    return ids


def _light_types(light, problems: list) -> dict[str, list[str]]:
    claims = light.claims
    if isinstance(claims, list):
        return {}
    return {INSTANCE_OF: _truthy_ids(claims.P31, INSTANCE_OF, problems),
            OCCUPATION: _truthy_ids(claims.P106, OCCUPATION, problems)}


def _keeps(types: dict[str, list[str]], keep_types: frozenset[str]) -> bool:
    instance_of = types.get(INSTANCE_OF, [])
    if any(t in keep_types for t in instance_of):
        return True
    return HUMAN in instance_of and any(t in keep_types for t in types[OCCUPATION])


def add_label_only(batch: Batch, light, types: dict[str, list[str]], line_no: int,
                   problems: list = ()) -> None:
    """An item outside the kept types: its entity row (so answers naming it keep their
    label) and its types, no statements."""
    label = _label(batch, light, line_no)
    if label is None:
        batch.skip("no English label")
        return
    for where, reason, snippet in problems:
        batch.reject_value(line_no, where, reason, snippet)
    batch.skip(LABEL_ONLY)
    _add_entity_row(batch, light, line_no, label, aliases=[])
    _add_types(batch, light.id, types, line_no)


def add_entity(batch: Batch, entity, line_no: int) -> None:
    label = _label(batch, entity, line_no)
    file_id = batch.file_id
    if entity.type == "property":
        classes = []
        if isinstance(entity.claims, dict):
            for claim in entity.claims.get(INSTANCE_OF, []):
                dv = claim.mainsnak.datavalue
                if dv is not None and claim.rank != "deprecated":
                    try:
                        value_id = _value(dv)[1]
                    except BadValue as exc:
                        batch.reject_value(line_no, f"claims.{INSTANCE_OF}", str(exc),
                                           f"{claim.id} {_json(dv.value)}")
                        continue
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
    _add_entity_row(batch, entity, line_no, label, _aliases(entity.aliases))
    if isinstance(entity.claims, dict):
        _add_claims(batch, entity.id, entity.claims, line_no)


def add_languages(batch: Batch, entity, line: bytes, line_no: int, decoders: Decoders,
                  aliases: bool = True) -> None:
    """The ``entity_labels`` rows of an item or property entity: per language besides
    English, its label, description and aliases (``aliases=False``: none, as an item kept
    only as a label keeps no English aliases either). The asked languages were decoded with
    the entity (``decoders.fields``); every language (``--language all``) takes a second,
    light decode of the line."""
    if decoders.fields:
        labels = _kept(entity.labels, decoders.fields)
        descriptions = _kept(entity.descriptions, decoders.fields)
        names = _kept(entity.aliases, decoders.fields) if aliases else {}
        check_codes = False
    else:
        try:
            every = all_languages_decoder.decode(line)
        except msgspec.ValidationError as exc:
            batch.reject_value(line_no, "labels", f"labels in other languages left out: {exc}",
                               entity.id)
            return
        labels, descriptions = _as_map(every.labels), _as_map(every.descriptions)
        names = _as_map(every.aliases) if aliases else {}
        check_codes = True
    if not (labels or descriptions or names):
        return
    add = batch.rows_by_table["entity_labels"].append
    entity_id = entity.id
    for code in sorted(labels.keys() | descriptions.keys() | names.keys()):
        if code == "en":
            continue
        if check_codes and code not in _CHECKED_LANGUAGES:
            if LANGUAGE.fullmatch(code) is None:
                batch.reject_value(line_no, "labels", "language code not of Wikidata's form "
                                   "(its labels left out)", f"{entity_id} {_json(code)}")
                continue
            _CHECKED_LANGUAGES.add(code)
        label = _tagged(batch, labels.get(code), code, "labels", entity_id, line_no)
        description = _tagged(batch, descriptions.get(code), code, "descriptions", entity_id,
                              line_no)
        alias_list = _tagged_list(batch, names.get(code), code, entity_id, line_no)
        if label is None and description is None and not alias_list:
            continue
        add((entity_id, code, label, description, alias_list, batch.file_id, line_no))


_CHECKED_LANGUAGES: set[str] = set()  # language codes of Wikidata's form seen (--language all)


def _kept(lang_map, fields: tuple[tuple[str, str], ...]) -> dict[str, msgspec.Raw]:
    """The asked languages' raw values of a label, description or alias map."""
    if isinstance(lang_map, list):
        return {}
    return {code: raw for code, name in fields if (raw := getattr(lang_map, name))}


def _as_map(lang_map: dict | list) -> dict[str, msgspec.Raw]:
    return lang_map if isinstance(lang_map, dict) else {}


def _tagged(batch: Batch, raw: msgspec.Raw | None, code: str, field: str, entity_id: str,
            line_no: int) -> str | None:
    """The text of a label or description of ``code``; None when there is none. Malformed
    text and a blank label are rejects of their own (``labels.de``); a blank description is
    none, as in English; text given for another language is counted and left out."""
    if raw is None:
        return None
    where = f"{field}.{code}"
    try:
        tagged = tagged_text_decoder.decode(raw)
    except msgspec.DecodeError as exc:  # ValidationError included
        batch.reject_value(line_no, where, f"not a {field[:-1]} ({{\"value\": text}}): {exc}",
                           f"{entity_id} {bytes(raw)[:SNIPPET_CHARS].decode('utf-8', 'replace')}")
        return None
    if tagged.language not in (None, code):
        batch.skip(OTHER_LANGUAGE)
        return None
    if is_blank(tagged.value):
        if field == "labels":
            batch.reject_value(line_no, where, "blank label (read as no label)",
                               f"{entity_id} {_json(tagged.value)}")
        return None
    return tagged.value


def _tagged_list(batch: Batch, raw: msgspec.Raw | None, code: str, entity_id: str,
                 line_no: int) -> list[str]:
    """The aliases of ``code``, blank ones dropped (as in English)."""
    if raw is None:
        return []
    try:
        tagged = tagged_texts_decoder.decode(raw)
    except msgspec.DecodeError as exc:
        batch.reject_value(line_no, f"aliases.{code}", f"not a list of aliases "
                           f"([{{\"value\": text}}]): {exc}",
                           f"{entity_id} {bytes(raw)[:SNIPPET_CHARS].decode('utf-8', 'replace')}")
        return []
    return [t.value for t in tagged if t.language in (None, code) and not is_blank(t.value)]


def _add_entity_row(batch: Batch, entity, line_no: int, label: str,
                    aliases: list[str]) -> None:
    if entity.modified and (batch.max_modified is None or entity.modified > batch.max_modified):
        batch.max_modified = entity.modified
    batch.rows_by_table["entities"].append(
        (entity.id, label, _text(entity.descriptions), aliases,
         len(entity.sitelinks) if entity.sitelink_count is None else entity.sitelink_count,
         entity.modified, batch.file_id, line_no))


def _value(dv) -> tuple:
    """(value_type, value_id, value_text, unit_id, raw, precision): the statement columns
    of a datavalue, checked (``BadValue`` says why one is none); item and string values,
    most of a dump, take the shortest path."""
    cls = type(dv)
    if cls is EntityValue:
        return _ITEM, entity_value_id(dv.value), None, None, None, None
    if cls is StringValue:
        if is_blank(dv.value):
            raise BadValue("blank text")
        return _STRING, None, dv.value, None, None, None
    tag = TAGS.get(cls)
    if tag is not None:
        return (tag, *render_typed(dv))
    return (dv.type, *render_value(dv.type, dv.value))


_ITEM, _STRING = TAGS[EntityValue], TAGS[StringValue]


_CHECKED_PROPERTIES: set[str] = set()  # claim and qualifier keys of Wikidata's form seen


def _property_ok(batch: Batch, prop: str, line_no: int, field: str, n: int) -> bool:
    """Whether a claim or qualifier key is a property id; else a reject of its ``n`` snaks.
    Keys repeat across entities, so each is matched once per process."""
    if PROPERTY.fullmatch(prop) is None:
        batch.reject_value(line_no, field, "property id is not of Wikidata's form (its "
                           "snaks left out)", f"{_json(prop)} ({n} snaks)")
        return False
    _CHECKED_PROPERTIES.add(prop)
    return True


def _add_claims(batch: Batch, entity_id: str, claims: dict, line_no: int) -> None:
    # The hottest loop of a load (one pass per statement): locals only, no star-unpacking
    # into row tuples, a property's lone claim (most of them) skips the ranking pass, and
    # item and string values, most of a dump, are rendered inline without a call. A value
    # that is none is a BadValue: its statement (or qualifier value) goes to the rejects
    # with the reason. Statement ids and item ids are checked after the loop, a column at a
    # time (``ids_ok``).
    add_statement = batch.rows_by_table["statements"].append
    add_qualifier = batch.rows_by_table["qualifiers"].append
    file_id = batch.file_id
    type_values: dict[str, list[str]] = {}
    dropped = 0
    item, item_tag, string, string_tag, value_of = (
        EntityValue, _ITEM, StringValue, _STRING, _value)
    checked = _CHECKED_PROPERTIES
    for prop, group in claims.items():
        if prop not in checked and not _property_ok(batch, prop, line_no, "claims", len(group)):
            continue
        if len(group) == 1:
            claim = group[0]
            snak = claim.mainsnak
            if (claim.rank == "deprecated" or snak.snaktype != "value"
                    or snak.datavalue is None):
                dropped += 1
                continue
            kept = group
            best = "preferred" if claim.rank == "preferred" else "normal"
        else:
            kept, best = _statements(group)
            dropped += len(group) - len(kept)
        types_of = (type_values.setdefault(prop, [])
                    if prop == INSTANCE_OF or prop == OCCUPATION else None)
        for ordinal, claim in enumerate(kept):
            snak = claim.mainsnak
            dv = snak.datavalue
            statement_id = claim.id or f"{entity_id}${prop}${ordinal}"
            cls = type(dv)
            try:
                if cls is item:
                    value_type, value_id, text, unit, raw, precision = (
                        item_tag, dv.value.id, None, None, None, None)
                elif cls is string:
                    text = dv.value
                    if not text.strip() or (not text.isprintable() and is_blank(text)):
                        raise BadValue("blank text")
                    value_type, value_id, unit, raw, precision = (
                        string_tag, None, None, None, None)
                else:
                    value_type, value_id, text, unit, raw, precision = value_of(dv)
            except BadValue as exc:
                batch.reject_value(line_no, f"claims.{prop}", str(exc),
                                   f"{statement_id} {_json(dv.value)}")
                continue
            rank = claim.rank
            truthy = rank == best
            qualified = False
            quals = claim.qualifiers
            if quals and type(quals) is dict:
                for qprop, snaks in quals.items():
                    if qprop not in checked and not _property_ok(
                            batch, qprop, line_no, f"claims.{prop}.qualifiers", len(snaks)):
                        continue
                    for qord, qsnak in enumerate(snaks):
                        qdv = qsnak.datavalue
                        if qdv is None or qsnak.snaktype != "value":
                            if qprop == END_TIME and qsnak.snaktype == SOMEVALUE:
                                add_qualifier((statement_id, entity_id, prop, qprop,
                                               qsnak.datatype, SOMEVALUE, None, None, None,
                                               None, None, qord, file_id, line_no))
                            continue
                        qcls = type(qdv)
                        try:
                            if qcls is item:
                                add_qualifier((statement_id, entity_id, prop, qprop,
                                               qsnak.datatype, item_tag, qdv.value.id, None,
                                               None, None, None, qord, file_id, line_no))
                            elif qcls is string:
                                qtext = qdv.value
                                if not qtext.strip() or (
                                        not qtext.isprintable() and is_blank(qtext)):
                                    raise BadValue("blank text")
                                add_qualifier((statement_id, entity_id, prop, qprop,
                                               qsnak.datatype, string_tag, None, qtext, None,
                                               None, None, qord, file_id, line_no))
                            else:
                                q = value_of(qdv)
                                add_qualifier((statement_id, entity_id, prop, qprop,
                                               qsnak.datatype, q[0], q[1], q[2], q[3], q[4],
                                               q[5], qord, file_id, line_no))
                        except BadValue as exc:
                            batch.reject_value(line_no, f"claims.{prop}.qualifiers.{qprop}",
                                               str(exc), f"{statement_id} {_json(qdv.value)}")
                            continue
                        qualified = True
            add_statement(
                (statement_id, entity_id, prop, rank, snak.datatype, value_type, value_id, text,
                 unit, raw, precision, truthy, qualified, ordinal, file_id, line_no))
            if types_of is not None and truthy and value_id:
                types_of.append(value_id)
    if dropped:
        batch.skip("claim deprecated or not a value", dropped)
    if type_values:
        _add_types(batch, entity_id, type_values, line_no)


def _add_types(batch: Batch, entity_id: str, type_values: dict[str, list[str]],
               line_no: int) -> None:
    """Types: every P31 value, and for humans every P106 (occupation) value too."""
    file_id = batch.file_id
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
