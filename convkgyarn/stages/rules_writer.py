"""The built-in rules writer: templates from a curated lexicon of common properties, and
grammatical fallbacks built from a property's label for the rest.

Patterns name the subject with ``{S}`` (subject position), ``{S's}`` (possessive) and
``{S:o}`` (object position); see ``convkgyarn.stages.lexicon``.
"""

from __future__ import annotations

import re

from convkgyarn.stages import lexicon
from convkgyarn.text import Fact, literal


def render_pattern(pattern: str, subject: str, deixis: bool, interaction: str = "voice") -> str:
    """Turn a lexicon pattern into a template: ``{S}`` and friends become placeholders."""
    if deixis:
        if interaction == "text":
            # search style: "birth date of {S:o}" -> "[his] birth date"; "{S} spouse" -> "[his] spouse"
            m = re.fullmatch(r"(.+) of \{S:o\}", pattern)
            if m:
                pattern = "{S's} " + m.group(1)
            if pattern.startswith("{S} "):
                pattern = "{S's} " + pattern[4:]
        return (pattern.replace("{S's}", "[his]").replace("{S:o}", "[him]")
                .replace("{S}", "[he]"))
    return (pattern.replace("{S's}", f"{subject}'s").replace("{S:o}", subject)
            .replace("{S}", subject))


_DISFLUENCIES = (
    # filler at the start and after the question word
    lambda w, rest: f"um, {w}, uh, {rest}",
    # a repetition with a filler
    lambda w, rest: f"{w}, uh, {w} {rest}",
    # a take-back, an apology and thanks
    lambda w, rest: f"{'where' if w != 'where' else 'when'}, sorry, I mean {w} {rest} thanks",
)


def disfluent(question: str, variant: int) -> str:
    """A spoken question with fillers, a repetition or a repair (deterministic per variant)."""
    words = question.split(" ", 1)
    first, rest = words[0], words[1] if len(words) > 1 else ""
    return _DISFLUENCIES[variant % len(_DISFLUENCIES)](first, rest).strip()


class RulesWriter:
    """Deterministic templates: curated lexicon first, grammatical fallbacks from the label."""

    def write(self, fact: Fact, interaction: str) -> dict[str, list[str]]:
        patterns = self._patterns(fact, interaction)
        out: dict[str, list[str]] = {}
        originals = [render_pattern(p, fact.subject, False, interaction) for p in patterns]
        deixis = [render_pattern(p, fact.subject, True, interaction) for p in patterns]
        out["original"], out["deixis"] = originals, deixis
        if interaction == "voice":
            out["disfluencies"] = [disfluent(q, i) for i, q in enumerate(originals)]
            out["deixis_disfluencies"] = [disfluent(q, i) for i, q in enumerate(deixis)]
        return out

    def _patterns(self, fact: Fact, interaction: str) -> tuple[str, str, str]:
        label = literal(fact.property_label).lower()
        if fact.qualifier_id:
            key = (fact.property_id, fact.qualifier_id)
            table = lexicon.VOICE_QUALIFIED if interaction == "voice" else lexicon.TEXT_QUALIFIED
            if key in table:
                return table[key]
            qlabel = literal(fact.qualifier_label or fact.qualifier_id).lower()
            if interaction == "text":
                return (f"{{S}} [a] {qlabel}", f"{qlabel} of {{S}} {label} [a]",
                        f"[a] {label} {{S}} {qlabel}")
            if fact.qualifier_id == "P580":
                return (f"when did [a] start as {{S's}} {label}?",
                        f"since when has [a] been {{S's}} {label}?",
                        f"from what date was [a] {{S's}} {label}?")
            if fact.qualifier_id == "P582":
                return (f"when did [a] stop being {{S's}} {label}?",
                        f"until when was [a] {{S's}} {label}?",
                        f"at what date did [a] end as {{S's}} {label}?")
            if fact.qualifier_id == "P585":
                return (f"when was [a] {{S's}} {label}?",
                        f"at what time was [a] {{S's}} {label}?",
                        f"in what year was [a] {{S's}} {label}?")
            return (f"what was the {qlabel} for {{S's}} {label} [a]?",
                    f"for {{S's}} {label} [a], what was the {qlabel}?",
                    f"can you tell me the {qlabel} of {{S's}} {label} [a]?")
        table = lexicon.VOICE if interaction == "voice" else lexicon.TEXT
        if fact.property_id in table:
            return table[fact.property_id]
        if interaction == "text":
            return (f"{{S}} {label}", f"{label} of {{S:o}}", f"{{S's}} {label}")
        if fact.datatype == "time":
            return (f"what is {{S's}} {label}?", f"when is the {label} of {{S:o}}?",
                    f"can you tell me the {label} of {{S:o}}?")
        if fact.datatype == "quantity":
            return (f"what is {{S's}} {label}?", f"how much is the {label} of {{S:o}}?",
                    f"can you tell me the {label} of {{S:o}}?")
        return (f"what is {{S's}} {label}?", f"can you tell me the {label} of {{S:o}}?",
                f"do you know {{S's}} {label}?")


