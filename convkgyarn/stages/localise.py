"""Templates in languages besides English (issue #35): the same selected facts, tenses,
interactions and phenomena as the English templates, in each language's own placeholders
(``convkgyarn.languages``).

Who writes them follows the English writer: with an LLM templater configured, the LLM,
asked in the language (``prompts/templates_local_{voice,text}.md`` with the language as a
parameter, and our in-context examples of that language,
``prompts/examples/templates_<code>.md``), five facts a call, every variant checked by the
language (``Language.validate``), rejections kept as drops with their reasons, facts still
short asked again, then the language's rules writer filling in what is missing
(``rules-fallback``) — the same rounds as the English writer (``templates.LLMRounds``).
Without an LLM, the language's rules writer writes them all.

A fact a language does not phrase has no templates in it, with the reason in ``drops``;
assembly then leaves the fact out of every language of a configuration that asks for that
one (the same statements in every language, or not at all). Templates are kept per
(fact, interaction, language) with an input hash: the fact, the writer, the model and
that language's prompts, the stage's code and that language's code; a change to one
language's lexicon or examples rewrites exactly that language's templates (an unchanged
request is answered by the LLM cache).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, RootModel

from convkgyarn.languages import language as language_of
from convkgyarn.resources import combined_hash, data_block, load_prompt
from convkgyarn.runtime import module_code_hash
from convkgyarn.stage import utcnow
from convkgyarn.stages.salience import broad_kind
from convkgyarn.stages.templates import (
    PHENOMENA, LLMRounds, TemplaterStage, selected_facts)
from convkgyarn.store import insert_rows, registered, transaction
from convkgyarn.text import Fact

ENGLISH_NAMES = {"de": "German", "ja": "Japanese", "zh": "Chinese"}
LOCAL_PROMPTS = {"voice": "templates_local_voice.md", "text": "templates_local_text.md"}
OPTIONAL = ("ellipsis",)
RETRY_NOTE = ("\nSome earlier variants were rejected; write fresh ones that follow every rule "
              "above.")
_HEADING = re.compile(r"(?m)^## +(.+?) *$")


def follow_forms(code: str, fact: Fact) -> list[str]:
    """A fact's spoken follow-ups in a language that ask it about what the turn before
    named (as the English rules writer stores them: phenomenon ``follow``): "Wo war das?"
    after the date of the same birth, "In welchem Teil Polens liegt es?" after the country
    (named and referring back), "Wie heißen sie?" after the count of the same fact."""
    from convkgyarn.languages import language as language_of
    from convkgyarn.stages import kinds

    if fact.qualifier_id is not None:
        return []
    lang, kind = language_of(code), broad_kind(fact.type_label)
    out: list[str] = []
    if fact.property_id in kinds.LIST_AFTER_COUNT:
        out += lang.follow_ups("list", fact.property_id, "voice", fact.tense, False, kind)
    for key in kinds.PAIR_FOLLOW_UPS:
        if key[0] == fact.property_id:
            out += lang.follow_ups("pair", key, "voice", fact.tense, False, kind)
    for key in kinds.WHERE_IN:
        if key[0] == fact.property_id:
            for back in (False, True):
                out += lang.follow_ups("where_in", key, "voice", fact.tense, back, kind)
    return list(dict.fromkeys(out))


def local_template_id(language: str, fact: Fact, interaction: str, phenomenon: str,
                      variant: int, text: str) -> str:
    blob = json.dumps([language, fact.type_id, fact.property_id, fact.qualifier_id, fact.tense,
                       interaction, phenomenon, variant, text])
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


# -- the LLM writer's prompts and reply shapes ----------------------------------------------

def examples_file(code: str) -> str:
    return f"examples/templates_{code}.md"


def examples(code: str) -> dict[str, str]:
    """A language's in-context file by section: "placeholders" (the language's placeholder
    forms), "voice" and "text" (a worked example each)."""
    parts = _HEADING.split(load_prompt(examples_file(code)).text)
    found = {parts[i].strip().lower(): parts[i + 1].strip() for i in range(1, len(parts), 2)}
    missing = {"placeholders", *LOCAL_PROMPTS} - set(found)
    if missing:
        raise ValueError(f"prompts/{examples_file(code)} has no section "
                         f"{', '.join(sorted(missing))}")
    return found


def prompt_hash(code: str) -> str:
    """The hash of what a language's requests are made of: both prompt files and its
    examples (part of every cache key and of each of its templates' input hash)."""
    return combined_hash(*(load_prompt(name) for name in LOCAL_PROMPTS.values()),
                         load_prompt(examples_file(code)))


def describe_local_fact(n: int, fact: Fact) -> dict[str, Any]:
    """A fact for the prompt's data block (KG text stays inside JSON strings): the kind of
    entity and the property in English, which the model says in the language."""
    out: dict[str, Any] = {"n": n, "type": fact.type_label, "property": fact.property_label}
    if fact.qualifier_id:
        out |= {"value": "[a]", "qualifier": fact.qualifier_label or fact.qualifier_id}
    if fact.tense == "past":
        out["tense"] = "past"
    return out


class LocalVoiceTurn(BaseModel):
    original: list[str]
    deixis: list[str]
    disfluencies: list[str]
    deixis_disfluencies: list[str]
    ellipsis: list[str] = []


class LocalTextTurn(BaseModel):
    original: list[str]
    deixis: list[str]
    ellipsis: list[str] = []


class LocalVoiceReply(RootModel[dict[str, LocalVoiceTurn]]):
    pass


class LocalTextReply(RootModel[dict[str, LocalTextTurn]]):
    pass


def local_request(code: str, group: list[Fact], interaction: str, retry: bool):
    """One request for up to five facts of one language and interaction."""
    from convkgyarn.llm import LLMRequest

    sections = examples(code)
    text = load_prompt(LOCAL_PROMPTS[interaction]).render(
        language=ENGLISH_NAMES[code], placeholders=sections["placeholders"],
        examples=sections[interaction],
        facts=data_block([describe_local_fact(n, f) for n, f in enumerate(group, start=1)]))
    if retry:
        text += RETRY_NOTE
    schema = LocalVoiceReply if interaction == "voice" else LocalTextReply
    return LLMRequest([{"role": "user", "content": text}], schema=schema)


# -- the stage ------------------------------------------------------------------------------

class LocaliseTemplates(TemplaterStage):
    """Write every selected fact's templates in each language besides English asked for
    (``templates.languages``): by the LLM templater when one is configured, else by the
    rules."""

    name = "templates.localise"
    reads = ("selected_predicates", "entities", "entity_types", "class_labels",
             "property_info", "qualifiers", "statements", "load_files")
    writes = ("local_templates", "local_template_inputs")

    def __init__(self, ctx, config=None) -> None:
        super().__init__(ctx, config)
        self.now = utcnow()
        self.prompt_hashes = {code: prompt_hash(code) for code in self.languages}
        self.prompt_hash = combined_hash(*(load_prompt(examples_file(c))
                                           for c in self.languages),
                                         *(load_prompt(n) for n in LOCAL_PROMPTS.values()))
        # one client a language: its prompt hash is part of its cache keys, so a change to
        # one language's examples asks that language again and no other
        self.clients = {code: ctx.client("templater", self.prompt_hashes[code])
                        for code in self.languages}
        self.client = next((c for c in self.clients.values() if c is not None), None)

    @property
    def languages(self) -> list[str]:
        return [code for code in self.config.languages if code != "en"]

    def input_hash(self, fact: Fact, interaction: str, language: str) -> str:
        """What decides a (fact, interaction, language)'s templates: the fact, the writer
        and, on the LLM path, the model and this language's prompts; the stage's config
        (but which other languages are asked) and code; this language's code."""
        parts = self.input_parts()
        config = {k: v for k, v in parts["config"].items() if k != "languages"}
        llm = None if parts["llm"] is None else {"model": parts["llm"]["model"],
                                                 "prompt_hash": self.prompt_hashes[language]}
        blob = json.dumps([fact.__dict__, interaction, language, self.writer, config, llm,
                           parts["code"], module_code_hash(f"convkgyarn.languages.{language}")],
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def process(self) -> dict[str, Any]:
        stats: dict[str, Any] = {"languages": self.languages, "writer": self.writer,
                                 "facts": 0, "unchanged": 0, "templates": 0,
                                 "not_phrased": 0, "fallback_templates": 0,
                                 "accepted_first_try": 0, "llm_variants": 0, "incomplete": 0}
        if not self.languages:
            return stats
        facts = selected_facts(self.con)
        # a qualifier's follow-up is asked of a statement that has ended, too ("Wann hat
        # das angefangen?", not "Seit wann ist das so?"): its past templates as well
        facts += [replace(f, tense="past") for f in facts
                  if f.qualifier_id is not None and f.tense == "present"]
        done = {tuple(r[:6]): r[6] for r in self.con.execute(
            "SELECT language, type_id, property_id, coalesce(qualifier_property_id, ''), "
            "tense, interaction, input_hash FROM local_template_inputs WHERE complete"
        ).fetchall()}
        self._redone: set[str] = set()
        self._finished: set[str] = set()
        for code in self.languages:
            client = self.clients.get(code)
            for interaction in self.config.interactions:
                todo = [f for f in facts if done.get(self._key(code, f, interaction))
                        != self.input_hash(f, interaction, code)]
                stats["unchanged"] += len(facts) - len(todo)
                stats["facts"] += len(todo)
                keys = {"/".join(self._key(code, f, interaction)) for f in todo}
                self._redone |= keys
                if client is not None:
                    written = self._write_llm(code, client, todo, interaction, stats)
                    if client.dry_run:
                        continue
                else:
                    written = self._write_rules(code, todo, interaction)
                self._store(code, interaction, written, stats)
                self._finished |= keys
        stats["not_phrased"] = sum(1 for d in self._dropped
                                   if d["reason"].endswith("phrasing for this fact"))
        stats["rejected"] = sum(1 for d in self._dropped if d["reason"] != "unusable reply"
                                and not d["reason"].endswith("phrasing for this fact"))
        return stats

    def _rules(self, code: str, fact: Fact, interaction: str) -> dict[str, list[str]] | None:
        return language_of(code).templates(fact.property_id, fact.qualifier_id, fact.tense,
                                           interaction, broad_kind(fact.type_label))

    def _unphrased(self, code: str) -> str:
        return f"no {ENGLISH_NAMES.get(code, code)} phrasing for this fact"

    def _write_rules(self, code: str, todo: list[Fact], interaction: str) -> dict:
        out = {}
        for fact in todo:
            written = self._rules(code, fact, interaction)
            if not written:
                self._reject(code, fact, interaction, "*", -1, fact.property_label,
                             self._unphrased(code), 0)
            out[fact] = (written or {}, {}, True)
        return out

    def _write_llm(self, code: str, client, todo: list[Fact], interaction: str,
                   stats: dict) -> dict:
        lang = language_of(code)
        return LLMRounds(
            client, self.config.llm_rounds,
            request=lambda group, inter, retry: local_request(code, group, inter, retry),
            validate=lambda fact, inter, phen, text: lang.validate(
                text, phen, inter, fact.qualifier_id is not None),
            fallback=lambda fact, inter: self._rules(code, fact, inter),
            reject=lambda *args, **kw: self._reject(code, *args, **kw),
            unphrased=self._unphrased(code), optional=OPTIONAL,
        ).write(todo, interaction, stats)

    def _reject(self, code: str, fact: Fact, interaction: str, phenomenon: str, variant: int,
                text: str, reason: str, attempt: int, detail: str | None = None) -> None:
        """A rejected variant, an unusable reply or a fact not phrased: a drop keyed by
        (language, fact, interaction), then the phenomenon ("*": the whole fact)."""
        item = "/".join(self._key(code, fact, interaction) + (phenomenon,))
        self.drop(item, reason, text, language=code, type_id=fact.type_id,
                  property_id=fact.property_id, qualifier_property_id=fact.qualifier_id,
                  tense=fact.tense, interaction=interaction, phenomenon=phenomenon,
                  variant=variant, attempt=attempt, model=self.model, error=detail)

    @staticmethod
    def _key(language: str, f: Fact, interaction: str) -> tuple[str, ...]:
        return (language, f.type_id, f.property_id, f.qualifier_id or "", f.tense, interaction)

    def _store(self, language: str, interaction: str, written: dict, stats: dict) -> None:
        """One language and interaction in one transaction (a killed run leaves none half
        written). A fact whose LLM replies were unusable is kept with its fallback
        templates but not marked complete: the next run asks for it again."""
        if not written:
            return
        rows, inputs = [], []
        for fact, (variants, writers, usable) in written.items():
            input_hash = self.input_hash(fact, interaction, language)
            follow = follow_forms(language, fact) if interaction == "voice" else []
            for i, text in enumerate(follow):  # the language's own, on every path
                rows.append({
                    "template_id": local_template_id(language, fact, interaction, "follow",
                                                     i, text),
                    "language": language, "type_id": fact.type_id,
                    "property_id": fact.property_id,
                    "qualifier_property_id": fact.qualifier_id, "tense": fact.tense,
                    "interaction": interaction, "phenomenon": "follow", "variant": i,
                    "text": text, "writer": "rules", "model": None, "prompt_hash": None,
                    "input_hash": input_hash, "run_id": self.run_id, "created_at": self.now})
            for phenomenon in PHENOMENA[interaction] + OPTIONAL:
                first_fallback, fallback = writers.get(phenomenon, (len(variants.get(
                    phenomenon, [])), None))
                for i, text in enumerate(variants.get(phenomenon, [])):
                    writer = fallback if fallback and i >= first_fallback else self.writer
                    stats["fallback_templates"] += writer == "rules-fallback"
                    rows.append({
                        "template_id": local_template_id(language, fact, interaction,
                                                         phenomenon, i, text),
                        "language": language, "type_id": fact.type_id,
                        "property_id": fact.property_id,
                        "qualifier_property_id": fact.qualifier_id, "tense": fact.tense,
                        "interaction": interaction, "phenomenon": phenomenon, "variant": i,
                        "text": text, "writer": writer,
                        "model": self.model if writer == "llm" else None,
                        "prompt_hash": self.prompt_hashes[language] if writer == "llm"
                        else None,
                        "input_hash": input_hash, "run_id": self.run_id,
                        "created_at": self.now})
            stats["incomplete"] += not usable
            inputs.append({"language": language, "type_id": fact.type_id,
                           "property_id": fact.property_id,
                           "qualifier_property_id": fact.qualifier_id, "tense": fact.tense,
                           "interaction": interaction, "input_hash": input_hash,
                           "complete": usable, "run_id": self.run_id})
        stats["templates"] += len(rows)
        keys = {"type_id": [f.type_id for f in written],
                "property_id": [f.property_id for f in written],
                "q": [f.qualifier_id or "" for f in written],
                "tense": [f.tense for f in written]}
        with transaction(self.con) as con, registered(con, "_localised", keys):
            for table in ("local_templates", "local_template_inputs"):
                con.execute(f"DELETE FROM {table} t USING _localised f WHERE t.language = ? "
                            "AND t.interaction = ? AND t.type_id = f.type_id AND "
                            "t.property_id = f.property_id AND "
                            "coalesce(t.qualifier_property_id, '') = f.q AND t.tense = f.tense",
                            [language, interaction])
            insert_rows(con, "local_templates", rows)
            insert_rows(con, "local_template_inputs", inputs)

    def drop_key(self, item: str) -> str:
        return "/".join(item.split("/")[:6])  # as replace_drops's key_sql

    def replace_drops(self, con) -> None:
        """The drops of a (language, fact, interaction) are those of the latest run that
        wrote its templates."""
        self.replace_drops_by_key(con, "array_to_string(string_split({item}, '/')[1:6], '/')",
                                  getattr(self, "_redone", set()), None)
