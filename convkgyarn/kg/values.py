"""Render Wikidata data values as text a person would say or expect as an answer."""

from __future__ import annotations

import re
from typing import NamedTuple

import msgspec

from convkgyarn.kg.model import EntityId, GlobeCoordinate, MonolingualText, Quantity, Time

_TIME = re.compile(r"^([+-])(\d+)-(\d\d)-(\d\d)T")
_ENTITY_URI = "http://www.wikidata.org/entity/"


class Rendered(NamedTuple):
    value_id: str | None  # Wikidata id when the value is an entity
    value_text: str | None  # rendered text; None for entities (label joined later)
    unit_id: str | None  # quantity unit, label joined later
    raw: str | None  # raw JSON for value types we do not render


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


def render_value(value_type: str, raw: msgspec.Raw) -> Rendered:
    """Decode one datavalue by its type; unknown or odd shapes are kept raw, never raised."""
    try:
        if value_type == "wikibase-entityid":
            ent = msgspec.json.decode(raw, type=EntityId)
            return Rendered(ent.id, None, None, None)
        if value_type == "string":
            return Rendered(None, msgspec.json.decode(raw, type=str), None, None)
        if value_type == "time":
            t = msgspec.json.decode(raw, type=Time)
            return Rendered(None, render_time(t.time, t.precision), None, None)
        if value_type == "quantity":
            q = msgspec.json.decode(raw, type=Quantity)
            unit = q.unit.removeprefix(_ENTITY_URI) if q.unit != "1" else None
            return Rendered(None, _format_amount(q.amount), unit, None)
        if value_type == "monolingualtext":
            m = msgspec.json.decode(raw, type=MonolingualText)
            return Rendered(None, m.text, None, None)
        if value_type == "globecoordinate":
            g = msgspec.json.decode(raw, type=GlobeCoordinate)
            if g.latitude is None or g.longitude is None:
                return Rendered(None, None, None, bytes(raw).decode())
            return Rendered(None, f"{g.latitude:.4f}, {g.longitude:.4f}", None, None)
    except msgspec.ValidationError:
        pass
    return Rendered(None, None, None, bytes(raw).decode())
