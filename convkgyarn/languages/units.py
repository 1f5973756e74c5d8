"""Wikidata unit items as CLDR units (Babel formats them in each language, plural forms
included) and as ISO 4217 currencies.

A unit not listed here is said with its label in the language when the caller has one;
without a label the amount is not sayable in that language (``render`` returns None and
the caller leaves the fact out with its reason).
"""

from __future__ import annotations

# Wikidata item -> CLDR unit key (babel.units.format_unit)
CLDR_UNITS: dict[str, str] = {
    # length
    "Q11573": "length-meter", "Q828224": "length-kilometer", "Q174728": "length-centimeter",
    "Q174789": "length-millimeter", "Q178674": "length-nanometer",
    "Q175821": "length-micrometer", "Q3710": "length-foot", "Q218593": "length-inch",
    "Q482798": "length-yard", "Q253276": "length-mile", "Q93318": "length-nautical-mile",
    "Q1811": "length-astronomical-unit", "Q531": "length-light-year",
    "Q12129": "length-parsec", "Q192274": "length-picometer",
    # area
    "Q712226": "area-square-kilometer", "Q25343": "area-square-meter",
    "Q35852": "area-hectare", "Q232291": "area-square-mile", "Q81292": "area-acre",
    "Q857027": "area-square-foot", "Q2489298": "area-square-centimeter",
    # volume
    "Q11582": "volume-liter", "Q25517": "volume-cubic-meter",
    "Q4243638": "volume-cubic-kilometer", "Q2332346": "volume-milliliter",
    "Q1022113": "volume-cubic-centimeter",
    # mass
    "Q11570": "mass-kilogram", "Q41803": "mass-gram", "Q191118": "mass-tonne",
    "Q3241121": "mass-milligram", "Q100995": "mass-pound", "Q48013": "mass-ounce",
    "Q483261": "mass-dalton",
    # time
    "Q7727": "duration-minute", "Q11574": "duration-second", "Q25235": "duration-hour",
    "Q573": "duration-day", "Q23387": "duration-week", "Q5151": "duration-month",
    "Q577": "duration-year",
    # speed, temperature, energy, power, electricity, frequency, pressure
    "Q180154": "speed-kilometer-per-hour", "Q182429": "speed-meter-per-second",
    "Q211256": "speed-mile-per-hour", "Q128822": "speed-knot",
    "Q25267": "temperature-celsius", "Q11579": "temperature-kelvin",
    "Q42289": "temperature-fahrenheit",
    "Q25269": "energy-joule",
    "Q83327": "energy-electronvolt", "Q13035094": "energy-kilojoule",
    "Q26546": "energy-kilowatt-hour", "Q25236": "power-watt", "Q6982035": "power-megawatt",
    "Q3229": "electric-ampere", "Q25250": "electric-volt", "Q25272": "electric-ohm",
    "Q39369": "frequency-hertz", "Q2143992": "frequency-kilohertz",
    "Q732707": "frequency-megahertz", "Q3276763": "frequency-gigahertz",
    "Q44395": "pressure-pascal", "Q103510": "pressure-bar",
    # angle
    "Q28390": "angle-degree", "Q33680": "angle-radian",
}

PERCENT = "Q11229"

# Wikidata item -> ISO 4217 code (babel.numbers.format_currency)
CURRENCIES: dict[str, str] = {
    "Q4917": "USD", "Q4916": "EUR", "Q25224": "GBP", "Q8146": "JPY", "Q39099": "CNY",
    "Q25344": "CHF", "Q41044": "RUB", "Q80524": "INR", "Q1104069": "CAD", "Q259502": "AUD",
    "Q173117": "BRL", "Q4730": "MXN", "Q202040": "KRW", "Q122922": "SEK", "Q132643": "NOK",
    "Q25417": "DKK", "Q123213": "PLN", "Q131016": "CZK", "Q47190": "HUF", "Q172872": "TRY",
    "Q181907": "ZAR", "Q200050": "CLP", "Q199578": "ARS", "Q244819": "COP",
    "Q4608": "HKD", "Q190951": "SGD", "Q208526": "TWD", "Q1193749": "NZD",
}


# English names beside the CLDR keys (made from them in our spelling: metres, litres), and the
# units CLDR lacks that Wikidata's amounts use (an age: "65 years old").
ENGLISH_NAMES = {PERCENT: "percent", "Q24564698": "years old", "Q28390": "degree",
                 "Q25267": "degree Celsius", "Q42289": "degree Fahrenheit",
                 "Q531": "light-year"}


def english_name(unit_id: str | None, label: str | None = None) -> str | None:
    """A unit's English name: the label the KG gives, else one made from its CLDR key
    ("area-square-kilometer": "square kilometre"). A slice of Wikidata holds amounts without
    their unit items (real-entities-dev: 152 areas in square kilometres, no square kilometre
    item): without a name such an amount is never asked ("How big is Malta?"), since its
    answer could not be said. None for a unit neither knows."""
    if label or not unit_id:
        return label
    if unit_id in ENGLISH_NAMES:
        return ENGLISH_NAMES[unit_id]
    key = CLDR_UNITS.get(unit_id)
    if key is None:
        return None
    words = key.split("-", 1)[1].split("-")
    return " ".join(w.replace("meter", "metre").replace("liter", "litre") for w in words)
