"""Templates in languages besides English (issue #35): the same selected facts, tenses,
interactions and phenomena as the English templates, written by each language's rules
writer (``convkgyarn.languages``) in that language's placeholders.

A fact a language does not phrase has no templates in it, with the reason in ``drops``;
assembly then leaves the fact out of every language of a configuration that asks for that
one (the same statements in every language, or not at all). Templates are kept per
(fact, interaction, language) with an input hash, as the English ones are: a release that
changes a language's lexicon rewrites exactly that language's templates.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from typing import Any

from convkgyarn.stage import Stage, utcnow
from convkgyarn.stages.salience import broad_kind
from convkgyarn.stages.templates import PHENOMENA, selected_facts
from convkgyarn.store import insert_rows, registered, transaction
from convkgyarn.text import Fact


ENGLISH_NAMES = {"de": "German", "ja": "Japanese", "zh": "Chinese"}


def local_template_id(language: str, fact: Fact, interaction: str, phenomenon: str,
                      variant: int, text: str) -> str:
    blob = json.dumps([language, fact.type_id, fact.property_id, fact.qualifier_id, fact.tense,
                       interaction, phenomenon, variant, text])
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class LocaliseTemplates(Stage):
    """Write every selected fact's templates in each language besides English asked for
    (``templates.languages``), on the rules path."""

    name = "templates.localise"
    reads = ("selected_predicates", "entities", "entity_types", "labels", "property_info",
             "qualifiers", "statements")
    writes = ("local_templates", "local_template_inputs")

    def __init__(self, ctx, config=None) -> None:
        super().__init__(ctx, config)
        self.now = utcnow()

    def default_config(self, ctx):
        return ctx.config.templates

    @property
    def languages(self) -> list[str]:
        return [code for code in self.config.languages if code != "en"]

    def input_hash(self, fact: Fact, interaction: str, language: str) -> str:
        blob = json.dumps([fact.__dict__, interaction, language, self.decisive_key()],
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def process(self) -> dict[str, Any]:
        from convkgyarn.languages import language as language_of

        stats: dict[str, Any] = {"languages": self.languages, "facts": 0, "unchanged": 0,
                                 "templates": 0, "not_phrased": 0}
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
        for code in self.languages:
            lang = language_of(code)
            for interaction in self.config.interactions:
                todo = [f for f in facts if done.get(self._key(code, f, interaction))
                        != self.input_hash(f, interaction, code)]
                stats["unchanged"] += len(facts) - len(todo)
                stats["facts"] += len(todo)
                self._redone |= {"/".join(self._key(code, f, interaction)) for f in todo}
                rows, inputs = [], []
                for fact in todo:
                    written = lang.templates(fact.property_id, fact.qualifier_id, fact.tense,
                                             interaction, broad_kind(fact.type_label))
                    if not written:
                        stats["not_phrased"] += 1
                        self.drop("/".join(self._key(code, fact, interaction)),
                                  f"no {ENGLISH_NAMES.get(code, code)} phrasing for "
                                  "this fact",
                                  fact.property_label, language=code)
                    for phenomenon in PHENOMENA[interaction] + ("ellipsis",):
                        for i, text in enumerate((written or {}).get(phenomenon, [])):
                            rows.append({
                                "template_id": local_template_id(code, fact, interaction,
                                                                 phenomenon, i, text),
                                "language": code, "type_id": fact.type_id,
                                "property_id": fact.property_id,
                                "qualifier_property_id": fact.qualifier_id,
                                "tense": fact.tense, "interaction": interaction,
                                "phenomenon": phenomenon, "variant": i, "text": text,
                                "writer": "rules", "model": None, "prompt_hash": None,
                                "input_hash": self.input_hash(fact, interaction, code),
                                "run_id": self.run_id, "created_at": self.now})
                    inputs.append({"language": code, "type_id": fact.type_id,
                                   "property_id": fact.property_id,
                                   "qualifier_property_id": fact.qualifier_id,
                                   "tense": fact.tense, "interaction": interaction,
                                   "input_hash": self.input_hash(fact, interaction, code),
                                   "complete": True, "run_id": self.run_id})
                self._store(code, interaction, todo, rows, inputs)
                stats["templates"] += len(rows)
        return stats

    @staticmethod
    def _key(language: str, f: Fact, interaction: str) -> tuple[str, ...]:
        return (language, f.type_id, f.property_id, f.qualifier_id or "", f.tense, interaction)

    def _store(self, language: str, interaction: str, todo: list[Fact], rows: list[dict],
               inputs: list[dict]) -> None:
        """One language and interaction in one transaction (a killed run leaves none half
        written)."""
        if not todo:
            return
        keys = {"type_id": [f.type_id for f in todo],
                "property_id": [f.property_id for f in todo],
                "q": [f.qualifier_id or "" for f in todo], "tense": [f.tense for f in todo]}
        with transaction(self.con) as con, registered(con, "_localised", keys):
            for table in ("local_templates", "local_template_inputs"):
                con.execute(f"DELETE FROM {table} t USING _localised f WHERE t.language = ? "
                            "AND t.interaction = ? AND t.type_id = f.type_id AND "
                            "t.property_id = f.property_id AND "
                            "coalesce(t.qualifier_property_id, '') = f.q AND t.tense = f.tense",
                            [language, interaction])
            insert_rows(con, "local_templates", rows)
            insert_rows(con, "local_template_inputs", inputs)

    def replace_drops(self, con) -> None:
        """The drops of a (language, fact, interaction) are those of the latest run that
        wrote its templates."""
        self.replace_drops_by_key(con, "{item}", getattr(self, "_redone", set()), None)
