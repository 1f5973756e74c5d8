"""Whether a template written for a language is usable (``Language.validate``): the checks
an LLM's templates pass before they are stored, the language's rules templates too.

A template may hold only its language's placeholders (``Language.slot_of`` says what
each stands for), in the forms its interaction takes (keyword forms only in typed
queries); never the answer (``[a]`` is the answer of a fact without a qualifier, ``[b]``
of any); the subject in an original question (for a qualifier question the statement's
value may stand in for it), a form that can refer back in a deixis question, the subject
only as an owner in an elliptic one; a filler, a repair or a restart in a disfluent one;
the language's own script; and it must fill without error, named and as every reference.
English keeps its own checks (``stages.templates.validate``): the ban on typed queries
that start with a wh-word is English's alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from convkgyarn.languages.base import Language

PLACEHOLDER = re.compile(r"\[([^\[\]]+)\]")
PHENOMENA = {"voice": ("original", "deixis", "disfluencies", "deixis_disfluencies",
                       "ellipsis"),
             "text": ("original", "deixis", "ellipsis")}
KANA = re.compile(r"[\u3040-\u30ff]")
HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff]")
CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff\u3400-\u4dbf\uac00-\ud7af]")
# what a template is filled with to try it: a person, a thing, a statement's value
PROBES = {"de": ("Xaver Yilmaz", "Schweiz", "Zora"), "ja": ("ザビエル", "スイス", "ゾラ"),
          "zh": ("萨维尔", "瑞士", "佐拉")}
# punctuation a spoken restart may put between the words it repeats
PAUSES = re.compile(r"[\s、，,。…・—–-]+")


@dataclass(frozen=True)
class Slot:
    """What one placeholder stands for: ``who`` is "S" (the subject) or "a" (the
    statement's value); ``typed``: a keyword form, for typed queries only; ``reference``:
    it can be filled as a reference (a pronoun, a noun, left out); ``owner``: the subject
    as the owner of a noun ("die Hauptstadt der Schweiz", "スイスの", "瑞士的")."""

    who: str
    typed: bool = False
    reference: bool = True
    owner: bool = False


def placeholder_names(template: str) -> list[str]:
    return PLACEHOLDER.findall(template)


def said_words(template: str) -> str:
    """The words a template says itself: its own, and the particles its placeholders
    carry ("の" of "[S:の]", "的" of "[S的]"), without the placeholders' ASCII names."""
    return PLACEHOLDER.sub(lambda m: " " + re.sub(r"[\x00-\x7f]", "", m.group(1)) + " ",
                           template)


def outside(template: str) -> str:
    """The template's own words: the placeholders taken out."""
    return PLACEHOLDER.sub(" ", template)


def has_repetition(text: str, spaced: bool) -> bool:
    """A restart: the same words said twice in a row ("wann, wann wurde", "首都は、首都は")."""
    if spaced:
        words = re.findall(r"[\w\[\]:.'’]+", text.lower())
        return any(words[i:i + n] == words[i + n:i + 2 * n]
                   for n in (1, 2, 3) for i in range(len(words) - 2 * n + 1))
    return re.search(r"(.{2,8})\1", PAUSES.sub("", text)) is not None


def has_marker(text: str, markers: tuple[str, ...], spaced: bool) -> bool:
    """A filler or a repair marker ("ähm", "ich meine"; "えっと", "あ、いや"; "嗯", "不对")."""
    if spaced:
        low = " " + re.sub(r"[^\w ]", " ", text.lower()) + " "
        return any(f" {m} " in low for m in markers)
    return any(m in text for m in markers)


def validate(lang: "Language", template: str, phenomenon: str, interaction: str,
             qualified: bool) -> str | None:
    """Why ``template`` cannot be stored for ``lang``, or None when it is fine."""
    from convkgyarn.languages.base import Subject

    if not isinstance(template, str) or not template.strip():
        return "empty template"
    if phenomenon not in PHENOMENA.get(interaction, ()):
        return f"no phenomenon {phenomenon!r} for {interaction} questions"
    if "{" in template or "}" in template:
        return "a {present|past} alternation: write the tense the fact asks for"
    if "[" in outside(template) or "]" in outside(template):
        return "an unbalanced bracket"
    names = placeholder_names(template)
    if any(n == "b" or n.startswith("b:") for n in names):
        return "the answer placeholder [b] appears in the question"
    slots: list[tuple[str, object]] = []
    unknown = []
    for name in names:
        slot = lang.slot_of(name)
        if slot is None:
            unknown.append(name)
        elif slot.who == "a" and not qualified:
            return (f"the answer placeholder [{name}] appears in the question (a fact "
                    "without a qualifier asks for its value)")
        else:
            slots.append((name, slot))
    if unknown:
        listed = ", ".join(f"[{u}]" for u in dict.fromkeys(unknown))
        return f"not a {lang.english_name} placeholder: {listed} (use {lang.placeholder_help})"
    for name, slot in slots:
        if slot.typed and interaction != "text":
            return f"[{name}] is for typed queries only"
    subject = [(n, s) for n, s in slots if s.who == "S"]
    value = any(s.who == "a" for _, s in slots)
    if phenomenon in ("original", "disfluencies"):
        if not subject and not (qualified and value):
            return "the subject placeholder is missing"
    elif phenomenon.startswith("deixis"):
        fixed = [n for n, s in subject if not s.reference]
        if fixed:
            return (f"[{fixed[0]}] cannot refer back to the subject in a deixis variant "
                    f"(use {lang.reference_help})")
        # a typed follow-up may leave the subject out where the language does, and about
        # the statement just asked in any language ("Einwohnerzahl Stand")
        if not subject and not (qualified and value) and not (
                interaction == "text" and (lang.leaves_out_subjects or qualified)):
            return "a deixis variant has no subject placeholder to refer back with"
    elif phenomenon == "ellipsis":
        named = [n for n, s in subject if not s.owner]
        if named:
            return (f"an ellipsis variant names the subject with [{named[0]}] (leave it out, "
                    f"or use {lang.owner_help})")
        size, most = lang.ellipsis_size(template), lang.ellipsis_max[interaction]
        if size > most:
            return f"an ellipsis variant is longer than {most} {lang.ellipsis_unit}"
    if phenomenon.endswith("disfluencies") and not lang.is_disfluent(template):
        return "a disfluency variant has no filler, repetition or repair"
    script = lang.script_problem(template, interaction)
    if script:
        return script
    names = PROBES.get(lang.code, PROBES["de"])
    probes = (Subject(names[0], human=True, gender="Q6581097", kind="person"),
              Subject(names[1], kind="country", type_label="sovereign state"))
    value = Subject(names[2]) if qualified else None
    for probe in probes:  # a person and a thing, named and as every reference
        for reference in (None, "pronoun", "noun", "zero"):
            try:
                filled = lang.fill(template, probe, reference, value)
            except (ValueError, KeyError, IndexError, AttributeError) as exc:
                return f"cannot be filled: {exc}"
            if "[" in filled.text or "]" in filled.text:
                return "a placeholder is left unfilled"
    return None
