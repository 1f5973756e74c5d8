"""The forms of Wikidata's ids, checked wherever an id reaches the KG, a query or a triple.

Ids from a dump, an endpoint's reply or the command line are pasted into each turn's SPARQL
(``wd:Q42``, ``wds:Q42-...``) and into ``kg rdf``'s IRIs. Text that is not an id there is
code: an "id" carrying ``SERVICE <http://...>`` made an endpoint call out, one with a newline
forged triples, one with a space made the N-Triples file unloadable. So the loader admits only
these forms (a line whose entity id is not one is rejected, a statement or value with a bad id
is left out with the reason), and the writers of queries and triples check them again (an
older database may hold anything). Every form is ASCII letters, digits, ``-`` and ``$``: safe
in a SPARQL prefixed name, an IRI and a Python string alike.

``re.ASCII``: ``\\d`` and ``[0-9]`` differ in Python (``\\d`` takes any Unicode digit), and an
id with Arabic-Indic digits is no Wikidata id.
"""

from __future__ import annotations

import re

from convkgyarn.errors import BadId

WD = "http://www.wikidata.org/entity/"

ITEM = re.compile(r"Q[1-9][0-9]*", re.ASCII)
PROPERTY = re.compile(r"P[1-9][0-9]*", re.ASCII)
# What an entity value (``wikibase-entityid``) may name: an item, a property, a lexeme, its
# form or sense (L7-F1, L7-S1), an entity schema (E10) or a media file (M5).
ENTITY_VALUE = re.compile(r"[QPLEM][1-9][0-9]*|L[1-9][0-9]*-[FS][1-9][0-9]*", re.ASCII)
# Wikidata's statement ids are the entity id, "$", and a GUID: Q42$F078E5B3-F9A8-480E-B7AC-
# D97778CBBEF9 (lower-case hex too, and a lower-case entity letter in old dumps: q31$...).
# Any GUID of letters, digits and hyphens is taken: that is what makes it safe.
STATEMENT = re.compile(
    r"[QPLMqplm][1-9][0-9]*(?:-[FSfs][1-9][0-9]*)?\$[0-9A-Za-z][0-9A-Za-z$-]{0,79}", re.ASCII)
# A quantity's unit: "1" (no unit) or an item's IRI.
UNIT = re.compile(re.escape(WD) + r"Q[1-9][0-9]*", re.ASCII)
# Entity types whose old-style values carry only a number ({"entity-type": "item",
# "numeric-id": 60}, older dumps and some API replies): the letter of their ids.
NUMERIC_ID_LETTERS = {"item": "Q", "property": "P", "lexeme": "L"}

# A language code as Wikidata writes them in labels, descriptions and aliases (MediaWiki's
# codes, lower case): de, ja, zh-hans, pt-br, be-tarask, nan-latn-pehoeji, mul. Written into
# kg rdf's language tags and the FILTERs of kg load --sparql. (``config.LANGUAGE_CODE``, which
# checks the --language option, is the same pattern: config sits below this layer.)
LANGUAGE = re.compile(r"[a-z]{2,8}(?:-[a-z0-9]{1,12}){0,4}", re.ASCII)

_ENTITY_OF_TYPE = {"item": ITEM, "property": PROPERTY}


def entity_id_problem(entity_type: str, entity_id: str) -> str | None:
    """Why ``entity_id`` is no id of an entity of ``entity_type`` (item or property), or None."""
    pattern = _ENTITY_OF_TYPE.get(entity_type)
    if pattern is None or pattern.fullmatch(entity_id):
        return None
    letter = "Q" if entity_type == "item" else "P"
    return f"{entity_type} id {entity_id[:60]!r} is not a Wikidata {entity_type} id ({letter}123)"


def is_item(value: str | None) -> bool:
    return value is not None and ITEM.fullmatch(value) is not None


def is_property(value: str | None) -> bool:
    return value is not None and PROPERTY.fullmatch(value) is not None


def is_entity_value(value: str | None) -> bool:
    return value is not None and ENTITY_VALUE.fullmatch(value) is not None


def is_statement(value: str | None) -> bool:
    return value is not None and STATEMENT.fullmatch(value) is not None


def is_language(value: str | None) -> bool:
    return isinstance(value, str) and LANGUAGE.fullmatch(value) is not None


def checked(value: str, pattern: re.Pattern, what: str) -> str:
    """``value`` itself when it has ``pattern``'s form; else ``BadId`` naming it."""
    if not isinstance(value, str) or pattern.fullmatch(value) is None:
        raise BadId(f"{what} {str(value)[:60]!r} is not of Wikidata's form (the KG was "
                    "loaded before ids were checked: load it again)")
    return value
