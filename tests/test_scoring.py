"""How a reply is read and matched in each language (convkgyarn/scoring.py): English exactly
as before, German, Japanese and Chinese dates, numbers and names as those languages write
them, and the prompts a conversation in another language is asked and judged with."""

from __future__ import annotations

import datetime
import re
import unicodedata
from decimal import Decimal

import pytest
from hypothesis import assume, given, settings, strategies as st

from convkgyarn import scoring
from convkgyarn.kg.render import Value
from convkgyarn.languages import language
from convkgyarn.resources import load_prompt
from convkgyarn.scoring import (
    answer_system, as_date, as_number, judge_prompt, language_note, match, matcher_verdict,
    normalise, outcome, parse_answer)

LOCAL = ("de", "ja", "zh")


# -- English: exactly what it was before languages (0.6.0's code, kept here as the oracle) ---

_OLD_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december"
    .split(), 1)}
_OLD_MONTHS.update({m[:3]: i for m, i in list(_OLD_MONTHS.items())})


def old_normalise(text):
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c)).lower()
    text = re.sub(r"[^\w\s]", " ", text)
    text = re.sub(r"\b(the|a|an)\b", " ", text)
    return " ".join(text.split())


def old_as_date(text):
    t = text.strip().lower().replace(",", " ")
    m = re.fullmatch(r"(\d{3,4})(?:-(\d\d))?(?:-(\d\d))?", t)
    if m:
        return (int(m[1]), int(m[2]) if m[2] else None, int(m[3]) if m[3] else None)
    day = month = year = None
    for w in t.split():
        w = w.rstrip(".")
        if w in _OLD_MONTHS:
            month = _OLD_MONTHS[w]
        elif re.fullmatch(r"\d{1,2}(st|nd|rd|th)?", w):
            day = int(re.match(r"\d+", w).group())
        elif re.fullmatch(r"\d{3,4}", w):
            year = int(w)
    if year and (month or not day):
        return (year, month, day)
    return None


def old_as_number(text):
    m = re.fullmatch(r"\s*([+-]?[\d,]*\.?\d+)\s*([a-z ]*)\s*", text.lower())
    if not m:
        return None
    try:
        return float(m.group(1).replace(",", ""))
    except ValueError:
        return None


# text made of what answers are made of: digits, separators, month names, CJK dates
ANSWERISH = st.lists(st.sampled_from(
    list("0123456789 ,.-/'年月日万億") + ["March", "Mai", "März", "may", "the", "Die", "１",
                                        "a", "é", "ガ", "・", "%", "km"]),
    max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(ANSWERISH, st.text(max_size=24)))
def test_english_is_read_exactly_as_before(text):
    """English as before the other languages came, but for two fixes: a comma between two
    digits before three more groups them (0.8.12), so no date is read out of "465,292";
    and a currency sign before a number or a word of scale after it is read (0.8.29)."""
    assert normalise(text) == old_normalise(text)
    if not re.search(r"\d,\d{3}(?!\d)", text):
        assert as_date(text) == old_as_date(text)
    if not re.search(r"[$€£]|thousand|million|billion|bn|bln|trillion|tn|trn", text.lower()):
        assert as_number(text) == old_as_number(text)


@pytest.mark.parametrize("reply, score", [
    ("1.32 trillion", 1), ("$1.32 trillion", 1), ("1.32 trillion US dollars", 1),
    ("1,323 billion dollars", 1), ("1.323 trillion", 1), ("1,323,421,072,479", 1),
    ("1323421072479.07", 1), ("1.3 trillion", 0), ("1.33 trillion", 0), ("1.32", 0),
    ("1.32 billion", 0), ("$1,323bn", 1), ("1.32 trillions of dollars", 1),
    ("1.32 tn", 1), ("1.33 tn", 0)])
def test_a_large_amount_said_in_words_of_its_scale_is_read_as_its_number(reply, score):
    """Australia's GDP is said "1.32 trillion US dollars" and stored 1323421072479.07. A
    model that says "$1.32 trillion" or "1,323 billion dollars" is right; before 0.8.29
    "1.32 trillion" was read as 1.32 and scored a wrong number. A number said in words
    is right where it is the stored one rounded to the digits said, three at least."""
    golds = scoring.gold_lists(["1.32 trillion US dollars"], [None], {},
                               ["1323421072479.07"])
    assert match([reply], golds) == score
    assert as_number("5 thousand") == 5000 and as_number("1.5 million people") == 1.5e6
    # the digits as written: "1.30 trillion" is 1,305,000,000,000 to three (half to even)
    assert match(["1.30 trillion"], [["1305000000000"]]) == 1


@pytest.mark.parametrize("text", ["465,292", "242,495.406794 square kilometres",
                                  "1,313,271", "333,835 visitors"])
def test_an_english_number_with_its_thousands_grouped_is_no_date(text):
    """Malta's population, "465,292", was read as the year 292, and the United Kingdom's
    area as the year 242: a reply "242,495 square kilometres" was scored a wrong date."""
    assert as_date(text) is None and as_number(text) is not None


@pytest.mark.parametrize("reply, gold, score", [
    ("242,495 square kilometres", "242,495.406794 square kilometres", 1),
    ("242,495.41", "242,495.406794", 1), ("47.87", "47.867", 1), ("47.9", "47.867", 1),
    ("-259 degrees Celsius", "-259.14 degrees Celsius", 1), ("1.01", "1.008", 1),
    ("242,496", "242,495.406794", 0),   # a whole part said wrong
    ("242,500", "242,495.406794", 0),   # rounded into the whole part: not the number
    ("48", "47.867", 0), ("1", "1.008", 0), ("0.18", "0.175", 0),  # too few digits left
    ("765.01", "765.004788", 0),        # more places than it rounds to
    ("17.5%", "17.5%", 1), ("8,416,534", "8,416,535", 0),
    # three or four digits alone could be a year; the gold is no date, so they are a number
    ("765 square kilometres", "765.004788 square kilometres", 1), ("1975", "1,975 metres", 1),
    ("770 square kilometres", "765.004788 square kilometres", 0)])
def test_a_number_said_to_fewer_decimal_places_is_right(reply, gold, score):
    """Wikidata stores areas and masses to many places (the United Kingdom's area is
    242,495.406794 square kilometres): a model that says the number to fewer places,
    rounded, keeping its whole part and three significant digits, is right."""
    assert match([reply], [[gold]]) == score


@pytest.mark.parametrize("reply, gold", [("March 11,1952", "11 March 1952"),
                                         ("11 March, 1952", "11 March 1952"),
                                         ("March 11, 1952", "1952-03-11")])
def test_a_comma_before_a_year_still_parts_a_date(reply, gold):
    assert match([reply], [[gold]]) == 1


def test_a_reply_too_long_for_a_number_is_scored_not_a_crash():
    """A degenerate reply of 400 nines reads as infinity: it is a wrong number, and the
    evaluation goes on."""
    assert match(["9" * 400], [["12"]]) == 0
    assert match(["12"], [["9" * 400]]) == 0


# -- dates ----------------------------------------------------------------------------------

DATES = st.dates(min_value=datetime.date(100, 1, 1), max_value=datetime.date(9999, 12, 31))


@settings(max_examples=150, deadline=None)
@given(DATES, st.sampled_from(LOCAL), st.sampled_from([9, 10, 11]))
def test_a_date_as_each_language_says_it_reads_as_that_date(day, code, precision):
    """The gold answers of a German, Japanese or Chinese turn are said by the language layer
    (Babel's CLDR formats); the matcher reads each back to the date at its precision."""
    said = language(code).render(Value("time", day.isoformat(), precision=precision))
    want = (day.year, day.month if precision >= 10 else None,
            day.day if precision == 11 else None)
    assert as_date(said, code) == want, said


@settings(max_examples=150, deadline=None)
@given(DATES, st.sampled_from(LOCAL), st.sampled_from(LOCAL + ("en",)))
def test_a_full_date_matches_in_any_of_the_languages_forms(day, code, other):
    """A reply may write the date as another of our languages does (an English date in a
    German conversation), as ISO, or year first: the same date matches, another does not."""
    gold = language(code).render(Value("time", day.isoformat(), precision=11))
    said = language(other).render(Value("time", day.isoformat(), precision=11)) \
        if other != "en" else f"{day.day} {day.strftime('%B')} {day.year}"
    for reply in (said, day.isoformat(), f"{day.year}/{day.month}/{day.day}"):
        assert match([reply], [[gold]], code) == 1, (reply, gold)
    wrong = day + datetime.timedelta(days=1)
    assert match([wrong.isoformat()], [[gold]], code) == 0


@pytest.mark.parametrize("code, reply, want", [
    ("de", "11. März 1952", (1952, 3, 11)),
    ("de", "11. Maerz 1952", (1952, 3, 11)),
    ("de", "11.03.1952", (1952, 3, 11)),
    ("de", "11.3.1952", (1952, 3, 11)),
    ("de", "am 11. März 1952", (1952, 3, 11)),
    ("de", "Jänner 1900", (1900, 1, None)),
    ("de", "Okt. 1917", (1917, 10, None)),
    ("ja", "1952年3月11日", (1952, 3, 11)),
    ("ja", "１９５２年３月１１日", (1952, 3, 11)),
    ("ja", "昭和27年3月11日", (1952, 3, 11)),
    ("ja", "平成元年", (1989, None, None)),
    ("ja", "西暦1952年", (1952, None, None)),
    ("ja", "927年", (927, None, None)),
    ("zh", "1952年3月11日", (1952, 3, 11)),
    ("zh", "1952年3月11号", (1952, 3, 11)),
    ("zh", "公元1952年3月", (1952, 3, None)),
    ("zh", "1952/03/11", (1952, 3, 11)),
])
def test_dates_as_people_write_them(code, reply, want):
    assert as_date(reply, code) == want


@pytest.mark.parametrize("code, reply", [
    ("ja", "公元前44年"),     # before the common era: not the year 44 (the judge decides)
    ("ja", "紀元前427年5月7日"),
    ("de", "7. Mai 427 v. Chr."),
    ("de", "427 BC"),
    ("zh", "1950年代"),       # a decade
    ("ja", "3月11日"),        # no year
    ("de", "11.13.1952"),     # no 13th month
    ("en", "11.03.1952"),     # day or month first? English does not say
    ("ja", "465,292"),        # a number with its thousands grouped, not the year 292
])
def test_what_is_no_date_the_matcher_reads_as_none(code, reply):
    assert as_date(reply, code) is None


# -- numbers --------------------------------------------------------------------------------

AMOUNTS = st.one_of(
    st.integers(min_value=-10 ** 12, max_value=10 ** 12).map(Decimal),
    st.decimals(min_value=-10 ** 6, max_value=10 ** 6, places=3, allow_nan=False,
                allow_infinity=False))


@settings(max_examples=200, deadline=None)
@given(AMOUNTS, st.sampled_from(LOCAL))
def test_a_number_as_each_language_says_it_reads_as_that_number(amount, code):
    said = language(code).render(Value("quantity", str(amount)))
    assert as_number(said, code) == pytest.approx(float(amount), rel=1e-12, abs=1e-12), said


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=9999), st.integers(min_value=0, max_value=9999),
       st.integers(min_value=1, max_value=9999), st.sampled_from(["ja", "zh"]))
def test_myriads_read_as_their_number(oku, man, rest, code):
    """Japanese and Chinese count in myriads: 1億2000万 is 120,000,000, 570万7251 is
    5,707,251."""
    hundred_million = "億" if code == "ja" else "亿"
    text = (f"{oku}{hundred_million}" if oku else "") + (f"{man}万" if man else "") + str(rest)
    assert as_number(text, code) == oku * 10 ** 8 + man * 10 ** 4 + rest
    assert as_number(text + "人", code) == oku * 10 ** 8 + man * 10 ** 4 + rest


@pytest.mark.parametrize("code, reply, want", [
    ("de", "5.707.251", 5707251), ("de", "1,83 Meter", 1.83), ("de", "12,5 %", 12.5),
    ("de", "1.699.154.132 US-Dollar", 1699154132), ("de", "−3,5 Grad Celsius", -3.5),
    ("de", "5 707 251", 5707251), ("de", "5'707'251", 5707251),
    # an English-style number in a German conversation, where it cannot be German
    ("de", "5,707,251", 5707251), ("de", "1.83 m", 1.83),
    # where both readings are possible, the language's wins: 1.008 is a thousand and eight
    ("de", "1.008", 1008), ("de", "1,008", 1.008),
    ("ja", "1,699,154,132米ドル", 1699154132), ("ja", "５，７０７，２５１", 5707251),
    ("ja", "570万7251人", 5707251), ("ja", "5.7万", 57000), ("ja", "摂氏 -3.5度", -3.5),
    ("zh", "1亿2000万", 120000000), ("zh", "142分钟", 142), ("zh", "1,500米", 1500),
])
def test_numbers_as_people_write_them(code, reply, want):
    assert as_number(reply, code) == pytest.approx(want)


@pytest.mark.parametrize("code, reply", [
    ("ja", "約570万人"),   # about: not the number (the judge decides)
    ("ja", "1万万"), ("ja", "万"), ("zh", "5万1亿"), ("de", "1,2,3"), ("ja", "1,83"),
])
def test_what_is_no_number_the_matcher_reads_as_none(code, reply):
    assert as_number(reply, code) is None


@pytest.mark.parametrize("code, gold, right, wrong", [
    ("de", "5.707.251", ["5707251", "5,707,251", "5.707.251 Einwohner"], "5.707.252"),
    ("ja", "5,707,251", ["570万7251", "5707251人"], "570万"),
    ("ja", "465,292", ["46万5292", "465292"], "46万5293"),
    ("zh", "63,000,000,000美元", ["630亿美元", "63,000,000,000"], "6300万"),
])
def test_numbers_match_in_the_forms_of_the_language(code, gold, right, wrong):
    for reply in right:
        assert match([reply], [[gold]], code) == 1, reply
    assert match([wrong], [[gold]], code) == 0


# -- names ----------------------------------------------------------------------------------

@settings(max_examples=300, deadline=None)
@given(st.text(max_size=30), st.sampled_from(("en",) + LOCAL))
def test_normalising_twice_changes_nothing(text, code):
    assert normalise(normalise(text, code), code) == normalise(text, code)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(whitelist_categories=("Lo",)), min_size=1,
                        max_size=4), min_size=1, max_size=4), st.sampled_from(["ja", "zh"]))
def test_japanese_and_chinese_names_match_whatever_their_spacing(words, code):
    """Names written with a middle dot, spaces or nothing between their parts are one name
    (ドナルド・トランプ, ドナルド トランプ, ドナルドトランプ)."""
    assume(all(normalise(w, code) for w in words))
    joined = [sep.join(words) for sep in ("", " ", "・", "·", "\u3000")]
    assert len({normalise(name, code) for name in joined}) == 1


def test_names_in_german_japanese_and_chinese():
    assert match(["die Schweiz"], [["Schweiz"]], "de") == 1
    assert match(["Vereinigtes Königreich"], [["Vereinigtes Konigreich"]], "de") == 1
    assert match(["Großbritannien"], [["Grossbritannien"]], "de") == 1
    assert match(["ドナルド・トランプ"], [["ドナルドトランプ"]], "ja") == 1
    assert match(["ＵＳＡ"], [["アメリカ合衆国", "USA"]], "ja") == 1
    # voiced sound marks are part of the word: ガ is not カ
    assert match(["カン"], [["ガン"]], "ja") is None
    assert match(["Frankreich"], [["Deutschland"]], "de") is None  # for the judge


# -- replies --------------------------------------------------------------------------------

@pytest.mark.parametrize("raw, candidates, na", [
    ("Antwort: Berlin", ["Berlin"], False),
    ("答え：東京", ["東京"], False),
    ("回答: 北京。", ["北京。"], False),
    ("Answer: 不明", [], True),
    ("Answer: わかりません。", [], True),
    ("Answer: 不知道", [], True),
    ("Answer: weiß nicht", [], True),
    ('Answer: ["柏林", "巴黎"]', ["柏林", "巴黎"], False),
])
def test_replies_in_the_conversations_language_are_read(raw, candidates, na):
    parsed = parse_answer(raw)
    assert (parsed.candidates, parsed.na, parsed.unparsable) == (candidates, na, False)


def test_the_matcher_and_the_outcome_take_the_language():
    """"10.008" is ten thousand and eight in a German conversation and about ten in an
    English one; an outdated value is found in the language's forms too."""
    assert matcher_verdict(parse_answer("Answer: 10.008"), [["10008"]], "de") == 1
    assert matcher_verdict(parse_answer("Answer: 10.008"), [["10008"]]) == 0
    old = [["9. Mai 2016"]]
    assert outcome(parse_answer("Answer: 2016-05-09"), 0, old, "de") == "outdated"
    assert outcome(parse_answer("Answer: 2016-05-09"), 0, old) == "wrong"


def test_gold_ids_that_do_not_line_up_with_the_labels_are_not_used():
    """A value the language could not say is left out of the said list: its ids then no
    longer match the labels one to one, and no label borrows another value's aliases."""
    variants = {"Q1": ["One", "Eins"], "Q2": ["Two", "Zwei"]}
    assert scoring.gold_lists(["Zwei"], ["Q1", "Q2"], variants) == [["Zwei"]]
    assert scoring.gold_lists(["Eins", "Zwei"], ["Q1", "Q2"], variants) == [
        ["Eins", "One", "Eins"], ["Zwei", "Two", "Zwei"]]


# -- prompts --------------------------------------------------------------------------------

def test_each_language_is_asked_with_its_paragraph_and_english_as_before():
    base = load_prompt("answer_system.md").text
    paragraphs = {code: load_prompt(f"answer_{code}.md").text for code in LOCAL}
    assert answer_system(base, "en", paragraphs) == base
    for code, name in (("de", "German"), ("ja", "Japanese"), ("zh", "Chinese")):
        system = answer_system(base, code, paragraphs)
        assert system.startswith(base.rstrip("\n")) and paragraphs[code].strip() in system
        assert f"in {name}" in paragraphs[code]
    assert "11. März 1952" in paragraphs["de"] and "1952年3月11日" in paragraphs["ja"]
    with pytest.raises(ValueError, match="'fr'"):
        answer_system(base, "fr", paragraphs)


def test_the_judge_is_told_the_language_and_english_is_judged_as_before():
    template = load_prompt("judge.md").text
    note_template = load_prompt("judge_language.md").text
    items = [("Wann wurde er geboren?", ["11. März 1952"], ["1952-03-11"])]
    assert language_note(note_template, "en") == ""
    assert judge_prompt(template, items, language_note(note_template, "en")) == \
        judge_prompt(template, items)
    german = judge_prompt(template, items, language_note(note_template, "de"))
    assert german.startswith("The conversation you grade here is in German")
    assert german.endswith(judge_prompt(template, items))
    assert "$" not in language_note(note_template, "ja")


@pytest.mark.parametrize("reply, gold, language, score", [
    ("0.175", "17.5%", "en", 1), ("17.5 percent", "17.5%", "en", 1), ("17.5%", "17.5%", "en", 1),
    ("0,175", "17,5 %", "de", 1), ("17,5 Prozent", "17,5 %", "de", 1),
    ("0.175", "17.5%", "ja", 1), ("17.5%", "0.175", "en", 1),
    ("20%", "17.5%", "en", 0), ("0.2", "17.5%", "en", 0),
    # rounded either way: 0.1753 said "0.175" or "17.5%"
    ("0.175", "17.53%", "en", 1), ("17.5%", "0.1753", "en", 1), ("5.17%", "0.05172", "en", 1),
    ("0.18", "17.53%", "en", 0), ("0.17", "17.53%", "en", 0)])
def test_a_share_matches_said_as_a_fraction_or_a_percentage(reply, gold, language, score):
    """An admission rate's gold answer is said "17.5%"; Wikidata stores 0.175: a model that
    answers either way is right."""
    assert match([reply], [[gold]], language) == score


@pytest.mark.parametrize("reply, gold, score", [
    ("43", "43 CE", 1), ("43 AD", "43 CE", 1), ("44", "43 CE", 0), ("43 BCE", "43 CE", 0),
    ("427 BC", "427 BCE", 1), ("427", "427 BCE", 0), ("7 May 427", "7 May 427 BCE", 0),
    ("7 May 427 BC", "7 May 427 BCE", 1)])
def test_a_year_before_the_common_era_is_not_the_same_year_after_it(reply, gold, score):
    """Plato was born in 427 BCE: a reply "427" is another year, and "43 BCE" is not
    London's founding in 43 CE ("43 AD" is)."""
    assert match([reply], [[gold]]) == score


@pytest.mark.parametrize("reply, label, stored, score", [
    ("765.004788 square kilometres", "765 square kilometres", "765.004788", 1),
    ("765", "765 square kilometres", "765.004788", 1),
    ("765.0", "765 square kilometres", "765.004788", 1),
    ("242,495.406794", "242,495.41 square kilometres", "242495.406794", 1),
    ("242,495.4", "242,495.41 square kilometres", "242495.406794", 1),
    ("765.01", "765 square kilometres", "765.004788", 0),
    ("764.6", "765 square kilometres", "765.004788", 0),
    ("766.2", "765 square kilometres", "765.004788", 0)])
def test_a_gold_said_rounded_keeps_its_stored_number(reply, label, stored, score):
    """Bahrain's area is said "765 square kilometres" (stored 765.004788, converted from
    square miles): the stored number is a gold answer beside the label, so a model that
    says it exactly is right, and one that says 765.01 or 764.6 is not."""
    golds = scoring.gold_lists([label], [None], {}, [stored])
    assert match([reply], golds) == score


def test_an_amount_the_label_says_as_stored_adds_no_gold():
    """Golds (and the judge's prompts) stay as they were where the label says the stored
    number: "8,416,535" for 8416535."""
    assert scoring.gold_lists(["8,416,535"], [None], {}, ["8416535"]) == [["8,416,535"]]
    assert scoring.gold_lists(["17.5%"], [None], {}, ["0.175"]) == [["17.5%", "0.175"]]
    assert scoring.gold_lists(["Paris"], ["Q90"], {"Q90": ["City of Light"]}, [None]) == \
        [["Paris", "City of Light"]]


@pytest.mark.parametrize("reply, gold, language", [
    ("1955", "1950s", "en"), ("950", "10th century", "en"), ("19", "19th century", "en"),
    ("427 BCE", "5th century BCE", "en"), ("1955", "1950er Jahre", "de"),
    ("950", "10世紀", "ja"), ("-427", "427 BCE", "en")])
def test_a_decade_or_a_century_is_no_number_and_goes_to_the_judge(reply, gold, language):
    """"1950s" reads as the number 1950 and "19th century" as 19: a year within the span,
    or the bare ordinal, is for the judge, never decided by the number."""
    assert match([reply], [[gold]], language) is None


def test_before_christ_in_words_is_before_the_common_era():
    assert match(["427 before Christ"], [["427 BCE"]]) == 1
    assert match(["427 before the common era"], [["427 BCE"]]) == 1
    assert match(["427 AD"], [["427 BCE"]]) == 0


def test_a_figure_that_held_before_is_told_exactly_and_found_however_it_is_said():
    """China's population is said "1.44 billion"; the 2017 figure, 1,409,517,397, is kept
    as an outdated answer to the unit (in words it could be this year's figure too), and a
    reply of it, exact or in words, is "outdated", never "wrong": the stored amounts of the
    values that held before are golds beside their labels (``evaluate.outcome_of``)."""
    from convkgyarn.kg.render import render
    from convkgyarn.stages.evaluate import outcome_of
    old = Value("quantity", "1409517397")
    assert render(old) == "1.41 billion" and render(old, in_words=False) == "1,409,517,397"
    turn = {"outdated": ["1.41 billion"], "outdated_ids": [None],
            "outdated_amounts": ["1409517397"]}
    for reply in ("1,409,517,397", "1.41 billion", "1,409.5 million"):
        assert outcome_of(parse_answer(f"Answer: {reply}"), 0, turn, {}) == "outdated", reply
    assert outcome_of(parse_answer("Answer: 1.2 billion"), 0, turn, {}) == "wrong"


@pytest.mark.parametrize("reply", ["0.3333333333333333333333333333 trillion",
                                   "2.718281828459045235360287471352 billion"])
def test_a_reply_in_words_with_more_digits_than_decimals_hold_is_scored_not_raised(reply):
    golds = scoring.gold_lists(["1.32 trillion US dollars"], [None], {}, ["1323421072479.07"])
    assert match([reply], golds) == 0
