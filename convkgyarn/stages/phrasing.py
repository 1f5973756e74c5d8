"""English questions for any property, from the shape of its label and the kind of its
values, for the rules writer (the curated lexicon covers the most common properties first).

Patterns name the subject with ``{S}`` (subject position), ``{S's}`` (possessive) and
``{S:o}`` (object position); ``[a]`` is a fact's value in qualifier questions.

Label shapes:
- a noun ("spouse", "population"):                 "Who is {S's} spouse?"
- a passive participle with "by" ("directed by"):  "Who directed {S:o}?"
- a participle with a preposition ("educated at"): "Where was {S} educated?"
- "located in/on/... <noun>":                      "Which time zone is {S} located in?"
- a role "of" ("member of sports team"):           "Which sports team is {S} a member of?"
- a verb in the third person ("shares border with"): "What does {S} share a border with?"
- "number of <things>":                            "How many episodes does {S} have?"
The question word comes from the values: who for people, when for times, how many for
counts, where for places after "located"/"educated at"-like verbs, what otherwise.

Tense: ``to_past()`` turns a present question into the past ("is" -> "was", "does" ->
"did", a possessive subject -> "the X of {S}"); questions about events are the same in both.
"""

from __future__ import annotations

import random
import re

PERSON_WORDS = re.compile(
    r"\b(father|mother|parent|spouse|husband|wife|partner|child|children|son|daughter|"
    r"sibling|brother|sister|relative|grandparent|stepparent|godparent|author|director|"
    r"performer|composer|lyricist|librettist|producer|screenwriter|founder|creator|"
    r"cast member|chairperson|chair|head coach|coach|manager|head of government|"
    r"head of state|student|teacher|advisor|adviser|supervisor|editor|illustrator|"
    r"architect|designer|painter|sculptor|narrator|voice actor|presenter|host|mayor|"
    r"president|leader|officeholder|winner|candidate|dedicatee|choreographer|"
    r"cinematographer|translator|inventor|discoverer|commander|chief executive officer|"
    r"ceo|owner|rector|dean|principal|captain|pilot|astronaut|crew member|"
    r"significant person|patron|doctoral|(founded|created|written|directed|composed|painted|"
    r"designed|commanded|led|coached|managed|influenced|killed|performed|sung|produced) by)\b")
PLACE_WORDS = re.compile(
    r"\b(place|location|located|country|city|capital|residence|headquarters|continent|"
    r"territor|region|county|state|province|body of water|terrain|island|mountain|venue|"
    r"border|birthplace|origin|home port|burial)\b")
# Participles of creation: the question is about an event, in the past.
EVENT_PARTICIPLES = {
    "directed", "written", "composed", "produced", "founded", "designed", "created",
    "painted", "illustrated", "published", "developed", "edited", "discovered", "invented",
    "commissioned", "performed", "narrated", "photographed", "built", "made", "drawn",
    "manufactured", "translated", "sculpted", "engineered", "killed", "named", "launched",
    "established", "formed", "awarded", "authored", "animated", "choreographed",
}
IRREGULAR_PAST = {"written": "wrote", "drawn": "drew", "made": "made", "built": "built",
                  "held": "held", "known": "knew", "sung": "sang", "shot": "shot",
                  "given": "gave", "taken": "took", "led": "led", "won": "won", "sold": "sold",
                  "brought": "brought", "chosen": "chose", "driven": "drove", "shown": "showed",
                  "spoken": "spoke", "begun": "began", "paid": "paid", "run": "ran"}
THIRD_PERSON = {"shares": "share", "contains": "contain", "follows": "follow",
                "replaces": "replace", "encodes": "encode", "uses": "use", "has": "have",
                "includes": "include", "depicts": "depict", "represents": "represent",
                "owns": "own", "operates": "operate", "produces": "produce",
                "publishes": "publish", "plays": "play", "regulates": "regulate",
                "borders": "border", "affects": "affect", "connects": "connect",
                "crosses": "cross", "drains": "drain", "serves": "serve", "speaks": "speak",
                "supports": "support", "signs": "sign", "practices": "practice",
                "applies": "apply", "refers": "refer", "belongs": "belong", "leads": "lead",
                "flows": "flow", "runs": "run", "links": "link", "competes": "compete"}
ROLE_ARTICLES = {"member": "a ", "part": "", "citizen": "a ", "subsidiary": "a ",
                 "student": "a ", "fan": "a ", "instance": "an ", "mascot": "the ",
                 "symbol": "a ", "twin town": "a ", "sister city": "a "}
# Shorter English for long Wikidata labels, in questions and queries.
SIMPLER = (("administrative territorial entity", "administrative area"),
           ("(s)", "s"), ("per year", "annually"), ("languages spoken, written or signed",
                                                    "languages spoken"),
           ("twinned administrative body", "twin town"), ("located in or next to", "located near"))
PREPOSITIONS = ("in or next to", "in", "on", "at", "near", "next to", "within", "by")


def simplify(label: str) -> str:
    """Plainer English for a Wikidata label: no parenthetical, the first of "a / b"."""
    out = label
    for long, short in SIMPLER:
        out = out.replace(long, short)
    out = re.sub(r"\s*\([^)]*\)", "", out)
    out = out.split(" / ")[0]
    out = re.sub(r"^\w+ (\w+ed by)$", r"\1", out)  # "territory claimed by" -> "claimed by"
    return " ".join(out.split())


def lower_first(label: str) -> str:
    """Wikidata labels are lower case except proper names and acronyms: keep those."""
    if len(label) > 1 and label[0].isupper() and label[1].islower():
        first, _, rest = label.partition(" ")
        if first.lower() in COMMON_CAPITALISED:
            return first.lower() + (" " + rest if rest else "")
    return label


COMMON_CAPITALISED = {"date", "place", "number", "country", "time", "position", "award",
                      "member", "head", "official", "inception", "population", "area"}


def value_kind(datatype: str | None, label: str, human_share: float | None = None,
               count_unit: bool = False) -> str:
    """person, place, time, count, quantity or thing."""
    low = label.lower()
    if datatype == "time":
        return "time"
    if datatype == "quantity":
        return "count" if low.startswith("number of") or count_unit else "quantity"
    if human_share is not None and human_share >= 0.5:
        return "person"
    if human_share is None and PERSON_WORDS.search(low):
        return "person"
    if PLACE_WORDS.search(low):
        return "place"
    return "thing"


def wh(kind: str) -> str:
    return {"person": "who", "time": "when", "count": "how many"}.get(kind, "what")


def voice_patterns(label: str, kind: str) -> tuple[str, str, str]:
    """Three spoken questions (present tense) for a property, from the shape of its label."""
    label = simplify(label)
    w = "who" if kind == "person" else "what"
    m = re.fullmatch(r"located (in|on|at|near|next to|within) (the )?(.+)", label)
    if m:
        prep, noun = m.group(1), m.group(3)
        if prep == "near":
            return (f"which {noun} is {{S}} near?", f"what {noun} is {{S}} next to?",
                    f"which {noun} is {{S}} close to?")
        return (f"which {noun} is {{S}} located {prep}?", f"what {noun} is {{S}} {prep}?",
                f"{prep} which {noun} is {{S}} located?")
    m = re.fullmatch(r"(\w+ed|\w+en|made|built|held|led|won|sold|run) by", label)
    if m:
        part = m.group(1)
        if part in EVENT_PARTICIPLES or part in IRREGULAR_PAST:
            past = IRREGULAR_PAST.get(part, part)
            return (f"{w} {past} {{S:o}}?", f"{w} was {{S}} {part} by?",
                    f"do you know {w} {past} {{S:o}}?")
        present = _third_person(part)
        return (f"{w} is {{S}} {part} by?", f"{w} {present} {{S:o}}?" if present else
                f"do you know {w} {{S}} is {part} by?",
                f"by {'whom' if w == 'who' else 'what'} is {{S}} {part}?")
    m = re.fullmatch(r"(\w+ed|born|buried|known|based|situated) (at|in|after|on|from|to|for)",
                     label)
    if m:
        part, prep = m.groups()
        if prep in ("at", "in") and kind in ("place", "thing"):
            return (f"where was {{S}} {part}?", f"in which place was {{S}} {part}?",
                    f"do you know where {{S}} was {part}?")
        return (f"{w} is {{S}} {part} {prep}?",
                f"{prep} {'whom' if w == 'who' else 'what'} is {{S}} {part}?",
                f"do you know {w} {{S}} is {part} {prep}?")
    m = re.fullmatch(r"(member|part|capital|citizen|subsidiary|owner|head|parent|student|"
                     r"winner|instance|fan|founder|mascot|symbol|seat|twin town|sister city|"
                     r"home|residence) of(?: (.+))?", label)
    if m:
        role, what_of = m.groups()
        article = ROLE_ARTICLES.get(role, "the ")
        if what_of:
            return (f"which {what_of} is {{S}} {article}{role} of?",
                    f"what {what_of} is {{S}} {article}{role} of?",
                    f"do you know which {what_of} {{S}} is {article}{role} of?")
        return (f"{w} is {{S}} {article}{role} of?",
                f"of {'whom' if w == 'who' else 'what'} is {{S}} {article}{role}?",
                f"do you know {w} {{S}} is {article}{role} of?")
    m = re.fullmatch(r"(participant|competitor|candidate|contestant|player|partner) in", label)
    if m:  # "participant in" -> "What was X a participant in?"
        return (f"what is {{S}} a {m.group(1)} in?", f"which events is {{S}} a {m.group(1)} "
                f"in?", f"do you know what {{S}} is a {m.group(1)} in?")
    first, _, rest = label.partition(" ")
    m = re.fullmatch(r"(\w+) (to|on|for|with|from|in|at) (.+)", label)
    if m and m.group(1) in THIRD_PERSON:  # "applies to jurisdiction"
        verb, prep, noun = m.groups()
        return (f"which {noun} does {{S}} {THIRD_PERSON[verb]} {prep}?",
                f"what {noun} does {{S}} {THIRD_PERSON[verb]} {prep}?",
                f"do you know which {noun} {{S}} {verb} {prep}?")
    if first in THIRD_PERSON and not rest:  # "follows", "replaces"
        base = THIRD_PERSON[first]
        return (f"{w} does {{S}} {base}?", f"{w} exactly does {{S}} {base}?",
                f"do you know {w} {{S}} {first}?")
    if first in THIRD_PERSON and rest:
        base = THIRD_PERSON[first]
        m = re.fullmatch(r"(\w+) (with|to|for|on|at|from|about|in)", rest)
        if m:  # "shares border with" -> "share a border with"
            rest = f"a {m.group(1)} {m.group(2)}"
            return (f"{w} does {{S}} {base} {rest}?", f"{w} exactly does {{S}} {base} {rest}?",
                    f"do you know {w} {{S}} {first} {rest}?")
        return (f"which {rest} does {{S}} {base}?", f"what {rest} does {{S}} {base}?",
                f"do you know which {rest} {{S}} {first}?")
    m = re.fullmatch(r"([a-z][a-z -]*) (of|to|for|with|within|from)", label)
    if m:  # a relation noun: "exclave of" -> "what is X an exclave of?"
        article = "an " if m.group(1)[0] in "aeiou" else "a "
        return (f"{w} is {{S}} {article}{label}?", f"{w} exactly is {{S}} {article}{label}?",
                f"do you know {w} {{S}} is {article}{label}?")
    m = re.fullmatch(r"number of (.+)", label)
    if m:
        things = m.group(1)
        return (f"how many {things} does {{S}} have?", f"what number of {things} does {{S}} "
                f"have?", f"do you know how many {things} {{S}} has?")
    if kind == "time" and re.match(r"\w+ed\b", label):  # "dissolved, abolished or demolished"
        return (f"when was {{S}} {label}?", f"do you know when {{S}} was {label}?",
                f"in what year was {{S}} {label}?")
    if kind == "time":  # "what is X's inception?" reads badly: name the date instead
        return (f"what is the {label} of {{S:o}}?", f"what is {{S's}} {label}?",
                f"do you know the {label} of {{S:o}}?")
    return (f"{w} is {{S's}} {label}?", f"{w} is the {label} of {{S:o}}?",
            f"do you know the {label} of {{S:o}}?")


def past_patterns(present: tuple[str, str, str]) -> tuple[str, str, str]:
    """Three distinct past-tense questions from three present ones."""
    out = list(dict.fromkeys(to_past(p) for p in present))
    m = re.fullmatch(r"(who|what) was (?:the (.+) of \{S:o\}|\{S's\} (.+))\?", out[0])
    if m and len(out) < 3:  # "who was X's spouse?" -> "who did X have as spouse?"
        noun = m.group(2) or m.group(3)
        out.append(f"who did {{S}} have as {noun}?" if m.group(1) == "who"
                   else f"which {noun} did {{S}} have?")
    while len(out) < 3:
        out.append(out[-1].replace("?", ", do you know?", 1))
    return tuple(out[:3])


# Present tense of state verbs from their participle (regular spelling rules cannot tell
# "owned" from "operated"; unknown ones get the passive question only).
PRESENT_OF = {"owned": "owns", "operated": "operates", "followed": "follows",
              "maintained": "maintains", "replaced": "replaces", "represented": "represents",
              "sponsored": "sponsors", "employed": "employs", "influenced": "influences",
              "preceded": "precedes", "succeeded": "succeeds", "used": "uses",
              "managed": "manages", "controlled": "controls", "occupied": "occupies",
              "served": "serves", "supported": "supports", "funded": "funds",
              "administered": "administers", "governed": "governs", "led": "leads",
              "run": "runs", "hosted": "hosts", "coached": "coaches", "captained": "captains",
              "inhabited": "inhabits", "crossed": "crosses", "drained": "drains"}


def _third_person(participle: str) -> str | None:
    return PRESENT_OF.get(participle)


# What a label says that no question built from its shape can say: a choice ("discoverer or
# inventor", "dissolved, abolished or demolished"), a slash left after ``simplify``, or a
# participle phrase inside a noun ("organization directed by the office or position").
UNSAYABLE = re.compile(r" or |,|/|\b\w+ed by (the|a|an)\b")


def sayable(label: str) -> bool:
    """Whether a label can be turned into a question by its shape at all. An unsayable one
    read as a label pasted in ("what is the organization directed by the office or position
    of Abbot of Cluny?", P2389's label in the preferred-labels file): the rules writer
    writes nothing for it, and the fact is left out with its reason, unless the lexicon
    has curated words for it."""
    return not UNSAYABLE.search(simplify(label))


def is_noun(label: str) -> bool:
    """Whether a property label is a noun phrase ("spouse", "place of birth") rather than a
    verb or participle phrase ("directed by", "located in", "shares border with")."""
    label = simplify(label)
    first = label.split(" ")[0]
    if re.search(r" (of|to|for|with|within|from|in|on|at|by)$", label):
        return False  # "exclave of": a relation, not a thing ("what is X an exclave of?")
    return not (first in THIRD_PERSON or re.search(
        r"^located\b|\b\w+ed (by|at|in|on|to|for|after|from)$|^(member|part|capital|citizen|"
        r"subsidiary|student|fan|participant|competitor|candidate) (of|in)\b|"
        r"(made|built|held|led|won|run|born|buried|known|based) (by|in|at|on)$", label))


IRREGULAR_PAST = {"have": "had", "speak": "spoke", "win": "won", "run": "ran", "make": "made",
                  "lead": "led", "hold": "held", "build": "built", "do": "did", "go": "went",
                  "write": "wrote", "sing": "sang", "take": "took", "give": "gave",
                  "become": "became", "begin": "began", "bring": "brought", "buy": "bought",
                  "fight": "fought", "teach": "taught", "keep": "kept", "meet": "met"}


def past_verb(base: str) -> str:
    """The simple past of an English verb ("share" -> "shared", "carry" -> "carried")."""
    if base in IRREGULAR_PAST:
        return IRREGULAR_PAST[base]
    if base.endswith("e"):
        return base + "d"
    if re.search(r"[^aeiou]y$", base):
        return base[:-1] + "ied"
    return base + "ed"


ROLE_OR_PLACE = re.compile(r"(?:located (?:in|on|at|near)|(?:member|part|capital|citizen|"
                           r"subsidiary|student|fan|participant|competitor|candidate) "
                           r"(?:of|in)) (.+)")


def text_patterns(label: str, tense: str = "present", kind: str = "thing"
                  ) -> tuple[str, str, str]:
    """Three search-style queries: short, lower case, never starting with a wh-word (one
    may end with one, as typed queries do: "titanic directed by who")."""
    noun = is_noun(label)
    label = simplify(label)
    if noun:
        if tense == "past":
            return (f"{{S}} {label}", f"{label} of {{S:o}}", f"former {label} of {{S:o}}")
        return (f"{{S}} {label}", f"{label} of {{S:o}}", f"{{S's}} {label}")
    label = re.sub(r"^located (in|on|at|near) (the )?", r"located \1 ", label)
    wh = "who" if kind == "person" else "what"
    m = ROLE_OR_PLACE.fullmatch(label)
    if m:  # ends in a noun: "located in time zone" -> "time zone of Gera"
        if tense == "past":
            return (f"{{S}} {label}", f"{{S}} was {label}", f"former {m.group(1)} of {{S:o}}")
        return (f"{{S}} {label}", f"{m.group(1)} of {{S:o}}", f"{{S}} is {label}")
    m = re.fullmatch(r"(member|part|capital|citizen|subsidiary|student|fan|participant|"
                     r"competitor|candidate) (of|in)", label)
    if m:  # a bare role: "capital of" -> "Mannheim is the capital of what"
        article = "the " if m.group(1) == "capital" else ROLE_ARTICLES.get(m.group(1), "a ")
        said = f"{article}{label}"
        if tense == "past":
            return (f"{{S}} was {said}", f"{{S}} was {said} {wh}", f"{{S}} formerly {said}")
        return (f"{{S}} is {said}", f"{{S}} is {said} {wh}", f"{{S}} {label} {wh}")
    first, _, rest = label.partition(" ")
    if first in THIRD_PERSON:  # a verb: "shares border with"
        if tense == "past":
            said = f"{past_verb(THIRD_PERSON[first])} {rest}".strip()
            return (f"{{S}} {said}", f"{{S}} {said} {wh}", f"{{S}} formerly {said}")
        return (f"{{S}} {label}", f"{{S}} {label} {wh}", f"{{S}} {label}?")
    # a participle: "directed by", "educated at"
    if tense == "past":
        return (f"{{S}} {label}", f"{{S}} was {label}", f"{{S}} {label} {wh}")
    return (f"{{S}} {label}", f"{{S}} is {label}", f"{{S}} {label} {wh}")


def text_past(patterns: tuple[str, str, str], label: str,
              kind: str = "thing") -> tuple[str, str, str]:
    """Past-tense queries: no possessive of the subject (it reads as the present), and a
    curated query's "is" said "was" ("Bonn was the seat of what": West Germany)."""
    out = [_was(p) for p in patterns if "{S's}" not in p]
    if out:  # curated queries stay curated: fewer, never padded with label-shaped ones
        return tuple(out[:3])
    return text_patterns(label, "past", kind)


# -- qualifiers ----------------------------------------------------------------------------

def relation(label: str, kind: str) -> tuple[str, str] | None:
    """How to say that the subject has value [a] for a property, as (who, predicate) around
    the verb "to be": ("[a]", "the head of state of {S:o}"), ("{S}", "located in [a]").
    None for labels that are verbs of events (asked without a frame)."""
    label = simplify(label)
    m = re.fullmatch(r"located (in|on|at|near|next to|within)(?: .+)?", label)
    if m:
        return "{S}", f"located {m.group(1)} [a]"
    m = re.fullmatch(r"(\w+ed|\w+en|made|built|held|led|won|run) by", label)
    if m:
        return "{S}", f"{m.group(1)} by [a]"
    m = re.fullmatch(r"(\w+ed) (at|in|on|to|for|after|from)", label)
    if m:
        return "{S}", f"{m.group(1)} {m.group(2)} [a]"
    m = re.fullmatch(r"(member|part|capital|citizen|subsidiary|student|fan|participant|"
                     r"competitor|candidate) (?:of|in)(?: .+)?", label)
    if m:
        role = m.group(1)
        prep = "in" if role in ("participant", "competitor", "candidate") else "of"
        return "{S}", f"{ROLE_ARTICLES.get(role, 'a ')}{role} {prep} [a]"
    first = label.split(" ")[0]
    if first in THIRD_PERSON or label == "employer":
        return None
    m = re.fullmatch(r"([a-z][a-z -]*) (of|to|for|with|within|from)", label)
    if m:  # a relation noun: "{S} is an exclave of [a]", not "the exclave of of {S}"
        return "{S}", f"{'an' if label[0] in 'aeiou' else 'a'} {label} [a]"
    return "[a]", f"the {label} of {{S:o}}"


def qualifier_voice(prop_label: str, qualifier_id: str, qualifier_label: str,
                    kind: str, value_is_time_or_amount: bool) -> tuple[str, str, str] | None:
    """Questions about a detail of one statement; [a] is the statement's value."""
    label = simplify(prop_label)
    qlabel = simplify(qualifier_label)
    if value_is_time_or_amount:
        return (f"when was the {label} of {{S:o}} [a]?",
                f"in what year was the {label} of {{S:o}} [a]?",
                f"when did {{S}} have a {label} of [a]?")
    joins = re.fullmatch(r"member of(?: .+)?|employer|educated at", label)
    if joins and qualifier_id in ("P580", "P582"):
        verb, past = ("join", "joined") if qualifier_id == "P580" else ("leave", "left")
        return (f"when did {{S}} {verb} [a]?", f"in what year did {{S}} {verb} [a]?",
                f"do you know when {{S}} {past} [a]?")
    frame = relation(label, kind)
    if frame is None:  # a verb ("replaces"): no frame reads well; the fact is not asked
        return None
    subj, pred = frame
    if qualifier_id == "P580":
        if pred.startswith(("the ", "a ", "an ", "part ")):
            return (f"when did {subj} become {pred}?", f"in what year did {subj} become {pred}?",
                    f"since when has {subj} been {pred}?")
        return (f"since when has {subj} been {pred}?", f"when did {subj} start being {pred}?",
                f"from what year has {subj} been {pred}?")
    if qualifier_id == "P582":
        return (f"when did {subj} stop being {pred}?", f"in what year did {subj} stop being "
                f"{pred}?", f"when was {subj} no longer {pred}?")
    if qualifier_id == "P585":
        return (f"when was {subj} {pred}?", f"in what year was {subj} {pred}?",
                f"do you know when {subj} was {pred}?")
    w = "who" if kind == "person" else "what"
    return (f"{w} was the {qlabel} when {subj} was {pred}?",
            f"when {subj} was {pred}, {w} was the {qlabel}?",
            f"can you tell me the {qlabel} when {subj} was {pred}?")


def qualifier_text(prop_label: str, qualifier_id: str, qualifier_label: str
                   ) -> tuple[str, str, str] | None:
    """Search queries about a detail of one statement: the subject, the property and the
    value with the detail asked ("Lille mayor Martine Aubry since", "year Paris became
    capital of France"), never the detail's bare label glued on ("... start date" alone)."""
    label = simplify(prop_label)
    noun = is_noun(prop_label)
    if qualifier_id == "P580":
        if noun:
            return (f"{{S}} {label} [a] since", f"year [a] became {label} of {{S:o}}",
                    f"{{S}} [a] {label} start date")
        return (f"{{S}} {label} [a] since", "{S} [a] start date", f"{{S}} {label} [a] since when")
    if qualifier_id == "P582":
        if noun:
            return (f"{{S}} {label} [a] until", f"year [a] stopped being {label} of {{S:o}}",
                    f"{{S}} [a] {label} end date")
        return (f"{{S}} {label} [a] until", "{S} [a] end date", f"{{S}} {label} [a] until when")
    if qualifier_id == "P585":
        return (f"{{S}} {label} [a] year", f"{{S}} [a] {label} date",
                f"year of {{S}} {label} [a]")
    qlabel = simplify(qualifier_label)
    if re.fullmatch(r"of|for|in|to|by|at|on|with|from", qlabel):
        return None  # a bare preposition ("of") names nothing a query could ask for
    return (f"{{S}} [a] {qlabel}", f"{{S}} {label} [a] {qlabel}", f"{{S}} [a] {label} {qlabel}")


# -- tense ----------------------------------------------------------------------------------

def _was(pattern: str) -> str:
    """"is" said "was" and "are" "were"."""
    return re.sub(r"\bare\b", "were", re.sub(r"\bis\b", "was", pattern))


def to_past(pattern: str) -> str:
    """The past-tense form of a present question ("Who is {S's} spouse?" -> "Who was {S's}
    spouse?", "What posts has {S} served in?" -> "What posts did {S} serve in?"); questions
    about events come back unchanged."""
    out = _was(pattern)
    # "what borders {S:o}?", "who leads the government of {S:o}?", "which body makes {S's}
    # laws?": the verb after the question word (of a state long gone, "Which body makes its
    # laws?" was a reader's find)
    out = re.sub(r"^(who or what|who|what|which \w+) (\w+) "
                 r"(?=\{S:o\}|\[him\]|\{S's\}|\[his\]|the |up )",
                 lambda m: f"{m.group(1)} {_PAST_OF[m.group(2)]} "
                 if m.group(2) in _PAST_OF else m.group(0), out)
    out = re.sub(r"\bdoes (\{S\}|\[he\])", r"did \1", out)
    out = re.sub(r"\bdo (\{S\}|\[he\])", r"did \1", out)
    # "who has led ...?" -> "who led ...?" (participles that are also the simple past)
    out = re.sub(r"^(who|what) has (\w+ed|led|held|won|built|made|owned)\b", r"\1 \2", out)
    # "who has she been married to?" -> "who was she married to?"; "what posts has he
    # served in?" -> "what posts did he serve in?" (of the dead, never "has he worked")
    out = re.sub(r"\bhas (\{S\}|\[he\]) been\b", r"was \1", out)
    out = re.sub(r"\bhas (\{S\}|\[he\]) (\w+)\b",
                 lambda m: f"did {m.group(1)} {_BASE_OF[m.group(2)]}"
                 if m.group(2) in _BASE_OF else m.group(0), out)
    out = re.sub(r"^(who|what) has been\b", r"\1 was", out)
    out = re.sub(r"^(who|which \w+) has (a|\{S:o\})\b", r"\1 had \2", out)
    out = re.sub(r"\b(do|does) (people|they|the name of \{S:o\}|\{S's\} \w+)\b",
                 r"did \2", out)
    out = re.sub(r"\bpeople live\b", "people lived", out)
    out = re.sub(r"(\{S\}|\[he\]) has\b", r"\1 had", out)
    out = re.sub(r"(\{S\}|\[he\]) (\w+?)(e?s)( |\?|,)",
                 lambda m: f"{m.group(1)} {_PAST_OF[m.group(2) + m.group(3)]}{m.group(4)}"
                 if m.group(2) + m.group(3) in _PAST_OF else m.group(0), out)
    return out


# Participles after "has {S}" in the lexicon, and the base form "did {S}" takes.
_BASE_OF = {"received": "receive", "held": "hold", "served": "serve", "worked": "work",
            "played": "play", "lived": "live", "had": "have", "partnered": "partner",
            "used": "use", "won": "win", "made": "make", "written": "write",
            "directed": "direct", "produced": "produce", "studied": "study",
            "taught": "teach", "owned": "own", "led": "lead", "visited": "visit"}

# Third-person verbs of the phrasing rules and the lexicon, and their past.
_PAST_OF = {"contains": "contained", "shares": "shared", "owns": "owned", "uses": "used",
            "includes": "included", "operates": "operated", "follows": "followed",
            "replaces": "replaced", "encodes": "encoded", "depicts": "depicted",
            "represents": "represented", "produces": "produced", "publishes": "published",
            "plays": "played", "regulates": "regulated", "borders": "bordered",
            "affects": "affected", "connects": "connected", "crosses": "crossed",
            "drains": "drained", "serves": "served", "speaks": "spoke",
            "supports": "supported", "signs": "signed", "practices": "practised",
            "holds": "held", "belongs": "belonged", "lives": "lived", "consists": "consisted",
            "maintains": "maintained", "sponsors": "sponsored", "employs": "employed",
            "influences": "influenced", "precedes": "preceded", "succeeds": "succeeded",
            "manages": "managed", "controls": "controlled", "occupies": "occupied",
            "funds": "funded", "administers": "administered", "governs": "governed",
            "leads": "led", "runs": "ran", "hosts": "hosted", "coaches": "coached",
            "captains": "captained", "inhabits": "inhabited", "applies": "applied",
            "refers": "referred", "flows": "flowed", "links": "linked", "competes": "competed",
            "makes": "made", "heads": "headed", "forms": "formed", "claims": "claimed",
            # after a plural ("which areas make up ...", "which countries claim ...")
            "make": "made", "claim": "claimed", "border": "bordered",
            "represent": "represented", "protects": "protected", "protect": "protected"}


# -- disfluencies ---------------------------------------------------------------------------

FILLERS = ("um", "uh", "hmm", "er", "uhm")
_FUNCTION_WORDS = {"or", "and", "of", "the", "a", "an", "in", "on", "at", "to", "for", "by",
                   "with", "from"}
_AUXILIARIES = {"does", "did", "do", "is", "was", "are", "were", "has", "have", "had", "can",
                "could", "will", "would"}
OPENERS = ("Um", "Uh", "Hmm", "Er", "Well, um", "So, uh", "Okay, um", "Uh, so", "Oh, um")
REPAIRS = ("sorry, I mean", "no, I mean", "sorry,", "I mean,", "no wait,", "uh, I mean")
CLOSERS = (" Thanks.", " Thank you.", " Thanks!")


def disfluent(question: str, rng: random.Random, alternatives: list[str] = ()) -> str:
    """One spoken question as people say it: a filler, a restart, or (where another real
    question of the same kind starts differently) a repaired start; at most one repair,
    and now and then thanks. ``alternatives`` are other questions that
    could have been asked instead (their first words make a believable false start)."""
    # a placeholder of several words ("[big city]") is one word here: nothing goes inside
    words = re.findall(r"\[[^\]]*\]\S*|\S+", question)
    if len(words) < 3:
        return f"{rng.choice(OPENERS)}, {_lc(question)}"
    starts = [a for a in alternatives if a.split(" ")[0].lower() != words[0].lower()
              and a.split(" ")[0].lower() in ("who", "what", "when", "where", "which", "how")
              and len(a.split(" ")) >= 3]
    kind = rng.randrange(5 if starts else 4)
    filler = rng.choice(FILLERS)
    if kind == 0:
        out = f"{rng.choice(OPENERS)}, {_lc(question)}"
    elif kind == 1:
        cut = 1 if len(words) < 5 or words[1].lower() in _FUNCTION_WORDS or \
            words[1].startswith("[") else rng.choice((1, 2))
        if words[0].lower() == "how" and len(words) >= 4 and not words[1].startswith("[") \
                and words[1].lower() not in _AUXILIARIES:
            cut = 2  # "How many, er, people ...?", never "How, er, many people ...?"
        elif cut == 2 and words[1].lower() in _AUXILIARIES:
            cut = 1  # "What, um, does he ...?", never "What does, um, he ...?"
        out = " ".join(words[:cut]) + f", {filler}, " + " ".join(words[cut:])
    elif kind == 2:
        cut = 2 if len(words) >= 5 and words[1].lower() not in _FUNCTION_WORDS and \
            not words[1].startswith("[") else 1  # never repeat the subject
        head = " ".join(words[:cut])
        out = f"{head}, {_lc(head)} " + " ".join(words[cut:])
    elif kind == 3:
        out = f"{words[0]}, {filler}, {_lc(words[0])} " + " ".join(words[1:])
    else:
        wrong = rng.choice(starts).split(" ")
        head = " ".join(wrong[:2]).rstrip("?,")
        out = f"{_uc(head)}, {rng.choice(REPAIRS)} {_lc(question)}"
    if rng.random() < 0.1:  # an apology where nothing went wrong read as a tic (a
        # reader, issue #33): now and then thanks, never "Sorry," before a plain question
        out = out + rng.choice(CLOSERS)
    return _uc(out)


def _lc(text: str) -> str:
    if text[:2] == "I " or text.startswith("{") or text.startswith("["):
        return text
    return text[:1].lower() + text[1:]


def _uc(text: str) -> str:
    return text[:1].upper() + text[1:] if not text.startswith(("{", "[")) else text
