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
- names of the subject (obvious from the question) and sensitive personal data.
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
    low = label.lower()
    for rule, why in LABEL_RULES:
        if rule.search(low):
            return f"excluded by its label: {why}"
    for cls in classes or ():
        if cls in EXCLUDED_PROPERTY_CLASSES:
            return f"excluded by its class: {EXCLUDED_PROPERTY_CLASSES[cls]}"
    for cls_label in class_labels or ():
        if cls_label and CLASS_LABEL_RULE.search(cls_label):
            return f"excluded by its class: {cls_label}"
    return None
