"""A turn said in another language (issue #35): the English turn is the plan's pivot, and
each of the configuration's other languages says the same planned fact, with the same
answer values, from its own stored templates (``local_templates``).

A turn one language cannot say (no template for the fact, a value with no label in any
language of its fallback chain, a unit it cannot write, a kind of question it has no form
for) is left out of every language, with the reason: the conversations of one plan ask the
same statements turn by turn, or the turn is not asked. A value with no label in the
language is said with the label the fallback chain finds (the language's variants, then
``mul``, then English), the same way in every language, never as a raw id.

What the English turn decided carries over: its phenomenon (original, deixis, disfluent,
elliptic; a typo added afterwards), whether it refers to the subject by a noun ("the
city": ``Turn.reference_noun``), a change of subject (a transition). Each language draws
its own choices (which variant, where the typo goes) from a generator seeded by the plan,
the turn and the language: its wording does not depend on the other languages asked,
though which plans are made does (the plans every language of the configuration can say).
"""

from __future__ import annotations

import hashlib
import json
import random
from functools import lru_cache

from convkgyarn.config import GenerateConfig
from convkgyarn.kg.render import Value, share_in_percent, year_question_fits
from convkgyarn.languages import Subject, language as language_of
from convkgyarn.stages.assemble.realiser import (
    follows_its_count, follows_its_statement, where_in)
from convkgyarn.stages.assemble.records import (
    Drop, LocalTurn, TemplateOption, Turn, said_by_label)
from convkgyarn.stages.assemble.view import KGView
from convkgyarn.stages.salience import broad_kind

# Follow-ups that name the value the turn before named as part of the question ("Which part
# of Poland ..."): only with a name of its own in the language, else the fact is asked in full
NAMES_ITS_VALUE = frozenset({"where_in"})
ENGLISH_NAMES = {"en": "English", "de": "German", "ja": "Japanese", "zh": "Chinese"}
# the English phenomenon -> the stored one it is phrased from (typos are added after)
BASE_PHENOMENON = {"typos": "original", "deixis_typos": "deixis", "ellipsis_typos": "ellipsis"}


def follow_up_id(code: str, kind: str, key, text: str) -> str:
    """The id of a language's curated follow-up form (as the English kinds' forms have)."""
    return hashlib.sha256(json.dumps(["follow-up", code, kind, key, text]).encode()
                          ).hexdigest()[:16]


@lru_cache(maxsize=1 << 14)
def simplified(text: str) -> str:
    """Chinese text in simplified characters (OpenCC's traditional-to-simplified table: 倫敦
    -> 伦敦; simplified text and other scripts stay as they are)."""
    return _t2s().convert(text)


@lru_cache(maxsize=1)
def _t2s():
    from opencc import OpenCC

    return OpenCC("t2s")


def seeded(*parts) -> random.Random:
    blob = "\x1f".join(map(str, parts)).encode()
    return random.Random(int.from_bytes(hashlib.blake2b(blob, digest_size=8).digest(), "big"))


class Localiser:
    """Turns of one configuration in one language besides English, over a batch's view."""

    def __init__(self, view: KGView, cfg: GenerateConfig, code: str) -> None:
        self.view = view
        self.cfg = cfg
        self.code = code
        self.lang = language_of(code)
        self.english_name = ENGLISH_NAMES.get(code, code)

    def drop(self, turn: Turn, why: str) -> Drop:
        pt = turn.planned
        return Drop(f"{turn.subject.id}/{pt.property_id}/{pt.qualifier_id or ''}",
                    f"not asked in any language: {self.english_name} {why}", self.code)

    def label(self, entity_id: str) -> str | None:
        found = self.view.local_label(self.code, entity_id)
        if found is None:
            return None
        if self.code == "zh":  # questions are in simplified script; Wikidata's "zh" and
            return simplified(found.label)  # zh-hant labels are often traditional
        return found.label

    def label_language(self, entity_id: str) -> str | None:
        """The language of the label an item is said with: the language's own (or one of
        its variants, "de-ch"; "zh-hant" for a traditional label said in simplified
        script), else the one the fallback chain found ("mul", "en")."""
        found = self.view.local_label(self.code, entity_id)
        return found.language if found is not None else None

    def names(self, entity_id: str) -> bool:
        """Whether the language has a name of its own for the entity (its label in the
        language or one of its variants, not one the fallback chain found in another):
        a conversation is about something each of its languages can name."""
        found = self.label_language(entity_id)
        return found is not None and (found == self.code or found.startswith(self.code + "-"))

    def subject(self, turn: Turn) -> Subject | None:
        e = turn.subject
        label = self.label(e.id)
        if label is None:
            return None
        type_label = self.view.type_labels.get(turn.type_id)
        return Subject(label, e.human, e.gender, "person" if e.human else
                       broad_kind(type_label, False), type_label)

    def value_subject(self, value: Value, property_id: str | None = None) -> Subject | None:
        """A value named in a question (a qualifier question's statement value) as the
        language declines it."""
        if value.value_id is None:
            return None
        label = self.label(value.value_id)
        if label is None:
            return None
        person = self.view.is_person(value, property_id)  # by the KG, else by the property
        return Subject(label, person, self.view.gender_of(value) if person else None)

    def say(self, value: Value, question: str) -> str | None:
        """A value as the language says it in answer to the question."""
        label = None
        if value.value_id:
            label = self.label(value.value_id)
            if label is None:
                return None
        elif value.unit_id:
            label = self.label(value.unit_id)
        elif self.lang.share_words is not None and self.lang.share_words.search(question):
            value = share_in_percent(value) or value  # "Zulassungsquote?" "17,5 %"
        year = self.lang.asks_year(question) and year_question_fits(value)
        return self.lang.render(value, label, year_only=year)

    def follow_spec(self, turn: Turn, previous: Turn | None):
        """(kind, key, the value the form is about) of a turn the English asked with a
        follow-up form (``languages.FOLLOW_UP_KINDS``): a kind of question, or a fact asked
        about what the turn before named; None for a plain fact."""
        pt = turn.planned
        if pt.kind == "verify":
            return ("also", (pt.after, pt.property_id)) if pt.after else \
                ("verify", pt.property_id), turn.answer.slot_value
        if pt.kind == "before":
            return ("before", pt.property_id), turn.answer.slot_value
        if pt.kind == "span":
            key = ("term", pt.property_id) if pt.span == "term" else pt.span
            return ("span", key), turn.answer.slot_value
        if pt.kind == "count":
            return ("count", pt.property_id), None
        follow = self.view.options(turn.type_id, pt.property_id, None, turn.answer.tense,
                                   "follow")
        if turn.template is None or turn.template not in follow:
            return None
        if follows_its_count(turn, previous):
            return ("list", pt.property_id), None
        key = (pt.property_id, previous.planned.property_id)
        if where_in(turn, previous):
            return ("where_in", key), previous.answer.values[0]
        return ("pair", key), None

    def turn(self, turn: Turn, previous: Turn | None, index: int) -> LocalTurn | Drop:
        """The turn in this language, or the reason it cannot be said."""
        pt = turn.planned
        subject = self.subject(turn)
        if subject is None:
            return self.drop(turn, "has no label for the subject")
        rng = seeded("locale", self.code, self.cfg.seed, turn.subject.id, index, turn.number)
        phen = BASE_PHENOMENON.get(turn.phenomenon, turn.phenomenon)
        spec = self.follow_spec(turn, previous)
        slot = turn.answer.slot_value
        refer_back = False
        if spec is not None and spec[0][0] in NAMES_ITS_VALUE and spec[1] is not None and \
                not self.names(spec[1].value_id):
            spec = None  # "Wo in Poland liegt Żoliborz?": asked in full instead
        if spec is not None:
            (kind, key), slot = spec
            refer_back = phen.startswith("deixis") and (
                slot is None or slot.value_id is not None)
            forms = self.lang.follow_ups(kind, key, self.cfg.interaction, turn.answer.tense,
                                         refer_back, subject.kind)
            if not forms and refer_back:
                refer_back = False
                forms = self.lang.follow_ups(kind, key, self.cfg.interaction,
                                             turn.answer.tense, False, subject.kind)
            if not forms and pt.kind != "fact":
                return self.drop(turn, f"has no form for a {kind} question")
        if spec is not None and forms:
            text = forms[rng.randrange(len(forms))]
            # a fact asked about what the turn before named names its stored template
            stored = {o.text: o for o in self.view.local_options(
                self.code, turn.type_id, pt.property_id, None, turn.answer.tense, "follow")}
            option = stored.get(text) or TemplateOption(
                follow_up_id(self.code, kind, key, text), text, "rules", None, None)
        else:
            slot = turn.answer.slot_value
            if follows_its_statement(turn, previous) and self.view.local_options(
                    self.code, turn.type_id, pt.property_id, pt.qualifier_id,
                    turn.answer.tense, "ellipsis"):
                phen = "ellipsis"  # "Since when?": "Seit wann ist das so?", "いつからですか？"
            options = self.view.local_options(self.code, turn.type_id, pt.property_id,
                                              pt.qualifier_id, turn.answer.tense, phen)
            if not options and phen != "original":  # no such variant: asked in full
                phen = "deixis" if phen.startswith("deixis") else "original"
                options = self.view.local_options(self.code, turn.type_id, pt.property_id,
                                                  pt.qualifier_id, turn.answer.tense, phen)
            if not options:
                return self.drop(turn, "has no template for the fact")
            if pt.kind == "fact":  # "In welcher Stadt wurde er geboren?" of a settlement only
                options = [o for o in options if self.view.words_fit(
                    o.text, pt.property_id, turn.answer.values, self.lang)]
                if not options:
                    return self.drop(turn, "has no template whose words fit the answer")
            option = options[rng.randrange(len(options))]
        reference = None
        if phen.startswith("deixis") or phen == "ellipsis" or refer_back:
            reference = "noun" if turn.reference_noun else (
                self.lang.default_reference(subject) or "noun")
        value = None
        if slot is not None:
            value = self.value_subject(slot, pt.after or pt.property_id)
            if value is None:
                return self.drop(turn, "has no label for the value the question names")
        filled = self.lang.fill(option.text, subject, reference, value)
        question, protected = filled.text, filled.protected
        if "[" in question:
            return self.drop(turn, f"left a placeholder unfilled in {option.text!r}")
        said, languages = [], []
        for v in turn.answer.values:
            text = self.lang.yes_no(v.label == "yes") if pt.kind == "verify" else \
                self.say(v, question)
            if text is None:
                return self.drop(turn, "cannot say an answer value")
            said.append(text)
            languages.append(self.label_language(v.value_id)
                             if said_by_label(v, pt.kind) else None)
        outdated = tuple(x for x in (self.say(v, question) for v in turn.answer.outdated) if x)
        before_typo = None
        if turn.question_before_typo is not None:  # the English turn took a typo: so does
            typed, edit = self.lang.typo(question, rng, protected)  # this one
            if edit is not None:
                before_typo, question = question, typed
        if self.cfg.interaction == "voice" and previous is not None and \
                previous.subject.id != turn.subject.id:
            question = self.lang.with_transition(question, rng)
        template = TemplateOption(option.template_id, option.text, option.writer,
                                  option.model, option.prompt_hash)
        return LocalTurn(self.code, question, tuple(said), template, before_typo, outdated,
                         tuple(languages))

