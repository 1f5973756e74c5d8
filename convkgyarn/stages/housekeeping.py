"""The rules pre-filter: properties that never make a good conversational question.

Applied on every path (rules and LLM) before anything is asked, to properties and to
qualifiers. ``reason()`` returns why a property is left out, or None when it may be asked
about; every reason is recorded as a drop, so the filter's effect is measurable.

The categories, each with the evidence used (an id list for the properties we know, the
shape of the label for the long tail, the property's own classes when the dump has
property entities):
- no English label: a question would show a raw id;
- datatypes that are codes, links or media (external ids, URLs, media, shapes) or
  strings (in Wikidata's model a string value is a code, an identifier or a raw name;
  free text is monolingual text, which is names and titles here);
- Wikimedia-internal links (categories, portals, templates, lists, "... of topic");
- Wikidata's ontology and record-keeping (instance/subclass of, different from, described
  by source, references);
- bibliographic record-keeping (cites work, published in, pages, volume, issue);
- names of the subject (obvious from the question) and sensitive personal data;
- facts not worth asking (``NOT_WORTH_ASKING``): true and well-formed, but no person would
  ask them in a conversation. Each group is listed with its reason below; the bar is
  conservative: a fact a quiz or a curious person would ask stays (height, GDP, life
  expectancy, a museum's visitors, an element's atomic number, a saint's canonisation).
"""

from __future__ import annotations

import re

# Value types that never make a spoken factoid answer.
EXCLUDED_DATATYPES = {
    "external-id": "an identifier", "commonsMedia": "a media file",
    "commonsmedia": "a media file", "url": "a link", "geo-shape": "a map shape",
    "tabular-data": "a data table", "math": "a formula", "musical-notation": "a score",
    "wikibase-lexeme": "a lexeme", "wikibase-form": "a lexeme form",
    "wikibase-sense": "a lexeme sense", "entity-schema": "a schema",
    "wikibase-property": "a property", "globe-coordinate": "coordinates",
    "string": "a code, identifier or raw string", "monolingualtext": "a name or title",
}

WIKIMEDIA = "Wikimedia-internal"
ONTOLOGY = "Wikidata ontology or record-keeping"
BIBLIOGRAPHIC = "bibliographic record-keeping"
NAME = "a name of the subject"
SENSITIVE = "sensitive personal data"
TAUTOLOGY = "its value names the subject (flag of X, coat of arms of X)"

EXCLUDED_PROPERTIES = {
    "P31": ONTOLOGY, "P279": ONTOLOGY, "P1889": ONTOLOGY, "P460": ONTOLOGY,
    "P2888": ONTOLOGY, "P1343": ONTOLOGY, "P1552": ONTOLOGY, "P1269": ONTOLOGY,
    "P2579": ONTOLOGY, "P5869": ONTOLOGY, "P1687": ONTOLOGY, "P1659": ONTOLOGY,
    "P1629": ONTOLOGY, "P2302": ONTOLOGY, "P1855": ONTOLOGY, "P1647": ONTOLOGY,
    "P1535": ONTOLOGY, "P2670": ONTOLOGY, "P248": ONTOLOGY, "P813": ONTOLOGY,
    "P143": ONTOLOGY, "P4656": ONTOLOGY, "P887": ONTOLOGY, "P459": ONTOLOGY,
    "P1480": ONTOLOGY, "P7452": ONTOLOGY, "P2241": ONTOLOGY, "P1013": ONTOLOGY,
    "P3831": ONTOLOGY, "P518": ONTOLOGY, "P1114": ONTOLOGY, "P2959": WIKIMEDIA,
    "P5008": WIKIMEDIA, "P6104": WIKIMEDIA, "P910": WIKIMEDIA, "P373": WIKIMEDIA,
    "P935": WIKIMEDIA, "P1424": WIKIMEDIA, "P1151": WIKIMEDIA, "P1456": WIKIMEDIA,
    "P2354": WIKIMEDIA, "P5125": WIKIMEDIA, "P1313": ONTOLOGY, "P1906": ONTOLOGY,
    "P2860": BIBLIOGRAPHIC, "P1433": BIBLIOGRAPHIC, "P921": BIBLIOGRAPHIC,
    "P3919": BIBLIOGRAPHIC, "P2093": BIBLIOGRAPHIC, "P304": BIBLIOGRAPHIC,
    "P478": BIBLIOGRAPHIC, "P433": BIBLIOGRAPHIC, "P1104": BIBLIOGRAPHIC,
    "P6216": BIBLIOGRAPHIC, "P275": BIBLIOGRAPHIC, "P1545": BIBLIOGRAPHIC,
    "P735": NAME, "P734": NAME, "P1559": NAME, "P1477": NAME, "P1449": NAME, "P742": NAME,
    "P1813": NAME, "P1448": NAME, "P2561": NAME, "P1705": NAME, "P1476": NAME,
    "P1810": NAME, "P1932": NAME, "P21": SENSITIVE, "P172": SENSITIVE, "P1050": SENSITIVE,
    "P91": SENSITIVE, "P8687": "a volatile count", "P18": "a media file",
    "P163": TAUTOLOGY, "P237": TAUTOLOGY, "P94": TAUTOLOGY, "P41": TAUTOLOGY,
    "P2548": ONTOLOGY, "P1057": ONTOLOGY,
}

# Facts not worth asking, by group. Each reason is what the drop records.
PHYSICAL = ("not worth asking: a physical trait (eye or hair colour, handedness, blood "
            "type), small talk nobody asks about a notable person")
CATALOGUE = ("not worth asking: Wikidata bookkeeping that reads as a catalogue entry, not "
             "a question (which collections hold works, where archives are kept, events "
             "and landforms attached to an item, house rules, registry data)")
INDICATOR = ("not worth asking: a statistical indicator series (a score or rate for one "
             "year, meaningless without its scale or its year: Gini, BTI, HDI, fertility, "
             "reserves, out-of-school children, male or female population)")
FINANCIAL = ("not worth asking: a line of a financial statement for one year (total assets, "
             "debt, operating income), accounting rather than conversation")
ENUMERATION = ("not worth asking: a list that is most of the world (diplomatic relations) "
               "or a season-by-season index")

NOT_WORTH_ASKING = {
    # physical traits: nobody asks a friend the eye colour of Douglas Adams
    "P1340": PHYSICAL, "P1884": PHYSICAL, "P552": PHYSICAL, "P1853": PHYSICAL,
    "P8839": PHYSICAL, "P8852": PHYSICAL, "P3828": PHYSICAL,
    # bookkeeping: "significant event" of a country, "located on terrain feature",
    # "artist files at", "has works in the collection", "archives at", photo policies,
    # the Gregorian calendar's start date, statistical districts, electoral districts,
    # legal form, railway traffic side, overlaps and coincidences of territories
    "P793": CATALOGUE, "P706": CATALOGUE, "P6379": CATALOGUE, "P485": CATALOGUE,
    "P5023": CATALOGUE, "P7295": CATALOGUE, "P8138": CATALOGUE, "P7938": CATALOGUE,
    "P1454": CATALOGUE, "P5658": CATALOGUE, "P1382": CATALOGUE, "P3179": CATALOGUE,
    "P2846": CATALOGUE, "P6241": CATALOGUE, "P8402": CATALOGUE,
    "P3823": CATALOGUE,  # "What is German's Ethnologue language status?" "1 National"
    # indicator series: a number for one year, and a scale only economists know
    "P1081": INDICATOR, "P1125": INDICATOR, "P8476": INDICATOR, "P8477": INDICATOR,
    "P8328": INDICATOR, "P4841": INDICATOR, "P2573": INDICATOR, "P2134": INDICATOR,
    "P1539": INDICATOR, "P1540": INDICATOR, "P3529": INDICATOR, "P2927": INDICATOR,
    "P2132": INDICATOR, "P2299": INDICATOR, "P4010": INDICATOR, "P1689": INDICATOR,
    "P2219": INDICATOR, "P1279": INDICATOR, "P1198": INDICATOR, "P6897": INDICATOR,
    "P6498": INDICATOR, "P6499": INDICATOR, "P8763": INDICATOR, "P8843": INDICATOR,
    "P3864": INDICATOR, "P2855": INDICATOR, "P2834": INDICATOR, "P2661": INDICATOR,
    "P3087": INDICATOR, "P2746": INDICATOR, "P1831": INDICATOR, "P2662": INDICATOR,
    "P2197": INDICATOR, "P5898": INDICATOR, "P5899": INDICATOR,
    "P530": ENUMERATION, "P5138": ENUMERATION,
    "P2403": FINANCIAL, "P2133": FINANCIAL, "P3362": FINANCIAL, "P2137": FINANCIAL,
    "P5167": INDICATOR,
}

# The long tail, by the shape of the label.
LABEL_RULES = (
    (re.compile(r"\bcategor(y|ies)\b|\bwikimedia\b|\bwikipedia\b|\bwikiproject\b|\bportal\b|"
                r"\btemplate\b|\bcommons\b|\bgallery\b|\bmain topic\b|\boutline\b|"
                r"\bof topic\b|^list of\b|^has list\b|\bduplicated\b"), WIKIMEDIA),
    (re.compile(r"^(instance|subclass|facet) of\b|^different from\b|^said to be the same|"
                r"\bexact match\b|^described by\b|^see also\b|\bproperty\b|\bconstraint\b|"
                r"^stated in$|^retrieved$|^reference\b|\bdetermination method\b|"
                r"^has quality\b|^studied by\b|^model item\b|^based on heuristic\b"),
     ONTOLOGY),
    (re.compile(r"^cites\b|^published in\b|^main subject\b|\bpage\(s\)|^volume\b|^issue\b|"
                r"\bauthor name string\b|\bseries ordinal\b|^number of pages\b|"
                r"\bcopyright\b"), BIBLIOGRAPHIC),
    (re.compile(r"\b(given|family|birth|official|short|native|maiden|first|last|"
                r"full|stage) name\b|^name\b|\bnative label\b|\bnickname\b|\bpseudonym\b|"
                r"\bnamed as\b"), NAME),
    (re.compile(r"\b(identifier|id|code|phone number|call sign|postal|zip|iso 639|"
                r"isbn|issn|doi|url|website)\b"), "a code or identifier"),
    (re.compile(r"\b(image|logo|signature|map|photo|video|audio|pronunciation|icon|"
                r"locator map)\b"), "media"),
    (re.compile(r"\b(sex or gender|ethnic group|sexual orientation|medical condition)\b"),
     SENSITIVE),
    (re.compile(r"\b(eye|hair|skin) colou?r\b|^handedness$"), PHYSICAL),
    (re.compile(r"^artist files at\b|^archives at\b|^has works in the collection|"
                r"\bpolicy in this place\b|^located on terrain feature|"
                r"^located in (the )?statistical territorial entity"), CATALOGUE),
    (re.compile(r"\b(development|governance|status|democracy|corruption|freedom|peace|"
                r"happiness|gini)\b.*\b(index|coefficient)$|\bper capita\b|"
                r"\bas (a )?percent(age)? of\b|\bper (thousand|million|100,000)\b|"
                r"^(male|female|urban|rural|literate|illiterate) population\b|"
                r"^number of out-of-school\b|\b(fertility|unemployment|inflation|literacy|"
                r"birth|death|suicide|poverty|interest|tax) rate\b"), INDICATOR),
)

# Classes of property entities (their P31), by id and by label, when the dump has them.
EXCLUDED_PROPERTY_CLASSES = {
    "Q19847637": "a property for an identifier", "Q18614948": "an authority-control id",
    "Q18667213": WIKIMEDIA, "Q18608359": "a property for references",
}
CLASS_LABEL_RULE = re.compile(r"identifier|authority control|wikimedia|categor|reference|"
                              r"source|metaproperty|for commons|external", re.I)


def reason(pid: str, label: str | None, datatype: str | None, classes=(),
           qualifier: bool = False, class_labels=()) -> str | None:
    """Why property ``pid`` is not asked about (None: it may be)."""
    if not label:
        return "no English label (give --labels, or load a dump with property entities)"
    if datatype in EXCLUDED_DATATYPES:
        return f"datatype {datatype}: {EXCLUDED_DATATYPES[datatype]}"
    if pid in EXCLUDED_PROPERTIES:
        return f"excluded property: {EXCLUDED_PROPERTIES[pid]}"
    if pid in NOT_WORTH_ASKING:
        return NOT_WORTH_ASKING[pid]
    low = label.lower()
    for rule, why in LABEL_RULES:
        if rule.search(low):
            return why if why.startswith("not worth asking") else f"excluded by its label: {why}"
    for cls in classes or ():
        if cls in EXCLUDED_PROPERTY_CLASSES:
            return f"excluded by its class: {EXCLUDED_PROPERTY_CLASSES[cls]}"
    for cls_label in class_labels or ():
        if cls_label and CLASS_LABEL_RULE.search(cls_label):
            return f"excluded by its class: {cls_label}"
    return None
