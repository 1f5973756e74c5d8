"""The built-in rules writer: templates from a curated lexicon of common properties, and
English built from a property's label and the kind of its values for the rest
(``convkgyarn.stages.phrasing``), in the present and the past tense.

Patterns name the subject with ``{S}`` (subject position), ``{S's}`` (possessive) and
``{S:o}`` (object position); see ``convkgyarn.stages.lexicon``.
"""

from __future__ import annotations

import hashlib
import random
import re

from convkgyarn.stages import lexicon, phrasing
from convkgyarn.stages.salience import broad_kind
from convkgyarn.text import Fact, literal


def rules_hash() -> str:
    """A hash of the rules writer's code (its import closure: lexicon, phrasing, salience and
    whatever they import): templates it wrote are written again when it changes."""
    from convkgyarn.runtime import module_code_hash

    return module_code_hash(__name__)


_ENDS_IN_PREPOSITION = re.compile(r" (of|to|with|after|by|into|from|in|on|at)$")


def _verb_follows(rest: str) -> bool:
    """Whether the subject is followed by its verb ("founded", "was born in", "shares"),
    not by a noun it modifies ("population", "[a] start date")."""
    word = rest.split(" ")[0]
    return (word in IRREGULAR_VERBS or word in phrasing.THIRD_PERSON
            or re.fullmatch(r"[a-z]+ed", word) is not None)


# Words after a query's subject that make it the subject of a verb, not an owner: verbs
# that do not end in -ed ("[he] took office as [a]"), and "and" ("[he] and [a] split when")
IRREGULAR_VERBS = frozenset({"was", "is", "has", "had", "born", "died", "won", "became", "left",
                             "took", "began", "got", "held", "lost", "went", "came", "split",
                             "broke", "made", "ran", "stopped", "and"})


def _possessive_of(match: re.Match) -> str:
    """ "became head of state of {S:o}" -> "became {S's} head of state": the verbs before
    the noun stay before the possessive ("year [a] stopped being [his] capital", never
    "year [a] [his] stopped being capital")."""
    words = match.group(1).split(" ")
    verbs = 0
    while verbs < len(words) and (_verb_follows(words[verbs]) or words[verbs] == "being"):
        verbs += 1
    return " ".join([*words[:verbs], "{S's}", *words[verbs:]])


def ellipsis_noun(fact: Fact) -> str | None:
    """The noun a follow-up can ask with alone: curated, or a short noun-phrase label that
    is not a participle ("award received")."""
    if fact.property_id in lexicon.ELLIPSIS_NOUNS:
        return lexicon.ELLIPSIS_NOUNS[fact.property_id]
    label = literal(fact.property_label)
    if not label or len(label.split()) > 3 or not phrasing.is_noun(label) or \
            re.search(r"(ed|ing)$", label.split()[-1]) or not re.fullmatch(r"[a-z][a-z -]*", label):
        return None
    return label


def render_pattern(pattern: str, subject: str, deixis: bool, interaction: str = "voice",
                   noun: bool = True) -> str:
    """Turn a lexicon pattern into a template: ``{S}`` and friends become placeholders.

    Deixis: "the spouse of {S:o}" becomes "[his] spouse" (never "of him"); search queries
    about a noun take the possessive ("[his] spouse"), about a verb the subject ("[he]
    named after")."""
    if deixis:
        if interaction == "text":
            m = re.fullmatch(r"(former )?([A-Za-z][A-Za-z ,'-]*) of \{S:o\}", pattern)
            if m and not _verb_follows(m.group(2)):  # "former spouse of {S:o}" ->
                pattern = "{S's} " + (m.group(1) or "") + m.group(2)  # "[his] former spouse"
            elif m:
                pattern = "{S} " + m.group(2)
            if pattern.startswith("{S} [a] "):  # "[his] [a] start date", "[he] [a] nominated when"
                if not _verb_follows(pattern[8:]):
                    pattern = "{S's} " + pattern[4:]
            elif pattern.startswith("{S} ") and noun and not _verb_follows(pattern[4:]) \
                    and not _ENDS_IN_PREPOSITION.search(pattern) \
                    and not re.match(r"\{S\} [a-z]+ of \[a\]", pattern):
                # "[he] part of", "[he] citizen of [a] since" (what it is, not what it has)
                pattern = "{S's} " + pattern[4:]
            # "date of {S} population figure" -> "date of [his] population figure"
            pattern = re.sub(r"\bof \{S\} (?=[a-z])", "of {S's} ", pattern)
            # a noun of the subject inside a longer query: "[a] head of government of
            # {S:o} since" -> "[a] [his] head of government since" (never "... of it since")
            pattern = re.sub(r"\b([a-z][\w ,'-]*?) of \{S:o\}(?=[ ?]|$)", _possessive_of, pattern)
        else:
            # "the CEO of {S:o}" -> "[his] CEO" as "the spouse of ..." (never "the CEO of it")
            pattern = re.sub(r"\bthe ([A-Za-z][\w ,'-]*?) of \{S:o\}", r"{S's} \1", pattern)
        return (pattern.replace("{S's}", "[his]").replace("{S:o}", "[him]")
                .replace("{S}", "[he]"))
    return (pattern.replace("{S's}", f"{subject}'s").replace("{S:o}", subject)
            .replace("{S}", subject))


def distinct(variants: list[str], interaction: str = "voice") -> list[str]:
    """Different variants. A spoken one repeated (two patterns that read the same with
    deixis) becomes a follow-up ("and ..."), which is how people go on; a search query is
    never padded that way ("and this country's capital" reads as machine text): its
    repeats go, so a fact may have fewer than three queries."""
    out: list[str] = []
    for v in variants:
        if interaction == "text":
            if v not in out:
                out.append(v)
            continue
        for candidate in (v, f"and {v}"):
            if candidate not in out:
                out.append(candidate)
                break
    return out


_NOT_A_NOUN = re.compile(r"\b(by|in|of|to|at|on|with|into|after|from|for)$|\w+ed$|"
                         r"\b(who|what|when|where|which|why|how)\b")


def noun_queries(nouns: tuple[str, ...]) -> tuple[str, ...]:
    """Search queries from the nouns that name a fact ("{S} capital", "capital city of
    {S:o}", "{S} seat of government"): the subject with the first noun, "X of" the subject
    with the first other noun that reads as a noun ("influenced by of ..." does not),
    then the subject with the one left."""
    first, rest = nouns[0], list(nouns[1:])
    of_noun = next((n for n in rest if not _NOT_A_NOUN.search(n)), None)
    if of_noun is None and not _NOT_A_NOUN.search(first):
        of_noun = first
    out = [f"{{S}} {first}"]
    if of_noun:
        out.append(f"{of_noun} of {{S:o}}")
    out += [f"{{S}} {n}" for n in rest if n != of_noun and n != first]
    return tuple(dict.fromkeys(out))[:3]


# Properties whose noun reads badly after "And its" (where a thing is: "And its country?")
WHERE_NOUNS = frozenset({"P17", "P30", "P131", "P159", "P276", "P706", "P625", "P1376"})


def _rng(*parts) -> random.Random:
    blob = "\x1f".join(map(str, parts)).encode()
    return random.Random(int.from_bytes(hashlib.blake2b(blob, digest_size=8).digest(), "big"))


class RulesWriter:
    """Deterministic templates: curated lexicon first, label-shaped English for the rest."""

    def write(self, fact: Fact, interaction: str,
              alternatives: list[str] = ()) -> dict[str, list[str]]:
        """Variants per phenomenon for one fact in its tense (none when no phrasing reads
        well). ``alternatives`` are other questions about the same type: their first words
        make believable false starts."""
        patterns = self.patterns(fact, interaction)
        if patterns is None:
            return {}
        out: dict[str, list[str]] = {}
        # a qualifier query names the property by its label ("{S} capital of [a] since"):
        # its possessive deixis depends on that label, not on the curated nouns
        noun = phrasing.is_noun(fact.property_label) if fact.qualifier_id else (
            fact.property_id in lexicon.TEXT or fact.property_id in lexicon.TEXT_NOUNS
            or phrasing.is_noun(fact.property_label))
        originals = distinct([render_pattern(p, fact.subject, False, interaction)
                              for p in patterns], interaction)
        deixis = distinct([render_pattern(p, fact.subject, True, interaction, noun)
                           for p in patterns], interaction)
        if interaction == "text" and not fact.qualifier_id:
            # typed, a noun of its own reads as a query ("its predecessor", "its twin
            # towns"), a pronoun before a verb or a preposition does not ("it replaced", "it
            # twinned with", "it part of"): the latter only where no noun says the fact
            if any(d.startswith("[his] ") for d in deixis):
                deixis = [d for d in deixis if not d.startswith("[he] ")]
        out["original"], out["deixis"] = originals, deixis
        # a curated noun only: "And what's the institute's students count?" read as a
        # label pasted in (a rater's example)
        short = lexicon.ELLIPSIS_NOUNS.get(fact.property_id) \
            if interaction == "voice" and not fact.qualifier_id else None
        if short and fact.tense == "present" and fact.property_id not in WHERE_NOUNS and \
                fact.value_kind != "person" and not short.endswith("s"):
            # "And her nationality?": how people go on (never "And its country?")
            deixis = out["deixis"] = deixis[:2] + [f"and what's [his] {short}?"]
        if interaction == "voice":
            alts = [a for a in alternatives if a not in originals]
            out["disfluencies"] = [
                phrasing.disfluent(q, _rng(fact.type_id, fact.property_id, fact.qualifier_id,
                                           fact.tense, "o", i), alts)
                for i, q in enumerate(originals)]
            out["deixis_disfluencies"] = [
                phrasing.disfluent(q, _rng(fact.type_id, fact.property_id, fact.qualifier_id,
                                           fact.tense, "d", i), [])
                for i, q in enumerate(deixis)]
        ellipsis = self.ellipsis(fact, interaction)
        if ellipsis:
            out["ellipsis"] = ellipsis
        follow = self.follow(fact, interaction)
        if follow:
            out["follow"] = follow
        return out

    @staticmethod
    def follow(fact: Fact, interaction: str) -> list[str]:
        """Spoken follow-ups that ask the fact about what the turn before named (assembly
        uses them only right after such a turn): "where was that?" after the date of the
        same birth or death (``kinds.PAIR_FOLLOW_UPS``), "which part of [a] is it in?"
        after the country (``kinds.WHERE_IN``, named and referring back), "what are their
        names?" after the count of the same fact (``kinds.LIST_AFTER_COUNT``)."""
        from convkgyarn.stages import kinds

        if interaction != "voice" or fact.qualifier_id:
            return []
        out: list[str] = []
        for (pid, _), forms in kinds.PAIR_FOLLOW_UPS.items():
            if pid == fact.property_id:
                out += forms
        for (pid, _), forms in kinds.WHERE_IN.items():
            if pid == fact.property_id and fact.tense == "present":
                for deixis in (False, True):
                    out += [render_pattern(f, fact.subject, deixis, interaction) for f in forms]
        out += kinds.list_after_count(fact.property_id, fact.tense)
        return list(dict.fromkeys(out))

    def ellipsis(self, fact: Fact, interaction: str) -> list[str]:
        """Follow-ups that leave the subject out: "[his] spouse?", "the population?" for a
        noun property; "when was that?" for the date of the statement just asked. None for
        verb-like properties ("located in"), whose short forms read badly."""
        spoken = interaction == "voice"
        if fact.qualifier_id:
            forms = lexicon.anaphoric_forms(fact.property_id, fact.qualifier_id, fact.tense)
            return list(forms[0 if spoken else 1]) if forms else []
        noun = ellipsis_noun(fact)
        if noun is None:
            return []
        if spoken:
            # spoken fragments as people say them ("The currency?", "Her date of birth?"),
            # never a form's "the date of birth, please?"
            return [f"the {noun}?", f"[his] {noun}?"]
        return [f"{noun}?", f"[his] {noun}?"]  # typed: no article ("nationality?")

    def patterns(self, fact: Fact, interaction: str) -> tuple[str, ...] | None:
        """The fact's patterns: curated (for its kind of subject, then for any), else
        built from the shape of its label; None for a label no shape can say
        (``phrasing.sayable``: "discoverer or inventor")."""
        label = literal(fact.property_label)
        if fact.qualifier_id:
            key = (fact.property_id, fact.qualifier_id)
            table = lexicon.VOICE_QUALIFIED if interaction == "voice" else lexicon.TEXT_QUALIFIED
            if key in table:
                return table[key]
            qlabel = literal(fact.qualifier_label or fact.qualifier_id)
            if not (phrasing.sayable(label) and phrasing.sayable(qlabel)):
                return None
            if interaction == "text":
                return phrasing.qualifier_text(label, fact.qualifier_id, qlabel)
            return phrasing.qualifier_voice(label, fact.qualifier_id, qlabel, fact.value_kind,
                                            fact.datatype in ("time", "quantity"))
        if interaction == "text":
            present = lexicon.TEXT.get(fact.property_id) or (
                noun_queries(lexicon.TEXT_NOUNS[fact.property_id])
                if fact.property_id in lexicon.TEXT_NOUNS else None)
            if present:
                return (phrasing.text_past(present, label, fact.value_kind)
                        if fact.tense == "past" else present)
            if not phrasing.sayable(label):
                return None
            return phrasing.text_patterns(label, fact.tense, fact.value_kind)
        kind = broad_kind(fact.type_label)
        present = lexicon.VOICE_BY_KIND.get((fact.property_id, kind)) or \
            lexicon.VOICE.get(fact.property_id)
        if present is None:
            if not phrasing.sayable(label):
                return None
            present = phrasing.voice_patterns(label, fact.value_kind)
        return phrasing.past_patterns(present) if fact.tense == "past" else present
