"""Real facts for the language tests: the entities of real-entities-dev with their labels
in every language, and each fact the rules path asks (subject, property, value, qualifiers),
read straight from the dump (the loader keeps English only until issue #35's loader work
lands)."""

from __future__ import annotations

import bz2
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from convkgyarn.kg.render import Value
from convkgyarn.languages import Subject
from convkgyarn.stages.salience import broad_kind

LANGS = ("de", "ja", "zh")
ZH_KEYS = ("zh-hans", "zh-cn", "zh")


@dataclass(frozen=True)
class RealFact:
    entity: str
    labels: dict  # language -> subject label
    human: bool
    gender: str | None
    kind: str
    type_label: str | None
    property_id: str
    value: Value
    value_labels: dict  # language -> value label (items)
    tense: str
    qualifiers: tuple  # ((qualifier id, Value), ...)
    sitelinks: int = 0

    def subject(self, lang: str) -> Subject:
        return Subject(self.labels[lang], self.human, self.gender, self.kind, self.type_label)


def _label(entity: dict, lang: str) -> str | None:
    labels = entity.get("labels", {})
    for key in (ZH_KEYS if lang == "zh" else (lang,)):
        if key in labels:
            return labels[key]["value"]
    return None


def _value(snak: dict) -> Value | None:
    dv = snak.get("datavalue")
    if not dv:
        return None
    v = dv["value"]
    if dv["type"] == "wikibase-entityid":
        return Value("wikibase-item", None, v.get("id") or f"Q{v['numeric-id']}")
    if dv["type"] == "time":
        sign, rest = v["time"][0], v["time"][1:]
        year, month, day = rest.split("T")[0].split("-")
        p = v["precision"]
        y = int(year)
        bce = sign == "-"
        if p >= 11:
            text = f"{y:04d}-{month}-{day}"
        elif p == 10:
            text = f"{y:04d}-{month}"
        elif p == 9:
            text = str(y) if bce else f"{y:04d}"
        elif p == 8:
            text = f"{y // 10 * 10}s"
        else:
            return None
        return Value("time", text + (" BCE" if bce else ""), precision=p)
    if dv["type"] == "quantity":
        unit = v["unit"].rsplit("/", 1)[-1]
        return Value("quantity", v["amount"].lstrip("+"), unit_id=None if unit == "1" else unit)
    return None


@cache
def load(shared: Path) -> tuple[RealFact, ...]:
    dump = shared / "wikidata" / "real-entities-dev.ndjson.bz2"
    en = json.loads((shared / "labels" / "preferred-labels-en.json").read_text())
    entities = {}
    with bz2.open(dump, "rt", encoding="utf-8") as f:
        for line in f:
            line = line.strip().rstrip(",")
            if line.startswith("{"):
                e = json.loads(line)
                entities[e["id"]] = e
    facts = []
    for e in entities.values():
        claims = e.get("claims", {})
        types = [s["mainsnak"].get("datavalue", {}).get("value", {}).get("id")
                 for s in claims.get("P31", [])]
        human = "Q5" in types
        type_labels = [en.get(t) or _label(entities.get(t, {}), "en") for t in types if t]
        type_labels = [t for t in type_labels if t]
        type_label = next((t for t in type_labels if broad_kind(t, human) != "other"),
                          type_labels[0] if type_labels else None)
        gender = next((s["mainsnak"].get("datavalue", {}).get("value", {}).get("id")
                       for s in claims.get("P21", [])), None)
        labels = {lang: _label(e, lang) for lang in LANGS}
        labels = {k: v for k, v in labels.items() if v}
        if not labels:
            continue
        kind = broad_kind(type_label, human)
        gone = "P570" in claims or "P576" in claims
        for pid, statements in claims.items():
            for st in statements:
                if st.get("rank") == "deprecated":
                    continue
                value = _value(st["mainsnak"])
                if value is None:
                    continue
                quals = tuple((q, qv) for q, snaks in st.get("qualifiers", {}).items()
                              if q in ("P580", "P582", "P585")
                              for qv in [_value(snaks[0])] if qv is not None)
                ended = any(q == "P582" for q, _ in quals)
                vlabels = {}
                if value.value_id:
                    target = entities.get(value.value_id, {})
                    vlabels = {lang: _label(target, lang) for lang in LANGS
                               if _label(target, lang)}
                facts.append(RealFact(e["id"], labels, human, gender, kind, type_label, pid,
                                      value, vlabels, "past" if gone or ended else "present",
                                      quals, len(e.get("sitelinks", {}))))
    return tuple(facts)


def subjects(facts, lang: str) -> list[RealFact]:
    """The facts of the entities that could be a conversation's subject in ``lang``: as
    assembly's namesake rule does (a name must point at its entity), of the entities
    sharing a label only the one with the most sitelinks is kept (the city Amsterdam, not
    the album)."""
    best: dict[str, tuple[int, str]] = {}
    for f in facts:
        label = f.labels.get(lang)
        if label and (label not in best or f.sitelinks > best[label][0]):
            best[label] = (f.sitelinks, f.entity)
    keep = {entity for _, entity in best.values()}
    return [f for f in facts if f.entity in keep and lang in f.labels]
