"""Labels in languages besides English: which a load keeps, how a label is looked up in one
language with a fallback chain, and how well each kept language covers the KG.

English stays where it always was (``entities.label``, ``properties.label``, the ``labels``
view): every stage reads it there, unchanged. A load given ``--language`` keeps the labels,
descriptions and aliases of those languages in ``entity_labels`` (items and property
entities, one row per id and language, with the file and line they came from), and label
files may add labels in any kept language (``extra_labels.language``). The view
``labels_by_language`` joins them: one label per (id, language), English included.

Two of Wikidata's conventions decide the rules here:

- ``mul`` ("multiple languages") holds a label that is the same in every language that
  writes it (mostly names of people and places, since 2024). It is kept when asked (``--language
  mul``, or ``all``) and ``fallback_chain`` puts it after the language asked and before
  English: a ``mul`` label is right in German too, English may not be. English itself is
  never filled from ``mul``: ``entities.label`` stays exactly the dump's English label.
- Chinese is split by script: ``zh`` is a label in either script, ``zh-hans`` Simplified,
  ``zh-hant`` Traditional, and ``zh-cn``, ``zh-sg``, ``zh-my`` (Simplified) and ``zh-tw``,
  ``zh-hk``, ``zh-mo`` (Traditional) regional ones. Many items have only script labels (on
  real-entities-dev, 9 of the 358 with a Chinese label of either script have no ``zh``), so
  ``--language zh`` also keeps ``zh-hans`` and ``zh-hant``; each row keeps its own code, so
  what is stored is exactly what Wikidata has, and the lookup falls back from ``zh`` to them.
  The regional codes are kept only when asked by name (one more item here).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

import duckdb

from convkgyarn.kg.ids import is_language

ALL = "all"  # --language all: every language the dump has
ENGLISH = "en"
MUL = "mul"
# Kept with a language whenever it is asked: zh's script variants (see above).
KEPT_WITH = {"zh": ("zh-hans", "zh-hant")}
# Narrower codes whose labels are labels of the wider one, in the order they are tried.
NARROWER = {"zh": ("zh-hans", "zh-cn", "zh-sg", "zh-my", "zh-hant", "zh-tw", "zh-hk", "zh-mo"),
            "zh-hans": ("zh-cn", "zh-sg", "zh-my"), "zh-hant": ("zh-tw", "zh-hk", "zh-mo")}
# The wider code a regional one falls back to, where it is not the part before the hyphen.
WIDER = {"zh-cn": "zh-hans", "zh-sg": "zh-hans", "zh-my": "zh-hans", "zh-tw": "zh-hant",
         "zh-hk": "zh-hant", "zh-mo": "zh-hant"}


def kept_languages(asked: Sequence[str] | None) -> list[str] | None:
    """The languages a load keeps in ``entity_labels`` for ``--language`` codes (already
    checked and lower-cased by ``config.language_codes``): English is left out (it is always
    kept, in the KG's own tables), ``zh`` brings ``zh-hans`` and ``zh-hant``, and ``all``
    stands alone. None when nothing besides English is kept. This list is what a file's
    identity records (``load_files.languages``)."""
    if not asked:
        return None
    if ALL in asked:
        return [ALL]
    kept = set(asked)
    for code in asked:
        kept.update(KEPT_WITH.get(code, ()))
    kept.discard(ENGLISH)
    return sorted(kept) or None


def fallback_chain(language: str) -> tuple[str, ...]:
    """Where a label in ``language`` is looked for, in order: the language itself, its
    narrower variants (``zh``: ``zh-hans``, ``zh-cn`` ... ``zh-hant`` ... ``zh-mo``), its wider
    ones (``pt-br``: ``pt``; ``zh-tw``: ``zh-hant``, then ``zh``), then ``mul``, then ``en``.
    Only languages a load kept can answer; the rest are skipped."""
    if not is_language(language):
        raise ValueError(f"not a language code: {language!r} (like de, zh-hans, pt-br, mul)")
    chain = [language, *NARROWER.get(language, ())]
    code = language
    while True:
        wider = WIDER.get(code) or (code.rsplit("-", 1)[0] if "-" in code else None)
        if wider is None:
            break
        chain.append(wider)
        code = wider
    chain += [MUL, ENGLISH]
    return tuple(dict.fromkeys(chain))


class LocalLabel(NamedTuple):
    """A label found for an id: its text, and the language it is in (the one asked, or the
    first of the fallback chain that had one)."""

    label: str
    language: str


def labels_in_language(con: duckdb.DuckDBPyConnection, ids: Iterable[str], language: str, *,
                       chain: Sequence[str] | None = None) -> dict[str, LocalLabel]:
    """The label of each id in ``language``, one query for the whole set.

    Where an id has no label in ``language``, the next language of ``chain`` that has one
    answers (default ``fallback_chain(language)``: the language, its variants, ``mul``,
    ``en``; pass ``chain=[language]`` for no fallback). Labels come from
    ``labels_by_language``: the dump's own labels first (items and property entities), then
    those of label files. An id with a label in no language of the chain is not in the
    result: a caller must leave it out (or say why), never show the raw id."""
    chain = list(chain) if chain is not None else list(fallback_chain(language))
    bad = [c for c in chain if not is_language(c)]
    if bad or not chain:
        raise ValueError(f"not a language code: {bad[0] if bad else 'none given'!r}")
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    rows = con.execute(
        "SELECT id, arg_min(struct_pack(label := label, language := language), "
        "list_position($chain, language)) FROM labels_by_language "
        "WHERE id IN (SELECT unnest($ids)) AND list_contains($chain, language) GROUP BY id",
        {"chain": chain, "ids": wanted}).fetchall()
    return {i: LocalLabel(found["label"], found["language"]) for i, found in rows}


def project_languages(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The languages besides English the project's loads kept (``all`` resolved to those
    the loaded labels have), sorted."""
    kept = {code for (codes,) in con.execute(
        "SELECT languages FROM load_files WHERE status = 'done' AND languages IS NOT NULL"
    ).fetchall() for code in codes}
    if ALL in kept:
        kept.discard(ALL)
        kept.update(code for (code,) in con.execute(
            "SELECT DISTINCT language FROM entity_labels UNION SELECT DISTINCT language FROM "
            "extra_labels WHERE language <> 'en'").fetchall())
    return sorted(kept)


def language_coverage(con: duckdb.DuckDBPyConnection) -> dict:
    """For English and every kept language: how many of the entities (items and property
    entities) loaded have a label in it, and how many of the item values of statements do
    (distinct values, as ``label_coverage`` counts them, and the share of the item-valued
    statements, which weighs a value by how often it is used). No fallback is counted: these
    are the labels each language itself has."""
    languages = [ENGLISH, *project_languages(con)]
    one = lambda sql: con.execute(sql).fetchone()[0]  # noqa: E731
    total = one("SELECT count(*) FROM (SELECT id FROM entities UNION SELECT id FROM properties "
                "UNION SELECT id FROM entity_labels)")
    labelled = dict(con.execute(
        "SELECT language, count(DISTINCT id) FROM entity_labels WHERE label IS NOT NULL "
        "GROUP BY 1").fetchall())
    labelled[ENGLISH] = one("SELECT count(*) FROM (SELECT id FROM entities UNION SELECT id "
                            "FROM properties WHERE label IS NOT NULL)")
    values, statements = con.execute(
        "SELECT count(*), coalesce(sum(n), 0) FROM (SELECT value_id, count(*) AS n FROM "
        "statements WHERE value_id IS NOT NULL GROUP BY 1)").fetchone()
    by_language = {lang: (n, uses) for lang, n, uses in con.execute(
        "WITH v AS (SELECT value_id AS id, count(*) AS n FROM statements WHERE value_id IS NOT "
        "NULL GROUP BY 1) SELECT l.language, count(*), sum(v.n) FROM v JOIN labels_by_language "
        "l USING (id) WHERE list_contains($languages, l.language) GROUP BY 1",
        {"languages": languages}).fetchall()}

    def share(n: int, of: int) -> float:
        return round(n / of, 4) if of else 1.0

    coverage = {}
    for lang in languages:
        n, uses = by_language.get(lang, (0, 0))
        coverage[lang] = {
            "entities": labelled.get(lang, 0), "share": share(labelled.get(lang, 0), total),
            "item_values": {"used": values, "labelled": n, "share": share(n, values)},
            "statements_share": share(int(uses), int(statements))}
    return {"languages": languages[1:], "entities": total, "coverage": coverage}
