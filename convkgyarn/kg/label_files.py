"""Label files (``kg load --labels FILE``): labels for ids outside the dump, in English and in
the languages the load keeps.

A label file is one JSON object keyed by Wikidata id; each value is one of:

- ``"Douglas Adams"``: an English label;
- ``{"label": "spouse", "datatype": "wikibase-item", "description": "..."}``: English, as
  Wikidata property lists come (the datatype lets the housekeeping rules drop identifiers);
- ``{"de": "Ehepartner", "ja": "配偶者"}``: labels by language code;
- ``{"labels": {"de": {"language": "de", "value": "..."}}, "descriptions": {...}}``: an
  entity as ``wbgetentities`` returns it (a whole reply, ``{"entities": {...}}``, is read as
  its entities; a label the API gave from another language under a key, with language
  fallback, is left out).

English is always kept; another language only when the load keeps it (``--language``), so a
file's labels in other languages are counted and left out otherwise. Nothing of a file is
pasted anywhere unchecked: an id not of Wikidata's form, a language code not of its form, a
value of none of these shapes and a blank label are each a reject naming the file and the key
(``kg rejects``: field ``Q42``, ``Q42.de`` or ``Q42.labels.de``), and the rest of the file
loads. A file that is no JSON object, or holds no label at all, is one line, exit 2.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from convkgyarn.errors import UserError
from convkgyarn.kg.ids import is_entity_value, is_language
from convkgyarn.kg.languages import ALL, ENGLISH
from convkgyarn.kg.values import is_blank

SHAPES = ('{id: label}, {id: {"label": ...}}, {id: {"de": label, ...}} or '
          '{id: {"labels": {"de": {"value": label}}}} (a wbgetentities reply)')
_ENGLISH_KEYS = frozenset({"label", "datatype", "description"})
_ENTITY_KEYS = frozenset({"labels", "descriptions", "aliases", "missing"})
SNIPPET_CHARS = 200


@dataclass
class LabelFile:
    """What a label file holds: ``rows`` for ``extra_labels`` (id, language, label,
    description, datatype), ``rejects`` (field, reason, snippet), and per language the labels
    left out because the load does not keep that language."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    rejects: list[tuple[str, str, str]] = field(default_factory=list)
    not_kept: Counter = field(default_factory=Counter)


def read_labels(path: Path, languages: list[str] | None = None) -> LabelFile:
    """Read a label file, keeping English and ``languages`` (``kg.languages.kept_languages``:
    None for English only, ``["all"]`` for every language)."""
    if not path.is_file():
        raise UserError(f"{path}: no such labels file")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"{path}: not a JSON object of id -> label ({exc})") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: not a JSON object of id -> label ({SHAPES})")
    if isinstance(data.get("entities"), dict) and not any(map(is_entity_value, data)):
        data = data["entities"]  # a whole wbgetentities reply
    out = _Reader(languages)
    for key, value in data.items():
        out.entry(key, value)
    found = out.found
    if data and not found.rows and not found.not_kept:
        first = (f" (first entry {found.rejects[0][0]}: {found.rejects[0][1]})"
                 if found.rejects else "")
        raise UserError(f"{path}: no labels in it{first}; expected {SHAPES}, with Wikidata "
                        "ids and labels that are not blank")
    return found


def _quoted(text: str) -> str:
    """A key that is no id or language code, as JSON (quoted, its newlines escaped), for the
    one line that names it."""
    return json.dumps(text, ensure_ascii=False)[:60]


def _code(code: str) -> str:
    return code if is_language(code) else _quoted(code)


class _Reader:
    def __init__(self, languages: list[str] | None) -> None:
        self.every = bool(languages) and ALL in languages
        self.kept = {ENGLISH, *(languages or ())}
        self.found = LabelFile()

    def reject(self, where: str, reason: str, value: Any) -> None:
        snippet = json.dumps(value, ensure_ascii=False)[:SNIPPET_CHARS]
        self.found.rejects.append((where, reason, snippet))

    def add(self, key: str, where: str, language: str, label: Any, description: Any = None,
            datatype: Any = None) -> None:
        if not is_language(language):
            self.reject(where, "language code not of Wikidata's form (like de, zh-hans)",
                        language)
            return
        if not isinstance(label, str):
            self.reject(where, "the label is not text", label)
            return
        if is_blank(label):  # a conversation would answer ""
            self.reject(where, "blank label", label)
            return
        if not (self.every or language in self.kept):
            self.found.not_kept[language] += 1
            return
        if not isinstance(description, str) or is_blank(description):
            description = None
        self.found.rows.append({"id": key, "language": language, "label": label,
                                "description": description,
                                "datatype": datatype if isinstance(datatype, str) else None})

    def entry(self, key: str, value: Any) -> None:
        if not is_entity_value(key):  # it would be pasted into kg rdf's IRIs
            self.reject(_quoted(key), "id not of Wikidata's form (Q42, P26)", value)
        elif isinstance(value, str):
            self.add(key, key, ENGLISH, value)
        elif not isinstance(value, dict) or not value:
            self.reject(key, f"not a label: expected one of {SHAPES}", value)
        elif value.keys() & _ENGLISH_KEYS:
            self.add(key, key, ENGLISH, value.get("label"), value.get("description"),
                     value.get("datatype"))
        elif value.keys() & _ENTITY_KEYS:
            self.entity(key, value)
        else:
            for code, label in value.items():
                self.add(key, f"{key}.{_code(code)}", code, label)

    def entity(self, key: str, value: dict) -> None:
        """An entity as wbgetentities gives it: its labels, with the description of the same
        language; the datatype of a property entity goes with its English label."""
        if "missing" in value:
            self.reject(key, "a missing entity (wbgetentities found no such id)", value)
            return
        labels, descriptions = value.get("labels", {}), value.get("descriptions", {})
        if not isinstance(labels, (dict, list)) or not isinstance(descriptions, (dict, list)):
            self.reject(key, "labels and descriptions must be maps of language -> "
                        "{\"value\": text}", value)
            return
        descriptions = descriptions if isinstance(descriptions, dict) else {}
        for code, term in (labels.items() if isinstance(labels, dict) else ()):
            where = f"{key}.labels.{_code(code)}"
            if not isinstance(term, dict) or "value" not in term:
                self.reject(where, "not a label ({\"value\": text})", term)
                continue
            if term.get("language", code) != code:
                continue  # the API's language fallback: another language's label
            described = descriptions.get(code)
            description = (described.get("value") if isinstance(described, dict)
                           and described.get("language", code) == code else None)
            self.add(key, where, code, term["value"], description,
                     value.get("datatype") if code == ENGLISH else None)
