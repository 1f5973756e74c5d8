"""Render Wikidata data values as text a person would say or expect as an answer, checking
each value on the way: what cannot be stored as it is raises ``BadValue`` with the reason,
and the loader keeps the rest of the entity (the value goes to ``load_rejects``).

What a value must be: an entity value an id of Wikidata's form (``kg.ids``), given as
``"id"`` or in the older shape ``{"entity-type": "item", "numeric-id": 60}`` (older dumps,
some API replies), read the same; a time ``[+-]YYYY-MM-DDThh:mm:ssZ`` with a month of at most
12 and a day that month has (month and day 00 are Wikidata's way of writing a year or a
month, and stay), at a precision of 0 to 14; an amount a decimal number (``+1.83``; NaN,
inf and words are no amount); a unit ``"1"`` or an item's IRI. Free text (strings,
monolingual text) is kept as it is unless it is blank: empty, whitespace or invisible
characters only, which a conversation would answer with "".
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

import msgspec

from convkgyarn.kg.ids import ENTITY_VALUE, NUMERIC_ID_LETTERS, UNIT
from convkgyarn.kg.model import (
    AnyEntityId, EntityId, GlobeCoordinate, MonolingualText, Quantity, Time, TypedValue)

TAGS = {t: t.__struct_config__.tag for t in TypedValue.__args__}

# The date part of a time value; the time of day is always 00:00:00Z in Wikidata and unused.
_TIME = re.compile(r"([+-]?)([0-9]{1,16})-([0-9]{2})-([0-9]{2})T", re.ASCII)
AMOUNT = re.compile(r"[+-]?[0-9]+(?:\.[0-9]+)?", re.ASCII)  # a decimal, as Wikidata writes it
_ENTITY_URI = "http://www.wikidata.org/entity/"
MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
               "September", "October", "November", "December")
# The most days a month has (29 in February: Julian and proleptic Gregorian calendars differ
# on which years are leap years, and Wikidata stores both).
MONTH_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
# Letters that show as nothing (Hangul fillers, the blank Braille pattern).
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


class BadValue(ValueError):
    """A datavalue that cannot be stored as it is; the message says why."""


class Rendered(NamedTuple):
    value_id: str | None  # Wikidata id when the value is an entity
    value_text: str | None  # rendered text; None for entities (label joined later)
    unit_id: str | None  # quantity unit, label joined later
    raw: str | None  # raw JSON for value types we do not render
    precision: int | None = None  # time values: Wikidata precision (11 day ... 6 millennium)


def is_blank(text: str | None) -> bool:
    """Whether text shows nothing: empty, whitespace, or only invisible characters (zero-width
    space and joiners, byte-order mark, soft hyphen, controls, Hangul fillers). Cheap for the
    usual case: a printable text with a non-space character returns at the first test."""
    if not text or text.isspace():
        return True
    if text.isprintable():
        return False
    return all(c.isspace() or c in _INVISIBLE_LETTERS or unicodedata.category(c) in
               ("Cf", "Cc", "Cs", "Co", "Cn", "Zl", "Zp") for c in text)


def entity_value_id(v: EntityId | AnyEntityId) -> str:
    """The id an entity value names, from ``"id"`` or the older ``"entity-type"`` +
    ``"numeric-id"`` shape; ``BadValue`` when it has neither or no id of Wikidata's form."""
    value_id = v.id
    if value_id is None:
        letter = NUMERIC_ID_LETTERS.get(v.entity_type)
        if letter is None or v.numeric_id is None or v.numeric_id < 1:
            raise BadValue("entity value without an id (nor an entity-type and numeric-id)")
        return f"{letter}{v.numeric_id}"
    if ENTITY_VALUE.fullmatch(value_id) is None:
        raise BadValue("entity value id is not of Wikidata's form")
    return value_id


def _time(t: Time) -> Rendered:
    """A time value, checked, as ISO-like text cut to its precision: 1952-03-11, 1952-03,
    1952, 1950s, 19th century, 44 BCE (one regex match does both)."""
    value, precision = t.time, t.precision
    match = _TIME.match(value)
    if match is None:
        raise BadValue("time is not a date (+YYYY-MM-DDThh:mm:ssZ)")
    if not 0 <= precision <= 14:
        raise BadValue(f"time precision {precision} is not 0-14")
    sign, year_s, month_s, day_s = match.groups()
    month, day = int(month_s), int(day_s)
    if month > 12:
        raise BadValue(f"time: month {month} does not exist")
    if day > (MONTH_DAYS[month - 1] if month else 31):
        raise BadValue(f"time: {MONTH_NAMES[month - 1]} has no day {day}" if month
                       else f"time: no month has day {day}")
    year = int(year_s)
    bce = sign == "-" and year > 0
    if precision >= 11 and month and day:
        text = f"{year:04d}-{month_s}-{day_s}"
    elif precision >= 10 and month:
        text = f"{year:04d}-{month_s}"
    elif precision >= 9:
        text = f"{year:04d}" if not bce else str(year)
    elif precision == 8:
        text = f"{year // 10 * 10}s"
    elif precision == 7:
        text = f"{_ordinal((year - 1) // 100 + 1)} century"
    elif precision == 6:
        text = f"{_ordinal((year - 1) // 1000 + 1)} millennium"
    else:
        text = str(year)
    return Rendered(None, f"{text} BCE" if bce else text, None, None, precision)


_UNITS_CHECKED: set[str] = set()  # unit IRIs of Wikidata's form seen (a few hundred repeat)


def _quantity(q: Quantity) -> Rendered:
    if AMOUNT.fullmatch(q.amount) is None:
        raise BadValue("amount is not a number")
    unit = q.unit
    if unit == "1":
        unit_id = None
    elif unit in _UNITS_CHECKED or UNIT.fullmatch(unit) is not None:
        _UNITS_CHECKED.add(unit)
        unit_id = unit[len(_ENTITY_URI):]
    else:
        raise BadValue("unit is neither 1 nor a Wikidata item's IRI")
    return Rendered(None, _format_amount(q.amount), unit_id, None)


def _text(text: str) -> Rendered:
    if is_blank(text):
        raise BadValue("blank text")
    return Rendered(None, text, None, None)


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _format_amount(amount: str) -> str:
    amount = amount.lstrip("+")
    if "." in amount:
        amount = amount.rstrip("0").rstrip(".")
    return amount


_DECODE_ENTITY = msgspec.json.Decoder(AnyEntityId).decode
_DECODE_STR = msgspec.json.Decoder(str).decode
_DECODE_TIME = msgspec.json.Decoder(Time).decode
_DECODE_QUANTITY = msgspec.json.Decoder(Quantity).decode
_DECODE_TEXT = msgspec.json.Decoder(MonolingualText).decode
_DECODE_COORD = msgspec.json.Decoder(GlobeCoordinate).decode


def render_typed(dv) -> Rendered:
    """Render (and check) a datavalue decoded on the fast path (see ``model.TypedValue``)."""
    v = dv.value
    if isinstance(v, EntityId):
        return Rendered(entity_value_id(v), None, None, None)
    if isinstance(v, str):
        return _text(v)
    if isinstance(v, Time):
        return _time(v)
    if isinstance(v, Quantity):
        return _quantity(v)
    if isinstance(v, MonolingualText):
        return _text(v.text)
    if v.latitude is not None and v.longitude is not None:
        return Rendered(None, f"{v.latitude:.4f}, {v.longitude:.4f}", None, None)
    return Rendered(None, None, None, msgspec.json.encode(v).decode())


def render_value(value_type: str, raw: msgspec.Raw | bytes) -> Rendered:
    """Decode (and check) one datavalue by its type: a value of an unknown type is kept raw;
    one of a known type that is not of its shape, or not a value (see the module notes),
    raises ``BadValue``."""
    try:
        if value_type == "wikibase-entityid":
            return Rendered(entity_value_id(_DECODE_ENTITY(raw)), None, None, None)
        if value_type == "string":
            return _text(_DECODE_STR(raw))
        if value_type == "time":
            return _time(_DECODE_TIME(raw))
        if value_type == "quantity":
            return _quantity(_DECODE_QUANTITY(raw))
        if value_type == "monolingualtext":
            return _text(_DECODE_TEXT(raw).text)
        if value_type == "globecoordinate":
            g = _DECODE_COORD(raw)
            if g.latitude is not None and g.longitude is not None:
                return Rendered(None, f"{g.latitude:.4f}, {g.longitude:.4f}", None, None)
    except msgspec.ValidationError as exc:
        raise BadValue(f"{value_type} value not of Wikidata's shape ({exc})") from None
    return Rendered(None, None, None, bytes(raw).decode())
