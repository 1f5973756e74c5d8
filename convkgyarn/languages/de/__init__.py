"""German: names with their articles and cases, references by the gender of their noun,
possessives that agree with the possessed noun; questions from ``lexicon``, search queries
and follow-ups from ``text``; typing slips from ``typos``."""

from __future__ import annotations

import random
import re

from convkgyarn.languages.base import Edit, Language, Segment, Slot, Subject
from convkgyarn.languages.de import grammar, kinds, lexicon, text, typos
from convkgyarn.languages.values import Calendar

PLACE_KINDS = frozenset({"country", "city", "region", "building", "natural"})
# works and events: after a preposition, referred to by a pronominal adverb ("Wer spielt
# darin mit?", "das Drehbuch dazu"); any other thing is a place "in", "an", "bei" which
# is "dort" ("Wie viele Leute studieren dort?", "Wer hat dort den Vorsitz?")
WORK_KINDS = frozenset({"film", "series", "music", "book", "artwork", "game", "event",
                        "case", "element"})
_LOWER_START = re.compile(
    r"^(Wann|Wo|Wer|Was|Wie|Welche[rsnm]?|Wen|Wem|Wessen|Woran|Wonach|Woher|Wofür|Wozu|"
    r"Wovon|Womit|Worum|Weißt|In|Aus|Zu|Auf|An|Mit|Für|Von|Bei|Um|Bis|Seit|Ab|Als|Hat|"
    r"Hatte|Ist|War|Gibt|Gab|Über|Nach|Und|Sag)\b")


# the finite verb right before the subject in a question ("hat [S:nom]", "befindet sich
# [S:nom]"): it agrees with a plural subject
_SUBJECT_VERB = re.compile(r"(?<![\[\w])(\w+) (sich )?\[S(:nom)?\]")


# the forms of an owned noun: "[S's:f.nom:Hauptstadt]" (gender . case : noun)
_OWNED = re.compile(r"^(m|f|n|pl)\.(nom|akk|dat|kw):(\w[\w -]*)$")
# words only English has: a question that holds them was written in English
_ENGLISH_ONLY = frozenset("the what who whom whose when where which why how did does do is "
                          "are of born and his its their".split())

# roles a woman holds under their feminine name, when the statement's value is a woman
_ROLE = re.compile(r"\[S's:m\.(nom|akk|dat):(Regierungschef|Bürgermeister|Präsident|"
                   r"Vorsitzender|Geschäftsführer|Direktor|Trainer)\]")
# a noun phrase that can take an article or possessive ("Hauptstadt", "höchste Erhebung";
# not "aktiv seit", "Teil von")
_NOUN = re.compile(r"^(\w+e )?[A-ZÄÖÜ][\w-]*( (und|oder) [A-ZÄÖÜ]\w*| pro \w+)?$")


def lower_first(question: str) -> str:
    """The question after something said before it: its first word in lower case when that
    is no noun or name ("Ähm, wann ..."; "Ähm, Hauptstadt ..." keeps the noun's capital)."""
    return question[0].lower() + question[1:] if _LOWER_START.match(question) else question


class German(Language):
    code = "de"
    name = "Deutsch"
    calendar = Calendar("de", year="{n}", decade="{n}er Jahre", century="{n}. Jahrhundert",
                        millennium="{n}. Jahrtausend", day="{d}. {month} {y}",
                        month="{month} {y}")
    transitions = ("Okay, und ", "Gut, ", "Und ", "Also, ")
    fillers = ("ähm", "äh", "also", "hm", "na ja")
    year_words = re.compile(r"\b(welchem|welches) Jahr\b", re.I)
    share_words = re.compile(r"(Zulassungs|Annahme|Aufnahme)quote|\bProzent\b|\bAnteil\b",
                             re.I)
    answer_kind_words = ((re.compile(r"\b(Stadt|Städte|Städten)\b"), "settlement"),
                         (re.compile(r"\b(Firma|Unternehmen|Muttergesellschaft|"
                                     r"Mutterkonzern)\b"), "company"),
                         (re.compile(r"\b(Region|Regionen)\b"), "region"))
    english_name = "German"
    placeholder_help = ("[S:nom] [S:akk] [S:dat] [S:gen], [S's:G.C:Noun], [in:S] [von:S] ..., "
                        "[S:kw] in typed queries; [a:nom] [a:akk] [a:dat] [mit:a] [a] for a "
                        "qualifier's statement value")
    reference_help = "[S:nom] [S:akk] [S:dat] [S:gen], [S's:G.C:Noun] or [in:S] and the like"
    owner_help = "[S's:G.C:Noun]"
    repairs = ("sag mal", "nein", "ich meine", "moment", "sorry", "entschuldigung", "quatsch")
    ellipsis_max = {"voice": 8, "text": 7}

    # -- references
    def _noun(self, subject: Subject) -> grammar.Noun | None:
        if subject.human:
            return grammar.KIND_NOUNS["person"]
        return grammar.reference_noun(subject.kind, subject.type_label)

    def pronoun_gender(self, subject: Subject) -> str | None:
        """The gender a pronoun for the subject takes: a person's sex; a thing's article
        (die Schweiz: sie) or the gender of the noun it is referred to by (die Stadt: sie,
        das Land: es, der Film: er); None when neither is known."""
        if subject.human:
            return subject.sex
        own = grammar.name(subject.label).gender
        if own is not None:
            return own
        noun = self._noun(subject)
        return noun.gender if noun else None

    def default_reference(self, subject: Subject) -> str | None:
        if subject.human:
            return "pronoun" if subject.sex else "noun"
        if self._noun(subject) is not None:
            return "noun"  # "das Land", "die Stadt": what a German speaker says of a thing
        return "pronoun" if self.pronoun_gender(subject) else None

    def _mode(self, subject: Subject, reference: str | None) -> str | None:
        """The reference actually used: a pronoun without a gender becomes the noun, a
        noun that does not exist the pronoun, and with neither the name."""
        if reference is None:
            return None
        if reference in ("pronoun", "zero") and self.pronoun_gender(subject) is None:
            reference = "noun"
        if reference == "noun" and self._noun(subject) is None:
            reference = "pronoun" if self.pronoun_gender(subject) else None
        return reference

    # -- placeholders
    def fill(self, template, subject, reference=None, value=None):
        """As ``Language.fill``; a plural subject (die USA, die Niederlande, "sie") makes
        the finite verb before it plural ("Wie viele Einwohner haben die Niederlande?")."""
        if self.pronoun_gender(subject) == "pl" and (
                reference is None or self._mode(subject, reference) == "pronoun"):
            template = _SUBJECT_VERB.sub(
                lambda m: f"{grammar.plural_verb(m.group(1))} {m.group(2) or ''}"
                          f"[S{m.group(3) or ''}]", template)
        if isinstance(value, Subject) and value.sex == "f":  # "die Bürgermeisterin von Rennes"
            template = _ROLE.sub(lambda m: f"[S's:f.{m.group(1)}:"
                                           f"{grammar.feminine(m.group(2))}]", template)
        if self._mode(subject, reference) == "pronoun":  # "befindet sie sich", not "sich sie"
            template = re.sub(r"\bsich \[S(:nom)?\]", r"[S\1] sich", template)
        return super().fill(template, subject, reference, value)

    def slot(self, name: str, subject: Subject, reference: str | None,
             value: Subject | None) -> list[Segment]:
        head, _, rest = name.partition(":")
        if head == "S's":
            gender_case, _, noun = rest.partition(":")
            gender, case = gender_case.split(".")
            return self._possessed(subject, self._mode(subject, reference), gender, case, noun)
        if head == "role":  # "Regierungschef", "Regierungschefin" for a woman named
            role, _, owner = rest.partition(":")
            woman = value is not None and value.sex == "f"
            noun = grammar.feminine(role) if woman else role
            if owner != "S":
                return [(noun, False)]
            gender = "f" if woman else grammar.ROLE_GENDERS.get(role, "m")
            return self._possessed(subject, self._mode(subject, reference), gender, "kw", noun)
        if head == "v":
            return self._value_reference(self._value(value, "v"), rest or "nom", None)
        if head in grammar.PREPOSITIONS:
            who = rest or "S"
            if who == "v":
                return self._value_reference(self._value(value, "v"), "dat", head)
            if who == "a":
                return [(grammar.name(self._value(value).label,
                                      self._value(value).human).after(head), True)]
            return self._prepositional(subject, self._mode(subject, reference), head)
        case = rest or "nom"
        if head == "a":
            v = self._value(value)
            if not rest or case == "kw":  # "[a]": the value as said (a number, a typed query)
                return [(v.label, True)]
            return [(grammar.name(v.label, v.human).phrase(case), True)]
        if head == "S":
            return self._phrase(subject, self._mode(subject, reference), case)
        raise ValueError(f"unknown German placeholder [{name}]")

    def _value_reference(self, value: Subject, case: str,
                         preposition: str | None) -> list[Segment]:
        """The value the turn before named, referred back to: a person by er/sie (named
        when the gender is unknown), a place or institution after a preposition by "dort",
        another thing by the pronoun of its gender."""
        if preposition is not None and not value.human:
            return [("dort", False)]
        gender = value.sex if value.human else self.pronoun_gender(value)
        if gender is None:
            name = grammar.name(value.label, value.human)
            return [(name.after(preposition) if preposition else name.phrase(case), True)]
        pronoun = grammar.PRONOUN[gender][grammar.CASES.index(case)]
        return [(f"{preposition} {pronoun}" if preposition else pronoun, False)]

    @staticmethod
    def _value(value: Subject | None, placeholder: str = "a") -> Subject:
        if value is None:
            what = "names" if placeholder == "a" else "refers back to"
            raise ValueError(f"this template {what} the statement's value ([{placeholder}]): "
                             "give value=")
        return value

    def _phrase(self, subject: Subject, mode: str | None, case: str) -> list[Segment]:
        if mode is None:
            if case == "kw":
                return [(subject.label, True)]
            return [(grammar.name(subject.label, subject.human).phrase(case), True)]
        gender = self.pronoun_gender(subject)
        if mode == "noun" or case == "gen":
            noun = self._noun(subject)
            if noun is None:  # no noun: a genitive of a pronoun does not exist; name it
                return self._phrase(subject, None, case)
            return [(noun.phrase("nom" if case == "kw" else case), False)]
        return [(grammar.PRONOUN[gender][grammar.CASES.index("nom" if case == "kw" else case)],
                 False)]

    def _possessed(self, subject: Subject, mode: str | None, gender: str, case: str,
                   noun: str) -> list[Segment]:
        # "kw": a typed query, no article before the possessed noun ("Hauptstadt der Schweiz")
        art = "" if case == "kw" else grammar.article(gender, case) + " "
        said = noun if case == "kw" else grammar.declined(noun, gender, case)
        if mode is None:
            owner = grammar.name(subject.label, subject.human)
            own = owner.phrase("gen") if owner.gender else f"von {subject.label}"
            return [(f"{art}{said} ", False), (own, True)]
        if mode == "noun":
            ref = self._noun(subject)
            return [(f"{art}{said} {ref.phrase('gen')}", False)]
        owner = self.pronoun_gender(subject)
        case = "nom" if case == "kw" else case
        return [(f"{grammar.possessive(owner, gender, case)} "
                 f"{grammar.declined(noun, gender, case, 'possessive')}", False)]

    def _prepositional(self, subject: Subject, mode: str | None,
                       preposition: str) -> list[Segment]:
        if mode is None:
            return [(grammar.name(subject.label, subject.human).after(preposition), True)]
        if mode != "noun" and not subject.human:
            if preposition in ("in", "an", "bei") and subject.kind not in WORK_KINDS:
                return [("dort", False)]  # "Wie viele Leute studieren dort?"
            return [(grammar.PRONOMINAL_ADVERBS[preposition], False)]  # "darin", "dazu"
        if mode == "noun":
            return [(f"{preposition} {self._noun(subject).phrase('dat')}", False)]
        gender = self.pronoun_gender(subject)
        return [(f"{preposition} {grammar.PRONOUN[gender][2]}", False)]

    def slot_of(self, name: str) -> Slot | None:
        head, _, rest = name.partition(":")
        if head == "S's":
            return Slot("S", typed=".kw:" in rest, owner=True) if _OWNED.match(rest) else None
        if head in grammar.PREPOSITIONS:
            return Slot(rest) if rest in ("S", "a") else None
        if head not in ("S", "a") or (head == "S" and not rest):
            return None  # "[S]" alone: German needs the case
        if rest in ("", "kw"):
            return Slot(head, typed=head == "S" and rest == "kw", reference=head == "a")
        return Slot(head) if rest in grammar.CASES else None

    def script_problem(self, template: str, interaction: str) -> str | None:
        from convkgyarn.languages.checks import CJK, outside

        words = outside(template)
        if CJK.search(words):
            return "not written in German (Chinese, Japanese or Korean characters)"
        english = sorted({w for w in re.findall(r"[a-z]+", words.lower())} & _ENGLISH_ONLY)
        if english:
            return f"reads as English, not German ({', '.join(english)})"
        return None

    def capitalise(self, text_: str) -> str:
        # a spoken question starts with a capital; a typed query stays as typed
        if text_.endswith("?") and text_[:1].islower():
            return text_[0].upper() + text_[1:]
        return text_

    # -- templates
    def phrased(self) -> frozenset[str]:
        return frozenset(lexicon.VOICE) & frozenset(text.TEXT_NOUNS)

    def patterns(self, property_id, qualifier_id, tense, interaction, subject_kind):
        if qualifier_id:
            if interaction == "text":
                return text.TEXT_QUALIFIED.get((property_id, qualifier_id))
            return lexicon.QUALIFIED_BY_KIND.get((property_id, qualifier_id, subject_kind)) \
                or lexicon.VOICE_QUALIFIED.get((property_id, qualifier_id))
        if property_id not in self.phrased():
            return None
        if interaction == "text":
            nouns = self.nouns(property_id, subject_kind)
            (_, first), (g2, second), (_, third) = nouns[:3]
            of = f"{second} [S:kw]" if second.split()[-1] in ("von", "für") else \
                f"[S's:{g2}.kw:{second}]"
            return (f"[S:kw] {first}", of, f"[S:kw] {third}")
        return lexicon.VOICE_BY_KIND.get((property_id, subject_kind)) or \
            lexicon.VOICE[property_id]

    def deixis_patterns(self, property_id, qualifier_id, tense, interaction, subject_kind,
                        originals):
        if interaction != "text":
            return originals
        if qualifier_id:  # a typed follow-up leaves the subject out: "[a] Amtsantritt"
            return [p.replace("[S:kw] ", "") for p in originals]
        nouns = [(g, n) for g, n in self.nouns(property_id, subject_kind) if _NOUN.match(n)]
        if not nouns:
            return originals
        forms = ("und [S's:{g}.nom:{n}]?", "was ist mit [S's:{g}.dat:{n}]?",
                 "[S's:{g}.nom:{n}]")
        return [form.format(g=g, n=n) for form, (g, n) in zip(forms, nouns)]

    @staticmethod
    def nouns(property_id: str, subject_kind: str) -> tuple[tuple[str, str], ...]:
        return text.TEXT_NOUNS_BY_KIND.get((property_id, subject_kind)) or \
            text.TEXT_NOUNS[property_id]

    def ellipsis(self, property_id, qualifier_id, tense, interaction, subject_kind):
        spoken = interaction == "voice"
        if qualifier_id:
            forms = (tense == "present" and lexicon.ELLIPSIS_QUALIFIED_PRESENT.get(
                qualifier_id)) or lexicon.ELLIPSIS_QUALIFIED.get(qualifier_id)
            return list(forms[0 if spoken else 1]) if forms else []
        if property_id not in text.TEXT_NOUNS or property_id in text.NO_ELLIPSIS:
            return []
        gender, noun = self.nouns(property_id, subject_kind)[0]
        if not _NOUN.match(noun):
            return []
        art = grammar.article(gender, "nom")
        dative, akk = grammar.article(gender, "dat"), grammar.article(gender, "akk")
        nom, dat = (grammar.declined(noun, gender, c) for c in ("nom", "dat"))
        if spoken:
            return [f"Und {art} {nom}? Weißt du {akk} auch?",
                    f"Und wie ist es mit {dative} {dat}?",
                    f"Und was ist mit [S's:{gender}.dat:{noun}]?"]
        return [f"und was ist mit {dative} {dat}?", f"und {art} {nom} auch?",
                f"und was ist mit [S's:{gender}.dat:{noun}]?"]

    # -- follow-ups that build on the answer
    def follow_up_forms(self, kind, key, subject_kind):
        by_kind = kinds.BY_KIND.get(kind, {}).get((key, subject_kind))
        return by_kind or kinds.TABLES[kind].get(key)

    def yes_no(self, answer: bool) -> str:
        return "ja" if answer else "nein"

    # -- surface
    def disfluent(self, pattern: str, rng: random.Random, alternatives: list[str]) -> str:
        """A spoken question with a filler ("Ähm, wann ..."), a restart ("In welchem, äh, in
        welchem Land ...") or a self-repair ("Wie viele Einwohner – nein, wann ...")."""
        filler = rng.choice(self.fillers)
        words = pattern.split(" ")
        ops = ["filler", "restart"] + (["repair"] if alternatives else [])
        op = rng.choice(ops)
        if op == "restart" and not words[0].startswith("["):
            n = 2 if len(words) > 3 and not words[1].startswith("[") and rng.random() < 0.5 else 1
            start = " ".join(words[:n]).rstrip(",?")
            return f"{start}, {filler}, {lower_first(pattern)}"
        if op == "repair":
            alt = rng.choice(alternatives).split(" ")
            cut = next((i for i, w in enumerate(alt) if "[" in w or "{" in w), len(alt))
            start = " ".join(alt[:max(1, min(cut, 3))]).rstrip("?,")
            if start and "[" not in start and "{" not in start:
                return f"{start} – {filler}, nein, {lower_first(pattern)}"
        if rng.random() < 0.25:
            return f"Sag mal, {lower_first(pattern)}"
        return f"{filler[0].upper()}{filler[1:]}, {lower_first(pattern)}"

    def with_transition(self, question: str, rng: random.Random) -> str:
        return rng.choice(self.transitions) + lower_first(question)

    def typo(self, text_: str, rng: random.Random, protected=()) -> tuple[str, Edit | None]:
        return typos.add_typo(text_, rng, tuple(protected))
