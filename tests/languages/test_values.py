"""Values as each language writes them (Babel/CLDR): dates at every precision, numbers,
units in their plural forms, money, and what cannot be said."""

from __future__ import annotations

import pytest

from convkgyarn.kg.render import Value, render_quantity
from convkgyarn.languages import language
from convkgyarn.languages.units import english_name


def t(text, precision):
    return Value("time", text, precision=precision)


def q(amount, unit=None):
    return Value("quantity", amount, unit_id=unit)


DATES = [  # (value, de, ja, zh)
    (t("1952-03-11", 11), "11. März 1952", "1952年3月11日", "1952年3月11日"),
    (t("1952-03", 10), "März 1952", "1952年3月", "1952年3月"),
    (t("1952", 9), "1952", "1952年", "1952年"),
    (t("1950s", 8), "1950er Jahre", "1950年代", "1950年代"),
    (t("19th century", 7), "19. Jahrhundert", "19世紀", "19世纪"),
    (t("2nd millennium", 6), "2. Jahrtausend", "2千年紀", "第2个千年"),
    (t("44 BCE", 9), "44 v. Chr.", "紀元前44年", "公元前44年"),
    (t("0044-03-15 BCE", 11), "15. März 44 v. Chr.", "紀元前44年3月15日", "公元前44年3月15日"),
    (t("5th century BCE", 7), "5. Jahrhundert v. Chr.", "紀元前5世紀", "公元前5世纪"),
    (t("12000", 9), "12000", "12000年", "12000年"),
    (t("12000-05-02", 11), "2. Mai 12000", "12000年5月2日", "12000年5月2日"),
]


@pytest.mark.parametrize("value,de,ja,zh", DATES)
def test_dates_at_their_precision(value, de, ja, zh):
    for code, expected in (("de", de), ("ja", ja), ("zh", zh)):
        assert language(code).render(value) == expected


def test_a_year_question_gets_the_year():
    de = language("de")
    assert de.render(t("1952-03-11", 11), year_only=True) == "1952"
    assert de.asks_year("In welchem Jahr wurde sie geboren?")
    # "Jahr" alone is no year question
    assert not de.asks_year("Wie viele Besucher hat es pro Jahr?")
    assert language("ja").render(t("1952-03-11", 11), year_only=True) == "1952年"
    assert language("ja").asks_year("何年に設立されましたか？")
    assert language("zh").asks_year("它是哪一年成立的？")
    assert language("de").year_question_fits(t("1950s", 8))
    assert not language("de").year_question_fits(t("19th century", 7))


@pytest.mark.parametrize("value,de,ja,zh", [
    (q("5707251"), "5.707.251", "5,707,251", "5,707,251"),
    (q("1.83", "Q11573"), "1,83 Meter", "1.83メートル", "1.83米"),
    (q("1", "Q7727"), "1 Minute", "1分", "1分钟"),
    (q("142", "Q7727"), "142 Minuten", "142分", "142分钟"),
    (q("41285", "Q712226"), "41.285 Quadratkilometer", "41,285平方キロメートル",
     "41,285平方公里"),
    (q("12.5", "Q11229"), "12,5 %", "12.5%", "12.5%"),
    (q("230", "Q25250"), "230 Volt", "230ボルト", "230伏特"),
    (q("75", "Q11570"), "75 Kilogramm", "75キログラム", "75千克"),
    (q("-0.5"), "-0,5", "-0.5", "-0.5"),
    # a conversion's places (Bahrain's area from square miles) said to two, as in English
    (q("765.004788", "Q712226"), "765 Quadratkilometer", "765平方キロメートル", "765平方公里"),
])
def test_numbers_and_units(value, de, ja, zh):
    for code, expected in (("de", de), ("ja", ja), ("zh", zh)):
        assert language(code).render(value).replace("\xa0", " ") == expected


def test_plural_forms_come_from_cldr():
    de = language("de")
    assert de.render(q("2", "Q577")) == "2 Jahre"
    assert de.render(q("1", "Q577")) == "1 Jahr"


def test_money_by_name():
    assert language("de").render(q("63000000000", "Q4917")) == "63.000.000.000 US-Dollar"
    assert language("zh").render(q("5", "Q4916")) == "5欧元"


def test_a_unit_without_cldr_form_needs_its_label():
    de = language("de")
    assert de.render(q("3", "Q99999999")) is None  # the caller drops the fact
    assert de.render(q("3", "Q99999999"), "Ellen") == "3 Ellen"
    assert language("ja").render(q("3", "Q99999999"), "尺") == "3尺"


def test_what_cannot_be_said_is_none():
    for code in ("de", "ja", "zh"):
        lang = language(code)
        assert lang.render(Value("wikibase-item", None, "Q64")) is None  # no label here
        assert lang.render(Value("wikibase-item", None, "Q64"), "Berlin") == "Berlin"
        assert lang.render(t("1952-13-01", 11)) is None  # no month 13
        assert lang.render(q("NaN")) is None
        assert lang.render(Value("somevalue")) is None


def test_many_digits_are_kept():
    pi = "3.14159265358979323846264338327950288419716939937510"
    assert language("de").render(q(pi)) == pi.replace(".", ",")


def test_lists():
    assert language("de").join(["A", "B", "C"]) == "A, B und C"
    assert language("ja").join(["A", "B", "C"]) == "A、B、C"
    assert language("zh").join(["A", "B", "C"]) == "A、B和C"
    assert language("de").join(["A"]) == "A"


def test_unknown_language():
    with pytest.raises(ValueError, match="no language 'fr'"):
        language("fr")


def test_a_unit_the_dump_leaves_unnamed_is_said_by_its_common_name():
    """A slice of Wikidata holds amounts without their unit items (real-entities-dev: 152
    areas in square kilometres, no square kilometre item): the common units have names of
    our own, so "How big is Malta?" can be asked; a name the KG gives wins; an unknown unit
    stays unnamed (the fact is not asked)."""
    assert render_quantity("+316", "Q712226", english_name("Q712226", None)) == \
        "316 square kilometres"
    assert render_quantity("+108", "Q7727", english_name("Q7727", None)) == "108 minutes"
    assert render_quantity("+65", "Q24564698", english_name("Q24564698", None)) == \
        "65 years old"
    assert english_name("Q712226", "km²") == "km²"
    assert english_name("Q999999999", None) is None and english_name(None, None) is None
    assert render_quantity("+1", "Q24564698", english_name("Q24564698")) == "1 year old"
    assert render_quantity("+99", "Q732707", english_name("Q732707")) == "99 megahertz"
