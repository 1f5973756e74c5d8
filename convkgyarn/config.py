"""Typed configuration: built once at the CLI from the config file and options, then passed down."""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator)

from convkgyarn.errors import ConfigError

DEFAULT_DB = Path("outputs/convkgyarn.duckdb")
MIN_MEMORY_BYTES = 16_000_000
# A language code as Wikidata writes them (de, zh-hans, pt-br, mul): the same pattern as
# ``kg.ids.LANGUAGE``, which checks codes from dumps and files (config sits below kg).
LANGUAGE_CODE = re.compile(r"[a-z]{2,8}(?:-[a-z0-9]{1,12}){0,4}", re.ASCII)
ALL_LANGUAGES = "all"
CONFIG_FILE = Path("convkgyarn.toml")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def language_codes(value: list[str] | None) -> list[str] | None:
    """The --language option checked and normalised: lower case (``pt-BR`` is Wikidata's
    ``pt-br``), each code once, sorted; ``all`` absorbs the rest; None when none is asked.
    Which languages a load then keeps (English always, ``zh`` with its script variants) is
    ``kg.languages.kept_languages``."""
    if value is None:
        return None
    codes = set()
    for raw in value:
        code = raw.strip().lower() if isinstance(raw, str) else raw
        if not isinstance(code, str) or LANGUAGE_CODE.fullmatch(code) is None:
            raise ValueError(f"--language takes language codes like de, ja, zh-hans, pt-br or "
                             f"mul (or all), not {str(raw)[:40]!r}")
        codes.add(code)
    if ALL_LANGUAGES in codes:
        return [ALL_LANGUAGES]
    return sorted(codes) or None


class LoadConfig(_Strict):
    paths: list[Path]
    workers: int = Field(1, ge=1, description="parsers in all: the loading process and "
                         "workers - 1 worker processes")
    force: bool = False
    labels: list[Path] = Field(default_factory=list, description="JSON files of labels for ids "
                               "outside the dump, in English and the kept languages "
                               "(kg.label_files: {id: label}, {id: {label, ...}}, "
                               "{id: {language: label}}, wbgetentities entities)")
    value_labels: list[Path] = Field(
        default_factory=list, description="JSON files of labels (as labels) that name values "
        "only: a fact whose value they name may be asked, but they never name a type or a "
        "property, nor replace a label the dump or a labels file gives (CoDEx-M's "
        "types-en.json names occupations, genres and fields a dump's values lack)")
    kind: Literal["dump", "sample"] = "dump"
    block_bytes: int = Field(4 << 20, ge=1024, description="bytes of dump text per parse task")
    bz2_range_bytes: int = Field(256 << 10, ge=1024, description="compressed bytes of a bz2 "
                                 "file per parse task, when the workers decode it")
    engine: Literal["local", "spark"] = Field(
        "local", description="local: this machine's processes; spark: Apache Spark "
        "(PySpark), the same extraction code on a cluster or in local mode")
    spark_master: str | None = Field(None, description="Spark master URL [default: local[*]]")
    spark_output: str | None = Field(
        None, description="where executors write Parquet parts (a path or URI every executor "
        "and this machine can read) [default: a scratch directory beside the database, "
        "removed after the load]")
    keep_types: list[str] | None = Field(
        None, description="keep whole only items of these types (P31, and P106 for humans); "
        "every other item keeps its id, English label and types, so answers stay named. "
        "None: every item whole")
    languages: list[str] | None = Field(
        None, description="keep labels, descriptions and aliases in these languages too "
        "(entity_labels; English is always kept); [\"all\"]: every language the dump has. "
        "None: English only")

    @field_validator("languages")
    @classmethod
    def _languages(cls, value: list[str] | None) -> list[str] | None:
        return language_codes(value)

    @field_validator("keep_types")
    @classmethod
    def _type_ids(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        bad = [v for v in value if not re.fullmatch(r"Q[1-9][0-9]*", v, re.ASCII)]
        if bad or not value:
            raise ValueError(f"--type takes Wikidata item ids like Q5, not {bad or 'nothing'}")
        return sorted(set(value))

    @model_validator(mode="after")
    def _one_scope_a_file(self) -> "LoadConfig":
        both = labels_in_both_scopes(self.labels, self.value_labels)
        if both:
            raise ValueError(both)
        return self


def labels_in_both_scopes(labels, value_labels) -> str | None:
    """The error of a labels file given as both --labels and --value-labels (one file, one
    scope: the later load would silently replace the earlier), or None."""
    both = {Path(p).resolve() for p in labels} & {Path(p).resolve() for p in value_labels}
    if not both:
        return None
    return (f"{sorted(both)[0]}: given as both --labels and --value-labels; give it once "
            "(--value-labels: it names values only)")


class Price(_Strict):
    """USD per million tokens."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)


# Public list prices (USD / 1M tokens); override or extend with [llm.prices.MODEL] in the config.
DEFAULT_PRICES = {
    "gpt-4o": Price(input=2.5, output=10.0),
    "gpt-4o-mini": Price(input=0.15, output=0.6),
    "gpt-4.1": Price(input=2.0, output=8.0),
    "gpt-4.1-mini": Price(input=0.4, output=1.6),
    "gpt-4-turbo": Price(input=10.0, output=30.0),
    "gpt-4": Price(input=30.0, output=60.0),
    "gpt-3.5-turbo": Price(input=0.5, output=1.5),
}


class StageModel(_Strict):
    """The model one pipeline stage uses, with its sampling settings."""

    model: str
    temperature: float = Field(0.0, ge=0, le=2)
    max_tokens: int = Field(1024, ge=1)


class LLMStages(_Strict):
    # The paper's choice: a GPT-4-class model to select predicates and to judge,
    # a GPT-3.5-class model to write templates.
    selector: StageModel = StageModel(model="gpt-4o")
    templater: StageModel = StageModel(model="gpt-3.5-turbo", temperature=0.7, max_tokens=2048)
    answerer: StageModel = StageModel(model="gpt-4o-mini", max_tokens=256)
    judge: StageModel = StageModel(model="gpt-4o", max_tokens=256)
    rater: StageModel = StageModel(model="gpt-4o", max_tokens=512)


class LLMConfig(_Strict):
    """One OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp) and its limits."""

    base_url: str | None = None
    api_key: SecretStr | None = None
    timeout: float = Field(60.0, gt=0, description="seconds per HTTP request")
    max_attempts: int = Field(6, ge=1, description="HTTP attempts on 429, 5xx, timeouts")
    backoff_max: float = Field(30.0, gt=0, description="longest wait between attempts")
    concurrency: int = Field(8, ge=1, description="requests in flight")
    validation_attempts: int = Field(3, ge=1, description="re-asks after invalid structured output")
    structured_output: Literal["auto", "json_schema", "json_object"] = "auto"
    logit_bias: Literal["auto", "off"] = "auto"
    max_cost: float | None = Field(None, ge=0, description="USD budget for one command")
    dry_run: bool = False
    batch: bool = Field(False, description="send through the OpenAI Batch API (half the "
                        "price; results within the completion window)")
    batch_poll: float = Field(30.0, gt=0, description="seconds between batch status checks")
    batch_window: Literal["24h"] = "24h"
    prices: dict[str, Price] = Field(default_factory=lambda: dict(DEFAULT_PRICES))
    stages: LLMStages = LLMStages()

    @property
    def configured(self) -> bool:
        return bool(self.base_url or self.api_key)

    @property
    def json_mode(self) -> str:
        if self.structured_output != "auto":
            return self.structured_output
        official = self.base_url is None or "openai.com" in self.base_url or "azure" in self.base_url
        return "json_schema" if official else "json_object"


class SparqlConfig(_Strict):
    """A SPARQL 1.1 endpoint and the slice of Wikidata to fetch from it."""

    endpoint: str
    entities: list[str] = []
    types: list[str] = []
    limit: int = Field(100, ge=1, description="entities per type, most sitelinks first")
    batch_size: int = Field(50, ge=1, description="entities per query (VALUES)")
    page_size: int = Field(10000, ge=1, description="rows per page (LIMIT/OFFSET)")
    timeout: float = Field(60.0, gt=0)
    max_attempts: int = Field(5, ge=1)
    backoff_max: float = Field(30.0, gt=0)
    user_agent: str = Field(
        "convkgyarn/0.1 (conversational KGQA datasets from Wikidata; SPARQLWrapper)",
        description="sent with every query, as the Wikidata Query Service asks")
    retry_after_max: float = Field(
        120.0, gt=0, description="the longest wait a 429/503 Retry-After gets (seconds); a "
        "longer one is cut to this, announced, and retried")
    languages: list[str] | None = Field(
        None, description="fetch labels, descriptions and aliases in these languages too "
        "(English is always fetched); [\"all\"]: every language. None: English only")

    @field_validator("languages")
    @classmethod
    def _languages(cls, value: list[str] | None) -> list[str] | None:
        return language_codes(value)

    @field_validator("entities", "types")
    @classmethod
    def _item_ids(cls, value: list[str]) -> list[str]:
        """Ids pasted into the queries sent: Wikidata item ids only."""
        bad = [v for v in value if not re.fullmatch(r"Q[1-9][0-9]*", v, re.ASCII)]
        if bad:
            raise ValueError(f"--entity and --type take Wikidata item ids like Q42, not "
                             f"{', '.join(repr(b[:40]) for b in bad[:3])}")
        return value


class TypesConfig(_Strict):
    """Which entity types get conversations (rules, then the LLM type selector)."""

    include: list[str] = Field(default_factory=list, description="always selected (science "
                               "types such as genes or taxa included)")
    exclude: list[str] = Field(default_factory=list, description="never selected")


class PredicatesConfig(_Strict):
    types: list[str] = Field(default_factory=list, description="only these types (default all)")
    min_type_entities: int = Field(3, ge=1, description="types with fewer entities are skipped")
    min_share: float = Field(0.05, ge=0, le=1,
                             description="rules: a property used by a smaller share of the "
                             "type's entities is left out")


class RelatedConfig(_Strict):
    """Related entities: which popular people get one, how candidates are ranked, and the
    limits of the optional embedding training.

    Every method emits only a pair the KG can explain (a direct link or a shared item through
    a connecting property); the method decides the order among those candidates."""

    method: Literal["shared", "complex", "pbg"] | None = Field(
        None, description="shared: shared items and direct links weighted by how specific "
        "they are (seconds at any size); complex: ComplEx embeddings trained on the KG rank "
        "the connected candidates; pbg: published PyTorch-BigGraph vectors rank them. "
        "Default: pbg when `pretrained` is given, else shared")
    min_sitelinks: int = Field(50, ge=0, description="popular people: at least this many sitelinks")
    related_types: list[str] = Field(["Q5"], description="a related entity has one of these "
                                     "types (empty: any typed entity)")
    max_degree: int = Field(1000, ge=2, description="an item linked to more entities than this "
                            "connects nobody (a category, not a tie)")
    min_score: float = Field(0.25, ge=0, description="a candidate needs at least this shared-"
                             "link score: below it the pair rests only on items many share "
                             "(on CoDEx-M such picks were no better than chance)")
    rerank_top: int = Field(100, ge=1, description="embedding methods: the connected "
                            "candidates with the best shared-link scores they re-rank")
    rank: int = Field(32, ge=2, description="complex dimensions (vectors have 2 x rank floats)")
    epochs: int = Field(100, ge=1, description="at most this many training epochs")
    time_budget: float = Field(180.0, gt=0, description="training stops after this many "
                               "seconds, keeping the best vectors so far")
    patience: int = Field(3, ge=1, description="training stops after this many epochs "
                          "without a better held-out check")
    batch_size: int = Field(1000, ge=1)
    lr: float = Field(0.1, gt=0)
    reg: float = Field(5e-3, ge=0, description="N3 regularisation weight")
    seed: int = 0
    threads: int = Field(2, ge=1)
    pretrained: Path | None = Field(None, description="PyTorch-BigGraph TSV (method pbg)")

    @model_validator(mode="after")
    def _method_needs_its_input(self) -> "RelatedConfig":
        if self.method == "pbg" and self.pretrained is None:
            raise ValueError("method pbg needs pretrained (a PyTorch-BigGraph TSV file)")
        if self.pretrained is not None and self.method in ("shared", "complex"):
            raise ValueError(f"pretrained vectors are used only by method pbg, not {self.method}")
        return self

    @property
    def resolved_method(self) -> str:
        return self.method or ("pbg" if self.pretrained is not None else "shared")


# Languages conversations can be made in on the rules path (convkgyarn.languages.CODES
# holds the same; a test keeps them equal): English is the pivot every plan is made in.
LANGUAGES = ("en", "de", "ja", "zh")


def _languages(codes: list[str]) -> list[str]:
    """Known codes, each once, in the order given (lower case)."""
    out: list[str] = []
    for code in codes:
        code = code.strip().lower()
        if code not in LANGUAGES:
            raise ValueError(f"unknown language {code!r}: conversations can be made in "
                             f"{', '.join(LANGUAGES)}")
        if code not in out:
            out.append(code)
    if not out:
        raise ValueError("give at least one language")
    return out


class TemplatesConfig(_Strict):
    interactions: list[Literal["voice", "text"]] = ["voice", "text"]
    llm_rounds: int = Field(3, ge=1, description="requests per fact before the rules fallback")
    languages: list[str] = Field(["en"], description="languages templates are written in "
                                 "(generate adds those its configurations ask for)")

    @field_validator("languages")
    @classmethod
    def _known(cls, v: list[str]) -> list[str]:
        return _languages(v)


class GenerateConfig(_Strict):
    """One conversation configuration (the paper's interaction settings) and its sampling."""

    interaction: Literal["voice", "text"] = "voice"
    deixis: bool = False
    disfluency: bool = False  # voice only
    typos: bool = False  # text only
    related: bool = False
    turns: int = Field(5, ge=1, le=50)
    min_turns: int = Field(3, ge=1, le=50, description="an entity needs facts for at least "
                           "this many turns (or --turns, if fewer) to be a subject")
    conversations: int = Field(100, ge=1)
    types: list[str] = []
    entities: list[str] = []
    seed: int = 0
    same_facts: bool = True
    max_label_chars: int = Field(100, ge=10, description="labels longer than this are not "
                                 "used as subjects or answers")
    max_answer_values: int = Field(8, ge=1, description="a fact with more values is not asked "
                                   "as a whole (its single statements still may be)")
    new_fact_share: float = Field(0.5, ge=0, le=1, description="more conversations than "
                                  "subjects: a further conversation about a subject is made "
                                  "only when at least this share of its facts (and one) were "
                                  "not asked by the conversations about it before; when no "
                                  "subject has such facts left the run makes fewer "
                                  "conversations than asked and says so (0: repeat facts "
                                  "freely)")
    subjects: Literal["popular", "uniform"] = Field(
        "popular", description="the seeded order subjects are drawn in: popular favours the "
        "entities people know (an entity with 100 sitelinks comes before one with 2 about 33 "
        "times in 34), so a sample from a large KG is mostly things worth asking about; "
        "uniform gives every candidate the same chance")
    homonyms: bool = Field(False, description="also make conversations about an entity "
                           "whose English name a better-known entity (at least as many "
                           "sitelinks) in the KG bears: \"How many people live in "
                           "Amsterdam?\" about Amsterdam, New York, reads as the Dutch "
                           "capital's. --entity always makes them")
    profiles: bool = Field(False, description="also make conversations about a little-known "
                           "person or place (fewer than 50 sitelinks) of which the KG holds "
                           "nothing to ask but a stock profile, a person's job, birth, "
                           "nationality, death, languages, employer, schools, a place's "
                           "country, population, area: \"What is Heleen Plaatzer's "
                           "occupation?\" \"When was she born?\" reads as a form nobody "
                           "asked for (long-tail recall probes may want them). --entity "
                           "always makes them")
    follow_ups: bool = Field(True, description="some answers lead on, as they do between "
                             "people: a yes/no question about the person or place just "
                             "named (\"Who directed it?\" \"Did he also write the "
                             "screenplay?\"), or a question or two about the person, work or "
                             "organisation an answer named (\"When was he born?\") before "
                             "going back to the subject; --no-follow-ups asks the subject's "
                             "facts only (0.6's conversations)")
    follow_share: float = Field(0.5, ge=0, le=1, description="with follow-ups: the chance that "
                                "an answer one fits leads to it (at most one yes/no and one "
                                "side topic a conversation; an \"also\" yes/no has its own "
                                "also_share)")
    also_share: float = Field(1.0, ge=0, le=1, description="with follow-ups: the chance that "
                              "an answer an \"also\" yes/no fits leads to it (\"Where was he "
                              "born?\" \"Gary.\" \"Did he also die there?\"): readers rate it "
                              "as following on and as the variety a run of wh-questions "
                              "lacks, so by default wherever one fits; none with "
                              "follow_share 0, which turns every drawn follow-up off)")
    list_share: float = Field(0.0, ge=0, le=1, description="with follow-ups: the chance that "
                              "a list of the subject's own (neighbours, official languages, "
                              "children) is asked as a count first and then named (\"How many "
                              "neighbours does it have?\" \"2\" \"Can you name them?\"); 0 by "
                              "default: asked wherever it fits, three blind head-to-head "
                              "raters preferred the plain question on relevance in 41 "
                              "judgements of 42 and on diversity in 39 (s36); 0.8.23 drew "
                              "follow_share here. Not with hops, kinds or changed_since, "
                              "whose walks ask no count first")
    hops: bool = Field(False, description="follow-ups may move to an item answered earlier "
                       "(the director, the spouse) and ask about it")
    topics: int = Field(3, ge=1, le=10, description="with --hops: at most this many entities "
                        "a conversation talks about (its subject and the items it moves to)")
    hop_share: float = Field(0.6, ge=0, le=1, description="with --hops: the chance that an "
                             "answer naming an item with facts of its own leads to questions "
                             "about it")
    ellipsis: bool = Field(False, description="some follow-ups leave the subject out "
                           "(\"the spouse?\", \"when was that?\")")
    ellipsis_share: float = Field(0.5, ge=0, le=1, description="with --ellipsis: the share of "
                                  "follow-ups about the same subject asked elliptically, where "
                                  "the fact has such a question")
    kinds: list[Literal["count", "verify", "before"]] = Field(
        default_factory=list, description="more kinds of question: count (how many children), "
        "verify (yes or no, with a true or a plausible false candidate), before (who held a "
        "role before someone)")
    kind_share: float = Field(0.3, ge=0, le=1, description="with kinds: the chance that a "
                              "fact one of them fits is asked that way")
    languages: list[str] = Field(["en"], description="languages the conversations are made "
                                 "in, each plan once per language over the same statements "
                                 "(en, de, ja, zh; a configuration other than English alone "
                                 "is named by its languages, voice-deixis-en-de)")
    answer_style: Literal["short", "sentence"] = Field(
        "short", description="sentence: each turn also carries the answer as one sentence "
        "grounded in the fact (answer_sentence)")
    changed_since: str | None = Field(None, description="stale-knowledge probes: ask only "
                                      "facts a refresh changed since this snapshot (a refresh "
                                      "id, 'last', or a dump date YYYY-MM-DD)")

    @field_validator("languages")
    @classmethod
    def _known_languages(cls, v: list[str]) -> list[str]:
        return _languages(v)

    @field_validator("entities", "types")
    @classmethod
    def _subject_ids(cls, value: list[str]) -> list[str]:
        """Wikidata item ids, each once (an id listed twice is one subject, in its first
        place: a list pasted from a file may repeat one)."""
        return list(dict.fromkeys(SparqlConfig._item_ids(value)))

    @model_validator(mode="after")
    def _options_fit_the_interaction(self) -> "GenerateConfig":
        if self.interaction == "text" and self.disfluency:
            raise ValueError("disfluency applies to voice conversations only "
                             "(--disfluency with --interaction text)")
        if self.interaction == "voice" and self.typos:
            raise ValueError("typos apply to text conversations only "
                             "(--typos with --interaction voice)")
        return self

    @property
    def name(self) -> str:
        """The configuration's name: interaction, phenomena and every setting of theirs that
        changes the conversations, so two different settings never share a name (and never
        replace each other's conversations). A setting at its default adds nothing, so the
        paper's names stay as they are: ``voice-deixis-disfluency``, ``text-typos``;
        otherwise ``voice-hops-topics2``, ``voice-kinds-count-verify``,
        ``voice-ellipsis-share0.3``, ``voice-changes-2024-01-01``. Which entities, how many
        and how long (``--conversations``, ``--turns``, ``--seed``, ``--type``,
        ``--entity``, ``--homonyms``, ``--profiles``, ``--min-turns``, label and value
        limits) are the
        sample, not the setting: generating the same setting again replaces its sample
        (``--keep-previous`` keeps the previous run), and each record's ``config`` holds
        them all."""
        default = type(self).model_fields
        parts = [self.interaction]
        parts += [p for p, on in (("deixis", self.deixis), ("disfluency", self.disfluency),
                                  ("typos", self.typos), ("related", self.related)) if on]
        if not self.follow_ups:
            parts.append("nofollowups")
        else:
            if self.follow_share != default["follow_share"].default:
                parts.append(f"follow{self.follow_share:g}")
            if self.also_share != default["also_share"].default and self.follow_share and \
                    not self.hops and not self.kinds and self.changed_since is None:
                # (where "also" questions are asked: probes of changed facts ask none)
                parts.append(f"also{self.also_share:g}")
            if self.list_share != default["list_share"].default and self.follow_share and \
                    not self.hops and not self.kinds and self.changed_since is None:
                parts.append(f"list{self.list_share:g}")  # (where a count leads to a list)
        if self.hops:
            parts.append("hops")
            if self.topics != default["topics"].default:
                parts.append(f"topics{self.topics}")
            if self.hop_share != default["hop_share"].default:
                parts.append(f"share{self.hop_share:g}")
        if self.ellipsis:
            parts.append("ellipsis")
            if self.ellipsis_share != default["ellipsis_share"].default:
                parts.append(f"share{self.ellipsis_share:g}")
        if self.kinds:
            # kinds in the order given: the order seeds which facts are asked which way
            parts += ["kinds", *self.kinds]
            if self.kind_share != default["kind_share"].default:
                parts.append(f"share{self.kind_share:g}")
        if self.answer_style == "sentence":
            parts.append("sentences")
        if self.languages != ["en"]:  # the set of languages decides which turns all can say
            parts += self.languages
        if self.changed_since is not None:
            parts.append("changes")
            if self.changed_since != "last":
                parts.append(re.sub(r"[^A-Za-z0-9.-]+", "_", self.changed_since))
        return "-".join(parts)


class AssemblyConfig(_Strict):
    """How assembly works through its subjects; never what it makes (the same conversations
    whatever these are, so they are not part of a run's identity)."""

    batch_subjects: int = Field(2000, ge=1, description="subjects assembled per batch: the "
                                "facts, templates and conversations of one batch are what "
                                "assembly holds in memory at once")
    memory_limit: str = Field(
        "512MB", pattern=r"^\s*\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$",
        description="DuckDB's memory cap while assembling (the project's memory_limit if that "
        "is lower): the run's staged rows spill to disk beyond it")


class ConversationSelection(_Strict):
    """Which stored conversations a stage works on."""

    config_names: list[str] = Field(default_factory=list, description="only these "
                                    "configurations (default: every current one)")
    runs: list[str] = Field(default_factory=list, description="these runs instead of the "
                            "current run of each configuration")
    limit: int | None = Field(None, ge=1, description="at most this many conversations")


PAPER_PHENOMENA = (
    {"interaction": "voice"}, {"interaction": "voice", "deixis": True},
    {"interaction": "voice", "disfluency": True},
    {"interaction": "voice", "deixis": True, "disfluency": True},
    {"interaction": "text"}, {"interaction": "text", "deixis": True},
    {"interaction": "text", "typos": True},
    {"interaction": "text", "deixis": True, "typos": True},
)


def paper_configs(base: GenerateConfig) -> list[GenerateConfig]:
    """The paper's eight configurations over the same facts, with ``base``'s sampling."""
    phenomena = {"interaction": "voice", "deixis": False, "disfluency": False, "typos": False}
    return [GenerateConfig.model_validate({**base.model_dump(), **phenomena, **c,
                                           "same_facts": True}) for c in PAPER_PHENOMENA]


class EvaluateConfig(ConversationSelection):
    models: list[str] = Field(default_factory=list, description="models under test "
                              "(default: the answerer stage's model)")
    bootstrap: int = Field(1000, ge=10, description="bootstrap resamples for 95% intervals")
    seed: int = 0


class CompareConfig(_Strict):
    ours: str = Field(description="our configuration to compare")
    theirs_run: str = Field(description="the run of the reference conversations")
    pairs: int = Field(50, ge=1)
    seed: int = 0


class RefreshConfig(_Strict):
    max_shrink: float = Field(0.2, ge=0, le=1, description="refuse a new snapshot that removes "
                              "more than this share of the entities (unless --allow-shrink)")


class ProjectConfig(_Strict):
    db: Path = DEFAULT_DB
    memory_limit: str = Field(
        "2GB", pattern=r"^\s*\d+(\.\d+)?\s*(KB|MB|GB|TB|KiB|MiB|GiB|TiB)\s*$",
        description="DuckDB's memory cap for the project database, e.g. 512MB or 4GB: a load's "
        "peak memory is about this plus 0.3 GB, whatever the size of the dump")

    @field_validator("memory_limit")
    @classmethod
    def _enough_memory(cls, value: str) -> str:
        """Below 16 MB DuckDB cannot open a project at all; a command that needs more than
        the cap stops with one line saying to raise it."""
        m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT])(i?)B\s*", value)
        if m and float(m[1]) * (1024 if m[3] else 1000) ** "KMGT".index(m[2]) * \
                (1024 if m[3] else 1000) < MIN_MEMORY_BYTES:
            raise ValueError("must be at least 16MB (DuckDB cannot open a project with less; "
                             "2GB is the default)")
        return value
    types: TypesConfig = TypesConfig()
    predicates: PredicatesConfig = PredicatesConfig()
    llm: LLMConfig = LLMConfig()
    templates: TemplatesConfig = TemplatesConfig()
    related: RelatedConfig = RelatedConfig()
    evaluate: EvaluateConfig = EvaluateConfig()
    generate: GenerateConfig = GenerateConfig()
    assembly: AssemblyConfig = AssemblyConfig()
    refresh: RefreshConfig = RefreshConfig()


def load_project_config(
    path: Path | None = None,
    overrides: dict[str, Any] | None = None,
    environ: Mapping[str, str] | None = None,
) -> ProjectConfig:
    """Build the config: environment (OPENAI_BASE_URL / OPENAI_API_KEY), then the config file
    (``convkgyarn.toml``), then CLI overrides. The only place the environment is read."""
    data: dict[str, Any] = {}
    if path is not None and not path.is_file():
        raise ConfigError(f"{path}: no such config file" if not path.exists() else
                          f"{path}: is a folder, not a config file")
    path = path or CONFIG_FILE
    if path.exists() and not path.is_file():
        raise ConfigError(f"{path}: is a folder, not a config file; move it away or give "
                          "--config FILE")
    if path.is_file():
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}") from exc
        except UnicodeDecodeError as exc:
            raise ConfigError(f"{path}: not a TOML text file (byte {exc.start} is not UTF-8 "
                              "text); give a convkgyarn.toml written as text, or --config "
                              "FILE") from None
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read the config file ({exc.strerror})") from None
    llm = data.setdefault("llm", {})
    env = os.environ if environ is None else environ
    for key, var in (("base_url", "OPENAI_BASE_URL"), ("api_key", "OPENAI_API_KEY")):
        if env.get(var) and key not in llm:
            llm[key] = env[var]
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        target = data
        *parents, leaf = key.split(".")
        for part in parents:
            target = target.setdefault(part, {})
        target[leaf] = value
    try:
        return ProjectConfig.model_validate(data)
    except ValidationError as exc:
        where = str(path) if path.is_file() else "options"
        raise ConfigError(f"{where}: {describe_validation(exc)}") from None


def describe_validation(exc: ValidationError) -> str:
    """One line naming each bad field: ``generate.turns: must be >= 1 (got 0)``."""
    parts = []
    for e in exc.errors()[:4]:
        loc = ".".join(str(x) for x in e["loc"]) or "config"
        msg = e["msg"].removeprefix("Value error, ")
        got = f" (got {e['input']!r})" if "input" in e and not isinstance(
            e["input"], (dict, list)) else ""
        parts.append(f"{loc}: {msg}{got}")
    return "; ".join(parts)


