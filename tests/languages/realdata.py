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


# -- follow-ups that build on the answer: real subjects and values for every key ------------
# what the value of each property is, for a stand-in when the real value has no label in the
# language (the dump holds the labels of its own entities only)
VALUE_CLASS = {**{p: "person" for p in "P57 P58 P175 P86 P50 P112 P35 P6 P26 P286 P488 P169 "
                  "P1037 P22 P25 P40 P161".split()},
               **{p: "city" for p in ("P19", "P20", "P159", "P36")},
               **{p: "country" for p in ("P17", "P27", "P495")},
               "P69": "university", "P108": "university", "P54": "team", "P38": "currency",
               "P102": "party"}
# real entities of the dump that stand in for a value of a class
STAND_INS = {"team": ("Q193749",), "currency": ("Q4916",), "party": ("Q29552",)}


_ENTITIES: dict[int, dict[str, RealFact]] = {}


def _entities(facts) -> dict[str, RealFact]:
    """Entity id -> one of its facts (its labels, kind and gender), once per loaded dump."""
    found = _ENTITIES.get(id(facts))
    if found is None:
        found = _ENTITIES[id(facts)] = {}
        for f in facts:
            found.setdefault(f.entity, f)
    return found


def stand_ins(facts, lang: str, cls: str | None) -> list[Subject]:
    """Real entities of the dump, with a label in ``lang``, that can stand in for a value of
    a class: a man and a woman, the most linked city, country and university, Legia Warsaw,
    the euro, the Democratic Party."""
    ents = sorted(_entities(facts).values(), key=lambda e: -e.sitelinks)
    ents = [e for e in ents if lang in e.labels]
    if cls == "person":
        men = [e for e in ents if e.human and e.gender == "Q6581097"]
        women = [e for e in ents if e.human and e.gender == "Q6581072"]
        return [e.subject(lang) for e in (men[:1] + women[:1])]
    if cls in STAND_INS:
        return [e.subject(lang) for e in ents if e.entity in STAND_INS[cls]]
    if cls is None:  # an award, a position, a continent: the dump has none with labels
        return []
    return [e.subject(lang) for e in ents if e.kind == cls][:1]


def value_subject(fact: RealFact, facts, lang: str, english: dict) -> Subject | None:
    """The fact's value as a ``Subject`` in ``lang`` (its own label, with its gender when the
    dump holds it), else its English label (the loader's fallback chain), else None."""
    if not fact.value.value_id:
        return None
    target = _entities(facts).get(fact.value.value_id)
    if lang in fact.value_labels:
        if target is not None:
            return Subject(fact.value_labels[lang], target.human, target.gender, target.kind,
                           target.type_label)
        return Subject(fact.value_labels[lang])
    label = english.get(fact.value.value_id)
    return Subject(label, VALUE_CLASS.get(fact.property_id) == "person") if label else None


@dataclass(frozen=True)
class FollowUpCase:
    """A real subject a follow-up can be asked about, the values it can name ([a], [v]):
    the real one and stand-ins of its class (a man and a woman for a person)."""

    subject: Subject
    subject_kind: str
    values: tuple[Subject, ...]


def follow_up_cases(facts, lang: str, english: dict, kind: str, key,
                    limit: int = 3) -> list[FollowUpCase]:
    """Up to ``limit`` real subjects (of different kinds first) for a kind of follow-up and
    its key, each with the values it names (none for count, list and pair)."""
    if kind == "also":
        prop, needs = key[0], key[0]
    elif kind == "span":
        prop = {"age": "P570", "existence": "P576"}.get(key) or key[1]
        needs = None if key in ("age", "existence") else key[1]
    elif kind == "pair":
        prop, needs = key, None
    elif kind == "where_in":
        prop, needs = key, "P17"
    else:
        prop = key
        needs = key if kind in ("before", "verify") else None
    props = set(prop) if isinstance(prop, tuple) else {prop}
    own = subjects(facts, lang)
    held: dict[str, set[str]] = {}
    for f in own:
        held.setdefault(f.entity, set()).add(f.property_id)
    cases: dict[str, FollowUpCase] = {}
    kinds_seen: set[str] = set()
    # facts whose own value can be said first, then the most linked subjects
    for f in sorted(own, key=lambda f: (value_subject(f, facts, lang, english) is None,
                                        -f.sitelinks, f.entity)):
        if f.entity in cases or not props <= held[f.entity]:
            continue
        if needs is not None and f.property_id != needs:
            continue
        if needs is None and f.property_id not in props:
            continue
        values: list[Subject] = []
        if needs is not None:
            real = value_subject(f, facts, lang, english)
            values = ([real] if real else []) + stand_ins(facts, lang, VALUE_CLASS.get(needs))
            if not values:
                continue
        if f.kind in kinds_seen and len(kinds_seen) < limit and len(cases) >= 1:
            continue  # another kind of subject first
        kinds_seen.add(f.kind)
        cases[f.entity] = FollowUpCase(f.subject(lang), f.kind, tuple(values))
        if len(cases) >= limit:
            break
    return list(cases.values())
