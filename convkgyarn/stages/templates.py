"""Question templates per (type, predicate[, qualifier]): written by an LLM or by rules,
validated one by one, every rejection stored with its reason.

A template is a question with placeholders: the subject as the type in brackets
(``[actor]``), deixis references ``[he]`` / ``[him]`` / ``[his]``, the fact's value ``[a]``
(qualifier questions only, where the answer is ``[b]``). Voice templates come in four
phenomena (original, deixis, disfluencies, deixis_disfluencies), text templates in two
(original, deixis; typos are added when conversations are assembled); three variants each.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import duckdb
from pydantic import BaseModel, RootModel

from convkgyarn.config import LLMConfig, TemplatesConfig
from convkgyarn.llm import CostMeter, LLMRequest, build_client
from convkgyarn.prompts import combined_hash, load_prompt
from convkgyarn.stage import Stage
from convkgyarn.stages import lexicon
from convkgyarn.stages.predicates import type_label
from convkgyarn.text import (
    REFERENCES, has_filler, has_repetition, placeholders, starts_with_wh)

TEMPLATES_SCHEMA = """
CREATE TABLE IF NOT EXISTS templates (
    template_id VARCHAR, type_id VARCHAR, property_id VARCHAR, qualifier_property_id VARCHAR,
    interaction VARCHAR, phenomenon VARCHAR, variant INTEGER, text VARCHAR, answer VARCHAR,
    writer VARCHAR, model VARCHAR, prompt_hash VARCHAR, input_hash VARCHAR, run_id VARCHAR,
    created_at TIMESTAMP
);
CREATE TABLE IF NOT EXISTS template_rejects (
    type_id VARCHAR, property_id VARCHAR, qualifier_property_id VARCHAR, interaction VARCHAR,
    phenomenon VARCHAR, variant INTEGER, text VARCHAR, reason VARCHAR, attempt INTEGER,
    model VARCHAR, run_id VARCHAR, created_at TIMESTAMP
);
"""

PHENOMENA = {
    "voice": ("original", "deixis", "disfluencies", "deixis_disfluencies"),
    "text": ("original", "deixis"),
}
VARIANTS = 3
FACTS_PER_CALL = 5
TEXT_BIAS_WORDS = ("who", "whom", "what", "when", "which", "how")


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

    @property
    def subject(self) -> str:
        return f"[{self.type_label}]"

    @property
    def answer(self) -> str:
        return "[b]" if self.qualifier_id else "[a]"


# -- rendering and validation -----------------------------------------------------------------

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


def validate(fact: Fact, interaction: str, phenomenon: str, text: str) -> str | None:
    """Why a template is unusable, or None when it is fine."""
    if not isinstance(text, str) or not text.strip():
        return "empty template"
    found = placeholders(text)
    allowed = {fact.type_label, *REFERENCES}
    if fact.qualifier_id:
        allowed.add("a")
    unknown = sorted({p for p in found if p not in allowed} - {fact.answer.strip("[]")})
    if unknown:
        return f"unknown placeholder(s): {', '.join('[' + u + ']' for u in unknown)}"
    if fact.answer in text:
        return f"the answer placeholder {fact.answer} appears in the question"
    has_subject = fact.subject in text
    has_reference = any(f"[{r}]" in text for r in REFERENCES)
    if phenomenon.startswith("deixis"):
        if has_subject:
            return f"a deixis variant names the subject {fact.subject}"
        if not has_reference:
            return "a deixis variant has no [he]/[him]/[his] reference"
    else:
        if not has_subject:
            return f"the subject placeholder {fact.subject} is missing"
        if has_reference:
            return "a non-deixis variant uses a deixis reference"
    if interaction == "text" and starts_with_wh(text):
        return "a text query starts with a wh-word"
    if phenomenon.endswith("disfluencies") and not (has_filler(text) or has_repetition(text)):
        return "a disfluency variant has no filler, repetition or repair"
    return None


# -- the rules writer -----------------------------------------------------------------------

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
        label = fact.property_label.lower()
        if fact.qualifier_id:
            key = (fact.property_id, fact.qualifier_id)
            table = lexicon.VOICE_QUALIFIED if interaction == "voice" else lexicon.TEXT_QUALIFIED
            if key in table:
                return table[key]
            qlabel = (fact.qualifier_label or fact.qualifier_id).lower()
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


# -- the LLM writer -------------------------------------------------------------------------

class VoiceTurn(BaseModel):
    original: list[str]
    deixis: list[str]
    disfluencies: list[str]
    deixis_disfluencies: list[str]
    answer: str


class TextTurn(BaseModel):
    original: list[str]
    deixis: list[str]
    answer: str


class VoiceReply(RootModel[dict[str, VoiceTurn]]):
    pass


class TextReply(RootModel[dict[str, TextTurn]]):
    pass


def describe_fact(n: int, fact: Fact) -> str:
    if fact.qualifier_id:
        return (f"{n}. ({fact.subject}, {fact.property_label}, {fact.qualifier_label}, [b]) "
                f"where [a] is the {fact.property_label} and [b] its {fact.qualifier_label}; "
                f"answer [b]")
    return f"{n}. ({fact.subject}, {fact.property_label}, [a]); answer [a]"


# -- the stage ------------------------------------------------------------------------------

class GenerateTemplates(Stage):
    """Write, validate and store templates for every selected (type, predicate[, qualifier])."""

    name = "templates.generate"

    def __init__(self, con: duckdb.DuckDBPyConnection, config: TemplatesConfig, llm: LLMConfig,
                 meter: CostMeter, run_id: str | None = None) -> None:
        super().__init__(con, run_id)
        con.execute(TEMPLATES_SCHEMA)
        self.config = config
        self.prompts = {i: load_prompt(f"templates_{i}.md") for i in PHENOMENA}
        self.prompt_hash = combined_hash(*self.prompts.values())
        self.client = build_client(con, llm, "templater", self.prompt_hash, meter)
        self.rules = RulesWriter()
        self.now = datetime.now(timezone.utc).replace(tzinfo=None)

    @property
    def writer(self) -> str:
        return "llm" if self.client else "rules"

    def facts(self) -> list[Fact]:
        rows = self.con.execute(
            """
            SELECT s.type_id, s.property_id, coalesce(p.label, s.property_id), p.datatype,
                   s.qualifier_property_id, coalesce(q.label, s.qualifier_property_id)
            FROM selected_predicates s
            LEFT JOIN property_info p ON p.id = s.property_id
            LEFT JOIN property_info q ON q.id = s.qualifier_property_id
            ORDER BY 1, 2, 5 NULLS FIRST
            """).fetchall()
        labels: dict[str, str] = {}
        out = []
        for type_id, pid, plabel, dtype, qid, qlabel in rows:
            if type_id not in labels:
                labels[type_id] = type_label(self.con, type_id)
            out.append(Fact(type_id, labels[type_id], pid, plabel, dtype, qid, qlabel))
        return out

    def input_hash(self, fact: Fact, interaction: str) -> str:
        model = self.client.model.model if self.client else None
        blob = json.dumps([fact.__dict__, interaction, self.writer, model, self.prompt_hash,
                           self.config.model_dump()], sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def process(self) -> dict[str, Any]:
        stats: dict[str, Any] = {"writer": self.writer, "facts": 0, "unchanged": 0,
                                 "templates": 0, "fallback_templates": 0,
                                 "accepted_first_try": 0, "llm_variants": 0}
        existing = dict(((r[0], r[1], r[2], r[3]), r[4]) for r in self.con.execute(
            "SELECT type_id, property_id, coalesce(qualifier_property_id, ''), interaction, "
            "any_value(input_hash) FROM templates GROUP BY 1, 2, 3, 4").fetchall())
        for interaction in self.config.interactions:
            todo = []
            for fact in self.facts():
                key = (fact.type_id, fact.property_id, fact.qualifier_id or "", interaction)
                if existing.get(key) == self.input_hash(fact, interaction):
                    stats["unchanged"] += 1
                else:
                    todo.append(fact)
            stats["facts"] += len(todo)
            if self.client:
                written = self._write_llm(todo, interaction, stats)
            else:
                written = {f: (self.rules.write(f, interaction), {}) for f in todo}
            if self.client and self.client.config.dry_run:
                continue
            for fact, (variants, writers) in written.items():
                self._store(fact, interaction, variants, writers, stats)
        stats["rejected"] = self.con.execute(
            "SELECT count(*) FROM template_rejects WHERE run_id = ?", [self.run_id]).fetchone()[0]
        return stats

    # LLM path: five facts a call, bounded re-asks for rejected variants, rules fallback.
    def _write_llm(self, facts: list[Fact], interaction: str, stats: dict) -> dict:
        accepted: dict[Fact, dict[str, list[str]]] = {f: {} for f in facts}
        pending = list(facts)
        for attempt in range(1, self.config.llm_rounds + 1):
            if not pending:
                break
            groups = [pending[i:i + FACTS_PER_CALL] for i in range(0, len(pending), FACTS_PER_CALL)]
            requests = [self._request(g, interaction, accepted if attempt > 1 else None)
                        for g in groups]
            results = self.client.run(requests)
            still = []
            for group, result in zip(groups, results):
                if result.dry_run:
                    continue
                turns = result.parsed.root if result.ok else {}
                if not result.ok:
                    for fact in group:
                        self._reject(fact, interaction, "*", -1, result.text or "",
                                     f"unusable reply: {result.error}", attempt)
                for n, fact in enumerate(group, start=1):
                    turn = turns.get(str(n))
                    if turn is None and result.ok:
                        self._reject(fact, interaction, "*", -1, result.text or "",
                                     f"reply has no turn {n}", attempt)
                    if self._take(fact, interaction, turn, accepted[fact], attempt, stats):
                        still.append(fact)
            pending = still
        out = {}
        for fact in facts:
            variants, writers = accepted[fact], {}
            missing = [p for p in PHENOMENA[interaction] if len(variants.get(p, [])) < VARIANTS]
            if missing:
                rules = self.rules.write(fact, interaction)
                for p in missing:
                    have = variants.get(p, [])
                    fill = [t for t in rules[p] if t not in have][:VARIANTS - len(have)]
                    variants[p] = have + fill
                    writers[p] = (len(have), "rules-fallback")
            out[fact] = (variants, writers)
        return out

    def _request(self, group: list[Fact], interaction: str, accepted: dict | None) -> LLMRequest:
        lines = [describe_fact(n, f) for n, f in enumerate(group, start=1)]
        if accepted is not None:
            lines.append("\nSome earlier variants were rejected; write fresh ones that follow "
                         "every rule above.")
        text = self.prompts[interaction].render(facts="\n".join(lines))
        schema = VoiceReply if interaction == "voice" else TextReply
        bias = TEXT_BIAS_WORDS if interaction == "text" else ()
        return LLMRequest([{"role": "user", "content": text}], schema=schema, bias_words=bias)

    def _take(self, fact: Fact, interaction: str, turn, accepted: dict, attempt: int,
              stats: dict) -> bool:
        """Keep a turn's valid variants; True when some phenomenon still lacks variants."""
        short = False
        for phenomenon in PHENOMENA[interaction]:
            have = accepted.setdefault(phenomenon, [])
            if len(have) >= VARIANTS:
                continue
            texts = getattr(turn, phenomenon, None) if turn is not None else None
            if texts is None:
                short = True
                continue
            if len(texts) != VARIANTS:
                self._reject(fact, interaction, phenomenon, -1, json.dumps(texts),
                             f"expected exactly {VARIANTS} variants, got {len(texts)}", attempt)
            for i, text in enumerate(texts[:VARIANTS]):
                stats["llm_variants"] += 1
                text = text.strip()
                reason = validate(fact, interaction, phenomenon, text)
                if reason is None and text in have:
                    reason = "duplicate of another variant"
                if reason:
                    self._reject(fact, interaction, phenomenon, i, text, reason, attempt)
                elif len(have) < VARIANTS:
                    have.append(text)
                    stats["accepted_first_try"] += attempt == 1
            short |= len(have) < VARIANTS
        return short

    def _reject(self, fact: Fact, interaction: str, phenomenon: str, variant: int, text: str,
                reason: str, attempt: int) -> None:
        model = self.client.model.model if self.client else None
        self.con.execute(
            "INSERT INTO template_rejects VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [fact.type_id, fact.property_id, fact.qualifier_id, interaction, phenomenon,
             variant, text, reason, attempt, model, self.run_id, self.now])

    def _store(self, fact: Fact, interaction: str, variants: dict[str, list[str]],
               writers: dict[str, tuple[int, str]], stats: dict) -> None:
        con = self.con
        input_hash = self.input_hash(fact, interaction)
        con.execute("BEGIN")
        con.execute(
            "DELETE FROM templates WHERE type_id = ? AND property_id = ? AND "
            "coalesce(qualifier_property_id, '') = ? AND interaction = ?",
            [fact.type_id, fact.property_id, fact.qualifier_id or "", interaction])
        for phenomenon in PHENOMENA[interaction]:
            first_fallback, fallback = writers.get(phenomenon, (VARIANTS, None))
            for i, text in enumerate(variants.get(phenomenon, [])):
                reason = validate(fact, interaction, phenomenon, text)
                if reason:  # the rules writer must never be the source of an invalid template
                    raise AssertionError(f"rules writer produced an invalid template: {text!r}: "
                                         f"{reason}")
                writer = fallback if i >= first_fallback and fallback else self.writer
                stats["fallback_templates"] += writer == "rules-fallback"
                model = self.client.model.model if self.client and writer == "llm" else None
                tid = hashlib.sha256(json.dumps(
                    [fact.type_id, fact.property_id, fact.qualifier_id, interaction, phenomenon,
                     i, text]).encode()).hexdigest()[:16]
                con.execute(
                    "INSERT INTO templates VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [tid, fact.type_id, fact.property_id, fact.qualifier_id, interaction,
                     phenomenon, i, text, fact.answer, writer, model,
                     self.prompt_hash if writer == "llm" else None, input_hash, self.run_id,
                     self.now])
                stats["templates"] += 1
        con.execute("COMMIT")


def template_rows(con: duckdb.DuckDBPyConnection, type_id: str) -> list[tuple]:
    return con.execute(
        "SELECT property_id, qualifier_property_id, interaction, phenomenon, variant, text, "
        "writer FROM templates WHERE type_id = ? ORDER BY 1, 2 NULLS FIRST, 3 DESC, 4, 5",
        [type_id]).fetchall()


