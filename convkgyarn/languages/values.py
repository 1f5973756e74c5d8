"""Values as each language writes them, from CLDR through Babel where CLDR has the form.

Dates go through ``babel.dates`` for days and months of years 1-9999 (CE); what CLDR has
no pattern for is written here from CLDR's own parts (month names, era names): years
before the common era, years past 9999, decades, centuries and millennia. Numbers use the
locale's separators (``babel.numbers``), amounts with a unit ``babel.units`` (the plural
form comes from CLDR), money ``format_currency``.

``Calendar`` holds what differs per language beyond CLDR: how a decade, century and
millennium are said, and where the era goes.
"""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from functools import lru_cache

from babel import Locale
from babel.dates import format_date, format_skeleton
from babel.numbers import format_currency, format_decimal
from babel.units import format_unit

from convkgyarn.kg.render import Value, parse_time, said_amount, unsayable
from convkgyarn.kg.values import is_blank
from convkgyarn.languages.units import CLDR_UNITS, CURRENCIES, PERCENT

_DECADE = re.compile(r"^(\d+)0s( BCE)?$")
_CENTURY = re.compile(r"^(\d+)(?:st|nd|rd|th) (century|millennium)( BCE)?$")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]")


@dataclass(frozen=True)
class Calendar:
    """How a language says what CLDR has no pattern for. Each form takes ``n`` (a
    number) and is completed with the era: ``era_before`` puts it first (紀元前44年),
    otherwise after a space (44 v. Chr.)."""

    locale: str
    year: str  # "{n}" / "{n}年"
    decade: str  # "{n}er Jahre" / "{n}年代"
    century: str  # "{n}. Jahrhundert" / "{n}世紀"
    millennium: str  # "{n}. Jahrtausend" / "{n}千年紀"
    day: str  # a day outside 1-9999 CE: "{d}. {month} {y}" / "{y}年{m}月{d}日"
    month: str  # "{month} {y}" / "{y}年{m}月"
    era_before: bool = False
    space_units: bool = True  # "142 Minuten" (de) vs "142分" (ja, zh)


@lru_cache(maxsize=8)
def _locale(code: str) -> Locale:
    return Locale.parse(code)


def _era(cal: Calendar, text: str, bce: bool) -> str:
    if not bce:
        return text
    era = _locale(cal.locale).eras["abbreviated"][0]
    return f"{era}{text}" if cal.era_before else f"{text} {era}"


def _hand_date(cal: Calendar, year: int, month: int | None, day: int | None) -> str:
    names = _locale(cal.locale).months["format"]["wide"]
    if month and day:
        return cal.day.format(d=day, m=month, y=year, month=names[month])
    if month:
        return cal.month.format(m=month, y=year, month=names[month])
    return cal.year.format(n=year)


def render_time(cal: Calendar, text: str, precision: int | None,
                year_only: bool = False) -> str | None:
    """A stored date (``kg.values`` text: 1952-03-11, 1952-03, 1952, 44 BCE, 1950s, 19th
    century, 2nd millennium) at its precision, in the calendar's language."""
    text = text.strip()
    m = _DECADE.match(text)
    if m:
        return _era(cal, cal.decade.format(n=int(m.group(1)) * 10), bool(m.group(2)))
    m = _CENTURY.match(text)
    if m:
        form = cal.century if m.group(2) == "century" else cal.millennium
        return _era(cal, form.format(n=int(m.group(1))), bool(m.group(3)))
    parsed = parse_time(text)
    if parsed is None:
        return None
    year, month, day, bce = parsed
    precision = 11 if precision is None else precision
    if year_only or precision <= 9 or not month:
        month = day = None
    elif precision == 10:
        day = None
    if bce or not 1 <= year <= 9999:
        return _era(cal, _hand_date(cal, year, month, day), bce)
    if month and day:
        return format_date(datetime.date(year, month, day), "long", locale=cal.locale)
    if month:
        return format_skeleton("yMMMM", datetime.date(year, month, 1), locale=cal.locale)
    return cal.year.format(n=year)


def _number(amount: str) -> Decimal | None:
    try:
        number = Decimal(amount.strip().lstrip("+"))
    except (InvalidOperation, ValueError):
        return None
    return number if number.is_finite() else None


def _pattern(number: Decimal) -> str:
    """A CLDR number pattern keeping the stored decimals (Babel would round to three)."""
    digits = max(0, -number.as_tuple().exponent)
    return "#,##0" + ("." + "0" * digits if digits else "")


def format_number(cal: Calendar, amount: str) -> str | None:
    """A number with the locale's separators, its decimals as stored (5.707.251; 1,83)."""
    number = _number(amount)
    if number is None:
        return None
    with localcontext() as ctx:
        ctx.prec = max(28, len(number.as_tuple().digits) + 4)
        return format_decimal(number, _pattern(number), locale=cal.locale)


def _tight(cal: Calendar, text: str) -> str:
    """No space between a number and a CJK unit (142分, 摂氏100度), as ja and zh write."""
    if cal.space_units:
        return text
    return re.sub(r"(?<=[\d%°])[\s\u00a0\u202f]+(?=" + _CJK.pattern + ")|(?<="
                  + _CJK.pattern + r")[\s\u00a0\u202f]+(?=\d)", "", text)


def render_quantity(cal: Calendar, amount: str, unit_id: str | None,
                    unit_label: str | None) -> str | None:
    """An amount with its unit: CLDR's unit in the right plural form, a currency by name,
    a percentage; a unit CLDR does not know with its label in the language; None when
    the unit has neither (the number alone would be a wrong answer). A measure stored to a
    conversion's places is said to two, as in English (``kg.render.said_amount``)."""
    number = _number(said_amount(amount, unit_id))
    if number is None:
        return None
    with localcontext() as ctx:  # a stored amount may hold more digits than 28 (pi)
        ctx.prec = max(28, len(number.as_tuple().digits) + 4)
        return _quantity(cal, number, unit_id, unit_label)


def _quantity(cal: Calendar, number: Decimal, unit_id: str | None,
              unit_label: str | None) -> str | None:
    pattern = _pattern(number)
    if not unit_id:
        return format_decimal(number, pattern, locale=cal.locale)
    if unit_id == PERCENT:
        return _tight(cal, format_unit(number, "percent", "short", pattern, cal.locale))
    if unit_id in CLDR_UNITS:
        return _tight(cal, format_unit(number, CLDR_UNITS[unit_id], "long", pattern,
                                       cal.locale))
    if unit_id in CURRENCIES:
        return _tight(cal, format_currency(number, CURRENCIES[unit_id], locale=cal.locale,
                                           format_type="name", currency_digits=False,
                                           decimal_quantization=False))
    if unit_label is None or is_blank(unit_label):
        return None
    text = format_decimal(number, pattern, locale=cal.locale)
    joiner = " " if cal.space_units or not _CJK.match(unit_label) else ""
    return f"{text}{joiner}{unit_label.strip()}"


def render_value(cal: Calendar, value: Value, label: str | None = None, *,
                 year_only: bool = False) -> str | None:
    """A stored value in the calendar's language; None when it cannot be said in it (an
    item without a label in the language, a unit without a CLDR form or a label, a value
    ``kg.render.unsayable`` names)."""
    if unsayable(value) is not None:
        return None
    if value.kind == "item":
        return None if label is None or is_blank(label) else label.strip()
    if value.kind == "time":
        return render_time(cal, value.label or "", value.precision, year_only)
    if value.kind == "quantity":
        return render_quantity(cal, value.label or "", value.unit_id, label)
    text = label if label is not None else value.label
    return None if text is None or is_blank(text) else text
