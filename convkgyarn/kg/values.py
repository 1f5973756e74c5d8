"""Render Wikidata data values as text a person would say or expect as an answer."""

from __future__ import annotations

import re
from typing import NamedTuple

import msgspec

from convkgyarn.kg.model import (
    EntityId, GlobeCoordinate, MonolingualText, Quantity, Time, TypedValue)

TAGS = {t: t.__struct_config__.tag for t in TypedValue.__args__}

_TIME = re.compile(r"^([+-])(\d+)-(\d\d)-(\d\d)T")
_ENTITY_URI = "http://www.wikidata.org/entity/"


class Rendered(NamedTuple):
    value_id: str | None  # Wikidata id when the value is an entity
    value_text: str | None  # rendered text; None for entities (label joined later)
    unit_id: str | None  # quantity unit, label joined later
    raw: str | None  # raw JSON for value types we do not render
    precision: int | None = None  # time values: Wikidata precision (11 day ... 6 millennium)


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def render_time(value: str, precision: int) -> str:
    """ISO-like text cut to the value's precision: 1952-03-11, 1952-03, 1952, 1950s."""
    match = _TIME.match(value)
    if not match:
        return value
    sign, year_s, month_s, day_s = match.groups()
    year = int(year_s)
    bce = sign == "-" and year > 0
    if precision >= 11 and int(month_s) and int(day_s):
        text = f"{year:04d}-{month_s}-{day_s}"
    elif precision >= 10 and int(month_s):
        text = f"{year:04d}-{month_s}"
    elif precision == 9 or precision >= 10:
        text = f"{year:04d}" if not bce else str(year)
    elif precision == 8:
        text = f"{year // 10 * 10}s"
    elif precision == 7:
        text = f"{_ordinal((year - 1) // 100 + 1)} century"
    elif precision == 6:
        text = f"{_ordinal((year - 1) // 1000 + 1)} millennium"
    else:
        text = str(year)
    return f"{text} BCE" if bce else text


def _format_amount(amount: str) -> str:
    amount = amount.lstrip("+")
    if "." in amount:
        amount = amount.rstrip("0").rstrip(".")
    return amount


_DECODE_ENTITY = msgspec.json.Decoder(EntityId).decode
_DECODE_STR = msgspec.json.Decoder(str).decode
_DECODE_TIME = msgspec.json.Decoder(Time).decode
_DECODE_QUANTITY = msgspec.json.Decoder(Quantity).decode
_DECODE_TEXT = msgspec.json.Decoder(MonolingualText).decode
_DECODE_COORD = msgspec.json.Decoder(GlobeCoordinate).decode


def render_typed(dv) -> Rendered:
    """Render a datavalue decoded on the fast path (see ``model.TypedValue``)."""
    v = dv.value
    if isinstance(v, EntityId):
        return Rendered(v.id, None, None, None)
    if isinstance(v, str):
        return Rendered(None, v, None, None)
    if isinstance(v, Time):
        return Rendered(None, render_time(v.time, v.precision), None, None, v.precision)
    if isinstance(v, Quantity):
        unit = v.unit.removeprefix(_ENTITY_URI) if v.unit != "1" else None
        return Rendered(None, _format_amount(v.amount), unit, None)
    if isinstance(v, MonolingualText):
        return Rendered(None, v.text, None, None)
    if v.latitude is not None and v.longitude is not None:
        return Rendered(None, f"{v.latitude:.4f}, {v.longitude:.4f}", None, None)
    return Rendered(None, None, None, msgspec.json.encode(v).decode())


def render_value(value_type: str, raw: msgspec.Raw | bytes) -> Rendered:
    """Decode one datavalue by its type; unknown or odd shapes are kept raw, never raised."""
    try:
        if value_type == "wikibase-entityid":
            return Rendered(_DECODE_ENTITY(raw).id, None, None, None)
        if value_type == "string":
            return Rendered(None, _DECODE_STR(raw), None, None)
        if value_type == "time":
            t = _DECODE_TIME(raw)
            return Rendered(None, render_time(t.time, t.precision), None, None, t.precision)
        if value_type == "quantity":
            q = _DECODE_QUANTITY(raw)
            unit = q.unit.removeprefix(_ENTITY_URI) if q.unit != "1" else None
            return Rendered(None, _format_amount(q.amount), unit, None)
        if value_type == "monolingualtext":
            return Rendered(None, _DECODE_TEXT(raw).text, None, None)
        if value_type == "globecoordinate":
            g = _DECODE_COORD(raw)
            if g.latitude is not None and g.longitude is not None:
                return Rendered(None, f"{g.latitude:.4f}, {g.longitude:.4f}", None, None)
    except msgspec.ValidationError:
        pass
    return Rendered(None, None, None, bytes(raw).decode())
