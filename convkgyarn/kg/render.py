"""Values written for people, and the same values kept machine-readable.

``render()`` turns a stored value into what a person would say: dates in words at their
precision ("11 June 1993", "June 1993", "1993", "1990s", "19th century", "44 BCE"),
amounts with thousands separators and their unit in the right number ("142 minutes",
"1.83 metres", "8,804,190", "12.5%"), item labels as they are. A question that asks for a
year gets the year ("what year" is answered "1993"). ``machine()`` gives the exact value
beside it (ids, ISO dates with their precision, amounts with unit ids), so evaluation stays
exact whatever the wording.

Rendering never raises, whatever a database holds: one loaded before values were checked
may hold a month 13, a 30 February, "NaN" or a blank label. ``unsayable()`` names such a
value, and assembly leaves out a fact with one rather than answer it.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation, localcontext
from dataclasses import dataclass
from functools import cache

from convkgyarn.kg.values import AMOUNT, MONTH_DAYS, is_blank

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
PERCENT_UNIT = "Q11229"  # per cent
PERCENT = {PERCENT_UNIT}
# Units whose plural is not the regular one, or that do not change.
UNIT_PLURALS = {"foot": "feet", "inch": "inches", "percent": "percent", "hertz": "hertz",
                "lux": "lux", "siemens": "siemens", "person": "people",
                "degree Celsius": "degrees Celsius", "degree Fahrenheit": "degrees Fahrenheit",
                "square foot": "square feet", "cubic foot": "cubic feet",
                "century": "centuries", "kilogram-force": "kilograms-force",
                "kilohertz": "kilohertz", "megahertz": "megahertz", "gigahertz": "gigahertz",
                "years old": "years old"}  # "65 years old" (languages.units.english_name)
# ... and the singular of a unit named in the plural
UNIT_SINGULARS = {"years old": "year old"}
# Unit labels people shorten ("1.32 trillion US dollars", never "United States dollars").
UNIT_SAID = {"United States dollar": "US dollar"}
# An amount this large is said as people say it, in words of its scale to three
# significant digits ("1.32 trillion" for Australia's GDP of 1,323,421,072,479.07, "1.41
# billion" people): its digits are noise to a reader. The stored number stays a gold
# answer beside the label (``scoring.gold_lists``), and ``scoring`` reads the words back.
SCALE_WORDS = ((12, "trillion"), (9, "billion"))
SAID_DIGITS = 3
_DATE = re.compile(r"^(-?)(\d{1,9})(?:-(\d\d))?(?:-(\d\d))?( BCE)?$")
_DECADE = re.compile(r"^(\d+)0s( BCE)?$")
# Dates the loader writes in words or as a bare year (decades, centuries, millennia, years
# of more than nine digits at precisions under a millennium).
_SPAN = re.compile(r"^(?:[0-9]+0s|[0-9]+(?:st|nd|rd|th) (?:century|millennium)|-?[0-9]+)"
                   r"( BCE)?$", re.ASCII)
YEAR_WORDS = re.compile(r"\byears?\b", re.I)
# A question that asks for a share: its unitless fraction is said as a percentage ("What
# share of applicants does Oxford admit?" - "17.5%", never "0.175"; Wikidata stores an
# admission rate as a fraction with unit 1).
SHARE_WORDS = re.compile(r"\b(share|percentage|proportion|admission rate|acceptance rate)\b",
                         re.I)


@dataclass(frozen=True)
class Value:
    """A stored value: an item (id + label), a time (text + precision), an amount (text +
    unit), or other text."""

    value_type: str | None
    label: str | None = None  # item label, or the stored text
    value_id: str | None = None
    precision: int | None = None
    unit_id: str | None = None
    unit_label: str | None = None

    @property
    def kind(self) -> str:
        if self.value_id:
            return "item"
        if self.value_type == "time":
            return "time"
        if self.value_type == "quantity":
            return "quantity"
        return "text"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def parse_time(text: str) -> tuple[int, int | None, int | None, bool] | None:
    """(year, month, day, bce) from the stored ISO-like text of a day, month or year."""
    m = _DATE.match(text.strip())
    if not m:
        return None
    sign, year, month, day, bce = m.groups()
    return (int(year), int(month) if month else None, int(day) if day else None,
            bool(sign or bce))


_SPAN_PARTS = re.compile(r"^(?:([0-9]+)0s|([0-9]+)(?:st|nd|rd|th) (century|millennium))"
                         r"( BCE)?$", re.ASCII)


def first_year(text: str) -> int | None:
    """The first year a stored date covers: its year ("1952-03-11", "1952"), or the first of
    its decade ("1950s": 1950), century ("20th century": 1901) or millennium; negative
    before the common era; None for text that is no date."""
    parsed = parse_time(text)
    if parsed is not None:
        return -parsed[0] if parsed[3] else parsed[0]
    m = _SPAN_PARTS.match(text.strip())
    if m is None:
        return None
    decade, ordinal_n, span, bce = m.groups()
    year = int(decade) * 10 if decade else \
        (int(ordinal_n) - 1) * (100 if span == "century" else 1000) + 1
    return -year if bce else year


@cache
def _time(text: str, precision: int | None, year_only: bool) -> str:
    return render_time(text, precision, year_only)


def render_time(text: str, precision: int | None, year_only: bool = False) -> str:
    """A date in words at its precision; ``year_only`` cuts a finer date to its year."""
    precision = 11 if precision is None else precision
    parsed = parse_time(text)
    if parsed is None:  # decades, centuries, millennia are stored in words already
        return text
    year, month, day, bce = parsed
    era = " BCE" if bce else ""
    if year_only or precision <= 9 or not month or month > 12:  # no month to say
        # a year of the common era said alone under 1000 says its era: "When was London
        # founded?" "43 CE", not "43" (a reader took it for a number of something)
        return f"{year}{era or (' CE' if year < 1000 else '')}"
    if precision == 10 or not day:
        return f"{MONTHS[month - 1]} {year}{era}"
    return f"{day} {MONTHS[month - 1]} {year}{era}"


def unsayable(value: Value) -> str | None:
    """Why a stored value cannot be said, or None: an unknown value (a ``somevalue`` end time:
    the statement ended, when is not known), a blank label or text, a date that does not
    exist (month 13, 30 February, text that is no date), an amount that is no number.
    The loader rejects these since ids and values are checked; an older database may still
    hold them. (No label at all is the caller's rule.)"""
    if value.value_type == "somevalue":
        return "an unknown value (somevalue)"
    label = value.label
    if label is None:
        return None
    if is_blank(label):
        return "a value with a blank label"
    if value.kind == "time" and not _is_date(label):
        return "a date that does not exist"
    if value.kind == "quantity" and AMOUNT.fullmatch(label.strip()) is None:
        return "an amount that is not a number"
    return None


def _is_date(text: str) -> bool:
    parsed = parse_time(text)
    if parsed is None:
        return _SPAN.match(text.strip()) is not None
    _, month, day, _ = parsed
    if month is None:
        return day is None
    return 1 <= month <= 12 and (day is None or 1 <= day <= MONTH_DAYS[month - 1])


def format_amount(amount: str) -> str:
    """Thousands separators; decimals as stored (8,804,190; 1.83; -0.5)."""
    text = amount.strip().lstrip("+")
    sign = "-" if text.startswith("-") else ""
    text = text.lstrip("-")
    whole, _, frac = text.partition(".")
    if not whole.isdigit():
        return amount
    grouped = f"{int(whole):,}"
    return f"{sign}{grouped}.{frac}" if frac else f"{sign}{grouped}"


@cache
def plural(unit: str) -> str:
    """The plural of a unit label: the head noun changes ("square kilometre" ->
    "square kilometres", "kilometre per hour" -> "kilometres per hour")."""
    if unit in UNIT_PLURALS:
        return UNIT_PLURALS[unit]
    for sep in (" per ", " of "):
        if sep in unit:
            head, tail = unit.split(sep, 1)
            return plural(head) + sep + tail
    words = unit.split(" ")
    last = words[-1]
    if last in UNIT_PLURALS:
        words[-1] = UNIT_PLURALS[last]
    elif re.search(r"(s|x|z|ch|sh)$", last):
        words[-1] = last + "es"
    elif re.search(r"[^aeiou]y$", last):
        words[-1] = last[:-1] + "ies"
    elif last[-1:].isalpha():
        words[-1] = last + "s"
    return " ".join(words)


# decimals an area or a length is stored to beyond which they are a conversion's, not a
# measurement's (Bahrain's area, 765.004788 square kilometres, from square miles): said to
# two places. Not a mass or a rate: helium's 4.002602 daltons is measured so.
CONVERTED_PLACES = 5
CONVERTED_UNITS = frozenset({
    "Q712226", "Q25343", "Q35852", "Q232291", "Q81292",  # km², m², hectare, mi², acre
    "Q828224", "Q11573", "Q253276", "Q3710", "Q174728"})  # km, m, mile, foot, cm


def said_amount(amount: str, unit_id: str | None) -> str:
    """An area or a length (``CONVERTED_UNITS``) stored to ``CONVERTED_PLACES`` decimals or
    more, with a whole part, said to two places, trailing zeros dropped ("765.004788" ->
    "765", "242495.406794" -> "242495.41"); any other amount as stored. The stored number
    stays a gold answer: ``scoring.gold_lists`` adds it beside the label."""
    text = amount.strip()
    whole, _, frac = text.lstrip("+-").partition(".")
    if unit_id not in CONVERTED_UNITS or len(frac) < CONVERTED_PLACES or \
            not whole.isdigit() or int(whole) == 0 or not frac.isdigit():
        return amount
    said = Decimal(text).quantize(Decimal("0.01"), ROUND_HALF_EVEN).normalize()
    return f"{said:f}"


def in_scale_words(amount: str) -> str | None:
    """An amount from a billion to under a thousand trillion in the words of its scale, to
    ``SAID_DIGITS`` significant digits, rounded half up ("1323421072479.07" -> "1.32
    trillion", "1699154132" -> "1.7 billion", "999600000000" -> "1 trillion", and
    999.5 trillion "1,000 trillion"); None for any other amount (malformed, non-finite,
    smaller or larger), which is said as stored."""
    try:
        number = Decimal(amount.strip().lstrip("+"))
    except InvalidOperation:
        return None
    if not number.is_finite() or not 10 ** 9 <= abs(number) < 10 ** 15:
        return None
    exponent, word = next((x, w) for x, w in SCALE_WORDS if abs(number) >= Decimal(10) ** x)
    mantissa = number.scaleb(-exponent)
    said = mantissa.quantize(Decimal(1).scaleb(-max(0, SAID_DIGITS - 1 - mantissa.adjusted())),
                             ROUND_HALF_UP)
    if abs(said) >= 1000 and word != SCALE_WORDS[0][1]:  # 999.6 billion is 1 trillion
        said, word = said.scaleb(-3), SCALE_WORDS[0][1]
    return f"{format_amount(f'{said.normalize():f}')} {word}"


def render_quantity(amount: str, unit_id: str | None, unit_label: str | None,
                    in_words: bool = True) -> str:
    """An amount with its unit; ``in_words=False``: never in words of its scale (a value a
    question names, or one that held before, must be told from the others exactly)."""
    amount = said_amount(amount, unit_id)
    number = (in_scale_words(amount) if in_words and unit_id not in PERCENT else None) or \
        format_amount(amount)
    if not unit_id:
        return number
    if unit_id in PERCENT:
        return f"{number}%"
    label = UNIT_SAID.get(unit_label or "", unit_label or "")
    singular = amount.strip().lstrip("+") in ("1", "1.0", "-1")
    return f"{number} {UNIT_SINGULARS.get(label, label) if singular else plural(label)}"


def render(value: Value, question: str = "", in_words: bool = True) -> str:
    """What a person says for this value, in answer to ``question`` (``in_words``: see
    ``render_quantity``)."""
    if value.kind == "time":
        return _time(value.label or "", value.precision, bool(YEAR_WORDS.search(question)))
    if value.kind == "quantity":
        if not value.unit_id and SHARE_WORDS.search(question):
            value = share_in_percent(value) or value
        return render_quantity(value.label or "", value.unit_id, value.unit_label, in_words)
    return value.label or ""


def percent_amount(amount: str) -> str | None:
    """A fraction strictly between 0 and 1 in hundredths ("0.175" -> "17.5"), exactly
    (decimal arithmetic, no float digits); None for any other amount."""
    try:
        fraction = Decimal(amount.strip().lstrip("+"))
    except InvalidOperation:
        return None
    if not fraction.is_finite() or not 0 < fraction < 1:
        return None  # never raises: "NaN" is no share
    with localcontext() as ctx:  # exact: as many digits as stored (scaleb rounds to prec)
        ctx.prec = len(fraction.as_tuple().digits) + 4
        return format(fraction.scaleb(2), "f")


def share_in_percent(value: Value) -> Value | None:
    """A unitless fraction strictly between 0 and 1 as the amount in per cent it is (0.175
    -> 17.5 %), for a question that asks for a share (``SHARE_WORDS`` here, a language's
    ``share_words`` in ``Localiser.say``); None for any other value."""
    if value.kind != "quantity" or value.unit_id:
        return None
    hundredths = percent_amount(value.label or "")
    return None if hundredths is None else Value("quantity", hundredths,
                                                 unit_id=PERCENT_UNIT)


@cache
def machine(value: Value) -> dict:
    """The exact value, for evaluation and verification."""
    if value.kind == "item":
        return {"id": value.value_id}
    if value.kind == "time":
        return {"time": value.label, "precision": value.precision}
    if value.kind == "quantity":
        return {"amount": (value.label or "").lstrip("+"), "unit": value.unit_id}
    return {"text": value.label}


def year_question_fits(value: Value) -> bool:
    """Whether a question asking for a year can be answered by this value (a date known at
    least to the year: a decade is a span, a century is not a year)."""
    return value.kind == "time" and (value.precision is None or value.precision >= 9
                                     or _DECADE.match(value.label or "") is not None)
