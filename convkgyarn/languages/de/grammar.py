"""German noun phrases: which names take an article, declension of a name with its
article and leading adjectives, references (er/sie/es, "das Land"), possessives that agree
with the possessed noun, and prepositions that contract with the article (im, vom, zum).

Names: a person never takes an article. A thing's name takes one when it is listed
(``NAMES``: die Schweiz, der Irak, die USA, die Niederlande), when it is headed by a
common noun (``HEADS``: "Universität Oxford", "Vereinigtes Königreich", "Kölner Dom",
"Harvard University"), or when its first word is a compound of such a noun
("Nobelpreis für Physik"). Adjectives before the head are inflected weakly after the
article ("Vereinigtes Königreich" -> "dem Vereinigten Königreich"); "-er" adjectives of
places ("Kölner", "Weimarer") do not change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

CASES = ("nom", "akk", "dat", "gen")
ARTICLE = {"m": ("der", "den", "dem", "des"), "f": ("die", "die", "der", "der"),
           "n": ("das", "das", "dem", "des"), "pl": ("die", "die", "den", "der")}
PRONOUN = {"m": ("er", "ihn", "ihm"), "f": ("sie", "sie", "ihr"), "n": ("es", "es", "ihm"),
           "pl": ("sie", "sie", "ihnen")}
# endings of sein-/ihr- before a possessed noun of this gender, per case (nom, akk, dat)
POSSESSIVE_ENDING = {"m": ("", "en", "em"), "f": ("e", "e", "er"), "n": ("", "", "em"),
                     "pl": ("e", "e", "en")}
WEAK_ENDING = {"m": ("e", "en", "en", "en"), "f": ("e", "e", "en", "en"),
               "n": ("e", "e", "en", "en"), "pl": ("en", "en", "en", "en")}
CONTRACTIONS = {("in", "dem"): "im", ("von", "dem"): "vom", ("zu", "dem"): "zum",
                ("an", "dem"): "am", ("bei", "dem"): "beim", ("zu", "der"): "zur"}
PREPOSITIONS = frozenset({"in", "von", "zu", "an", "bei", "mit", "aus", "nach", "seit"})
# a thing after a preposition is a pronominal adverb, never "in ihm" ("Wer spielt darin
# mit?", "das Drehbuch dazu")
PRONOMINAL_ADVERBS = {"in": "darin", "von": "davon", "zu": "dazu", "an": "daran",
                      "bei": "dabei", "mit": "damit", "aus": "daraus", "nach": "danach",
                      "seit": "seitdem"}

# Proper names that take the definite article, with their gender.
NAMES: dict[str, str] = {n: g for g, names in {
    "f": "Schweiz Türkei Slowakei Mongolei Ukraine Tschechoslowakei Walachei Karibik "
         "Antarktis Arktis Sowjetunion DDR BRD Krim Pfalz Lausitz Bretagne Normandie "
         "Provence Toskana Lombardei Steiermark Donau Elbe Themse Seine Wolga Oder Weser "
         "Mosel Ruhr Elfenbeinküste Zugspitze",
    "m": "Irak Iran Libanon Sudan Südsudan Jemen Kongo Tschad Niger Vatikan Rhein Nil Main "
         "Neckar Inn Amazonas Mississippi Jordan Kilimandscharo Himalaya Balkan Bodensee "
         "Kaukasus Ural Harz Schwarzwald Mount_Everest Montblanc Brocken Senegal Oman",
    "n": "Elsass Engadin Wallis Tessin Allgäu Saarland Rheinland Ruhrgebiet Baltikum",
    "pl": "USA Niederlande Philippinen Malediven Bahamas Seychellen Komoren Salomonen "
          "Marshallinseln Alpen Anden Pyrenäen Rocky_Mountains Azoren Kanaren Balearen",
}.items() for n in names.split()}
NAMES = {k.replace("_", " "): v for k, v in NAMES.items()}

# Common nouns that head names: noun -> (gender, genitive singular)
HEADS: dict[str, tuple[str, str]] = {
    "Universität": ("f", "Universität"), "Hochschule": ("f", "Hochschule"),
    "Akademie": ("f", "Akademie"), "Schule": ("f", "Schule"), "Republik": ("f", "Republik"),
    "Föderation": ("f", "Föderation"), "Union": ("f", "Union"),
    "Königreich": ("n", "Königreichs"), "Kaiserreich": ("n", "Kaiserreichs"),
    "Reich": ("n", "Reichs"), "Fürstentum": ("n", "Fürstentums"),
    "Herzogtum": ("n", "Herzogtums"), "Großherzogtum": ("n", "Großherzogtums"),
    "Bundesrepublik": ("f", "Bundesrepublik"), "Volksrepublik": ("f", "Volksrepublik"),
    "Freistaat": ("m", "Freistaats"), "Kanton": ("m", "Kantons"), "Provinz": ("f", "Provinz"),
    "Region": ("f", "Region"), "Grafschaft": ("f", "Grafschaft"), "Insel": ("f", "Insel"),
    "Inseln": ("pl", "Inseln"), "Staaten": ("pl", "Staaten"), "Emirate": ("pl", "Emirate"),
    "Spiele": ("pl", "Spiele"), "Partei": ("f", "Partei"), "Bank": ("f", "Bank"),
    "Bahn": ("f", "Bahn"), "Zentralbank": ("f", "Zentralbank"), "Dom": ("m", "Doms"),
    "Kirche": ("f", "Kirche"), "Kathedrale": ("f", "Kathedrale"), "Mauer": ("f", "Mauer"),
    "Museum": ("n", "Museums"), "Stadion": ("n", "Stadions"), "Bahnhof": ("m", "Bahnhofs"),
    "Oper": ("f", "Oper"), "Gesellschaft": ("f", "Gesellschaft"),
    "Stiftung": ("f", "Stiftung"), "Kommission": ("f", "Kommission"),
    "Bundestag": ("m", "Bundestags"), "Bundesrat": ("m", "Bundesrats"),
    "Gericht": ("n", "Gerichts"), "Meer": ("n", "Meeres"), "Gebirge": ("n", "Gebirges"),
    "See": ("m", "Sees"), "Fluss": ("m", "Flusses"), "Zeitung": ("f", "Zeitung"),
    "Armee": ("f", "Armee"), "Marine": ("f", "Marine"), "Liga": ("f", "Liga"),
    "Bundesliga": ("f", "Bundesliga"), "Weltmeisterschaft": ("f", "Weltmeisterschaft"),
    "Revolution": ("f", "Revolution"), "Krieg": ("m", "Krieges"),
    "Weltkrieg": ("m", "Weltkriegs"), "Schlacht": ("f", "Schlacht"),
    "Preis": ("m", "Preises"), "Orden": ("m", "Ordens"), "Medaille": ("f", "Medaille"),
    "Pakt": ("m", "Pakts"), "Bund": ("m", "Bundes"),
    # English heads of names German keeps ("die Harvard University")
    "University": ("f", "University"), "College": ("n", "College"),
    "School": ("f", "School"), "Institute": ("n", "Institute"), "Navy": ("f", "Navy"),
    "Army": ("f", "Army"), "Library": ("f", "Library"), "Company": ("f", "Company"),
    "Corporation": ("f", "Corporation"), "Foundation": ("f", "Foundation"),
    "Society": ("f", "Society"), "Council": ("m", "Council"), "Railway": ("f", "Railway"),
    "Orchestra": ("n", "Orchestra"), "Church": ("f", "Church"),
}
ENGLISH_HEADS = frozenset({"University", "College", "School", "Institute", "Navy", "Army",
                           "Library", "Company", "Corporation", "Foundation", "Society",
                           "Council", "Railway", "Orchestra", "Church"})
# Compounds ending in these nouns are common nouns ("Nobelpreis", "Fields-Medaille").
COMPOUND_HEADS: dict[str, tuple[str, str]] = {
    "preis": ("m", "es"), "medaille": ("f", ""), "auszeichnung": ("f", ""),
    "universität": ("f", ""), "hochschule": ("f", ""), "akademie": ("f", ""),
    "partei": ("f", ""), "kirche": ("f", ""), "kathedrale": ("f", ""), "museum": ("n", "s"),
    "stadion": ("n", "s"), "bahnhof": ("m", "s"), "gesellschaft": ("f", ""),
    "stiftung": ("f", ""), "kommission": ("f", ""), "meisterschaft": ("f", ""),
}
# heads that also head a name as the end of a compound ("Amerikanische Jungferninseln",
# "Tschechische Republik" is a plain head)
COMPOUND_TAILS = ("Inseln", "Insel", "Republik", "Pakt", "Meer", "Gebirge")
# first words of names of awards that German uses with the article ("den Oscar für ...")
FIRST_WORDS: dict[str, tuple[str, str]] = {
    "Oscar": ("m", "Oscars"), "Grammy": ("m", "Grammys"), "Emmy": ("m", "Emmys"),
    "Golden": ("m", "Golden"), "Pulitzer": ("m", "Pulitzer"), "Bambi": ("m", "Bambis"),
}
_ADJECTIVE_STEM = re.compile(r"(isch|sch|ig|lich|bar|sam|haft|los|al|ell|iv|ös|ant|ent|"
                             r"ier|iert|igt|eint)$")
_PLAIN_ADJECTIVES = frozenset("""neu alt groß klein frei hoh heilig vereinigt ober unter
nieder erst zweit dritt rot weiß schwarz grün blau gelb nord süd ost west golden silbern
technisch""".split())


@dataclass(frozen=True)
class Noun:
    """A common noun with its gender and genitive singular ("das Land", "des Landes")."""

    gender: str
    nominative: str
    genitive: str

    def phrase(self, case: str) -> str:
        word = self.genitive if case == "gen" else self.nominative
        return f"{article(self.gender, case)} {word}"


def article(gender: str, case: str) -> str:
    return ARTICLE[gender][CASES.index(case)]


def _adjective_stem(word: str) -> str | None:
    """The stem of an inflected adjective ("Vereinigtes" -> "Vereinigt"), None for a word
    that is no declinable adjective (nouns, names, "Kölner")."""
    if not word[:1].isupper():
        return None
    for ending in ("es", "er", "en", "em", "e"):
        if word.endswith(ending) and len(word) > len(ending) + 2:
            stem = word[: -len(ending)]
            if _ADJECTIVE_STEM.search(stem) or stem.lower() in _PLAIN_ADJECTIVES:
                return stem
    return None


def _invariant(word: str) -> bool:
    """Place adjectives in -er ("Kölner Dom", "Weimarer Republik") keep their form."""
    return word.endswith("er") and word[:1].isupper() and _adjective_stem(word) is None


@dataclass(frozen=True)
class Name:
    """A name as German uses it in a sentence: with its article (and how to decline the
    words before its head) or bare."""

    label: str
    gender: str | None  # the article's gender; None: no article
    adjectives: int = 0  # leading words inflected as adjectives
    head: int = -1  # index of the head noun, or -1
    head_genitive: str | None = None

    def phrase(self, case: str) -> str:
        """The name in a case: "die Schweiz"/"der Schweiz", "das Vereinigte Königreich" /
        "dem Vereinigten Königreich" / "des Vereinigten Königreichs", "Deutschland"."""
        if self.gender is None:
            if case == "gen":
                return self.label + ("'" if re.search(r"[sßxz]$", self.label) else "s")
            return self.label
        words = self.label.split()
        ending = WEAK_ENDING[self.gender][CASES.index(case)]
        for i in range(self.adjectives):
            stem = _adjective_stem(words[i])
            if stem is not None:
                words[i] = stem + ending
        if case == "gen" and self.head >= 0 and self.head_genitive:
            words[self.head] = self.head_genitive
        if case == "dat" and self.gender == "pl":  # "in den Niederlanden", "Emiraten"
            i = self.head if self.head >= 0 else len(words) - 1
            if not words[i].endswith(("n", "s")) and not words[i].isupper():
                words[i] += "n"
        return f"{article(self.gender, case)} {' '.join(words)}"

    def after(self, preposition: str) -> str:
        """The name after a preposition that takes the dative, contracted where German
        contracts ("im Vereinigten Königreich", "zur Universität Oxford")."""
        phrase = self.phrase("dat")
        if self.gender is not None:
            art, rest = phrase.split(" ", 1)
            short = CONTRACTIONS.get((preposition, art))
            if short:
                return f"{short} {rest}"
        return f"{preposition} {phrase}"


@lru_cache(maxsize=1 << 14)
def name(label: str, human: bool = False) -> Name:
    """How a label is used as a name (see the module docstring)."""
    label = " ".join(label.split())
    if human or not label:
        return Name(label, None)
    if label in NAMES:
        return Name(label, NAMES[label])
    words = label.split()
    if words[0].lower() in ("der", "die", "das", "den", "dem", "des"):
        return Name(label, None)  # a title that brings its own article ("Die Zeit")
    for i, word in enumerate(words):  # "Harvard University", "Massachusetts Institute of ..."
        if word in ENGLISH_HEADS and i > 0:
            gender, genitive = HEADS[word]
            return Name(label, gender, 0, -1, None)
    for i, word in enumerate(words):
        bare = word.strip(",.")
        if bare in HEADS and (bare in ENGLISH_HEADS or all(
                _adjective_stem(w) or _invariant(w) for w in words[:i])):
            gender, genitive = HEADS[bare]
            return Name(label, gender, i, i, genitive)
        tail = next((t for t in COMPOUND_TAILS if bare.endswith(t.lower())
                     and len(bare) > len(t) + 2), None)
        if i > 0 and tail is not None:  # after adjectives: "Amerikanische Jungferninseln"
            gender, genitive = HEADS[tail]
            return Name(label, gender, i, i, bare[:-len(tail)] + genitive.lower())
        if _adjective_stem(word) is None and not _invariant(word):
            break
    if words[0] in FIRST_WORDS:
        gender, genitive = FIRST_WORDS[words[0]]
        return Name(label, gender, 0, 0, genitive)
    first = words[0].lower()
    for suffix, (gender, gen_ending) in COMPOUND_HEADS.items():
        if first.endswith(suffix) and (first == suffix or len(first) > len(suffix) + 2):
            return Name(label, gender, 0, 0, words[0] + gen_ending)
    return Name(label, None)


# -- references: the noun a follow-up uses for a thing, by its broad kind or type word
KIND_NOUNS: dict[str, Noun] = {
    "country": Noun("n", "Land", "Landes"), "city": Noun("f", "Stadt", "Stadt"),
    "region": Noun("f", "Region", "Region"), "film": Noun("m", "Film", "Films"),
    "series": Noun("f", "Serie", "Serie"), "music": Noun("n", "Lied", "Liedes"),
    "book": Noun("n", "Buch", "Buches"), "artwork": Noun("n", "Werk", "Werkes"),
    "game": Noun("n", "Spiel", "Spiels"), "band": Noun("f", "Band", "Band"),
    "club": Noun("m", "Verein", "Vereins"),
    "university": Noun("f", "Universität", "Universität"),
    "company": Noun("n", "Unternehmen", "Unternehmens"),
    "event": Noun("n", "Ereignis", "Ereignisses"),
    "building": Noun("n", "Gebäude", "Gebäudes"),
    "organisation": Noun("f", "Organisation", "Organisation"),
    "element": Noun("n", "Element", "Elements"), "case": Noun("m", "Fall", "Falls"),
    "person": Noun("f", "Person", "Person"),
}
# finer nouns from the head word of the (English) type label
TYPE_NOUNS: dict[str, Noun] = {
    "village": Noun("n", "Dorf", "Dorfes"), "river": Noun("m", "Fluss", "Flusses"),
    "mountain": Noun("m", "Berg", "Berges"), "lake": Noun("m", "See", "Sees"),
    "island": Noun("f", "Insel", "Insel"), "album": Noun("n", "Album", "Albums"),
    "painting": Noun("n", "Gemälde", "Gemäldes"), "museum": Noun("n", "Museum", "Museums"),
    "church": Noun("f", "Kirche", "Kirche"), "station": Noun("m", "Bahnhof", "Bahnhofs"),
    "stadium": Noun("n", "Stadion", "Stadions"), "bridge": Noun("f", "Brücke", "Brücke"),
    "castle": Noun("f", "Burg", "Burg"), "war": Noun("m", "Krieg", "Krieges"),
    "battle": Noun("f", "Schlacht", "Schlacht"), "election": Noun("f", "Wahl", "Wahl"),
    "party": Noun("f", "Partei", "Partei"), "school": Noun("f", "Schule", "Schule"),
    "college": Noun("f", "Hochschule", "Hochschule"), "novel": Noun("m", "Roman", "Romans"),
    "sea": Noun("n", "Meer", "Meeres"), "municipality": Noun("f", "Gemeinde", "Gemeinde"),
    "commune": Noun("f", "Gemeinde", "Gemeinde"), "team": Noun("f", "Mannschaft",
                                                                "Mannschaft"),
    "song": Noun("n", "Lied", "Liedes"), "single": Noun("f", "Single", "Single"),
    "town": Noun("f", "Stadt", "Stadt"), "state": Noun("m", "Staat", "Staates"),
    # a street is no building ("In welchem Teil ... liegt das Gebäude?" for Oxford Street)
    "street": Noun("f", "Straße", "Straße"), "road": Noun("f", "Straße", "Straße"),
    "avenue": Noun("f", "Straße", "Straße"), "square": Noun("m", "Platz", "Platzes"),
}


def reference_noun(kind: str, type_label: str | None) -> Noun | None:
    head = (type_label or "").strip().lower().split(" of ")[0].split()
    if head and head[-1] in TYPE_NOUNS and kind not in ("country", "person"):
        return TYPE_NOUNS[head[-1]]
    return KIND_NOUNS.get(kind)


# roles whose holder is named: their feminine form, for a woman ("Regierungschefin"); an
# adjectival noun drops its strong ending ("Vorsitzender" -> "Vorsitzende")
FEMININE_ROLES = {"Vorsitzender": "Vorsitzende", "Staatsoberhaupt": "Staatsoberhaupt",
                  "Stadtoberhaupt": "Stadtoberhaupt"}
ROLE_GENDERS = {"Staatsoberhaupt": "n", "Stadtoberhaupt": "n"}  # any other role: m


def feminine(role: str) -> str:
    """A role noun for a woman: "Bürgermeister" -> "Bürgermeisterin", "Vorsitzender" ->
    "Vorsitzende"; a neuter role ("Staatsoberhaupt") stays."""
    if role in FEMININE_ROLES:
        return FEMININE_ROLES[role]
    return role if role.endswith("in") else role + "in"


def possessive(owner_gender: str, possessed: str, case: str) -> str:
    """sein-/ihr- agreeing with the possessed noun: ("m", "f", "nom") -> "seine"."""
    stem = "sein" if owner_gender in ("m", "n") else "ihr"
    return stem + POSSESSIVE_ENDING[possessed][CASES.index(case)]


def declined(noun: str, gender: str, case: str, after: str = "article") -> str:
    """A common noun declined after the definite article or a possessive: a first word
    that is an adjective takes its ending ("der höchsten Erhebung", "die politischen
    Ämter"; "sein höchster Berg"), and a plural its dative -n ("den Ämtern")."""
    words = noun.split(" ")
    if case not in CASES[:3]:
        return noun
    first = words[0]
    adjective = len(words) == 2 and first[:1].islower() and first.endswith(("e", "en"))
    if adjective:
        stem = first[:-2] if first.endswith("en") else first[:-1]
        ending = WEAK_ENDING[gender][CASES.index(case)]
        if after == "possessive" and (gender, case) in (("m", "nom"), ("n", "nom"),
                                                         ("n", "akk")):
            ending = "er" if gender == "m" else "es"
        words[0] = stem + ending
    last = words[-1]  # one noun, or an adjective and its noun ("Söhne und Töchter" stays)
    if gender == "pl" and case == "dat" and (len(words) == 1 or adjective) and \
            last[:1].isupper() and not last.endswith(("n", "s")):
        words[-1] = last + "n"
    return " ".join(words)


PLURAL_VERBS = {"ist": "sind", "war": "waren", "hat": "haben", "hatte": "hatten",
                "wird": "werden", "wurde": "wurden", "kann": "können", "konnte": "konnten",
                "gibt": "geben", "spricht": "sprechen", "tritt": "treten", "fällt": "fallen",
                "nimmt": "nehmen", "besitzt": "besitzen", "sitzt": "sitzen",
                "trägt": "tragen", "hängt": "hängen"}
# strong pasts (no -te) of the verbs the lexicon puts before its subject: add -en
STRONG_PASTS = frozenset("""lag kam gab befand entstand starb fiel hieß trat trug hing saß
besaß begann erschien fing ging sprach wog sang stand nahm bekam fand trieb betrieb
""".split())


def plural_verb(word: str) -> str:
    """The third person plural of a finite verb in the singular ("liegt" -> "liegen",
    "gehörte" -> "gehörten", "befindet" -> "befinden", "lag" -> "lagen"); any other word
    (already plural, not a verb: "haben", "wann") as it is."""
    low = word.lower()
    if low in PLURAL_VERBS:
        out = PLURAL_VERBS[low]
    elif low in STRONG_PASTS:
        out = low + "en"
    elif low.endswith("te"):
        out = low + "n"
    elif low.endswith(("ert", "elt")):  # "dauert" -> "dauern"
        out = low[:-1] + "n"
    elif low.endswith(("dt", "tet", "det")) or re.search(r"[^aeiouäöü]et$", low):
        out = low[:-2] + "en"
    elif low.endswith("t") and not low.endswith(("st", "en")):
        out = low[:-1] + "en"
    else:
        return word
    return out[0].upper() + out[1:] if word[:1].isupper() else out
