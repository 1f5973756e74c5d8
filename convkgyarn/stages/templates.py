"""Question templates per (type, predicate[, qualifier]): written by an LLM or by rules,
validated one by one, every rejection kept as a drop with its reason.

Follow-ups that leave the subject out ("the spouse?", "when was that?") are an optional
phenomenon, ``ellipsis``: written where they read well, never required.

A template is a question with placeholders: the subject as the type in brackets
(``[actor]``), deixis references ``[he]`` / ``[him]`` / ``[his]``, the fact's value ``[a]``
(qualifier questions only, where the answer is ``[b]``). Voice templates come in four
phenomena (original, deixis, disfluencies, deixis_disfluencies), text templates in two
(original, deixis; typos are added when conversations are assembled); three variants each.

A (fact, interaction) is recorded as done in ``template_inputs`` with the hash of its
inputs; it is written again only when they change. Facts whose LLM replies were unusable
get rules-fallback templates so generation can go on, but are not marked complete: the next
run asks the LLM for them again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, RootModel

from convkgyarn.kg.snapshot import dump_date, type_labels
from convkgyarn.resources import combined_hash, data_block, load_prompt
from convkgyarn.stage import Stage, utcnow
from convkgyarn.stages.assemble.facts import BIRTH, CAREER_YEARS, PLAYING_CAREER, year_of
from convkgyarn.stages.phrasing import value_kind
from convkgyarn.stages.rules_writer import RulesWriter
from convkgyarn.store import insert_rows, registered, transaction
from convkgyarn.text import (
    REFERENCES, Fact, has_filler, has_repetition, placeholders, starts_with_wh)

PHENOMENA = {
    "voice": ("original", "deixis", "disfluencies", "deixis_disfluencies"),
    "text": ("original", "deixis"),
}
# Written where they read well, never required: a fact without them is still complete.
OPTIONAL_PHENOMENA = ("ellipsis",)
# Follow-ups that ask a fact about what the turn before named ("where was that?", "which part
# of [a] is it in?", "what are their names?"): the rules writer's on every path.
RULES_PHENOMENA = ("follow",)
ELLIPSIS_MAX_WORDS = {"voice": 7, "text": 5}
VARIANTS = 3
FACTS_PER_CALL = 5
TEXT_BIAS_WORDS = ("who", "whom", "what", "when", "which", "how")


def validate(fact: Fact, interaction: str, phenomenon: str, text: str) -> str | None:
    """Why a template is unusable, or None when it is fine."""
    if not isinstance(text, str) or not text.strip():
        return "empty template"
    found = placeholders(text)
    allowed = {fact.subject_name, *REFERENCES}
    if fact.qualifier_id:
        allowed.add("a")
    if phenomenon == "follow":  # "which part of [v] is it in?": the country just named
        allowed.add("v")
    unknown = sorted({p for p in found if p not in allowed} - {fact.answer.strip("[]")})
    if unknown:
        return f"unknown placeholder(s): {', '.join('[' + u + ']' for u in unknown)}"
    if fact.answer in text:
        return f"the answer placeholder {fact.answer} appears in the question"
    has_subject = fact.subject in text
    has_reference = any(f"[{r}]" in text for r in REFERENCES)
    if phenomenon == "follow":
        return None if interaction == "voice" else "follow-ups are spoken"
    if phenomenon == "ellipsis":
        if has_subject:
            return f"an ellipsis variant names the subject {fact.subject}"
        if len(text.split()) > ELLIPSIS_MAX_WORDS[interaction]:
            return (f"an ellipsis variant has more than {ELLIPSIS_MAX_WORDS[interaction]} "
                    "words")
    elif phenomenon.startswith("deixis"):
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


# -- the LLM writer's reply shapes --------------------------------------------------------

class VoiceTurn(BaseModel):
    original: list[str]
    deixis: list[str]
    disfluencies: list[str]
    deixis_disfluencies: list[str]
    ellipsis: list[str] = []
    answer: str


class TextTurn(BaseModel):
    original: list[str]
    deixis: list[str]
    ellipsis: list[str] = []
    answer: str


class VoiceReply(RootModel[dict[str, VoiceTurn]]):
    pass


class TextReply(RootModel[dict[str, TextTurn]]):
    pass


def describe_fact(n: int, fact: Fact) -> dict[str, Any]:
    """A fact for the prompt's data block (KG text stays inside JSON strings)."""
    out: dict[str, Any] = {"n": n, "subject": fact.subject, "property": fact.property_label}
    if fact.qualifier_id:
        out |= {"value": "[a]", "qualifier": fact.qualifier_label or fact.qualifier_id}
    out["answer"] = fact.answer
    if fact.tense == "past":
        out["tense"] = "past"
    return out


def template_id(fact: Fact, interaction: str, phenomenon: str, variant: int, text: str) -> str:
    key = [fact.type_id, fact.property_id, fact.qualifier_id, interaction, phenomenon, variant,
           text] + ([fact.tense] if fact.tense != "present" else [])
    return hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]


def selected_facts(con) -> list[Fact]:
    """Every selected (type, property[, qualifier]) in the tenses the KG needs: the past
    too when some entity of the type has the fact ended (an end time), is itself gone
    (died, dissolved) or is a sportsperson whose playing career is over
    (``facts.career_over``, the same rule: born ``CAREER_YEARS`` before the dump's year)."""
    dump_year = year_of(dump_date(con))
    rows = con.execute(
        """
        WITH gone AS (SELECT DISTINCT entity_id FROM statements
                      WHERE property_id IN ('P570', 'P576') AND truthy),
        ended AS (SELECT DISTINCT entity_id, property_id FROM qualifiers
                  WHERE qualifier_property_id = 'P582'),
        retired AS (SELECT entity_id FROM statements WHERE property_id = ? AND truthy
                    GROUP BY 1 HAVING TRY_CAST(regexp_extract(min(value_text),
                    '^(-?[0-9]{1,9})(-|$)', 1) AS BIGINT) <= ?),
        past AS (SELECT DISTINCT t.type_id, s.property_id FROM statements s
                 JOIN entity_types t ON t.entity_id = s.entity_id
                 WHERE s.entity_id IN (SELECT entity_id FROM gone)
                    OR (s.entity_id, s.property_id) IN (SELECT * FROM ended)
                    OR (list_contains(?, s.property_id)
                        AND s.entity_id IN (SELECT entity_id FROM retired))),
        humans AS (SELECT DISTINCT entity_id FROM entity_types WHERE type_id = 'Q5'),
        person_share AS (SELECT property_id, avg(CAST(value_id IN (SELECT entity_id FROM
                         humans) AS DOUBLE)) AS share, count(*) AS n
                         FROM statements WHERE value_id IN (SELECT id FROM entities)
                         GROUP BY 1)
        SELECT s.type_id, s.property_id, coalesce(p.label, s.property_id), p.datatype,
               s.qualifier_property_id, coalesce(q.label, s.qualifier_property_id),
               ps.share, ps.n, (s.type_id, s.property_id) IN (SELECT * FROM past)
        FROM selected_predicates s
        LEFT JOIN property_info p ON p.id = s.property_id
        LEFT JOIN property_info q ON q.id = s.qualifier_property_id
        LEFT JOIN person_share ps ON ps.property_id = s.property_id
        ORDER BY 1, 2, 5 NULLS FIRST
        """, [BIRTH, None if dump_year is None else dump_year - CAREER_YEARS,
              sorted(PLAYING_CAREER)]).fetchall()
    labels = type_labels(con, sorted({r[0] for r in rows}), infer=True)
    out = []
    for type_id, pid, plabel, dtype, qid, qlabel, share, n, past in rows:
        kind = value_kind(dtype, plabel, share if n and n >= 3 else None)
        tenses = ("present", "past") if past and not qid else ("present",)
        out += [Fact(type_id, labels[type_id] or "entity", pid, plabel, dtype, qid, qlabel,
                     kind, tense)
                for tense in tenses]
    return out


# -- the LLM writer's rounds, shared by every language ----------------------------------

Written = tuple[dict[str, list[str]], dict[str, tuple[int, str]], bool]
"""What a writer gives for one fact: its variants per phenomenon, the phenomena partly or
wholly filled in by the rules (phenomenon -> (index of the first filled-in variant,
"rules-fallback")), and whether the LLM's replies for it were usable."""


class LLMRounds:
    """The LLM path of a template writer, whatever the language: facts asked
    ``facts_per_call`` at a time, every variant validated (a rejection is a drop with its
    reason), the facts still short of variants asked again (``rounds`` requests in all),
    and what is still missing filled in by the rules writer as ``rules-fallback``.

    The caller says how to ask (``request(group, interaction, retry) -> LLMRequest``), how
    to judge one variant (``validate(fact, interaction, phenomenon, text) -> reason``),
    what the rules write for a fact (``fallback(fact, interaction) -> {phenomenon:
    [variants]}``, or None where they do not phrase it: ``unphrased`` is then the drop's
    reason) and how a rejection is kept (``reject(fact, interaction, phenomenon, variant,
    text, reason, attempt, detail=None)``).
    """

    def __init__(self, client, rounds: int, *, request: Callable, validate: Callable,
                 fallback: Callable, reject: Callable, unphrased: str,
                 phenomena: dict[str, tuple[str, ...]] = PHENOMENA,
                 optional: tuple[str, ...] = OPTIONAL_PHENOMENA,
                 facts_per_call: int = FACTS_PER_CALL) -> None:
        self.client = client
        self.rounds = rounds
        self.request = request
        self.validate = validate
        self.fallback = fallback
        self.reject = reject
        self.unphrased = unphrased
        self.phenomena = phenomena
        self.optional = optional
        self.facts_per_call = facts_per_call

    def write(self, facts: list[Fact], interaction: str, stats: dict) -> dict[Fact, Written]:
        """Every fact's variants (nothing is asked in a dry run: the requests are only
        counted, and the result is empty)."""
        accepted: dict[Fact, dict[str, list[str]]] = {f: {} for f in facts}
        unusable: set[Fact] = set()
        pending = list(facts)
        per_call = self.facts_per_call
        for attempt in range(1, self.rounds + 1):
            if not pending:
                break
            groups = [pending[i:i + per_call] for i in range(0, len(pending), per_call)]
            requests = [self.request(g, interaction, attempt > 1) for g in groups]
            results = self.client.run(requests)
            still = []
            for group, result in zip(groups, results):
                if result.dry_run:
                    continue
                if not result.ok:
                    for fact in group:
                        unusable.add(fact)
                        self.reject(fact, interaction, "*", -1, (result.text or "")[:2000],
                                    "unusable reply", attempt, detail=result.error)
                    continue
                turns = result.parsed.root
                for n, fact in enumerate(group, start=1):
                    turn = turns.get(str(n))
                    if turn is None:
                        self.reject(fact, interaction, "*", -1, (result.text or "")[:2000],
                                    f"reply has no turn {n}", attempt)
                    if self._take(fact, interaction, turn, accepted[fact], attempt, stats):
                        still.append(fact)
            pending = still
        if self.client.dry_run:
            return {}
        out = {}
        for fact in facts:
            variants, writers = accepted[fact], {}
            # an optional phenomenon the model left out stays out (it judged that no such
            # question reads well), unless the model's replies were unusable altogether
            wanted = self.phenomena[interaction] + (self.optional if fact in unusable else ())
            missing = [p for p in wanted if len(variants.get(p, [])) < VARIANTS]
            if missing:
                rules = self.fallback(fact, interaction)
                if rules is None:
                    self.reject(fact, interaction, "*", -1, "", self.unphrased, self.rounds)
                for p in missing:
                    have = variants.get(p, [])
                    fill = [t for t in (rules or {}).get(p, [])
                            if t not in have][:VARIANTS - len(have)]
                    variants[p] = have + fill
                    if fill:
                        writers[p] = (len(have), "rules-fallback")
            out[fact] = (variants, writers, fact not in unusable)
        return out

    def _take(self, fact: Fact, interaction: str, turn, accepted: dict, attempt: int,
              stats: dict) -> bool:
        """Keep a turn's valid variants; True when some phenomenon still lacks variants."""
        short = False
        for phenomenon in self.phenomena[interaction] + self.optional:
            optional = phenomenon in self.optional
            have = accepted.setdefault(phenomenon, [])
            if len(have) >= VARIANTS:
                continue
            texts = getattr(turn, phenomenon, None) if turn is not None else None
            if texts is None or (optional and not texts):
                short |= not optional  # an optional phenomenon may be left out
                continue
            if len(texts) != VARIANTS:
                self.reject(fact, interaction, phenomenon, -1, json.dumps(
                    texts, ensure_ascii=False)[:2000],
                    f"expected exactly {VARIANTS} variants, got {len(texts)}", attempt)
            for i, text in enumerate(texts[:VARIANTS]):
                stats["llm_variants"] += 1
                text = text.strip()
                reason = self.validate(fact, interaction, phenomenon, text)
                if reason is None and text in have:
                    reason = "duplicate of another variant"
                if reason:
                    self.reject(fact, interaction, phenomenon, i, text, reason, attempt)
                elif len(have) < VARIANTS:
                    have.append(text)
                    stats["accepted_first_try"] += attempt == 1
            short |= len(have) < VARIANTS and not optional
        return short


# -- the stage ------------------------------------------------------------------------------

class TemplaterStage(Stage):
    """What the stages that write templates share: the ``[templates]`` config section,
    who writes (the stage's ``path``) and the templater's model (``self.client``)."""

    def default_config(self, ctx):
        return ctx.config.templates

    @property
    def writer(self) -> str:
        """Who writes the templates: "llm" or "rules" (the stage's ``path``)."""
        return self.path

    @property
    def model(self) -> str | None:
        return self.client.model.model if self.client else None


class GenerateTemplates(TemplaterStage):
    """Write, validate and store templates for every selected (type, predicate[, qualifier])."""

    name = "templates.generate"
    reads = ("selected_predicates", "entities", "entity_types", "class_labels",
             "property_info", "qualifiers", "statements", "load_files")
    writes = ("templates", "template_inputs")

    def __init__(self, ctx, config=None) -> None:
        super().__init__(ctx, config)
        self.prompts = {i: load_prompt(f"templates_{i}.md") for i in PHENOMENA}
        self.prompt_hash = combined_hash(*self.prompts.values())
        self.client = ctx.client("templater", self.prompt_hash)
        self.rules = RulesWriter()
        self.now = utcnow()

    def facts(self) -> list[Fact]:
        """Every selected fact in the tenses the KG needs (``selected_facts``)."""
        return selected_facts(self.con)

    def input_hash(self, fact: Fact, interaction: str) -> str:
        # the decisive key holds the model, prompts, config and code (the rules writer's
        # too: rules write every template, or fill in for the LLM)
        blob = json.dumps([fact.__dict__, interaction, self.writer, self.decisive_key()],
                          sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def process(self) -> dict[str, Any]:
        stats: dict[str, Any] = {"writer": self.writer, "facts": 0, "unchanged": 0,
                                 "templates": 0, "fallback_templates": 0,
                                 "accepted_first_try": 0, "llm_variants": 0, "incomplete": 0}
        facts = self.facts()
        self._forget_unselected(facts)
        done = {(r[0], r[1], r[2], r[3], r[4]): r[5] for r in self.con.execute(
            "SELECT type_id, property_id, coalesce(qualifier_property_id, ''), tense, "
            "interaction, input_hash FROM template_inputs WHERE complete").fetchall()}
        self._facts, self._redone, self._finished = facts, set(), set()
        for interaction in self.config.interactions:
            todo = [f for f in facts if done.get(self._key(f) + (interaction,))
                    != self.input_hash(f, interaction)]
            keys = {"/".join(self._key(f) + (interaction,)) for f in todo}
            self._redone |= keys
            stats["unchanged"] += len(facts) - len(todo)
            stats["facts"] += len(todo)
            if self.client:
                written = self._write_llm(todo, interaction, stats)
            else:
                written = self._write_rules(todo, facts, interaction)
            if self.client and self.client.dry_run:
                continue
            self._store(interaction, written, stats)
            self._finished |= keys
        stats["rejected"] = sum(1 for d in self._dropped if d["reason"] != "unusable reply")
        return stats

    def replace_drops(self, con) -> None:
        """The rejections of a (fact, interaction) are those of the latest run that wrote
        its templates; facts no longer selected lose theirs."""
        current = None
        if hasattr(self, "_facts"):
            current = {"/".join(self._key(f) + (i,)) for f in self._facts
                       for i in ("voice", "text")}
        self.replace_drops_by_key(
            con, "array_to_string(string_split({item}, '/')[1:5], '/')",
            getattr(self, "_redone", ()), current)

    def drop_key(self, item: str) -> str:
        return "/".join(item.split("/")[:5])  # as replace_drops's key_sql

    @staticmethod
    def _key(f: Fact) -> tuple[str, str, str, str]:
        return (f.type_id, f.property_id, f.qualifier_id or "", f.tense)

    def _write_rules(self, todo: list[Fact], facts: list[Fact], interaction: str) -> dict:
        """Rules templates; a type's other questions lend believable false starts to its
        disfluent variants."""
        originals: dict[str, list[str]] = {}
        types = {f.type_id for f in todo}  # only the types written now need them
        if interaction == "voice":
            for f in facts:
                if f.type_id in types and f.tense == "present" and not f.qualifier_id:
                    written = self.rules.write(f, "voice")
                    if written:
                        originals.setdefault(f.type_id, []).append(written["original"][0])
        out = {}
        for f in todo:
            written = self.rules.write(f, interaction, originals.get(f.type_id, []))
            if not written:
                self._reject(f, interaction, "*", -1, "", "no phrasing reads well for this "
                             "fact", 0)
            out[f] = (written, {}, True)
        return out

    def _forget_unselected(self, facts: list[Fact]) -> None:
        """Templates of facts no longer selected go (the selection or the KG changed)."""
        keep = {self._key(f) for f in facts}
        stored = self.con.execute(
            "SELECT DISTINCT type_id, property_id, coalesce(qualifier_property_id, ''), tense "
            "FROM template_inputs").fetchall()
        gone = [r for r in stored if tuple(r) not in keep]
        if not gone:
            return
        with transaction(self.con) as con:
            for type_id, pid, qid, tense in gone:
                for table in ("templates", "template_inputs"):
                    con.execute(f"DELETE FROM {table} WHERE type_id = ? AND property_id = ? AND "
                                "coalesce(qualifier_property_id, '') = ? AND tense = ?",
                                [type_id, pid, qid, tense])

    # LLM path: five facts a call, bounded re-asks for rejected variants, rules fallback.
    def _write_llm(self, facts: list[Fact], interaction: str, stats: dict) -> dict:
        written = LLMRounds(self.client, self.config.llm_rounds, request=self._request,
                            validate=validate, fallback=self.rules.write, reject=self._reject,
                            unphrased="no phrasing reads well for this fact"
                            ).write(facts, interaction, stats)
        for fact, (variants, writers, _) in written.items():
            follow = (self.rules.write(fact, interaction) or {}).get("follow") \
                if interaction == "voice" else None
            if follow:  # the rules writer's follow-ups, on this path too
                variants["follow"], writers["follow"] = follow, (0, "rules")
        return written

    def _request(self, group: list[Fact], interaction: str, retry: bool):
        from convkgyarn.llm import LLMRequest

        text = self.prompts[interaction].render(
            facts=data_block([describe_fact(n, f) for n, f in enumerate(group, start=1)]))
        if retry:
            text += ("\nSome earlier variants were rejected; write fresh ones that follow "
                     "every rule above.")
        schema = VoiceReply if interaction == "voice" else TextReply
        bias = TEXT_BIAS_WORDS if interaction == "text" else ()
        return LLMRequest([{"role": "user", "content": text}], schema=schema, bias_words=bias)

    def _reject(self, fact: Fact, interaction: str, phenomenon: str, variant: int, text: str,
                reason: str, attempt: int, detail: str | None = None) -> None:
        item = "/".join((fact.type_id, fact.property_id, fact.qualifier_id or "", fact.tense,
                         interaction, phenomenon))
        self.drop(item, reason, text, type_id=fact.type_id, property_id=fact.property_id,
                  qualifier_property_id=fact.qualifier_id, tense=fact.tense,
                  interaction=interaction, phenomenon=phenomenon, variant=variant,
                  attempt=attempt, model=self.model, error=detail)

    def _store(self, interaction: str, written: dict, stats: dict) -> None:
        """All facts of one interaction in one transaction (a killed run leaves none half
        written)."""
        if not written:
            return
        templates, inputs = [], []
        for fact, (variants, writers, usable) in written.items():
            complete = usable
            for phenomenon in PHENOMENA[interaction] + OPTIONAL_PHENOMENA + RULES_PHENOMENA:
                first_fallback, fallback = writers.get(phenomenon, (VARIANTS, None))
                for i, text in enumerate(variants.get(phenomenon, [])):
                    reason = validate(fact, interaction, phenomenon, text)
                    if reason:  # a rules-writer bug: visible in the drops, never a crash
                        self.drop(f"{fact.type_id}/{fact.property_id}", "rules writer produced "
                                  "an invalid template", f"{text}: {reason}")
                        complete = False
                        continue
                    writer = fallback if i >= first_fallback and fallback else self.writer
                    stats["fallback_templates"] += writer == "rules-fallback"
                    templates.append({
                        "template_id": template_id(fact, interaction, phenomenon, i, text),
                        "type_id": fact.type_id, "property_id": fact.property_id,
                        "qualifier_property_id": fact.qualifier_id, "tense": fact.tense,
                        "interaction": interaction, "phenomenon": phenomenon, "variant": i,
                        "text": text, "answer": fact.answer, "writer": writer,
                        "model": self.model if writer == "llm" else None,
                        "prompt_hash": self.prompt_hash if writer == "llm" else None,
                        "input_hash": self.input_hash(fact, interaction),
                        "run_id": self.run_id, "created_at": self.now})
            stats["incomplete"] += not complete
            inputs.append({"type_id": fact.type_id, "property_id": fact.property_id,
                           "qualifier_property_id": fact.qualifier_id, "tense": fact.tense,
                           "interaction": interaction,
                           "input_hash": self.input_hash(fact, interaction),
                           "complete": complete, "run_id": self.run_id})
        stats["templates"] += len(templates)
        keys = {"type_id": [f.type_id for f in written],
                "property_id": [f.property_id for f in written],
                "q": [f.qualifier_id or "" for f in written],
                "tense": [f.tense for f in written]}
        with transaction(self.con) as con, registered(con, "_written", keys):
            for table in ("templates", "template_inputs"):
                con.execute(f"DELETE FROM {table} t USING _written f WHERE t.interaction = ? "
                            "AND t.type_id = f.type_id AND t.property_id = f.property_id AND "
                            "coalesce(t.qualifier_property_id, '') = f.q AND t.tense = f.tense",
                            [interaction])
            insert_rows(con, "templates", templates)
            insert_rows(con, "template_inputs", inputs)


def template_rows(con, type_id: str) -> list[tuple]:
    return con.execute(
        "SELECT property_id, qualifier_property_id, interaction, phenomenon, variant, text, "
        "writer FROM templates WHERE type_id = ? ORDER BY 1, 2 NULLS FIRST, tense DESC, 3 DESC, "
        "4, 5",
        [type_id]).fetchall()
