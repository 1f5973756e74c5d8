"""How assembly words what templates leave open: a subject's name in a question, pronouns
and "this city"-style references, articles before values, transitions between subjects.

All English choices of assembly (as opposed to the templates' own wording) are here, so a
change to how conversations read starts in this module.
"""

from __future__ import annotations

import re
from functools import lru_cache

from convkgyarn.languages.base import Language
from convkgyarn.languages.en import English
from convkgyarn.stages.naming import spoken_name as named  # noqa: F401 (re-exported)
from convkgyarn.stages.naming import with_article  # noqa: F401 (re-exported)
from convkgyarn.stages.salience import broad_kind

# P21 values: male, female, trans man, trans woman
GENDER = {"Q6581097": ("he", "him", "his"), "Q6581072": ("she", "her", "her"),
          "Q2449503": ("he", "him", "his"), "Q1052281": ("she", "her", "her")}
UNKNOWN_PERSON = ("this person", "this person", "their")
# Said when the subject changes; "Alright, now which ..." and "Okay, and which ..." are
# what the link-grammar parser (and readers) stumble on, so one word and a comma.
TRANSITIONS = ("Okay, ", "Alright, ", "And ")

# A thing that is someone: a character of fiction with a gender (P21) is "he" or "she" like
# a person ("Who is Bart Simpson's father?" "In which works does he appear?"), where any
# other thing with a gender is "it" (real data gives a court case one). A character is
# told by a type label (``CHARACTER``) or, as character types often have no English
# label, by a fact only characters have: the work it appears in, its fictional universe,
# its first appearance (P1441, P1080, P4584).
CHARACTER = re.compile(r"\b(character|fictional (human|person))\b", re.I)
CHARACTER_FACTS = ("P1441", "P1080", "P4584")


def personal(human: bool, gender: str | None, type_labels, properties) -> bool:
    """Whether the subject is referred to as a person: a human, or a character of fiction
    of known gender."""
    return human or (gender in GENDER and (
        any(CHARACTER.search(t or "") for t in type_labels) or
        any(properties.get(p) for p in CHARACTER_FACTS)))


def pronoun(gender: str | None) -> str | None:
    """"he" or "she" for a known gender, else None."""
    return GENDER.get(gender, (None,))[0]


@lru_cache(maxsize=1 << 16)
def awkward_possessive(label: str) -> bool:
    """Long names, or names with commas or brackets, read badly as "X's": use "of X"."""
    return len(label.split()) >= 4 or any(c in label for c in ",()")


# The plain nouns a person uses for a thing already talked about ("the city", "the film"):
# the head (last word) of one of its type labels when it is one of these, else the noun of
# its broad kind (``salience.broad_kind``). Never a multi-word type label ("this college
# town", "this historical country"): a reader hears those as a database talking.
HEAD_NOUNS = frozenset("""
album airline airport abbey academy agency centre center collection department division
faculty institute laboratory archipelago arena army band bank battle bay book
bridge building canal castle cathedral cave championship church city club college comedy
company competition conference country county court dam desert district dynasty election
empire festival film forest fort game glacier hospital hotel island kingdom lake language
league library lighthouse magazine mosque mountain municipality museum musical navy newspaper
novel opera orchestra organisation organization painting palace park party peninsula play
poem prize province railway region republic river road school sculpture sea series ship
song square stadium state station statue street symphony team temple theatre theater
tournament tower town treaty university valley village volcano war
""".split())
KIND_NOUNS = {"film": "film", "series": "series", "music": "song", "book": "book",
              "artwork": "artwork", "game": "game", "band": "band", "club": "club",
              "university": "university", "company": "company", "country": "country",
              "city": "city", "region": "region", "event": "event", "building": "building",
              "organisation": "organisation"}


@lru_cache(maxsize=1 << 12)
def thing_noun(type_label: str | None) -> str | None:
    """The one-word common noun for a thing of this type ("college town" -> "town",
    "public university" -> "university", "federal state" -> "state", "feature film" ->
    "film"), or None when no plain noun fits (then the thing is "it" or named)."""
    label = (type_label or "").strip().lower()
    if not label:
        return None
    kind = broad_kind(label, False)
    if kind == "country":  # "sovereign state", "historical country": "the country"
        return "country"
    # the head of "college of the University of Oxford" is "college"
    head = label.split(" of ")[0].split()[-1] if " of " in label else label.split()[-1]
    if head in HEAD_NOUNS:
        return head
    return KIND_NOUNS.get(kind)


# "[his] capital?" at a question's end: "[his]", then a noun phrase of up to four words with
# no verb, adverb or filler in it ("when was [his] album released?", "where was [his]
# capital built?", "where does [his] name come from?", "who was [his] leader then?", "what
# was [his] uh capital?" are none), not after an auxiliary, fillers aside ("what did, uh,
# [his] army fight?")
POSSESSIVE_AT_END = re.compile(r"\[his\] ((?:[A-Za-z][\w-]* ){0,3}[A-Za-z][\w-]*)\?$")
NOT_IN_A_NOUN_PHRASE = re.compile(
    r"\b(?:\w+ed|built|born|known|written|made|done|seen|given|taken|held|chosen|come|from|"
    r"get|go|begin|start|end|take|make|become|to|in|on|at|by|with|for|during|like|as|then|"
    r"now|again|back|today|uh|um|uhm|er|erm|hmm)\b", re.I)
AUXILIARIES = frozenset({"do", "does", "did", "has", "have", "had", "can", "could", "will",
                         "would", "should", "may", "might", "must"})
FILLER_WORDS = frozenset({"uh", "um", "uhm", "er", "erm", "hmm", "well", "so"})


@lru_cache(maxsize=1 << 12)
def possessive_as_of(template: str) -> str | None:
    """A template for a thing that has ended, referred to by its plain noun: "what was
    [his] capital?" said as "what was the capital of [him]?" ("the capital of the
    country?"), since "the country's capital" reads as the country's present one (readers,
    and a checker's present tense); a template without "[his]" as it is; None where
    "[his]" stands elsewhere ("where does [his] name come from?"), which cannot be
    turned so."""
    if "[his]" not in template:
        return template
    m = POSSESSIVE_AT_END.search(template)
    if m is None or template.count("[his]") != 1 or NOT_IN_A_NOUN_PHRASE.search(m.group(1)):
        return None
    before = [w for w in re.findall(r"[A-Za-z']+", template[:m.start()].lower())
              if w not in FILLER_WORDS]
    if before and before[-1] in AUXILIARIES:
        return None
    return f"{template[:m.start()]}the {m.group(1)} of [him]?"


def without_deixis(phenomenon: str) -> str:
    """The phenomenon a deixis turn is said with once it names its subject instead
    ("deixis_disfluencies" -> "disfluencies", "deixis" -> "original")."""
    if phenomenon == "deixis":
        return "original"
    return phenomenon[len("deixis_"):] if phenomenon.startswith("deixis_") else phenomenon


# Institutions whose name says what they are: "the university" of the University of
# Amsterdam whatever its first type; not "church" ("Christ Church" is an Oxford college) nor
# "lake" ("Lake Placid" is a village)
NAME_HEADS = frozenset({"university", "college", "museum", "school", "academy", "library",
                        "hospital", "bank", "institute", "stadium", "station", "theatre",
                        "theater", "orchestra", "company"})


@lru_cache(maxsize=1 << 16)
def subject_noun(type_label: str | None, name: str | None = None) -> str | None:
    """The plain noun for a thing talked about: the one its own name says where it says one
    ("University of Amsterdam", typed a research institute first, is "the university";
    "Somerville College" "the college": the name's head, its last word or the word
    before its first "of"), else its type's (``thing_noun``). "Lake Placid", a village,
    says no head: the lake is not its head. A type no label file names says nothing
    against the name: the Museum of Fine Arts of Lyon ("art museum" unnamed) is "the
    museum", not its name three times over."""
    if name and not broad_kind(type_label, False) == "country":
        words = name.strip().lower().split()
        head = words[words.index("of") - 1] if "of" in words[1:] else (words[-1] if words
                                                                        else "")
        if head in NAME_HEADS and (not type_label or thing_noun(type_label) is not None):
            return head
    return thing_noun(type_label)


# Words a question uses for the kind of its answer, and what the KG must say of every value
# for the word to be true (``Language.answer_kind_words``, ``KGView.kinds_of``): "In which
# city was she born?" only of a settlement the KG types as one (Wikidata's birthplaces,
# places of death and headquarters are as often a county, a state or a building:
# "California", "Derbyshire", "Shell-Haus"); "parent company" only of a company (not of
# the University of Oxford); "Which region is it in?" only of a region that is no
# settlement ("Targowek ... Warsaw"). A value the KG holds no types of is none of these:
# the question is asked with another variant ("Where was she born?"). Where the property
# says it (a capital, twin towns, "historical region", "production company") or the word is
# about the subject ("what is {S} the capital city of?"), the wording needs no check.
KIND_BY_PROPERTY = {"P36": "settlement", "P190": "settlement", "P1376": "settlement"}
# the head nouns of the type labels of settlements ("city of federal significance",
# "commune of France", "village in the United States", "city with powiat rights", "county
# seat", "big city"), and the items of the commonest settlement types
SETTLEMENT_HEADS = frozenset("""
city town village municipality commune comune municipiu metropolis capital borough hamlet
settlement township seat megacity conurbation city-state
""".split())
SETTLEMENT_TYPES = frozenset({"Q515", "Q3957", "Q532", "Q1549591", "Q5119", "Q15284",
                              "Q484170", "Q1637706", "Q200250", "Q486972", "Q7930989"})
HEAD_ENDS = re.compile(r" (of|in|with|under|by|for|on) ")
COMPANY_TYPE = re.compile(r"\b(company|companies|corporation|business|enterprise|conglomerate|"
                          r"manufacturer|studio|publisher|publishing house|record label|"
                          r"airline|bank|brand|subsidiary|firm|cooperative)\b")
ENGLISH = English()


def type_head(type_label: str) -> str:
    """The head noun of a type label: its last word before "of", "in", "with"... ("city of
    federal significance" -> "city", "village in the United States" -> "village")."""
    words = HEAD_ENDS.split(type_label.strip().lower(), maxsplit=1)[0].split()
    return words[-1] if words else ""


def settlement_type(type_id: str, type_label: str | None) -> bool:
    """Whether a type is one of settlements (cities, towns, villages, municipalities,
    communes): by its item, or by the head noun of its label (not "state of the United
    States", "ceremonial county", "office building")."""
    return type_id in SETTLEMENT_TYPES or type_head(type_label or "") in SETTLEMENT_HEADS


def value_kinds(types: list[tuple[str, str | None]]) -> frozenset[str]:
    """What an item's P31 types (id, English label) say it is, in the kinds questions name:
    "person"; "settlement"; "region" (a region type and no settlement type: Oxford, typed
    both a district and a city, is a city); "company"."""
    if any(type_id == "Q5" for type_id, _ in types):
        return frozenset({"person"})
    kinds = set()
    if any(settlement_type(type_id, label) for type_id, label in types):
        kinds.add("settlement")
    elif any(broad_kind(label, False) == "region" for _, label in types if label):
        kinds.add("region")
    if any(COMPANY_TYPE.search(label.lower()) for _, label in types if label):
        kinds.add("company")
    return frozenset(kinds)


def answer_kinds(template: str, property_id: str, property_label: str | None = None,
                 language: Language = ENGLISH) -> tuple[str, ...]:
    """What a template's words say every value of its answer is, in its language, less
    what the property itself says (``KIND_BY_PROPERTY``, or a kind word in its English
    label: "historical region", "production company")."""
    said = {KIND_BY_PROPERTY.get(property_id), *ENGLISH.answer_kinds(property_label or "")}
    return tuple(kind for kind in language.answer_kinds(template) if kind not in said)


def references(human: bool, gender: str | None, type_label: str | None,
               tense: str, noun: bool = False, name: str | None = None
               ) -> tuple[str, str, str]:
    """What fills ``[he]``, ``[him]``, ``[his]``: "he"/"she" for a person of known gender
    ("this person" / "their" otherwise); for a thing "it"/"its", or with ``noun`` (where
    "it" could mean the previous answer) "the city"/"the city's" (``thing_noun``; "it"
    when none fits: the caller checks ``thing_noun`` first). ``tense`` is kept for the
    callers: the references read the same in every tense."""
    if human:  # a gender on a non-human (real data has some) is no pronoun
        return GENDER.get(gender, UNKNOWN_PERSON)
    head = subject_noun(type_label, name) if noun else None
    if head:
        return (f"the {head}", f"the {head}", f"the {head}'s")
    return ("it", "it", "its")


# A country's or a town's head of state and of government by the office Wikidata names
# ("office held by head of state" P1906, "... of government" P1313): "Who is the president
# of Mali?", "Who is Malta's prime minister?" (readers marked "Who is the head of
# government of Malta?" as a form's words, issue #33)
OFFICE_OF = {"P35": "P1906", "P6": "P1313"}
OFFICE_WORDS = {"P35": re.compile(r"\b(head|heads) of state\b", re.I),
                "P6": re.compile(r"\b(head|heads) of government\b|\bmayors?\b", re.I)}


def office_noun(office_label: str | None, subject_label: str) -> str | None:
    """The common noun of an office named "<Title> of <the subject>" ("President of Mali"
    -> "president", "monarch of the United Kingdom" -> "monarch", "Prime Minister of
    Malta" -> "prime minister"), or None for any other shape of name (a title of more than
    three words, or one that names another body: "Chairman of the Council of Ministers of
    the Soviet Union")."""
    if not office_label:
        return None
    m = re.fullmatch(rf"([A-Za-z][A-Za-z' -]*?) of (?:the )?{re.escape(subject_label)}",
                     office_label.strip(), re.I)
    if m is None or " of " in f" {m.group(1).lower()} " or len(m.group(1).split()) > 3:
        return None
    return m.group(1).lower()


def with_offices(question: str, nouns: dict[str, str]) -> str:
    """The question with "head of state" / "head of government" (and a town's "mayor") said
    as the subject's offices (``nouns``: property -> noun, from ``office_noun``): "the
    governor of Tokyo"."""
    def said(m: re.Match, noun: str) -> str:
        word = noun + ("s" if m.group(0).split()[0].lower().endswith("s") else "")
        return word[:1].upper() + word[1:] if m.group(0)[:1].isupper() else word
    for pid, noun in nouns.items():
        question = OFFICE_WORDS[pid].sub(lambda m, noun=noun: said(m, noun), question)
    return question


def possessive(name: str) -> str:
    """A name's possessive: "Emirates'", "the Netherlands'" (a name ending in "s" takes the
    apostrophe alone, never "Emirates's"); "Paris's" would be as right, but one rule reads
    better than two; "Boss's" (ending in "ss") keeps its "'s"."""
    return name + "'" if name.endswith("s") and not name.endswith("ss") else name + "'s"


def contains(question: str, label: str) -> bool:
    """Whether the label appears in the question as whole words (case-insensitive)."""
    if len(label) < 2:
        return False
    q, needle = question.lower(), label.lower()
    begin = q.find(needle)
    while begin >= 0:
        end = begin + len(needle)
        if (begin == 0 or not q[begin - 1].isalnum()) and (end == len(q) or not q[end].isalnum()):
            return True
        begin = q.find(needle, begin + 1)
    return False


# Works whose title alone says nothing of what they are: their first mention says it ("the
# film Cluny Brown", "the painting Old Hindu"), as people introduce a title they name.
WORK_KINDS = frozenset({"film", "series", "music", "book", "artwork", "game"})


def work_named(name: str, type_label: str | None, human: bool) -> str:
    """A work's name with its plain noun before it on first mention ("the film Cluny
    Brown"); any other name as it is (as is a title that already says it: "Symphony No. 5",
    "The Film X")."""
    if human or broad_kind(type_label, False) not in WORK_KINDS:
        return name
    noun = thing_noun(type_label)
    if noun is None or noun in name.lower() or name.lower().startswith("the "):
        return name
    return f"the {noun} {name}"
