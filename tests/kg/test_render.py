"""Answers written for people, and the exact values beside them."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from convkgyarn.kg.render import (
    first_year,
    Value, format_amount, machine, plural, render, render_quantity, render_time)


def test_dates_at_their_precision_in_words():
    assert render_time("1993-06-11", 11) == "11 June 1993"
    assert render_time("1993-06", 10) == "June 1993"
    assert render_time("1993", 9) == "1993"
    assert render_time("1990s", 8) == "1990s"
    assert render_time("19th century", 7) == "19th century"
    assert render_time("44 BCE", 9) == "44 BCE"
    assert render_time("0044-03-15 BCE", 11) == "15 March 44 BCE"
    assert render_time("1993-06-11", 11, year_only=True) == "1993"


def test_a_year_under_a_thousand_said_alone_says_its_era():
    """"When was London founded?" "43" read as a number of something: a year of the common
    era under 1000 said alone is "43 CE"; with its month and day, or from 1000, it needs
    none."""
    assert render_time("43", 9) == "43 CE"
    assert render_time("0927-05-13", 11, year_only=True) == "927 CE"
    assert render_time("0927-05-13", 11) == "13 May 927"
    assert render_time("1000", 9) == "1000" and render_time("427 BCE", 9) == "427 BCE"
    assert render(Value("time", "43", precision=9), "When was it founded?") == "43 CE"


def test_the_first_year_a_stored_date_covers():
    """As the loader writes dates (kg/values.py): a day or a year, a decade, a century, a
    millennium, before the common era; text that is no date has none."""
    assert first_year("1952-03-11") == first_year("1952") == 1952
    assert first_year("1950s") == 1950
    assert first_year("20th century") == 1901 and first_year("13th century") == 1201
    assert first_year("2nd millennium") == 1001
    assert first_year("44 BCE") == -44 and first_year("5th century BCE") == -401
    assert first_year("soon") is None


def test_a_year_question_gets_the_year():
    v = Value("time", "1993-06-11", precision=11)
    assert render(v, "In what year was it released?") == "1993"
    assert render(v, "When was it released?") == "11 June 1993"
    assert machine(v) == {"time": "1993-06-11", "precision": 11}


def test_quantities_with_separators_and_units_in_the_right_number():
    assert render_quantity("+8804190", None, None) == "8,804,190"
    assert render_quantity("+142", "Q7727", "minute") == "142 minutes"
    assert render_quantity("+1", "Q7727", "minute") == "1 minute"
    assert render_quantity("+1.83", "Q11573", "metre") == "1.83 metres"
    assert render_quantity("+12.5", "Q11229", "percent") == "12.5%"
    assert render_quantity("-3", "Q25267", "degree Celsius") == "-3 degrees Celsius"
    assert plural("square kilometre") == "square kilometres"
    assert plural("kilometre per hour") == "kilometres per hour"
    assert plural("United States dollar") == "United States dollars"
    assert plural("foot") == "feet" and plural("inch") == "inches"
    assert machine(Value("quantity", "+142", unit_id="Q7727", unit_label="minute")) == \
        {"amount": "142", "unit": "Q7727"}


@given(st.integers(min_value=-10**15, max_value=10**15),
       st.one_of(st.none(), st.integers(0, 999999)))
def test_amounts_keep_their_value(whole, frac):
    text = f"{whole:+d}" + (f".{frac:06d}" if frac is not None else "")
    out = format_amount(text)
    assert float(out.replace(",", "")) == float(text)
    assert all(len(group) == 3 for group in out.lstrip("-").split(".")[0].split(",")[1:])



def test_an_amount_of_a_billion_or_more_is_said_in_words_of_its_scale():
    """Australia's GDP was said "1,323,421,072,479.07 United States dollars": no reader wants
    its cents. A billion and more is said to three significant digits in words, as people
    say it; anything smaller, a share or an amount that is no number, as stored."""
    assert render_quantity("1323421072479.07", "Q4917", "United States dollar") == \
        "1.32 trillion US dollars"
    assert render_quantity("+1699154132", "Q4917", "United States dollar") == \
        "1.7 billion US dollars"
    assert render_quantity("125843000000", "Q4917", "United States dollar") == \
        "126 billion US dollars"
    assert render_quantity("1411750000", None, None) == "1.41 billion"
    assert render_quantity("999600000000", None, None) == "1 trillion"  # not "1,000 billion"
    assert render_quantity("-5000000000", None, None) == "-5 billion"
    assert render_quantity("999999999", None, None) == "999,999,999"
    assert render_quantity("1234567890123456789", None, None) == \
        "1,234,567,890,123,456,789"  # past a thousand trillion: as stored
    for odd in ("1e400", "NaN", "abc"):
        assert render_quantity(odd, None, None) == odd


@given(st.integers(min_value=10**9, max_value=10**15 - 1),
       st.one_of(st.none(), st.integers(0, 99)))
def test_an_amount_said_in_words_is_the_stored_one_to_three_digits(whole, cents):
    """What the words say is the stored amount to three significant digits, read back by
    the scorer as the number it is."""
    from convkgyarn.scoring import as_number
    stored = f"{whole}" + (f".{cents:02d}" if cents is not None else "")
    said = render_quantity(stored, None, None)
    assert said.split()[-1] in ("billion", "trillion"), said
    number = as_number(said)
    assert number is not None and abs(number - float(stored)) <= 0.005 * float(stored)
    assert len(said.split()[0].replace(".", "").replace(",", "").lstrip("0")) <= 4


def test_a_share_is_said_as_a_percentage_and_kept_exact():
    """A rater's find: "What share of applicants does the University of Oxford admit? -
    0.175". Wikidata stores the admission rate as a fraction with unit 1."""
    rate = Value("quantity", "+0.175")
    assert render(rate, "What share of applicants does the University of Oxford admit?") \
        == "17.5%"
    assert render(rate, "University of Oxford acceptance rate") == "17.5%"
    assert machine(rate) == {"amount": "0.175", "unit": None}  # the gold value stays exact
    # not a share: a count, a fraction asked otherwise, an amount that is no fraction
    assert render(rate, "What is its density?") == "0.175"
    assert render(Value("quantity", "+1.8"), "What share ...?") == "1.8"
    assert render(Value("quantity", "NaN"), "What share ...?") == "NaN"  # never raises
    # exact, however many digits are stored
    assert render(Value("quantity", "+0." + "3" * 40), "What share ...?") == \
        "33." + "3" * 38 + "%"
    assert render(Value("quantity", "+0.5", unit_id="Q11573", unit_label="metre"),
                  "What share ...?") == "0.5 metres"


@given(st.decimals(min_value="0.0001", max_value="0.9999", places=4))
def test_a_percentage_is_the_fraction_times_a_hundred(fraction):
    said = render(Value("quantity", f"+{fraction}"), "What percentage ...?")
    assert said.endswith("%")
    assert Decimal(said[:-1].replace(",", "")) == fraction * 100


def test_a_measure_stored_to_a_conversions_places_is_said_to_two():
    """Bahrain's area is stored as 765.004788 square kilometres (converted from square
    miles): a person says "765 square kilometres"; a measurement's own places stay."""
    assert render_quantity("765.004788", "Q712226", "square kilometre") == \
        "765 square kilometres"
    assert render_quantity("242495.406794", "Q712226", "square kilometre") == \
        "242,495.41 square kilometres"
    assert render_quantity("47.867", "Q483261", "dalton") == "47.867 daltons"
    assert render_quantity("4.002602", "Q483261", "dalton") == "4.002602 daltons"  # measured
    assert render_quantity("82.14878", "Q577", "year") == "82.14878 years"
    assert render_quantity("50.9415", "Q483261", "dalton") == "50.9415 daltons"
    assert render_quantity("0.000012345", "Q11573", "metre") == "0.000012345 metres"
    assert render_quantity("1.0000001", "Q11573", "metre") == "1 metre"
    assert render_quantity("8804190", None, None) == "8,804,190"
