"""English through the same interface where that is cheap: values (``kg.render``), lists,
references and ``[he]``-style placeholders. English templates stay with the rules writer
(``stages.rules_writer``, a layer above this package) and its lexicon; ``templates``
returns None here so that no caller takes this adapter for the English writer. So do the
follow-ups (``follow_ups`` is empty): their English forms are ``stages.kinds``, which this
layer may not import; ``yes_no`` is the planner's "yes"/"no"."""

from __future__ import annotations

import random
import re

from convkgyarn.kg.render import Value, render, unsayable
from convkgyarn.languages.base import Edit, Language, Segment, Subject
from convkgyarn.languages.values import Calendar

PRONOUNS = {"m": ("he", "him", "his"), "f": ("she", "her", "her")}


class English(Language):
    code = "en"
    name = "English"
    calendar = Calendar("en", year="{n}", decade="{n}s", century="{n}th century",
                        millennium="{n}th millennium", day="{d} {month} {y}",
                        month="{month} {y}")
    transitions = ("Okay, ", "Alright, ", "And ")
    fillers = ("uh", "um", "well")
    year_words = re.compile(r"\byears?\b", re.I)
    answer_kind_words = ((re.compile(r"\b(city|cities|town|towns)\b", re.I), "settlement"),
                         (re.compile(r"\b(company|companies)\b", re.I), "company"),
                         (re.compile(r"\bregions?\b", re.I), "region"))

    def render(self, value: Value, label: str | None = None, *,
               year_only: bool = False) -> str | None:
        """Today's English rendering (``kg.render``), None where it cannot be said."""
        if unsayable(value) is not None:
            return None
        if value.kind == "item":
            return label.strip() if label and label.strip() else None
        if value.kind == "quantity" and value.unit_id and not (label or value.unit_label):
            return None
        if value.kind == "quantity" and label:
            value = Value(value.value_type, value.label, None, None, value.unit_id, label)
        return render(value, "what year" if year_only else "")

    def default_reference(self, subject: Subject) -> str | None:
        return "pronoun"

    def slot(self, name: str, subject: Subject, reference: str | None,
             value: Subject | None) -> list[Segment]:
        if name in ("he", "him", "his"):
            i = ("he", "him", "his").index(name)
            if subject.human:
                forms = PRONOUNS.get(subject.sex or "", ("this person", "this person", "their"))
            else:
                forms = ("it", "it", "its")
            return [(forms[i], False)] if reference else [
                (subject.label + ("'s" if name == "his" else ""), True)]
        if name in ("a", "b"):
            if value is None:
                raise ValueError("this template names the statement's value ([a]): give value=")
            return [(value.label, True)]
        return [(subject.label, True)]  # [type]: the subject's name

    def capitalise(self, text: str) -> str:
        return text[:1].upper() + text[1:] if text.endswith("?") else text

    def phrased(self) -> frozenset[str]:
        return frozenset()

    def yes_no(self, answer: bool) -> str:
        return "yes" if answer else "no"

    def templates(self, *args, **kwargs):
        return None

    def typo(self, text: str, rng: random.Random, protected=()) -> tuple[str, Edit | None]:
        raise NotImplementedError("English typos are stages.typos (QWERTY, nlpaug)")
