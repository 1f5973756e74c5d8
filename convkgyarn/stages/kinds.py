"""More kinds of question than "what is the value": how many (count), yes or no
(verification, with a true or a plausible false candidate) and order in time (who held a
role before someone), for curated properties whose English we trust, in our own words.

Patterns use the rules writer's subject marks (``{S}``, ``{S's}``, ``{S:o}``) and ``[a]``
for the value the question names (the candidate, or the later holder). Each answer is
computed from the KG when a conversation is assembled (``convkgyarn.stages.assemble``) and
has its own query (``convkgyarn.kg.queries.kind_query``).

Also here: a grounded sentence for any turn's answer (``--answer-style sentence``).
"""

from __future__ import annotations

import re

from convkgyarn.kg.render import plural
from convkgyarn.stages import lexicon, phrasing
from convkgyarn.stages.rules_writer import ellipsis_noun
from convkgyarn.text import Fact

KINDS = ("count", "verify", "before")

# property -> (spoken present, spoken past, typed) and the counted noun (one, many)
COUNT: dict[str, tuple[tuple[str, str, str], tuple[str, str]]] = {
    "P40": (("how many children does {S} have?", "how many children did {S} have?",
             "number of children of {S:o}"), ("child", "children")),
    "P3373": (("how many siblings does {S} have?", "how many siblings did {S} have?",
               "number of siblings of {S:o}"), ("sibling", "siblings")),
    "P26": (("how many times has {S} been married?", "how many times was {S} married?",
             "number of spouses of {S:o}"), ("spouse", "spouses")),
    "P166": (("how many awards has {S} received?", "how many awards did {S} receive?",
              "number of awards of {S:o}"), ("award", "awards")),
    "P1411": (("how many nominations has {S} had?", "how many nominations did {S} get?",
               "number of nominations of {S:o}"), ("nomination", "nominations")),
    "P800": (("how many notable works does {S} have?", "how many notable works did {S} "
              "have?", "number of notable works of {S:o}"), ("notable work", "notable works")),
    "P1412": (("how many languages does {S} speak?", "how many languages did {S} speak?",
               "number of languages {S} speaks"), ("language", "languages")),
    "P161": (("how many cast members does {S} have?", "how many cast members did {S} have?",
              "number of cast members of {S:o}"), ("cast member", "cast members")),
    "P37": (("how many official languages does {S} have?", "how many official languages "
             "did {S} have?", "number of official languages of {S:o}"),
            ("official language", "official languages")),
    "P47": (("how many neighbours does {S} have?", "how many neighbours did {S} have?",
             "number of neighbours of {S:o}"), ("neighbour", "neighbours")),
}

# property -> (spoken present, spoken past, typed): is [a] the value?
VERIFY: dict[str, tuple[str, str, str]] = {
    "P26": ("is {S} married to [a]?", "was {S} married to [a]?", "{S} married to [a]?"),
    "P19": ("was {S} born in [a]?", "was {S} born in [a]?", "{S} born in [a]?"),
    "P20": ("did {S} die in [a]?", "did {S} die in [a]?", "{S} died in [a]?"),
    "P27": ("is {S} a citizen of [a]?", "was {S} a citizen of [a]?", "{S} citizen of [a]?"),
    "P22": ("is [a] {S's} father?", "was [a] {S's} father?", "[a] father of {S:o}?"),
    "P25": ("is [a] {S's} mother?", "was [a] {S's} mother?", "[a] mother of {S:o}?"),
    "P40": ("is [a] {S's} child?", "was [a] {S's} child?", "[a] child of {S:o}?"),
    "P69": ("did {S} study at [a]?", "did {S} study at [a]?", "{S} studied at [a]?"),
    "P166": ("has {S} received [a]?", "did {S} receive [a]?", "{S} received [a]?"),
    "P102": ("is {S} a member of [a]?", "was {S} a member of [a]?", "{S} member of [a]?"),
    "P57": ("did [a] direct {S:o}?", "did [a] direct {S:o}?", "{S} directed by [a]?"),
    "P50": ("did [a] write {S:o}?", "did [a] write {S:o}?", "{S} written by [a]?"),
    "P161": ("did [a] star in {S:o}?", "did [a] star in {S:o}?", "[a] in the cast of {S:o}?"),
    "P36": ("is [a] the capital of {S:o}?", "was [a] the capital of {S:o}?",
            "[a] capital of {S:o}?"),
    "P38": ("is [a] the currency of {S:o}?", "was [a] the currency of {S:o}?",
            "[a] currency of {S:o}?"),
    "P30": ("is {S} in [a]?", "was {S} in [a]?", "{S} in [a]?"),
    "P17": ("is {S} in [a]?", "was {S} in [a]?", "{S} in [a]?"),
    "P495": ("is {S} from [a]?", "was {S} from [a]?", "{S} from [a]?"),
}

# Not asked: a yes/no about a value the subject holds in place of a fact whose plain
# question cannot be asked (a value without a label, too many values): "Was Plato a
# philosopher?", "Does China border Laos?". Three head-to-head raters preferred the
# conversations without it on relevance 50 to 4 ("obvious", "random"), though with it on
# diversity 64 to 0 (s31, benchmarks/ratings/head_to_head.jsonl). A yes/no that follows
# from the answer before it ("Did he also die there?", ``ALSO``) is what they praised.

# property -> (spoken, typed): who held it right before [a] (by start time, P580)
BEFORE: dict[str, tuple[str, str]] = {
    "P6": ("who was the head of government of {S:o} before [a]?",
           "{S} head of government before [a]"),
    "P35": ("who was the head of state of {S:o} before [a]?", "{S} head of state before [a]"),
    "P26": ("who was {S} married to before [a]?", "{S} spouse before [a]"),
    "P54": ("which team did {S} play for before [a]?", "{S} team before [a]"),
    "P108": ("who did {S} work for before [a]?", "{S} employer before [a]"),
    "P286": ("who was the head coach of {S:o} before [a]?", "{S} head coach before [a]"),
    "P488": ("who chaired {S:o} before [a]?", "{S} chairperson before [a]"),
    "P169": ("who was the chief executive of {S:o} before [a]?", "{S} CEO before [a]"),
    "P1037": ("who directed {S:o} before [a]?", "{S} director before [a]"),
}


def pattern(kind: str, property_id: str, interaction: str, tense: str) -> str | None:
    """The pattern of a kind of question about a property, or None (not curated)."""
    spoken = interaction == "voice"
    if kind == "count" and property_id in COUNT:
        forms = COUNT[property_id][0]
        return forms[2] if not spoken else forms[1 if tense == "past" else 0]
    if kind == "verify" and property_id in VERIFY:
        forms = VERIFY[property_id]
        return forms[2] if not spoken else forms[1 if tense == "past" else 0]
    if kind == "before" and property_id in BEFORE:
        return BEFORE[property_id][0 if spoken else 1]
    return None


# -- sentence answers ------------------------------------------------------------------------

def joined(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def when(text: str, precision: int | None) -> str:
    """A date in a sentence: "on 3 October 1992", "in 1992", "in the 1990s". By what is
    said: a "What year ...?" question's answer is the year of a day-precise date ("founded
    on 1918" read wrong)."""
    day = precision is not None and precision >= 11 and re.match(r"\d{1,2} \w", text)
    return ("on " if day else "in ") + text


def sentence(kind: str, subject: str, fact: Fact, answers: list[str], *, tense: str,
             slot: str | None = None, precisions: tuple = (), counted: tuple | None = None,
             plural_subject: bool = False) -> str:
    """The answering side's reply as one sentence grounded in the fact: the subject, the
    relation and every answer value in it ("Barack Obama's spouse is Michelle Obama.")."""
    past = tense == "past"
    be = ("were" if past else "are") if len(answers) > 1 else ("was" if past else "is")
    value = joined(answers)
    if kind == "count":
        one, many = counted or ("", "")
        n = answers[0]
        noun = one if n == "1" else many
        if fact.property_id == "P26":
            return f"{subject} {'was' if past else 'has been'} married {n} time" \
                   f"{'' if n == '1' else 's'}."
        verb = COUNT_VERBS.get(fact.property_id, ("has", "had"))[1 if past else 0]
        return f"{subject} {verb} {n} {noun}."
    if kind == "verify":
        noun = sentence_noun(fact)
        yes = answers[0] == "yes"
        verb = ("was" if past else "is") + ("" if yes else " not")
        return f"{'Yes' if yes else 'No'}, {slot} {verb} {possessive(subject)} {noun}."
    if kind == "before":
        noun = sentence_noun(fact)
        return f"{value} {be} {possessive(subject)} {noun} before {slot}."
    if fact.qualifier_id:
        dated = [when(a, p) for a, p in zip(answers, precisions)] if precisions else answers
        if fact.qualifier_id == "P580":
            return f"That began {joined(dated)}."
        if fact.qualifier_id == "P582":
            return f"That ended {joined(dated)}."
        if fact.qualifier_id in ("P585", "P577"):
            return f"That was {joined(dated)}."
        return f"The {literal(fact.qualifier_label)} of that {be} {value}."
    if fact.property_id in lexicon.SENTENCES:  # "Andrei Tarkovsky stopped working in 1986."
        form = lexicon.SENTENCES[fact.property_id][1 if past else 0]
        dated = joined([when(a, p) for a, p in zip(answers, precisions)]) \
            if precisions and len(precisions) == len(answers) else joined(
                [when(a, None) for a in answers])
        return form.format(S=subject, V=value, when=dated)
    noun = ellipsis_noun(fact) or lexicon.SENTENCE_NOUNS.get(fact.property_id)
    if noun is not None:
        if noun in PLURAL_NOUNS and len(answers) == 1 and noun in SINGULAR_NOUNS:
            noun = SINGULAR_NOUNS[noun]  # "Elizabeth II's child was Charles III."
        elif noun in PLURAL_NOUNS:
            be = "were" if past else "are"
        elif len(answers) > 1:  # "occupations were engineer and inventor"
            noun = plural_noun(noun)
        return f"{possessive(subject)} {noun} {be} {value}."
    label = phrasing.simplify(literal_label(fact))  # "work period (end)" -> "work period"
    first = label.split(" ")[0]
    if first in phrasing.THIRD_PERSON:  # "shares border with"
        verb = phrasing.past_verb(phrasing.THIRD_PERSON[first]) if past else first
        return f"{subject} {verb} {label[len(first) + 1:]} {value}."
    if not phrasing.is_noun(label):  # "located in", "directed by", "member of"
        article = "a " if re.match(r"(member|citizen|student|participant|candidate) ",
                                    label) else ""
        if not article and re.fullmatch(r"[a-z][a-z -]* (of|to|for|with|within|from)", label) \
                and not re.match(r"(part|located|capital|applies|shares)\b", label):
            article = "an " if label[0] in "aeiou" else "a "  # "an exclave of Russia"
        return f"{subject} {'was' if past else 'is'} {article}{label} {value}."
    return f"{possessive(subject)} {plural_noun(label) if len(answers) > 1 else label} {be} " \
           f"{value}."


def sentence_noun(fact: Fact) -> str:
    """The noun a sentence names the fact with: the ellipsis noun, a curated one, or the
    label in plain English (no bracketed part, "per year" -> "annually")."""
    return ellipsis_noun(fact) or lexicon.SENTENCE_NOUNS.get(fact.property_id) or \
        phrasing.simplify(literal_label(fact))


def plural_noun(noun: str) -> str:
    """"occupation" -> "occupations", "country of citizenship" -> "countries of
    citizenship"."""
    head, _, rest = noun.partition(" of ")
    return plural(head) + (f" of {rest}" if rest else "")


# count questions whose sentence needs another verb than "has"
COUNT_VERBS = {"P1412": ("speaks", "spoke"), "P166": ("has received", "received"),
               "P1411": ("has had", "had")}


# the plural nouns whose one answer is said in the singular (others, like "headquarters",
# stay as they are)
SINGULAR_NOUNS = {"children": "child", "siblings": "sibling", "awards": "award",
                  "nominations": "nomination", "positions": "position", "founders": "founder",
                  "notable works": "notable work", "languages": "language",
                  "twin towns": "twin town"}
PLURAL_NOUNS = frozenset({"children", "siblings", "awards", "nominations", "positions",
                          "notable works", "languages", "twin towns", "founders"} |
                         {n for n in lexicon.ELLIPSIS_NOUNS.values() if n and n.endswith("s")
                          and not n.endswith("ss")})


def possessive(name: str) -> str:
    return name + ("'" if name.endswith("s") else "'s")


def literal(label: str | None) -> str:
    return " ".join((label or "").split())


def literal_label(fact: Fact) -> str:
    return literal(fact.property_label)


# -- "also" questions: a yes/no follow-up about the value just answered ---------------------
# (property just asked, property asked about it) -> spoken forms (present, past), spoken forms
# that refer back ("Did he also write the screenplay?": [v] is the value just named, "he" or
# "she"; [he] and [his] the subject), typed forms (naming the subject, referring to it). [a]
# is the value named.
# The answer is yes or no from the KG: the value among the statements that answer the second
# property in the question's tense (``facts.answer_statements``), as a verify question's.
ALSO: dict[tuple[str, str], tuple[tuple[str, str], tuple[str, str], tuple[str, str]]] = {
    ("P57", "P58"): (("did [a] also write the screenplay for {S:o}?",) * 2,
                     ("did [v] also write the screenplay?",) * 2,
                     ("[a] also screenwriter of {S:o}?",
                      "[a] also the screenwriter?")),
    ("P57", "P162"): (("did [a] also produce {S:o}?",) * 2,
                      ("did [v] also produce it?",) * 2,
                      ("[a] also producer of {S:o}?",
                       "[a] also the producer?")),
    ("P57", "P161"): (("did [a] also act in {S:o}?",) * 2,
                      ("did [v] also act in it?",) * 2,
                      ("[a] also in the cast of {S:o}?",
                       "[a] also in the cast?")),
    ("P58", "P57"): (("did [a] also direct {S:o}?",) * 2,
                     ("did [v] direct it as well?",) * 2,
                     ("[a] also director of {S:o}?",
                      "[a] also the director?")),
    ("P175", "P86"): (("did [a] also compose {S:o}?",) * 2,
                      ("did [v] write the music too?",) * 2,
                      ("[a] also composer of {S:o}?",
                       "[a] also the composer?")),
    ("P175", "P676"): (("did [a] also write the lyrics of {S:o}?",) * 2,
                       ("did [v] write the lyrics as well?",) * 2,
                       ("[a] also lyricist of {S:o}?",
                        "[a] also the lyricist?")),
    ("P86", "P676"): (("did [a] also write the lyrics of {S:o}?",) * 2,
                      ("did [v] also write the lyrics?",) * 2,
                      ("[a] also lyricist of {S:o}?",
                       "[a] also the lyricist?")),
    ("P86", "P175"): (("did [a] also perform {S:o}?",) * 2,
                      ("did [v] perform it too?",) * 2,
                      ("[a] also performer of {S:o}?",
                       "[a] also the performer?")),
    ("P50", "P110"): (("did [a] also illustrate {S:o}?",) * 2,
                      ("did [v] illustrate it as well?",) * 2,
                      ("[a] also illustrator of {S:o}?",
                       "[a] also the illustrator?")),
    ("P112", "P169"): (("is [a] also the chief executive of {S:o}?",
                        "was [a] also the chief executive of {S:o}?"),
                       ("is [v] also [his] chief executive?",
                        "was [v] also [his] chief executive?"),
                       ("[a] also CEO of {S:o}?",
                        "[a] also the CEO?")),
    ("P112", "P488"): (("does [a] also chair {S:o}?", "did [a] also chair {S:o}?"),
                       ("does [v] chair it too?", "did [v] chair it too?"),
                       ("[a] also chairperson of {S:o}?",
                        "[a] also the chair?")),
    ("P35", "P6"): (("is [a] also the head of government of {S:o}?",
                     "was [a] also the head of government of {S:o}?"),
                    ("is [v] also the head of government?",
                     "was [v] also the head of government?"),
                    ("[a] also head of government of {S:o}?",
                     "[a] also head of government?")),
    ("P6", "P35"): (("is [a] also the head of state of {S:o}?",
                     "was [a] also the head of state of {S:o}?"),
                    ("is [v] also the head of state?", "was [v] also the head of state?"),
                    ("[a] also head of state of {S:o}?",
                     "[a] also head of state?")),
    ("P19", "P20"): (("did {S} also die in [a]?",) * 2,
                     ("did [he] also die there?",) * 2,
                     ("{S} also died in [a]?",
                      "[he] also died there?")),
    ("P69", "P108"): (("did {S} also work at [a]?",) * 2,
                      ("did [he] also work there?",) * 2,
                      ("{S} also worked at [a]?",
                       "[he] also worked there?")),
    ("P108", "P69"): (("did {S} also study at [a]?",) * 2,
                      ("did [he] also study there?",) * 2,
                      ("{S} also studied at [a]?",
                       "[he] also studied there?")),
    ("P1411", "P166"): (("did {S} win [a] in the end?",) * 2,
                        ("and did [he] win it in the end?",) * 2,
                        ("{S} won [a] in the end?",
                         "[he] won it in the end?")),
}
# Not asked: "Where is its headquarters?" "Amsterdam." "Was AFC Ajax also founded in
# Amsterdam?" "Yes.": two raters of three called it obvious (s33), a club or a firm is
# mostly founded where it sits (0.8.23).
# The second property must be one the subject is known to hold some value of (else "no"
# would only say the KG is silent), and for a place of death the subject must have died.
ALSO_NEEDS_DEATH = frozenset({"P20"})
# The pairs asked about now ("Is he also the head of government?"): answered from what holds
# in the tense of the turn before. Every other pair asks whether it ever was ("Did she also
# work there?"), and is answered from every statement, ended or not.
ALSO_NOW = frozenset({("P35", "P6"), ("P6", "P35"), ("P112", "P169"), ("P112", "P488")})
# The first properties whose value the form refers back to as "there" (a place), not "he".
ALSO_PLACES = frozenset({"P19", "P69", "P108"})


def also_after(property_id: str) -> list[str]:
    """The properties an "also" question may ask right after a question about this one."""
    return [second for first, second in ALSO if first == property_id]


def also_pattern(first: str, second: str, interaction: str, tense: str,
                 refer_back: bool) -> str | None:
    """The pattern of an "also" question (None: not curated). ``refer_back``: the spoken
    form that says "he"/"there" for the value just named and the subject."""
    forms = ALSO.get((first, second))
    if forms is None:
        return None
    past = tense == "past"
    if interaction != "voice":
        return forms[2][refer_back]
    return forms[1 if refer_back else 0][past]


# -- "before" follow-ups: who held it before the holder just named ---------------------------
# property -> (spoken, spoken referring back: [v] is the holder just named, [he] the
# subject; typed). The named forms are BEFORE's.
BEFORE_BACK: dict[str, tuple[str, str]] = {
    "P6": ("and who held the office before [v]?", "{S} head of government before [a]"),
    "P35": ("and who held the office before [v]?", "{S} head of state before [a]"),
    "P26": ("who was [he] married to before [v]?", "{S} spouse before [a]"),
    "P54": ("which team did [he] play for before that?", "{S} team before [a]"),
    "P108": ("who did [he] work for before that?", "{S} employer before [a]"),
    "P286": ("who was the coach before [v]?", "{S} head coach before [a]"),
    "P488": ("and who was the chair before [v]?", "{S} chairperson before [a]"),
    "P169": ("who ran [him] before [v]?", "{S} CEO before [a]"),
    "P1037": ("and who was director before [v]?", "{S} director before [a]"),
}
# the holder just named is a thing ("before that"), not a person ("before her")
BEFORE_THINGS = frozenset({"P54", "P108"})


def before_pattern(property_id: str, interaction: str, refer_back: bool) -> str | None:
    """The pattern of a "before" question; ``refer_back``: the spoken follow-up form."""
    if property_id not in BEFORE:
        return None
    if interaction != "voice":
        return BEFORE[property_id][1]
    if refer_back and property_id in BEFORE_BACK:
        return BEFORE_BACK[property_id][0]
    return BEFORE[property_id][0]


# -- a count, then the list: "How many children does she have?" "Two." "What are their
# names?" --------------------------------------------------------------------------------
# property -> spoken follow-ups that ask for the items just counted (present, past)
LIST_AFTER_COUNT: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "P40": (("what are their names?", "who are they?"),
            ("what were their names?", "who were they?")),
    "P3373": (("what are their names?", "who are they?"),
              ("what were their names?", "who were they?")),
    "P26": (("who were they?", "can you name them?"), ("who were they?", "can you name them?")),
    "P166": (("which awards were they?", "can you name them?"),
             ("which awards were they?", "can you name them?")),
    "P1411": (("can you name them?", "what are they called?"),
              ("can you name them?", "what were they called?")),
    "P800": (("can you name them?", "what are they called?"),
             ("can you name them?", "what were they called?")),
    "P1412": (("which languages are they?", "can you name them?"),
              ("which languages were they?", "can you name them?")),
    "P37": (("which languages are they?", "can you name them?"),
            ("which languages were they?", "can you name them?")),
    "P47": (("can you name them?", "what are they called?"),
            ("can you name them?", "what were they called?")),
}


def list_after_count(property_id: str, tense: str) -> tuple[str, ...]:
    """The spoken follow-ups asking for the items a count question just counted."""
    forms = LIST_AFTER_COUNT.get(property_id)
    return forms[tense == "past"] if forms else ()


# -- spans: how long something lasted, from two dates the KG holds ----------------------------
# A follow-up that puts two dates together ("When did he die?" "26 March 1827." "How old was
# he then?"): the answer is computed from the subject's own dates, both known to the day
# (completed years) or both to the year only (the difference of the years), never from
# dates of mixed precision. Each span: (start, end) as (property, qualifier or None), the
# turn it follows, spoken forms (named, referring back), typed form, and the unit said (none:
# the questions ask "how many years", so the answer is the number).
SPANS: dict[str, tuple] = {
    # a person's age at death, after the question about the death
    "age": (("P569", None), ("P570", None), ("P570", "P20", "P509", "P1196"),
            ("how old was {S} when [he] died?", "how old was [he] when [he] died?"),
            "{S} age at death", None),
    # how long a state, an organisation or a building lasted, after the question about
    # its end
    "existence": (("P571", None), ("P576", None), ("P576",),
                  ("how many years did {S} exist?", "so how many years did [he] exist?"),
                  "{S} years of existence", None),
}
# The length of a term, after the question about its end (the statement's P580 and P582):
# property -> spoken forms (named [a] and the subject, referring back: [v] the holder or
# [he] the subject), typed forms (naming the subject, referring to it).
TERM_SPANS: dict[str, tuple[tuple[str, str], tuple[str, str]]] = {
    "P6": (("how many years was [a] head of government of {S:o}?",
            "so how many years was [v] in office?"), ("{S} [a] years in office",
                                                "[a] years in office")),
    "P35": (("how many years was [a] head of state of {S:o}?",
             "so how many years was [v] in office?"), ("{S} [a] years in office",
                                                 "[a] years in office")),
    "P39": (("how many years did {S} hold the post of [a]?",
             "how many years did [he] hold that post?"),
            ("{S} [a] years in office", "[his] years as [a]")),
    "P26": (("how many years was {S} married to [a]?", "how many years were they married?"),
            ("{S} [a] years married", "years married to [a]")),
    "P54": (("how many years did {S} play for [a]?", "how many years did [he] play there?"),
            ("{S} years at [a]", "[his] years at [a]")),
    "P108": (("how many years did {S} work for [a]?", "how many years did [he] work there?"),
             ("{S} years at [a]", "[his] years at [a]")),
    "P69": (("how many years did {S} study at [a]?", "how many years did [he] study there?"),
            ("{S} years at [a]", "[his] years at [a]")),
    "P488": (("how many years did [a] chair {S:o}?", "so how many years did [v] chair it?"),
             ("{S} [a] years as chair", "[a] years as chair")),
}


def span_years(start: tuple[int, int | None, int | None, int],
               end: tuple[int, int | None, int | None, int]) -> int | None:
    """Whole years from one date to another, each (year, month, day, precision): completed
    years when both are known to the day, the difference of the years when both are known
    to the year only; None for mixed precisions, dates out of order, or years before 1."""
    (y1, m1, d1, p1), (y2, m2, d2, p2) = start, end
    if y1 < 1 or y2 < 1:
        return None
    if p1 == p2 == 11 and None not in (m1, d1, m2, d2):
        years = y2 - y1 - (1 if (m2, d2) < (m1, d1) else 0)
    elif p1 == p2 == 9:
        years = y2 - y1
    else:
        return None
    return years if years >= 0 else None


def span_pattern(name: str, property_id: str, interaction: str, refer_back: bool
                 ) -> str | None:
    """The pattern of a span question (``SPANS`` by name, or a term's by property)."""
    if name == "term":
        forms = TERM_SPANS.get(property_id)
        if forms is None:
            return None
        spoken, typed = forms
        if interaction != "voice":
            return typed[1 if refer_back else 0]
    else:
        spoken, typed = SPANS[name][3], SPANS[name][4]
        if interaction != "voice":
            return typed
    return spoken[1 if refer_back else 0]


# -- the second of a pair asked about the event just named: "When was he born?" "1770."
# "Where was that?" (property asked, property before it) -> spoken forms; they name nothing,
# so they fit every spoken configuration.
PAIR_FOLLOW_UPS: dict[tuple[str, str], tuple[str, ...]] = {
    ("P19", "P569"): ("where was that?", "and where was that?"),
    ("P20", "P570"): ("where was that?", "and where did that happen?"),
    ("P569", "P19"): ("and when was that?", "when was that?"),
    ("P570", "P20"): ("and when was that?", "when did that happen?"),
}

# Where in the country just named: "Which country is Targówek in?" "Poland." "Which part of
# Poland is it in?" (property asked, the country's property before it) -> spoken patterns,
# [v] the country just answered.
WHERE_IN: dict[tuple[str, str], tuple[str, ...]] = {
    (narrow, "P17"): ("which part of [v] is {S} in?", "in which part of [v] is {S}?",
                      "where is {S} in [v]?")
    for narrow in ("P131", "P276")
}
