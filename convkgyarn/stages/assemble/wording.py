"""How assembly words what templates leave open: a subject's name in a question, pronouns
and "this city"-style references, articles before values, transitions between subjects.

All English choices of assembly (as opposed to the templates' own wording) are here, so a
change to how conversations read starts in this module.
"""

from __future__ import annotations

import re
from functools import lru_cache

from convkgyarn.stages.lexicon import THING_REFERENCES

# P21 values: male, female, trans man, trans woman
GENDER = {"Q6581097": ("he", "him", "his"), "Q6581072": ("she", "her", "her"),
          "Q2449503": ("he", "him", "his"), "Q1052281": ("she", "her", "her")}
UNKNOWN_PERSON = ("this person", "this person", "their")
TRANSITIONS = ("Okay, and ", "Alright, now ", "And ")

DEFINITE_NAMES = re.compile(
    r"^(United (States|Kingdom|Arab Emirates)|Netherlands|Philippines|Bahamas|Gambia|Maldives|"
    r"Comoros|Seychelles|Marshall Islands|Solomon Islands|Holy See|Soviet Union|"
    r"European Union|(Czech|Dominican|Central African) Republic|(Democratic )?Republic of|"
    r"People's Republic|Kingdom of|Federal Republic|Russian Federation)\b")
ROLE_NOUNS = re.compile(r"^(member|deputy|representative|senator|judge|justice|officer|"
                        r"delegate|minister|ambassador|councillor|trustee|fellow|professor)\b")


def pronoun(gender: str | None) -> str | None:
    """"he" or "she" for a known gender, else None."""
    return GENDER.get(gender, (None,))[0]


def named(label: str, human: bool) -> str:
    """A subject's name in a spoken question: a few country names take "the" ("the United
    States of America", "the Netherlands"); search queries leave it out."""
    return f"the {label}" if not human and DEFINITE_NAMES.match(label) else label


@lru_cache(maxsize=1 << 16)
def awkward_possessive(label: str) -> bool:
    """Long names, or names with commas or brackets, read badly as "X's": use "of X"."""
    return len(label.split()) >= 4 or any(c in label for c in ",()")


def with_article(label: str, before: str, person: bool) -> str:
    """A value in running text: a common noun ("euro", "mayor of Paris") takes "the", a role
    one of many ("member of the Bundestag") "a"; a proper name none; never "the the"."""
    if person or not label:
        return label
    if re.search(r"\b(the|a|an)$", before.rstrip(), re.I):
        return label[4:] if label.lower().startswith("the ") else label
    if label[0].islower() and not label[:2].isupper() and not label.lower().startswith("the "):
        return ("a " if ROLE_NOUNS.match(label) else "the ") + label
    return label


def references(human: bool, gender: str | None, type_label: str | None,
               tense: str) -> tuple[str, str, str]:
    """What fills ``[he]``, ``[him]``, ``[his]``: a pronoun for a person of known gender
    ("this person" / "their" otherwise), "this film"-style phrases for things, "it"."""
    if human:  # a gender on a non-human (real data has some) is no pronoun
        return GENDER.get(gender, UNKNOWN_PERSON)
    label = type_label or ""
    phrase = THING_REFERENCES.get(label) or (f"this {label}" if label and
                                             len(label.split()) <= 2 else None)
    if phrase and tense == "present":
        return (phrase, phrase, phrase + "'s")
    if phrase:  # "this city's" reads as the present: "its" for what has ended
        return (phrase, phrase, "its")
    return ("it", "it", "its")


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
