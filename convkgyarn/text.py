"""Shared vocabulary of templates: placeholders, references, wh-words, fillers, stop words."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

PLACEHOLDER = re.compile(r"\[([^\[\]]+)\]")
OBJECT_LETTERS = ("a", "b")  # [a]: the fact's value; [b]: a qualifier's value
REFERENCES = ("he", "him", "his")  # deixis placeholders, filled by gender or type
WH_WORDS = ("who", "whom", "whose", "what", "when", "where", "which", "why", "how")
TEXT_FORBIDDEN_STARTS = ("who", "whom", "what", "when", "which", "how")
FILLERS = ("uh", "um", "er", "erm", "hmm", "uhm", "well", "like", "you know", "i mean",
           "sorry", "wait", "no wait", "actually", "thanks", "thank you", "oh", "let me think",
           "hold on", "scratch that", "let me rephrase")
STOP_WORDS = frozenset("""
a an the of in on at to for from by with and or but is are was were be been being do does did
has have had i me my you your he him his she her it its they them their this that these those
who whom whose what when where which why how not no yes as if than then so too very can could
will would shall should may might must about into over under up down out off again also just
there here all any both each few more most other some such only own same s t don now
""".split())


def placeholders(text: str) -> list[str]:
    return PLACEHOLDER.findall(text)


def starts_with_wh(text: str) -> bool:
    first = re.match(r"\W*([A-Za-z']+)", text)
    return bool(first) and first.group(1).lower() in TEXT_FORBIDDEN_STARTS


def has_filler(text: str) -> bool:
    low = " " + re.sub(r"[^\w' ]", " ", text.lower()) + " "
    return any(f" {f} " in low for f in FILLERS)


def has_repetition(text: str) -> bool:
    """A restart: the same one to three words said twice in a row ("when, when was",
    "what was, what was")."""
    words = re.findall(r"[\w']+", text.lower())
    return any(words[i:i + n] == words[i + n:i + 2 * n]
               for n in (1, 2, 3) for i in range(len(words) - 2 * n + 1))


def literal(label: str | None) -> str:
    """KG text used as literal template text: it can never form a placeholder."""
    return " ".join((label or "").replace("[", "(").replace("]", ")").split())


RESERVED_PLACEHOLDERS = frozenset((*OBJECT_LETTERS, *REFERENCES))


def subject_placeholder(type_label: str) -> str:
    """``[actor]``: the type label in brackets, made safe (no brackets inside, never a
    reserved placeholder such as [a] or [he])."""
    name = " ".join(type_label.replace("[", " ").replace("]", " ").split()).lower()
    if not name or name in RESERVED_PLACEHOLDERS:
        name = f"{name} entity".strip()
    return f"[{name}]"


@dataclass(frozen=True)
class Fact:
    """One template slot: a predicate (optionally with a qualifier) of a type."""

    type_id: str
    type_label: str
    property_id: str
    property_label: str
    datatype: str | None
    qualifier_id: str | None = None
    qualifier_label: str | None = None
    value_kind: str = "thing"  # person, place, time, count, quantity or thing
    tense: str = "present"  # present or past

    @property
    def subject(self) -> str:
        return subject_placeholder(self.type_label)

    @property
    def subject_name(self) -> str:
        return self.subject[1:-1]

    @property
    def answer(self) -> str:
        return "[b]" if self.qualifier_id else "[a]"


# How common a string must be in a language (wordfreq's Zipf scale: 3 is once per million
# words) to count as a real word. A typo that makes a real word ("seat" -> "sea", "country"
# -> "county") changes what the query asks, so it is never made; common misspellings above
# the line ("teh") are left out too, which costs nothing.
REAL_WORD_ZIPF = 2.5


# A word this frequent is heard as the word, not as a name: "Where was Born buried?" (Max
# Born), "When did May die?" (a critique of our voice conversations, issue #33); Smith
# (4.9), Jackson (4.6) and Putin (4.1) are heard as names.
COMMON_WORD_ZIPF = 5.0


@lru_cache(maxsize=1 << 16)
def zipf(word: str, lang: str = "en") -> float:
    """How common ``word`` is in ``lang`` (wordfreq's Zipf scale: 0 unknown, 7 "the")."""
    import wordfreq

    return wordfreq.zipf_frequency(word, lang)


def common_word(word: str, lang: str = "en") -> bool:
    """Whether ``word``, lowercased, is one of the commonest words of ``lang``
    (``COMMON_WORD_ZIPF``)."""
    return zipf(word.lower(), lang) >= COMMON_WORD_ZIPF


def real_word(word: str, lang: str = "en") -> bool:
    """Whether ``word`` is a word of ``lang`` in its own right (``REAL_WORD_ZIPF``)."""
    return zipf(word, lang) >= REAL_WORD_ZIPF
