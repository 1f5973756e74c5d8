"""What the loaded KG snapshot is: its identity, its sources, whether it is usable."""

from __future__ import annotations

import hashlib

import duckdb

from convkgyarn.errors import UserError
from convkgyarn.store.schema import kg_version  # noqa: F401  (the snapshot's identity)

HUMAN = "Q5"


def set_kg_version(con: duckdb.DuckDBPyConnection, version: str) -> None:
    con.execute("INSERT OR REPLACE INTO kg_meta VALUES ('kg_version', ?)", [version])


def bump_kg_version(con: duckdb.DuckDBPyConnection, change: str) -> str:
    """A new identity after a change (inside the caller's transaction)."""
    version = hashlib.sha256((kg_version(con) + "\x1f" + change).encode()).hexdigest()[:32]
    set_kg_version(con, version)
    return version


def type_label(con: duckdb.DuckDBPyConnection, type_id: str) -> str | None:
    """The lower-case English label of a type, as subjects are named in templates; None for
    a type without one (its id is never shown)."""
    if type_id == HUMAN:
        return "person"
    row = con.execute("SELECT label FROM class_labels WHERE id = ? LIMIT 1",
                      [type_id]).fetchone()
    return row[0].lower() if row and row[0] else None


# What a type with no English label is, told by a property most of its items have (the
# first sign that fits wins): a loaded dump often lacks the labels of its own types
# ("association football club", "chemical element", "business" in real-entities-dev), and a
# type without a label got no kind, so no ranking, phrasing or plain noun of its own ("the
# club"). Only properties that belong to one kind of thing: a director is also a TV
# series', a connecting line an airport's, a workforce a library's, an ISO code a
# territory's, a students count a school's, so none of them is a sign; places, films and
# books are left unnamed (their types nearly always have labels).
KIND_SIGNS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("P246",), "chemical element"),           # element symbol
    (("P286", "P115"), "sports club"),         # head coach, home venue
    (("P1103",), "station"),                   # platform tracks
    (("P217",), "work of art"),                # inventory number
    (("P452", "P2226", "P414"), "company"),    # industry, market capitalisation, stock exchange
)
# Signs that count only together: a political ideology alone is also a newspaper's or a
# movement's, with a chairperson it is a party's (fifty politicians of a held-out set, whose
# parties' type has no English label in the labels file, 0.8.17)
KIND_SIGNS_TOGETHER: tuple[tuple[tuple[str, ...], str], ...] = (
    (("P1142", "P488"), "political party"),    # political ideology, chairperson
)
# A sign counts only when at least this many of the type's items (and half of them) have it:
# one item of a two-item type decides nothing.
SIGN_MIN_ITEMS = 2
# A place people live in, told by a population and a postal code both (a museum has a postal
# code, a country or a district a population, not the two: dump-sample-100 names none of
# "municipality of Germany", "big city", "commune of France", so Bamberg was asked "Who is
# its head of government?" and named in every turn): a "city" where half its items have
# SETTLEMENT_CITY people or more, else a "town" (a reader says "the town" of a village too).
SETTLEMENT_SIGN = ("P1082", "P281")
SETTLEMENT_CITY = 100_000


def type_labels(con: duckdb.DuckDBPyConnection, type_ids: list[str], *,
                infer: bool = False) -> dict[str, str | None]:
    """``type_label`` of many types in one query (each call of it reads the labels view);
    with ``infer``, a type with no label that ``KIND_SIGNS`` can tell gets the sign's noun,
    and one reached through occupations (P106) "person" (``inferred_type_labels``: one pass
    over the statements, so it is asked for the types that have templates, once per stage
    or run, not for every value's type)."""
    found = dict(con.execute("SELECT id, any_value(label) FROM class_labels WHERE "
                             "list_contains(?, id) GROUP BY id", [list(type_ids)]).fetchall())
    out = {t: "person" if t == HUMAN else (found[t].lower() if found.get(t) else None)
           for t in type_ids}
    missing = [t for t, label in out.items() if label is None]
    if infer and missing:
        out.update(inferred_type_labels(con, missing))
    return out


def inferred_type_labels(con: duckdb.DuckDBPyConnection, type_ids: list[str]) -> dict[str, str]:
    """A noun for each type (of ``type_ids``, all without a label) at least half of whose
    items, and ``SIGN_MIN_ITEMS`` of them, have a property of one of ``KIND_SIGNS``. A type
    that comes through occupations (P106) is "person": its items are people, asked as
    people ("How tall is he?", never "How high is Didin?")."""
    out: dict[str, str] = {t: "person" for (t,) in con.execute(
        "SELECT DISTINCT type_id FROM entity_types WHERE via = 'P106' AND list_contains(?, "
        "type_id)", [list(type_ids)]).fetchall()}
    signs = [p for props, _ in KIND_SIGNS + KIND_SIGNS_TOGETHER for p in props]
    rows = con.execute(
        "WITH items AS (SELECT type_id, entity_id FROM entity_types "
        "  WHERE list_contains(?, type_id) AND NOT list_contains(?, type_id)), "
        "sizes AS (SELECT type_id, count(DISTINCT entity_id) AS n FROM items GROUP BY type_id) "
        "SELECT i.type_id, s.property_id, count(DISTINCT i.entity_id), any_value(z.n) "
        "FROM items i JOIN statements s ON s.entity_id = i.entity_id "
        "JOIN sizes z ON z.type_id = i.type_id "
        "WHERE list_contains(?, s.property_id) GROUP BY i.type_id, s.property_id",
        [list(type_ids), sorted(out), signs]).fetchall()
    signed = {(t, p) for t, p, have, n in rows if have >= SIGN_MIN_ITEMS and have * 2 >= n}
    for t in type_ids:
        if t in out:
            continue
        for props, noun in KIND_SIGNS:
            if any((t, p) in signed for p in props):
                out[t] = noun
                break
        else:
            for props, noun in KIND_SIGNS_TOGETHER:
                if all((t, p) in signed for p in props):
                    out[t] = noun
                    break
    out.update(_settlements(con, [t for t in type_ids if t not in out]))
    return out


def _settlements(con: duckdb.DuckDBPyConnection, type_ids: list[str]) -> dict[str, str]:
    """"city" or "town" for each type (of ``type_ids``, none with a label or a sign) at
    least half of whose items, and ``SIGN_MIN_ITEMS`` of them, have both a population and a
    postal code (``SETTLEMENT_SIGN``): "city" where the median population is
    ``SETTLEMENT_CITY`` or more."""
    if not type_ids:
        return {}
    population, postcode = SETTLEMENT_SIGN
    rows = con.execute(
        "WITH items AS (SELECT DISTINCT type_id, entity_id FROM entity_types "
        "  WHERE via = 'P31' AND list_contains(?, type_id)), "
        "people AS (SELECT entity_id, max(TRY_CAST(value_text AS DOUBLE)) AS n FROM statements "
        "  WHERE property_id = ? AND truthy GROUP BY entity_id), "
        "coded AS (SELECT DISTINCT entity_id FROM statements WHERE property_id = ?) "
        "SELECT i.type_id, count(*) AS items, count(c.entity_id) FILTER (WHERE p.n IS NOT NULL) "
        "  AS settled, median(p.n) FILTER (WHERE c.entity_id IS NOT NULL) AS people "
        "FROM items i LEFT JOIN people p USING (entity_id) LEFT JOIN coded c USING (entity_id) "
        "GROUP BY i.type_id", [list(type_ids), population, postcode]).fetchall()
    return {t: "city" if people is not None and people >= SETTLEMENT_CITY else "town"
            for t, items, settled, people in rows
            if settled >= SIGN_MIN_ITEMS and settled * 2 >= items}


def sources(con: duckdb.DuckDBPyConnection) -> list[dict]:
    """Every source loaded into the project, with its kind, counts, type filter
    (``keep_types``: None when every item was loaded whole) and the languages it kept
    besides English (``languages``: None for English only)."""
    cols = ("path", "kind", "status", "entities", "rejects", "dump_date", "keep_types",
            "languages")
    return [dict(zip(cols, r)) for r in con.execute(
        f"SELECT {', '.join(cols)} FROM load_files ORDER BY file_id").fetchall()]


def require_complete_loads(con: duckdb.DuckDBPyConnection) -> None:
    """Stop with a clear message when a load was interrupted and not yet re-run."""
    broken = con.execute("SELECT path FROM load_files WHERE status <> 'done' ORDER BY file_id"
                         ).fetchall()
    if broken:
        path = broken[0][0]
        raise UserError(f"the load of {path} is incomplete (it was interrupted); run "
                        f"`convkgyarn kg load {path}` again, with the same --labels and other "
                        "options, to finish it")


def require_usable_kg(con: duckdb.DuckDBPyConnection) -> None:
    """Stop with a clear message when the KG is half-loaded or empty."""
    require_complete_loads(con)
    if not con.execute("SELECT EXISTS (SELECT 1 FROM entities)").fetchone()[0]:
        raise UserError("the project holds no entities: its loads yielded none "
                        "(see `convkgyarn kg stats` and `convkgyarn kg rejects`)")


def dump_date(con: duckdb.DuckDBPyConnection, db: str = "") -> str | None:
    """The date of the newest dump the KG was loaded from (None: none recorded); ``db``:
    the prefix of an attached database ("nxt.")."""
    return con.execute(f"SELECT max(dump_date) FROM {db}load_files WHERE status = 'done'"
                       ).fetchone()[0]


def has_loaded_anything(con: duckdb.DuckDBPyConnection) -> bool:
    return con.execute("SELECT EXISTS (SELECT 1 FROM load_files)").fetchone()[0]


def reject_rows(con: duckdb.DuckDBPyConnection, limit: int = 50) -> list[tuple]:
    """Rejected dump lines and values: (file, line, field, reason, snippet): the field is
    None for a whole line (the snippet is its start), else where the value was (the
    snippet holds the statement id and the value)."""
    return con.execute("SELECT file, line_no, field, reason, snippet FROM load_rejects "
                       "ORDER BY file, line_no, field NULLS FIRST, snippet LIMIT ?",
                       [limit]).fetchall()


def drop_counts(con: duckdb.DuckDBPyConnection, stage: str | None = None, *,
                items: bool = False) -> list[tuple]:
    """What every stage dropped and why: (stage, reason, count, an example item). With
    ``items``, (stage, reason, count, distinct items, runs, an example item): each of the
    eight configurations drops the same unlabelled value, so a count is items times runs."""
    distinct = "count(DISTINCT item), count(DISTINCT run_id), " if items else ""
    return con.execute(
        f"SELECT stage, reason, count(*), {distinct}min(item) FROM drops WHERE ? IS NULL OR "
        "stage = ? GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2", [stage, stage]).fetchall()


def drop_items(con: duckdb.DuckDBPyConnection, stage: str | None = None, *,
               item: str | None = None, reason: str | None = None,
               limit: int = 50) -> tuple[list[tuple], int]:
    """Each item left out (an entity and what of it: "Q15180/P112"; a dump line), with its
    stage, reason and detail, and in how many runs, where ``item`` is the item or one of
    its parts ("Q15180": everything left out of the Soviet Union) and ``reason`` is part of
    the reason (any case); at most ``limit`` rows, then the count of every row that
    matched. Both are bound parameters, never query text."""
    where = ("(? IS NULL OR stage = ?) AND (? IS NULL OR item = ? OR starts_with(item, ? || '/'))"
             " AND (? IS NULL OR contains(lower(reason), lower(?)))")
    args = [stage, stage, item, item, item, reason, reason]
    grouped = ("SELECT stage, item, reason, coalesce(detail, ''), count(DISTINCT run_id) "
               f"FROM drops WHERE {where} GROUP BY 1, 2, 3, 4")
    total = con.execute(f"SELECT count(*) FROM ({grouped})", args).fetchone()[0]
    rows = con.execute(f"{grouped} ORDER BY 1, 2, 3, 4 LIMIT ?", [*args, limit]).fetchall()
    return rows, total


LOW_COVERAGE = 0.9


def label_coverage(con: duckdb.DuckDBPyConnection) -> dict:
    """How many of the properties, item values and units in use have an English label.

    Unlabelled ones are never shown to users (no raw ids): a property without a label is not
    asked about, an unlabelled value is left out of its answer. Low coverage is worth a
    note with the fix."""
    def share(sql: str) -> dict:
        n, labelled = con.execute(sql).fetchone()
        return {"used": n, "labelled": labelled,
                "share": round(labelled / n, 4) if n else 1.0}

    out = {
        "properties": share(
            "SELECT count(*), count(p.label) FROM (SELECT DISTINCT property_id AS id FROM "
            "statements) s LEFT JOIN property_info p USING (id)"),
        "item_values": share(
            "SELECT count(*), count(l.label) FROM (SELECT DISTINCT value_id AS id FROM "
            "statements WHERE value_id IS NOT NULL) v LEFT JOIN labels l USING (id)"),
        "units": share(
            "SELECT count(*), count(l.label) FROM (SELECT DISTINCT unit_id AS id FROM "
            "statements WHERE unit_id IS NOT NULL) u LEFT JOIN labels l USING (id)"),
    }
    low = []
    for key, what in (("properties", "properties in use"), ("item_values", "item values"),
                      ("units", "units")):
        c = out[key]
        if c["used"] and c["share"] < LOW_COVERAGE:
            low.append(f"{what} {c['share']:.0%} ({c['labelled']:,} of {c['used']:,})")
    # One note for all of them: the fix is the same, and three copies of it hide the figures.
    warnings = [f"few English labels: {', '.join(low)}; unlabelled ones are left out of "
                "conversations. Give --labels with {id: label} files (a Wikidata property "
                "list, labels of the items and units; --value-labels for a file that "
                "should name values only), or load a dump that includes these "
                "entities"] if low else []
    out["warnings"] = warnings
    return out
