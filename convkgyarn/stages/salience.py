"""Which facts a person asks first about an entity: a ranking of properties per broad kind
of entity, for the conversation planner (issue #33: "facts asked in an order no person
would", "What languages did X speak?" as the first question).

``salience(property_id, qualifier_id, type_label, value_kind)`` scores a fact from 0 to
100; ``good_opener(...)`` says whether it may be the first question of a conversation;
``broad_kind(type_label)`` is the kind the ranking is chosen by. Nothing here reads the KG:
the planner passes what it knows of the fact.

The ranking, and why
--------------------
People open with what makes the entity what it is, the fact they would put in the first
line of an introduction, and go on to its circumstances, then to details. A quiz about a
film asks who directed it before what its running time is; about a country its capital
before its memberships; about a person what they are known for before which languages
they spoke. So each broad kind lists its facts in four tiers:

- IDENTIFYING (90): the first line of an introduction. Person: occupation, notable work,
  position held, the sport played, the team or band; film and TV: director, cast,
  creator, release; book: author; song and album: performer, release; painting and
  sculpture: creator; country: capital, head of state or government, currency, official
  language (since 0.8.19 not its population, below them, nor its area: a reader's
  "instead" questions for nine countries named neither); city and region: country, population, the
  region it is in; organisation: founded, founder, headquarters, what it does; company:
  founder, founded, industry, headquarters, chief executive; university: founded,
  location, country; club: sport, league, home ground, founded; event: when, where, who
  took part; building: architect, location, opened; natural feature: country, elevation,
  length, the range or the sea it belongs to.
- CORE (70): what a curious person asks next. Person: what the occupation leads to (field
  of work, employer, awards, movement, genre, instrument, team, league, party, teachers),
  spouse, education; the stock biography (born, nationality, died: 55-62) after those, as
  a reader's critique asked ("replace a stock biography field with a question that follows
  from the occupation"); film:
  genre, country, language, screenwriter, composer, awards; country: language, borders,
  religion, anthem, founded; city: head of government, founded, twin towns, named after;
  organisation: members, parent, chairperson.
- DETAIL (50): facts worth a follow-up: family (children, parents, siblings), religion,
  languages spoken, residence, cause of death, burial; a film's producer, running time;
  a country's highest point, driving side, time zone-free geography; a place's elevation.
- MINOR (30): the rest of what the rules writer can phrase, by default (a property no
  table lists gets 30 +- the rule below).
- LOW (10-20): facts that are true and askable but a poor place to start or to spend a
  turn on: time zones, "part of", heritage designations, Wikidata-shaped classifications
  ("legal form", "instance of"-like labels), languages of a non-person, a museum's or a
  building's memberships ("Which organisations does it belong to?" "Geheugen van
  Nederland").

A property no kind lists is scored by a generic table (facts that read well for any kind:
named after, founded by, inception, country, ...) and then by its value kind: a person
(45: "who" questions are the liveliest), a date or a place (40), a count (35), anything
else (30); a label that reads as bookkeeping ("... type", "... class", "... status",
"designation", "time zone", "code") is lowered to 15.

A qualifier question (when did she marry him? since when has he led it?) is a follow-up
by nature: it scores its property's salience less 20, at least 10, and never opens.

``good_opener`` holds for a plain fact (no qualifier, no count or yes/no kind) scoring at
least ``OPENER_MIN`` (70), and never for the facts people never open with even where they
score well (languages spoken, relatives, "part of", time zone, the end of something).
"""

from __future__ import annotations

import re

IDENTIFYING, CORE, DETAIL, MINOR, LOW = 90, 70, 50, 30, 10
OPENER_MIN = CORE

# Broad kinds, from the type's English label (the first rule that matches wins).
KIND_RULES: tuple[tuple[str, re.Pattern], ...] = tuple((k, re.compile(p)) for k, p in (
    ("person", r"^(human|person|people)$"),
    ("city", r"\b(college|university) town\b"),
    ("organisation", r"\b(academic department|research institute|political party)\b"),
    ("film", r"\b(film|movie|documentary|animated feature)\b"),
    ("series", r"\b(television|tv|web) (series|program|programme|show)\b|\bsitcom\b|"
               r"\banime\b"),
    ("music", r"\b(song|single|album|ep|musical work|composition|symphony|opera|"
              r"soundtrack)\b"),
    ("book", r"\b(book|novel|literary work|poem|written work|play|manga|comic|short story|"
             r"novella|epic)\b"),
    ("artwork", r"\b(painting|sculpture|artwork|work of art|statue|mural|fresco|drawing|"
                r"print|photograph)\b"),
    ("game", r"\bvideo game\b"),
    ("band", r"\b(band|musical group|musical ensemble|orchestra|choir|duo|trio)\b"),
    ("club", r"\b(club|sports team|football team|national team|team)\b"),
    ("university", r"\b(university|college|school|academy|institute of technology|"
                   r"polytechnic)\b"),
    ("company", r"\b(company|business|enterprise|corporation|brand|manufacturer|"
                r"airline|bank|publisher|record label|conglomerate|startup)\b"),
    ("country", r"\b(country|sovereign state|state with limited recognition|empire|"
                r"kingdom|republic|confederation|historical country|colony|protectorate)\b"),
    ("city", r"\b(city|town|village|municipality|commune|settlement|borough|metropolis|"
             r"capital|hamlet|suburb|quarter|neighbo(u)?rhood|district of|community)\b"),
    ("region", r"\b(state|province|county|region|department|oblast|canton|prefecture|"
               r"administrative|territor|district|governorate|voivodeship)\b"),
    ("event", r"\b(event|war|battle|election|festival|competition|tournament|championship|"
              r"olympic|season|conflict|revolution|treaty|conference|expedition|disaster|"
              r"earthquake|match|race|edition)\b"),
    ("building", r"\b(building|station|museum|church|cathedral|castle|bridge|stadium|"
                 r"tower|palace|street|monument|airport|house|hotel|theatre|theater|"
                 r"library|hospital|temple|mosque|abbey|fort|lighthouse|square|park|"
                 r"cemetery|arena|venue|structure|road|railway)\b"),
    ("natural", r"\b(mountain|river|lake|island|sea|ocean|volcano|forest|peak|hill|"
                r"glacier|bay|strait|desert|waterfall|valley|canyon|cave|reef|summit|"
                r"range|archipelago|peninsula|watercourse|stream)\b"),
    ("organisation", r"\b(organi[sz]ation|institution|agency|party|association|society|"
                     r"foundation|union|council|committee|department|ministry|navy|army|"
                     r"military|armed forces|government|court|parliament|legislature|"
                     r"league|federation|order|charity|ngo|research institute|alliance)\b"),
    ("element", r"\bchemical element\b"),
    ("case", r"\b(legal case|court case|lawsuit)\b"),
))

# Type labels of humans: conversations about people come through P106 occupations too
# ("association football player", "film actor", "politician"): checked before the kinds.
OCCUPATION = re.compile(
    r"\b(actor|actress|singer|musician|politician|writer|author|poet|painter|artist|"
    r"player|footballer|athlete|cyclist|referee|coach|scientist|researcher|physicist|"
    r"chemist|mathematician|economist|philosopher|historian|engineer|architect|"
    r"entrepreneur|businessperson|journalist|director|producer|composer|teacher|professor|"
    r"lawyer|judge|soldier|officer|monk|priest|bishop|pope|saint|king|queen|emperor|"
    r"prince|princess|noble|aristocrat|dancer|comedian|presenter|rapper|"
    r"songwriter|guitarist|pianist|drummer|physician|nurse|inventor|explorer|astronaut|"
    r"pilot|diplomat|activist|sculptor|photographer|designer|boxer|swimmer|tennis|golfer|"
    r"skier|racer|driver|chef|novelist|playwright|screenwriter|illustrator|translator|"
    r"lyricist|conductor|youtuber|blogger|influencer|manager|executive|banker)$")
# The long tail of occupations, after the kinds ("water tower" is a building).
OCCUPATION_SHAPE = re.compile(r"\w\w+(ist|ian|ner|ter|ger|ker|ler|der|ser|tor|sor)$")

TIERS: dict[str, dict[str, int]] = {
    "person": {
        "P106": 90, "P800": 90, "P39": 85, "P641": 60, "P54": 80, "P463": 66, "P102": 70,
        "P569": 62, "P19": 60, "P27": 58, "P570": 60, "P20": 55, "P26": 70, "P69": 68,
        "P166": 74, "P1411": 55, "P136": 72, "P1303": 72, "P264": 60, "P108": 72,
        "P413": 75, "P118": 68, "P1344": 50, "P607": 55, "P241": 55, "P410": 55,
        "P101": 74, "P135": 70, "P737": 66, "P802": 60, "P1066": 60, "P184": 62,
        "P185": 55, "P40": 55, "P22": 50, "P25": 50, "P3373": 45, "P451": 50, "P1038": 25,
        "P140": 50, "P1412": 30, "P103": 40, "P6886": 40, "P551": 50, "P937": 50,
        # a "work period" is a vague start of a career: "In what year did his career
        # start?" "1975." of Vladimir Putin, "What year did Paris Jackson's career start?"
        # were among three raters' least relevant questions (r52)
        "P509": 50, "P1196": 45, "P119": 45, "P2031": 35, "P2032": 30, "P2048": 45,
        "P1971": 40, "P412": 50, "P1050": 10, "P411": 50, "P1636": 20, "P53": 40,
        "P97": 45, "P1532": 35, "P2094": 35, "P512": 40, "P1416": 40, "P358": 45,
        "P1875": 40, "P742": 20,
    },
    "film": {
        "P57": 90, "P161": 88, "P577": 85, "P136": 72, "P58": 72, "P86": 65, "P162": 65,
        "P495": 70, "P364": 65, "P166": 70, "P1411": 60, "P2047": 55, "P272": 50,
        "P750": 40, "P840": 60, "P915": 45, "P344": 50, "P1040": 40, "P144": 60,
        "P155": 50, "P156": 50, "P2130": 55, "P2142": 60, "P179": 60,
    },
    "series": {
        "P170": 90, "P161": 85, "P57": 70, "P58": 70, "P449": 85, "P580": 80, "P582": 70,
        "P2437": 75, "P1113": 70, "P136": 72, "P495": 65, "P364": 60, "P86": 50,
        "P162": 55, "P272": 50, "P840": 55, "P166": 60, "P577": 75,
    },
    "book": {
        "P50": 92, "P577": 80, "P136": 72, "P123": 60, "P407": 55, "P495": 55,
        "P110": 50, "P674": 65, "P840": 60, "P155": 50, "P156": 50, "P166": 60,
        "P179": 60, "P1476": 10,
    },
    "music": {
        "P175": 92, "P577": 85, "P86": 75, "P676": 70, "P136": 72, "P264": 60,
        "P162": 60, "P361": 60, "P407": 45, "P2047": 50, "P826": 40, "P155": 45,
        "P156": 45, "P166": 55, "P495": 45, "P870": 40,
    },
    "artwork": {
        "P170": 92, "P571": 80, "P195": 75, "P276": 72, "P186": 60, "P136": 60,
        "P180": 65, "P135": 60, "P2048": 40, "P2049": 40, "P88": 50,
    },
    "game": {
        "P178": 88, "P123": 80, "P577": 85, "P136": 72, "P400": 70, "P404": 55,
        "P179": 60, "P57": 60, "P86": 50,
    },
    "band": {
        "P527": 88, "P571": 80, "P136": 85, "P740": 75, "P264": 65, "P495": 70,
        "P576": 60, "P166": 55, "P463": 40,
    },
    "club": {
        "P641": 70, "P118": 85, "P115": 80, "P571": 75, "P286": 75, "P159": 65,
        "P131": 60, "P17": 60, "P488": 50, "P166": 55, "P127": 50, "P1448": 10,
    },
    "university": {
        "P571": 88, "P131": 82, "P17": 80, "P112": 75, "P159": 70, "P1082": 10,
        "P2196": 65, "P1451": 30, "P488": 55, "P1037": 55, "P749": 55, "P361": 50,
        "P355": 45, "P138": 60, "P1435": 30, "P5822": 45, "P2936": 20, "P463": 25,
        "P669": 35, "P6": 40, "P2828": 35,
    },
    "company": {
        "P112": 90, "P571": 88, "P452": 88, "P159": 80, "P169": 80, "P17": 70,
        "P1128": 55, "P2139": 60, "P127": 60, "P749": 60, "P355": 50, "P1056": 65,
        "P414": 45, "P488": 55, "P740": 55, "P576": 55,
    },
    "country": {
        # a reader asked a country's capital, head of state, official language and
        # currency, then its highest mountain, founding and what replaced a state that is
        # gone; never its population or area as such (r60's explaining reader's "instead"
        # questions for nine countries: "How many inhabitants does Laos have?" opened "a
        # fixed country fact sheet")
        "P36": 95, "P30": 55, "P38": 85, "P35": 88, "P6": 82, "P1082": 68, "P37": 85,
        "P2046": 55, "P47": 62, "P571": 65, "P85": 60, "P1304": 45, "P610": 66,
        # "Where is the lowest point in Brazil?" "Atlantic Ocean." (r24's raters)
        "P1589": 40, "P122": 65, "P140": 55, "P1622": 40, "P2131": 55, "P194": 50,
        "P208": 45, "P209": 45, "P463": 35, "P361": 30, "P421": 15, "P2250": 45,
        "P1365": 50, "P1366": 62, "P155": 50, "P156": 62, "P576": 60, "P17": 40,
        "P2936": 25, "P3075": 50, "P417": 30, "P2238": 25, "P1906": 30, "P1313": 30,
        "P1454": 10,
    },
    "city": {
        "P17": 90, "P1082": 85, "P131": 82, "P1376": 80, "P6": 72, "P571": 65,
        "P2044": 30, "P2046": 55, "P206": 60, "P190": 50, "P138": 60, "P1249": 45,
        "P47": 45, "P421": 15, "P361": 25, "P166": 35, "P417": 35, "P30": 40,
        "P1435": 25, "P463": 20, "P5658": 10, "P36": 70,
    },
    "region": {
        "P17": 88, "P36": 85, "P131": 80, "P1082": 80, "P6": 65, "P2046": 60,
        "P571": 55, "P47": 45, "P206": 50, "P421": 15, "P150": 40,
    },
    "organisation": {
        "P571": 85, "P112": 85, "P159": 82, "P17": 70, "P749": 65, "P488": 70,
        "P169": 70, "P1037": 65, "P527": 55, "P355": 50, "P463": 45, "P361": 45,
        "P576": 60, "P1128": 45, "P2124": 45, "P101": 70, "P1142": 65, "P607": 55,
        "P945": 40, "P1365": 40, "P1366": 40, "P155": 40, "P156": 40, "P131": 55,
        "P276": 55, "P2936": 20,
    },
    "event": {
        "P585": 90, "P580": 88, "P582": 75, "P276": 85, "P17": 80, "P710": 75,
        "P1346": 80, "P1132": 50, "P1120": 55, "P664": 55, "P1427": 50, "P793": 20,
        "P361": 45, "P155": 40, "P156": 40, "P641": 70,
    },
    "building": {
        "P84": 88, "P131": 85, "P17": 75, "P571": 82, "P1619": 80, "P149": 70,
        "P138": 65, "P127": 60, "P137": 60, "P2048": 60, "P1435": 30, "P669": 50,
        "P1174": 55, "P466": 50, "P81": 70, "P197": 50, "P1103": 40, "P1373": 35,
        "P5595": 25, "P16": 50, "P576": 55, "P276": 60, "P361": 35, "P88": 55,
        "P140": 45, "P1436": 50, "P195": 40, "P463": 15,
    },
    "natural": {
        "P17": 85, "P2044": 88, "P2043": 85, "P4552": 80, "P131": 75, "P403": 80,
        "P885": 75, "P2046": 75, "P206": 65, "P30": 70, "P610": 60, "P138": 55,
        "P1589": 40, "P200": 55, "P974": 50, "P2053": 45, "P4614": 55, "P706": 30,
        "P1435": 25,
    },
    "element": {
        "P1086": 92, "P246": 20, "P61": 80, "P575": 75, "P2067": 60, "P189": 55,
        "P138": 65, "P2102": 55, "P2101": 55, "P1121": 30, "P1108": 35, "P1088": 35,
        "P1109": 20,
        # a physicist's numbers, askable since 0.8.7 names their units (r24's rater: "What
        # is the speed of sound of hydrogen?" "And its ionization energy?" not worth asking)
        "P2075": 15, "P2260": 15,
    },
    "case": {
        "P1001": 60, "P577": 80, "P1594": 70, "P4884": 75, "P17": 50, "P793": 20,
        "P1591": 65, "P1592": 65, "P1593": 65,
    },
}

# Facts that read well about anything: used where a kind has no entry.
GENERIC: dict[str, int] = {
    "P571": 75, "P112": 75, "P170": 80, "P50": 85, "P57": 85, "P175": 85, "P84": 80,
    "P17": 72, "P131": 70, "P276": 65, "P159": 72, "P577": 75, "P585": 75, "P580": 65,
    "P582": 55, "P576": 55, "P138": 55, "P36": 80, "P1082": 70, "P2044": 60, "P2046": 55,
    "P166": 50, "P136": 60, "P495": 55, "P527": 50, "P361": 25, "P421": 15, "P463": 25,
    "P1435": 25, "P2936": 20, "P1412": 25, "P31": 5, "P1343": 5, "P793": 15,
    "P1451": 20, "P5008": 5, "P155": 35, "P156": 35, "P1365": 35, "P1366": 35,
}

# Never the first question, whatever the score: what no one opens a conversation with.
NEVER_OPEN = frozenset({
    "P1412", "P103", "P6886", "P2936", "P1038", "P3373", "P40", "P22", "P25", "P421",
    "P361", "P463", "P582", "P576", "P2032", "P570", "P20", "P509", "P1196", "P119",
    "P1365", "P1366", "P155", "P156", "P47", "P190", "P1435", "P1249", "P2048",
    "P140", "P551", "P793", "P706", "P1636", "P411", "P1971", "P5658", "P1622",
    "P102",  # a party is not what an actress is known for ("Which party is Meryl Streep a
})           # member of?" as the first question); a politician opens with the office held

# A place's area opens no conversation: people ask what it is and where first
AREA_NOT_OPENING = frozenset({"P2046"})
PLACES = frozenset({"country", "city", "region"})

# A person's stock biography ranks below what their occupation leads to, and still opens a
# conversation well where nothing better does ("When was Plato born?")
PERSON_OPENERS = frozenset({"P569", "P19", "P27"})

BOOKKEEPING_LABEL = re.compile(r"\b(type|class|status|designation|time zone|code|form|"
                               r"category|classification|index|rank|ranking|grade|rating|"
                               r"level|policy|scheme|system|standard|format)\b")
KIND_DEFAULTS = {"person": 45, "time": 40, "place": 40, "count": 35, "quantity": 30,
                 "thing": 30}


def broad_kind(type_label: str | None, human: bool | None = None) -> str:
    """The broad kind of entity the ranking is chosen by: person, film, series, music,
    book, artwork, game, band, club, university, company, country, city, region, event,
    building, natural, organisation, element, case, or other."""
    if human:
        return "person"
    label = (type_label or "").strip().lower()
    if not label:
        return "other"
    if human is None and OCCUPATION.search(label):
        return "person"
    for kind, rule in KIND_RULES:
        if rule.search(label):
            return kind
    if human is None and OCCUPATION_SHAPE.search(label):
        return "person"
    return "other"


# Properties only people have: a fact about one is about a person whatever the type says.
PERSON_PROPERTIES = frozenset({
    "P106", "P569", "P19", "P570", "P20", "P27", "P26", "P40", "P22", "P25", "P3373",
    "P69", "P108", "P39", "P102", "P1412", "P103", "P140", "P551", "P937", "P509",
    "P1196", "P119", "P2031", "P2032", "P800", "P1303", "P413", "P54", "P1411", "P451",
    "P1038", "P6886", "P101", "P1066", "P802", "P184", "P185", "P411", "P1971", "P412"})


def salience(property_id: str, qualifier_id: str | None = None, type_label: str | None = None,
             value_kind: str = "thing", *, property_label: str | None = None,
             human: bool | None = None) -> int:
    """How early a person asks this fact about an entity of this type: 0 (never first) to
    100 (the first thing asked). See the module docstring for the tiers and the rule for
    properties no table lists."""
    kind = broad_kind(type_label, human)
    if kind == "other" and property_id in PERSON_PROPERTIES:
        kind = "person"
    table = TIERS.get(kind, {})
    if property_id in table:
        score = table[property_id]
    elif property_id in GENERIC:
        score = GENERIC[property_id]
    else:
        score = KIND_DEFAULTS.get(value_kind, 30)
        if property_label and BOOKKEEPING_LABEL.search(property_label.lower()):
            score = 15
    if qualifier_id:
        score = max(LOW, score - 20)
    return score


def good_opener(property_id: str, qualifier_id: str | None = None,
                type_label: str | None = None, value_kind: str = "thing", *,
                property_label: str | None = None, human: bool | None = None,
                question_kind: str = "fact") -> bool:
    """Whether this fact may be the first question of a conversation: a plain fact (no
    qualifier, not a count or yes/no question) that identifies the entity, scoring at
    least ``OPENER_MIN``, and not one people never open with (languages spoken, family,
    time zone, the end of something)."""
    if qualifier_id or question_kind != "fact" or property_id in NEVER_OPEN:
        return False
    if property_id in PERSON_OPENERS and broad_kind(type_label, human) in ("person", "other"):
        return True  # below the career facts, but a fine way to start about someone
    if property_id in AREA_NOT_OPENING and broad_kind(type_label, human) in PLACES:
        return False  # "What is the area of the United Arab Emirates?" (r25: "rather than
        # anything basic")
    return salience(property_id, None, type_label, value_kind, property_label=property_label,
                    human=human) >= OPENER_MIN


def ranked(facts, type_label: str | None, human: bool | None = None) -> list:
    """Facts ``(property_id, qualifier_id, value_kind)`` most salient first (stable: equal
    scores keep their order), for a planner that wants the order written down."""
    return sorted(facts, key=lambda f: -salience(f[0], f[1], type_label, f[2] if len(f) > 2
                                                 else "thing", human=human))
