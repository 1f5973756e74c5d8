"""Names in running English: when a name takes "the", and how a long official name is said
again on later mentions.

- ``spoken_name(label, human)``: the name as said in a sentence ("the United Nations", "the
  University of Oxford", "the Netherlands", "the Rhine", "the Democratic Party"; never "the
  Paris", "the Oxford University Press", "the Ford's Theatre", "the United States v.
  Eichman"). It supersedes ``DEFINITE_NAMES`` / ``named()`` of assembly and keeps all of
  their cases.
- ``short_name(label, human)``: the name for later mentions of a long one ("Sir John
  Ramsden, 5th Baronet" -> "John Ramsden", "Steve Clark (footballer)" -> "Steve Clark",
  "United Kingdom of Great Britain and Northern Ireland" -> "United Kingdom"), or None
  when the name is already short ("Ludwig van Beethoven", "Elizabeth II").
- ``with_article(label, before, person)``: a value in running text ("join the United
  Nations", "became the mayor of Paris", "a member of the Bundestag").

Why rules, not a list: English gives "the" to a name by its head noun, and the heads are
few: a common noun before "of" ("the University of ...", "the Bank of ...", "the Battle of
..."), a plural or collective head ("the Netherlands", "the Alps", "the Beatles" comes with
its own "The"), and a few kinds of name whose head is a common noun (unions, empires,
republics, parties, navies, museums, rivers, seas, oceans, deserts, leagues, prizes). A
name whose head is itself a name takes none ("Paris", "Harvard University", "Lake
Geneva", "Hyde Park"); a possessive before the head means none ("St Paul's Cathedral",
"Ford's Theatre"), except "People's Republic". The exceptions that real names make to
these rules are listed (``NO_ARTICLE``).

Invariants (tested with hypothesis): a name never gets "the the"; both functions are
idempotent (``spoken_name`` of a spoken name is itself; a short name has no shorter one);
people's names never take "the"; a label that already starts with "The"/"the" is kept.
"""

from __future__ import annotations

import re
from functools import lru_cache

from convkgyarn.text import common_word

# Heads before "of" that make a name definite: "the University of Oxford".
OF_HEADS = frozenset("""
academy agency archdiocese abbey bank basilica battle bay cape cathedral church city college
commonwealth confederation congress council county court department diocese duchy dukedom
electorate emirate empire faculty federation grand gospel gulf hall house institute isle
isles kingdom league library ministry municipality museum order palace parliament
principality province realm republic school sea siege state strait sultanate synod tower
treaty union university party gallery statue prize award medal crown legion canton
journal annals proceedings bulletin transactions
""".split())

# Last words that make a name definite: "the Soviet Union", "the German Navy", "the Rhine
# River", "the Nobel Prize".
LAST_HEADS = frozenset("""
union federation confederation commonwealth empire republic kingdom caliphate khanate
sultanate dynasty party navy army marines corps guard
islands isles mountains alps andes himalayas pyrenees rockies highlands lowlands
ocean sea river canal desert peninsula channel strait gulf delta plateau
museum gallery library archive archives orchestra philharmonic choir ensemble
association society foundation institute institution council committee commission
agency organization organisation authority secretariat assembly senate parliament
league cup championship championships games olympics paralympics prize award medal festival
convention treaty accords war revolution movement alliance awards election elections
referendum crisis rebellion uprising massacre expedition region metro chamber palatinate
states reich court hebrides
""".split())

# Currencies named by a people or place and a common noun take "the" ("the Algerian dinar",
# "the Australian dollar", "the Lao kip"), as the common noun alone does ("the euro").
CURRENCY_HEADS = frozenset("""
dollar peso dinar franc pound euro rupee yen yuan renminbi kip somoni shekel krone krona
kroner kronor mark lira real rand ruble rouble won dirham riyal rial baht dong ringgit rupiah
forint zloty lev leu kuna lek dram lari manat tenge som afghani taka ngultrum kyat riel
pataca escudo guilder gulden florin schilling drachma peseta shilling birr naira cedi kwacha
dalasi ariary ouguiya colón córdoba lempira quetzal balboa bolívar sol guaraní boliviano
hryvnia denar marka tugrik vatu tala paʻanga kina dobra loti lilangeni pula nakfa
złoty króna krónur đồng tögrög tālā soʻm koruna metical kwanza leone gourde rufiyaa kroon
lats litas tolar markka
""".split())
# currencies whose own name is capitalised ("Reichsmark", "Deutsche Mark")
CURRENCY_NAMES = frozenset({"reichsmark", "rentenmark", "papiermark", "goldmark",
                            "deutsche mark", "mark der ddr", "ostmark"})

# Names of one word, or fixed names, that take "the" in English.
DEFINITE_WORDS = frozenset("""
netherlands philippines bahamas gambia maldives comoros seychelles balkans caribbean
alps andes himalayas pyrenees rockies sahara nile rhine danube thames seine volga
vatican bundestag reichstag bundesrat knesset duma sejm louvre prado uffizi bodleian
""".split())

DEFINITE_START = re.compile(
    r"^(United (States|Kingdom|Arab Emirates|Nations|Provinces)|Holy (See|Roman Empire)|"
    r"Soviet Union|European (Union|Commission|Parliament|Council|Central Bank)|"
    r"(Czech|Dominican|Central African) Republic|(Democratic )?Republic of|"
    r"People's Republic|Kingdom of|Federal Republic|Russian Federation|Marshall Islands|"
    r"Solomon Islands|Middle East|Far East|Ivory Coast|Gaza Strip|West Bank|"
    r"World (Bank|Health Organization|Trade Organization|Cup)|Red Cross|Royal (Society|"
    r"Navy|Air Force|Academy))\b")

# Real names that the rules above would give "the" but English does not.
NO_ARTICLE = re.compile(
    r"^(Bank of America|Oxford University Press|Cambridge University Press|"
    r"\w+ University Press|Trump Tower|Tower Bridge|London Bridge|Big Ben|"
    r"Hudson Bay|Botany Bay|Kingdom Hearts|Empire State Building|Revolution Day)\b")

# A possessive before the head: "St Paul's Cathedral", "Ford's Theatre" (not "People's").
POSSESSIVE_HEAD = re.compile(r"\b(?!People's\b)\w+'s\b")
CHURCH = re.compile(r"\b(Catholic|Orthodox|Anglican|Protestant|Lutheran|Methodist|"
                    r"Presbyterian|Apostolic|Reformed|Evangelical|Coptic) Church$")
COURT_CASE = re.compile(r"\s(v|vs)\.?\s")
# Common nouns a name can start with that never make it definite ("Lake Geneva",
# "Mount Everest", "Saint Petersburg").
NAME_STARTS = re.compile(r"^(Lake|Mount|Saint|St\.?|San|Santa|Fort|Port|Cape Town|Isle "
                         r"Royale)\b")


@lru_cache(maxsize=1 << 16)
def takes_the(label: str) -> bool:
    """Whether an English name of a thing takes "the" in running speech."""
    label = label.strip()
    if not label or label[:4].lower() == "the " or label[0].islower():
        return False  # already has it, or a common noun (``with_article`` handles those)
    if COURT_CASE.search(label) or NO_ARTICLE.match(label):
        return False  # "United States v. Eichman"
    if DEFINITE_START.match(label) or label.lower() in CURRENCY_NAMES:
        return True
    words = label.split()
    if len(words) == 1:
        return label.lower() in DEFINITE_WORDS
    if NAME_STARTS.match(label):
        return False
    if words[0] in ("River", "Gulf"):  # "the River Thames", "the Gulf Stream"
        return True
    if CHURCH.search(label):  # "the Catholic Church", not "the Christ Church"
        return True
    m = re.search(r" (of|in|for) ", label)
    if m:  # "the University of Oxford", "the Nobel Prize in Physics"
        head = label[:m.start()]
        if POSSESSIVE_HEAD.search(head):
            return False
        before = head.split()[-1].lower()
        return before in OF_HEADS or (m.group(1) != "of" and before in LAST_HEADS)
    if POSSESSIVE_HEAD.search(label):
        return False
    last = re.sub(r"[^\w-]", "", words[-1]).lower()
    if words[-1].islower() and last in CURRENCY_HEADS:
        return True  # "Is the Algerian dinar its currency?", "the West African CFA franc"
    if last in LAST_HEADS:
        # "Harvard Business School", "Oxford Street": heads not listed stay bare; a
        # one-word name before the head that is itself a place keeps the head ("Rhine
        # River" -> "the Rhine River", "Van Gogh Museum" -> "the Van Gogh Museum")
        return True
    return False


def spoken_name(label: str, human: bool) -> str:
    """The name as said in running English: "the" where English puts it (see the module
    docstring); people never; a label already starting with "The" as it is."""
    if human or not label:
        return label
    return f"the {label}" if takes_the(label) else label


def named(label: str, human: bool) -> str:
    """Assembly's old name for ``spoken_name`` (kept so the wiring is a one-line change)."""
    return spoken_name(label, human)


# -- later mentions ---------------------------------------------------------------------

HONORIFICS = re.compile(r"^(Sir|Dame|Dr\.?|Prof\.?|Professor|Lord|Lady|Rev\.?|Reverend|"
                        r"Mr\.?|Mrs\.?|Ms\.?|Madame|Monsieur)\s+(?=\S+\s+\S)")
TITLE_TAIL = re.compile(r",\s*(\d+(st|nd|rd|th)\b|Baronet|Baron|Baroness|Earl|Countess|"
                        r"Count|Duke|Duchess|Marquess|Marquis|Viscount|Prince|Princess|"
                        r"Lord|Lady|Bt\b|KG\b|KBE\b|OBE\b|MP\b|PC\b).*$")
BRACKETS = re.compile(r"\s*\([^)]*\)")
# Official names of states whose everyday name is shorter (the everyday name is a label
# Wikidata gives too; these are the ones real dumps use as labels).
OFFICIAL_NAMES = {
    "United States of America": "United States",
    "United Kingdom of Great Britain and Northern Ireland": "United Kingdom",
    "Kingdom of the Netherlands": "Netherlands", "People's Republic of China": "China",
    "Russian Federation": "Russia", "Federal Republic of Germany": "Germany",
    "Republic of Ireland": "Ireland", "Republic of Korea": "South Korea",
    "Democratic People's Republic of Korea": "North Korea", "French Republic": "France",
    "Italian Republic": "Italy", "Kingdom of Spain": "Spain", "Swiss Confederation": "Switzerland",
    "Commonwealth of Australia": "Australia", "Republic of India": "India",
    # said again as people say them (r28's voice conversations named "the United Arab
    # Emirates" in each of five questions)
    "United Arab Emirates": "the UAE", "German Democratic Republic": "East Germany",
}


@lru_cache(maxsize=1 << 16)
def short_name(label: str, human: bool) -> str | None:
    """The name for later mentions of a long official name, or None when it is short
    already. Drops bracketed disambiguators ("Steve Clark (footballer)"), a person's
    honorific and peerage or baronetcy ("Sir John Ramsden, 5th Baronet" -> "John
    Ramsden"), and shortens official state names ("People's Republic of China" ->
    "China"). Particles, regnal numbers and epithets stay ("Ludwig van Beethoven",
    "Elizabeth II", "Constantine the Great"): they are the name."""
    if not label:
        return None
    out = BRACKETS.sub("", label).strip()
    while human:  # until nothing more goes ("Sir Sir X Y": a short name is final)
        shorter = HONORIFICS.sub("", TITLE_TAIL.sub("", out).strip()).strip()
        if shorter == out:
            break
        out = shorter
    else:
        out = OFFICIAL_NAMES.get(out, out)
    out = " ".join(out.split())
    if not out or out == label or (out.startswith("the ") and out[4:] == label):
        return None
    return out


def surname(name: str, family_name: str | None) -> str | None:
    """How a personal name is said again later: by the family name Wikidata gives (P734),
    when the name ends with it ("Hegel" for "Georg Wilhelm Friedrich Hegel", "Roth" for
    "Veronica Roth"); None otherwise (no family name is guessed: many names have none, and
    many put it first), and for a family name heard as a common word ("Born", "May",
    ``text.common_word``)."""
    if not family_name or len(name.split()) < 2 or family_name.lower() == name.lower():
        return None
    if not name.endswith(" " + family_name) or not family_name[:1].isupper():
        return None
    if common_word(family_name):  # "Where was Born buried?": Max Born is said in full
        return None
    return family_name


# Citizenships whose names English often writes family name first ("Xi Jinping", "Shin
# Jung-hyeon") or that use patronymics rather than family names (Iceland, Mongolia): their
# last word is not guessed to be the family name.
NAME_ORDER_UNKNOWN = frozenset({
    "Q148", "Q865", "Q8646", "Q14773", "Q884", "Q423", "Q18097", "Q881", "Q424", "Q334",
    "Q711", "Q189", "Q836", "Q17", "Q819", "Q13426199",
    # and the Chinese, Korean and Japanese states of the past ("Li Bai", "Sun Tzu")
    "Q9683", "Q7462", "Q9903", "Q8733", "Q7209", "Q7313", "Q28179", "Q188712", "Q28405",
    "Q208784", "Q28233", "Q1147037", "Q1148052", "Q35216", "Q2424", "Q5370", "Q7183",
    "Q35704", "Q12557", "Q179637", "Q1193985", "Q233869",
    # patronymic names with no family name ("Wan Rohaimi Wan Ismail"; Ethiopian names)
    "Q833", "Q252", "Q921", "Q115", "Q986", "Q1045"})
# Citizenships whose names often end in two family names ("Gabriel García Márquez"): their
# last word is guessed only from a name of two words.
TWO_FAMILY_NAMES = frozenset({
    "Q29", "Q96", "Q414", "Q739", "Q298", "Q419", "Q717", "Q736", "Q774", "Q241", "Q750",
    "Q786", "Q783", "Q733", "Q792", "Q811", "Q800", "Q804", "Q77", "Q1183", "Q45", "Q155"})
# Titles before a name: "Pope Francis" is not "Francis" later, "Sir John Smith" is said in
# full (``short_name`` drops the title where a long name has one).
TITLES = frozenset("""
pope king queen prince princess emperor empress saint st sir dame lord lady duke duchess
count countess baron baroness earl general admiral captain colonel major sheikh sultan
emir shah tsar czar pharaoh rabbi imam father brother sister mother dr doctor professor
prof president chancellor cardinal bishop archbishop reverend rev
""".split())
LAST_WORD = re.compile(r"[^\W\d_][^\W\d_]*(?:['\u2019-][^\W\d_]+)*")


def guessed_surname(name: str, most_words: int = 4) -> str | None:
    """The family name of a person whose family name the KG does not name (no P734, or one
    without a label): the last word of a plain "Given Family" name ("Roth" for "Veronica
    Roth"); None where the last word may be something else: a particle or a title in the
    name ("Alonso Pérez de Vivero", "Pope Francis", "Eugene Ramsden, 1st Baron Ramsden"), a
    numeral ("Prince Michael Jackson II"), a hyphenated given name ("Shin Jung-hyeon"), one
    word, or more than ``most_words`` (2 for ``TWO_FAMILY_NAMES`` citizenships). The caller
    also leaves out the citizenships of ``NAME_ORDER_UNKNOWN``."""
    words = name.split()
    if not 2 <= len(words) <= most_words or any(not w[:1].isupper() for w in words):
        return None
    if words[0].lower().rstrip(".") in TITLES:
        return None
    last = words[-1]
    if not LAST_WORD.fullmatch(last) or last.isupper() or len(last) < 2:
        return None
    if any(part[:1].islower() for part in re.split(r"['\u2019-]", last)[1:]):
        return None  # "Jung-hyeon"
    return last


# -- values in running text ----------------------------------------------------------------

ROLE_NOUNS = re.compile(r"^(member|deputy|representative|senator|judge|justice|officer|"
                        r"delegate|minister|ambassador|councillor|trustee|fellow|professor)\b")


# Words whose "'s" is "is" or "has", not a possessive ("what's [a]", "it's [a]")
CONTRACTED = frozenset({"it", "that", "what", "who", "where", "when", "there", "here", "let",
                        "he", "she", "how", "why", "which", "this"})


def with_article(label: str, before: str, person: bool) -> str:
    """A value in running text: a common noun ("euro", "mayor of Paris") takes "the", a role
    one of many ("member of the Bundestag") "a"; a proper name takes "the" where English
    gives it one ("join the United Nations", "since when has the United Kingdom been ...");
    never "the the" (after "the", "a" or "an" a leading "the" of the label goes)."""
    if person or not label:
        return label
    before = before.rstrip()
    if re.search(r"\b(the|a|an)$", before, re.I):
        return label[4:] if label.lower().startswith("the ") else label
    owner = re.search(r"(\w+)(['’]s|s['’])$", before)
    if re.search(r"\b(his|her|its|their|my|your|our)$", before, re.I) or (
            owner and owner.group(1).lower() not in CONTRACTED):
        return label  # "his [a]", "the organisation's [a]" keep the bare name
    if label[0].islower() and not label[:2].isupper() and not label.lower().startswith("the "):
        return ("a " if ROLE_NOUNS.match(label) else "the ") + label
    return spoken_name(label, False)
