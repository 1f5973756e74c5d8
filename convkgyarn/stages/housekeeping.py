"""The rules pre-filter: properties that never make a good conversational question.

Applied on every path (rules and LLM) before anything is asked. ``reason()`` returns why a
property is left out, or None when it may be asked about; every reason is recorded as a
drop, so the filter's effect is measurable.
"""

from __future__ import annotations

# Value types that never make a spoken factoid answer.
EXCLUDED_DATATYPES = {
    "external-id", "commonsMedia", "commonsmedia", "url", "geo-shape", "tabular-data", "math",
    "musical-notation", "wikibase-lexeme", "wikibase-form", "wikibase-sense", "entity-schema",
    "wikibase-property", "globe-coordinate",
}
# Curated exclusions: names (obvious from the question), housekeeping, ontology, sensitive.
EXCLUDED_PROPERTIES = {
    "P31": "instance of (the type itself)", "P279": "subclass of (ontology)",
    "P735": "given name", "P734": "family name", "P1559": "name in native language",
    "P1477": "birth name", "P1449": "nickname", "P742": "pseudonym", "P1813": "short name",
    "P1448": "official name", "P2561": "name", "P1705": "native label", "P373": "Commons category",
    "P910": "topic's main category", "P935": "Commons gallery", "P1343": "described by source",
    "P5008": "on focus list of Wikimedia project", "P1889": "different from",
    "P460": "said to be the same as", "P2888": "exact match", "P1424": "topic's main template",
    "P6104": "maintained by WikiProject", "P21": "sex or gender", "P172": "ethnic group",
    "P1050": "medical condition", "P143": "imported from Wikimedia project",
    "P18": "image", "P8687": "social media followers",
}


def reason(pid: str, label: str | None, datatype: str | None, classes=(),
           qualifier: bool = False) -> str | None:
    """Why property ``pid`` is not asked about (None: it may be)."""
    if not label:
        return "no English label (give --labels, or load a dump with property entities)"
    if datatype in EXCLUDED_DATATYPES:
        return f"datatype {datatype}"
    if pid in EXCLUDED_PROPERTIES:
        return f"excluded property: {EXCLUDED_PROPERTIES[pid]}"
    return None
