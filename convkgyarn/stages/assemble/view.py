"""The KG and the templates as one batch of subjects sees them.

A ``KGView`` holds the facts of the entities one batch needs (its subjects, their related
entities, the items a conversation may move to) and the templates of their types, fetched
in bulk by ``load()``; every lookup beyond them (people, genders, namesakes, related pairs,
changed facts) is a query joined to the ids being loaded, never a Python set of the whole
KG. An entity the batch has not loaded raises ``Missing``: the batch loads it with the
others missed and makes the conversation again (``stage.Batch``).

``RunLookups`` holds what every batch of a run shares, each bounded by the schema (types,
properties), not by the KG's entities: person-valued properties, property and type labels,
and the pools of false candidates for yes/no questions.

An entity's facts are those of its properties with templates for one of its types (no
other can be asked). What they are is decided here once per load, with the reasons for what
is left out kept beside them (``load_drops``, ``type_drops``): the stage records them the
first time a kept conversation uses the entity, so each is recorded once per run.
"""

from __future__ import annotations

import json
import random
from collections import OrderedDict, defaultdict
from dataclasses import dataclass, field, replace

import duckdb

from convkgyarn.config import GenerateConfig
from convkgyarn.kg.rdf import time_order
from convkgyarn.kg.render import Value
from convkgyarn.kg.snapshot import dump_date, type_labels
from convkgyarn.languages.base import Language
from convkgyarn.languages.units import english_name
from convkgyarn.stages import kinds
from convkgyarn.stages.assemble.facts import (
    BIRTH, END, GONE, HUMAN, PLAYING_CAREER, POINT_IN_TIME, askable, career_over, superseded,
    unsayable, value_key, year_of)
from convkgyarn.stages.assemble.records import (
    Drop, EntityFacts, FactChange, Statement, TemplateOption)
from convkgyarn.stages.assemble.wording import (
    CHARACTER_FACTS, ENGLISH, GENDER, OFFICE_OF, answer_kinds, office_noun, personal,
    value_kinds)
from convkgyarn.stages.naming import NAME_ORDER_UNKNOWN, TWO_FAMILY_NAMES, guessed_surname
from convkgyarn.stages.phrasing import value_kind
from convkgyarn.store import registered
from convkgyarn.text import subject_placeholder, zipf

FALSE_CANDIDATES = 5000  # values per property a yes/no question's wrong candidate comes from
# what makes another entity a peer of a yes/no question's subject, whose value for the
# property is a believable wrong answer: the type, country, continent, citizenship,
# occupation and sport they share, weighed by ``PEER_WEIGHTS`` ("Is Paris the capital of
# Malta?", a European country's, before York, a European county's)
PEER_PROPERTIES = ("P31", "P17", "P30", "P27", "P106", "P641")
POOL_HOLDERS = 50  # entities a wrong candidate's holders are read for, by id
# how much a wrong candidate's holder sharing one of the subject's values counts toward its
# closeness (``KGView.peer_values``): a neighbour first, then what someone is known for (an
# occupation, a sport: "Has Paris Jackson received AAAS Fellow?" came of a citizenship
# alone), then each other shared value; the types shared count once, as a country is a
# "sovereign state", a "country" and a "landlocked country" at once (Tajikistan's Dushanbe
# outranked Algeria's Algiers for Mali by three shared types)
NEIGHBOUR_WEIGHT, TYPE_WEIGHT = 10, 1
# properties whose present-tense yes/no needs a wrong candidate that still exists (a country,
# a continent, a citizenship, a party, a spouse, a capital, a currency): "Is Nordhausen in
# the Soviet Union?" is a trick; a father, a director or a film's country of origin may
# be gone ("Is John Lennon her father?", "Is the film from the Soviet Union?")
NEEDS_EXISTING = frozenset({"P17", "P30", "P27", "P102", "P26", "P36", "P38", "P131"})
PEER_WEIGHTS = {"P17": 1, "P30": 1, "P27": 1, "P106": 2, "P641": 2}
TEMPLATE_CACHE = 200_000  # template variants kept between batches (about 60 MB)
BATCH_TABLES = ("_batch_facts", "_batch_statements", "_batch_qualifiers", "_batch_labels")


def label_chain(language: str) -> tuple[str, ...] | None:
    """Where a label in ``language`` comes from, in order (None: the KG layer's default
    chain, the language, mul, English). Chinese questions are written in simplified
    characters, so a Chinese label is taken in simplified script first, then as Wikidata's
    plain ``zh`` (often traditional), then in traditional script."""
    if language == "zh":
        return ("zh-hans", "zh-cn", "zh-sg", "zh-my", "zh", "zh-hant", "zh-tw", "zh-hk",
                "zh-mo", "mul", "en")
    return None


# A side topic (follow-ups) is one of the values of an answer of at most this many
# ("What are his siblings' names?" "Prince Michael Jackson I and Paris Jackson." "What
# does Paris Jackson do?"); the view loads those values with the subjects.
THREAD_VALUES_MAX = 4


class Missing(Exception):
    """A conversation needs an entity its batch has not loaded."""

    def __init__(self, entity_id: str) -> None:
        super().__init__(entity_id)
        self.entity_id = entity_id


@dataclass
class Trace:
    """What one conversation used and dropped: the stage records the drops of the entities
    it used (once per run) and its own drops, only if the conversation is kept."""

    entities: set[str] = field(default_factory=set)
    typed: set[str] = field(default_factory=set)
    drops: list[Drop] = field(default_factory=list)
    lasting: bool = False  # dropped for what every pass finds again (not for its draws)


# Types of items that are names, not things a name stands for: family name, given names
# (male, female, unisex), double family name, name disambiguation pages.
NAME_TYPES = frozenset({"Q101352", "Q202444", "Q12308941", "Q11879590", "Q3409032",
                        "Q29042997", "Q4167410", "Q22808320"})
# A person this well known (sitelinks) is said by a family name that is also a whole name of
# something else ("Jackson", a city): listeners know whom it means.
FAMOUS_NAME = 100
# A namesake known by its label alone (the KG does not hold it) shadows a subject of the
# same name when the KG's facts name it from at least this many entities (``namesakes``)
NAMED_BY_MIN = 5
# A namesake this well known (sitelinks) is whom a listener hears in a family name said
# alone ("Jackson" is Michael Jackson); one less known stands in nobody's way ("Ramsden" for
# Denise Ramsden, though the KG holds Jesse Ramsden, an instrument maker few have heard of).
KNOWN_NAMESAKE = 50
# A word this common (wordfreq's Zipf scale) is a name listeners already know ("Putin",
# "Oxford", "Jackson" score over 4; "Ramsden", "Roth", "Clarkson" under 3.6): said alone it
# calls up its best-known bearer, even where the KG holds that bearer with few sitelinks.
KNOWN_NAME_ZIPF = 4.0


class RunLookups:
    """Lookups every batch of one run shares; each is bounded by the schema's size."""

    def __init__(self, con: duckdb.DuckDBPyConnection, cfg: GenerateConfig) -> None:
        self.con = con
        self.max_label = cfg.max_label_chars
        self.answer_style = cfg.answer_style
        self.interaction = cfg.interaction
        # the year the KG describes (its newest dump's): a playing career of someone born
        # CAREER_YEARS before it is over (``career_over``); None: no dump date, no rule
        self.dump_year = year_of(dump_date(con))
        self._type_labels: dict[str, str | None] = {}
        self._kinds_read = False  # the templated types' labels, inferred ones too
        self._templates: OrderedDict[str, tuple[dict, dict]] = OrderedDict()
        self._cached = 0  # template variants held in _templates
        self._pools: dict[str, tuple[list[Value], frozenset[str], frozenset[str]]] = {}
        self._holders: dict[str, dict[str, list[tuple[str, frozenset]]]] = {}
        self._property_labels: dict[str, str] | None = None
        self._namesakes_made = False
        self._surnames_made = False
        # whether the KG holds sitelinks at all: a dump loaded without them (a filtered
        # export) says nothing of who is little known, so no subject is left out as such
        # (planner.PROFILE_KNOWN); read here, before any batch streams from the connection
        # (the first such entity answers: no scan of a whole dump's entities each run)
        self.sitelinks_known = con.execute(
            "SELECT 1 FROM entities WHERE sitelinks > 0 LIMIT 1").fetchone() is not None
        # (a pass's fact key, turns) -> what it planned (``Planner.asked_before``): at most
        # four passes of each subject that gets a second conversation
        self.planned: dict[tuple, frozenset] = {}
        # generate --language: the configuration's languages besides English
        self.languages = [code for code in cfg.languages if code != "en"]
        self._local: dict[str, dict[tuple, list[TemplateOption]]] = {}
        # properties whose values are people (by the KG where it knows, else by the label)
        self.person_properties = {pid for pid, dtype, label, share, n in con.execute(
            "SELECT p.id, p.datatype, p.label, avg(CAST(s.value_id IN (SELECT entity_id FROM "
            "entity_types WHERE type_id = 'Q5') AS DOUBLE)) FILTER (WHERE s.value_id IN "
            "(SELECT id FROM entities)), count(*) FILTER (WHERE s.value_id IN (SELECT id FROM "
            "entities)) FROM property_info p JOIN statements s ON s.property_id = p.id "
            "WHERE p.datatype = 'wikibase-item' GROUP BY 1, 2, 3").fetchall()
            if value_kind(dtype, label or "", share if n and n >= 3 else None) == "person"}

    NAMESAKES = "_assembly_namesakes"

    def namesakes(self) -> str:
        """The temporary table of every entity a better-known namesake shadows: (entity,
        namesake, the namesake's sitelinks, and for a namesake the KG does not hold how many
        entities name it), made on the first call of a run.

        Another entity of the KG bears the same English name (any case) with at least as
        many sitelinks: the one with the most sitelinks (the smallest id among equals;
        among equals each other's namesake). One grouping of the KG's names per run, in
        DuckDB: a batch joins its subjects to it instead of scanning every entity's name
        again (that scan cost each batch time linear in the KG: 0.13 s at 81,000
        entities, ~45 s at 29M). Pairs are found in joins linear in the names (a name borne
        by 100,000 items, as "Editorial" is, must not pair them all)."""
        if not self._namesakes_made:
            self.con.execute(
                f"CREATE OR REPLACE TEMP TABLE {self.NAMESAKES} AS "
                "WITH named AS (SELECT id, lower(label) AS name, coalesce(sitelinks, 0) AS "
                "sitelinks FROM entities WHERE label IS NOT NULL), "
                "shared AS (SELECT name, max(sitelinks) AS top FROM named GROUP BY name "
                "HAVING count(*) > 1), "
                "leaders AS (SELECT n.name, count(*) AS k, min(n.id) AS first_id, max(n.id) AS "
                "last_id FROM named n JOIN shared s ON s.name = n.name AND n.sitelinks = s.top "
                "GROUP BY n.name) "
                "SELECT a.id AS entity_id, CASE WHEN a.id = l.first_id THEN l.last_id ELSE "
                "l.first_id END AS other_id, s.top AS sitelinks, NULL::INTEGER AS named_by "
                "FROM named a JOIN shared s USING (name) JOIN leaders l USING (name) "
                "WHERE a.sitelinks < s.top OR l.k > 1")
            # a namesake the KG does not hold, known by its label alone, that the KG's facts
            # name from at least NAMED_BY_MIN entities and more than name the subject: in a
            # partial dump Oxford, Mississippi is a subject and Oxford, England only the
            # town of twenty colleges ("Which country is Oxford in?" "The United States.")
            self.con.execute(
                f"INSERT INTO {self.NAMESAKES} "
                # each outside item's label (the labels view: a labels file's latest), the ones
                # named often enough, the most named of each name (the smallest id among
                # equals), joined to the KG's entities by name: linear in the names, never
                # every pair of items that share one ("Editorial")
                "WITH outside AS (SELECT id, lower(label) AS name FROM labels WHERE label "
                "IS NOT NULL AND id NOT IN (SELECT id FROM entities)), "
                "named AS (SELECT s.value_id AS id, count(DISTINCT s.entity_id) AS k FROM "
                "statements s JOIN outside o ON o.id = s.value_id GROUP BY 1 "
                "HAVING count(DISTINCT s.entity_id) >= ?), "
                "best AS (SELECT o.name, first(o.id ORDER BY n.k DESC, o.id) AS other_id, "
                "max(n.k) AS k FROM outside o JOIN named n USING (id) GROUP BY o.name), "
                "clash AS (SELECT e.id AS entity_id, b.other_id, b.k FROM entities e JOIN "
                "best b ON lower(e.label) = b.name), "
                "mine AS (SELECT value_id AS id, count(DISTINCT entity_id) AS k FROM "
                "statements WHERE value_id IN (SELECT entity_id FROM clash) GROUP BY 1) "
                "SELECT c.entity_id, c.other_id, 0, c.k FROM clash c LEFT JOIN mine m ON "
                "m.id = c.entity_id WHERE c.k > coalesce(m.k, 0) AND c.entity_id NOT IN "
                f"(SELECT entity_id FROM {self.NAMESAKES})", [NAMED_BY_MIN])
            self._namesakes_made = True
        return self.NAMESAKES

    SURNAMES = "_assembly_surnames"

    def surnames(self) -> str:
        """The temporary table of the words that can stand for an entity on their own, with
        the two highest sitelink counts among the entities they stand for: (word, top two),
        made on the first call of a run. A person's last word stands for them ("Jackson"),
        and a one-word name for its entity ("Oxford"); ``bare``: the word is the whole
        English name of something in the KG or the labels files ("London"). A surname says
        a person again only where nobody listeners know, or bearing a name they know, is
        nearly as well known (``View.family_names``): "Putin" for Vladimir Putin, never for
        Igor Putin; "Ramsden" for any Ramsden of a conversation. One
        grouping of the KG's names per run, as ``namesakes``."""
        if not self._surnames_made:
            self.con.execute(
                f"CREATE OR REPLACE TEMP TABLE {self.SURNAMES} AS "
                # names themselves (the "Smith" family name item, given names, name
                # disambiguation pages, any item a P734 or P735 names) stand for nobody
                "WITH names AS (SELECT entity_id AS id FROM entity_types WHERE "
                "list_contains(?, type_id) UNION SELECT value_id FROM statements WHERE "
                "property_id IN ('P734', 'P735') AND value_id IS NOT NULL), "
                "words AS (SELECT lower(regexp_extract(e.label, '([^ ]+)$', 1)) AS word, "
                "coalesce(e.sitelinks, 0) AS sitelinks FROM entities e WHERE e.label IS NOT "
                "NULL AND (e.id IN (SELECT entity_id FROM entity_types WHERE type_id = 'Q5') "
                "OR NOT contains(e.label, ' ')) AND e.id NOT IN (SELECT id FROM names)), "
                "ranked AS (SELECT word, max(sitelinks, 2) AS top FROM words GROUP BY word), "
                "bare AS (SELECT DISTINCT lower(label) AS word FROM labels WHERE label IS NOT "
                "NULL AND NOT contains(label, ' ') AND id NOT IN (SELECT id FROM names)) "
                "SELECT word, coalesce(r.top, []) AS top, b.word IS NOT NULL AS bare FROM "
                "ranked r FULL JOIN bare b USING (word)", [list(NAME_TYPES)])
            self._surnames_made = True
        return self.SURNAMES

    def close(self) -> None:
        """Drop the run's temporary tables."""
        for made, table in ((self._namesakes_made, self.NAMESAKES),
                            (self._surnames_made, self.SURNAMES)):
            if not made:
                continue
            try:
                self.con.execute(f"DROP TABLE IF EXISTS {table}")
            except duckdb.Error:  # an aborted transaction: the error that aborted it matters
                pass
        self._namesakes_made = self._surnames_made = False

    def templates(self, type_ids: list[str]) -> dict[str, tuple[dict, dict]]:
        """The templates of types (for the run's interaction), by their key (type,
        property, qualifier, tense, phenomenon), and each type's facts with templates by
        property. Kept between batches for the types used last, up to ``TEMPLATE_CACHE``
        variants."""
        missing = [t for t in type_ids if t not in self._templates]
        if missing:
            found: dict[str, dict[tuple, list[TemplateOption]]] = {t: {} for t in missing}
            for tid, type_id, pid, qid, tense, phen, text, writer, model, prompt_hash in \
                    self.con.execute(
                        "SELECT template_id, type_id, property_id, qualifier_property_id, "
                        "tense, phenomenon, text, writer, model, prompt_hash FROM templates "
                        "WHERE interaction = ? AND list_contains(?, type_id) ORDER BY type_id, "
                        "property_id, qualifier_property_id, tense, phenomenon, variant",
                        [self.interaction, missing]).fetchall():
                found[type_id].setdefault((type_id, pid, qid, tense, phen), []).append(
                    TemplateOption(tid, text, writer, model, prompt_hash))
            for t, templates in found.items():
                facts: dict[str, list[tuple[str, str | None]]] = defaultdict(list)
                for _, pid, qid, _, _ in templates:
                    if (pid, qid) not in facts[pid]:
                        facts[pid].append((pid, qid))
                self._templates[t] = (templates, dict(facts))
                self._cached += sum(map(len, templates.values()))
        for t in type_ids:
            self._templates.move_to_end(t)
        asked = set(type_ids)
        while self._cached > TEMPLATE_CACHE:  # the types used longest ago go first
            oldest = next(iter(self._templates))
            if oldest in asked:
                break
            self._cached -= sum(map(len, self._templates.pop(oldest)[0].values()))
        return {t: self._templates[t] for t in type_ids}

    def local_templates(self, type_ids: list[str]) -> dict[tuple, list[TemplateOption]]:
        """The templates of types in the configuration's other languages, by (language,
        type, property, qualifier, tense, phenomenon); read once per type per run (they are
        bounded by the schema, as the English ones are)."""
        missing = [t for t in type_ids if t not in self._local]
        if missing and self.languages:
            found: dict[str, dict[tuple, list[TemplateOption]]] = {t: {} for t in missing}
            for tid, lang, type_id, pid, qid, tense, phen, text, writer, model, ph in \
                    self.con.execute(
                        "SELECT template_id, language, type_id, property_id, "
                        "qualifier_property_id, tense, phenomenon, text, writer, model, "
                        "prompt_hash FROM local_templates WHERE interaction = ? AND "
                        "list_contains(?, type_id) AND list_contains(?, language) ORDER BY "
                        "language, type_id, property_id, qualifier_property_id, tense, "
                        "phenomenon, variant", [self.interaction, missing, self.languages]
                    ).fetchall():
                found[type_id].setdefault((lang, type_id, pid, qid, tense, phen), []).append(
                    TemplateOption(tid, text, writer, model, ph))
            self._local.update(found)
        out: dict[tuple, list[TemplateOption]] = {}
        for t in type_ids:
            out.update(self._local.get(t, {}))
        return out

    def type_labels(self, type_ids: list[str]) -> dict[str, str | None]:
        """The lower-case English labels of types, as subjects are named in templates: for
        the types with templates, read once per run, a type with no label is told by what
        its items have (``snapshot.KIND_SIGNS``; "person" for an occupation), as the
        templates stage told it."""
        if not self._kinds_read:
            self._kinds_read = True
            templated = [r[0] for r in self.con.execute(
                "SELECT DISTINCT type_id FROM templates").fetchall()]
            self._type_labels.update(type_labels(self.con, templated, infer=True))
        new = [t for t in type_ids if t not in self._type_labels]
        if new:
            self._type_labels.update(type_labels(self.con, new))
        return {t: self._type_labels[t] for t in type_ids}

    @property
    def property_labels(self) -> dict[str, str]:
        """English labels of properties (read once, for sentence answers)."""
        if self._property_labels is None:
            self._property_labels = dict(self.con.execute(
                "SELECT id, label FROM property_info WHERE label IS NOT NULL").fetchall())
        return self._property_labels

    def false_pool(self, property_id: str) -> tuple[list[Value], frozenset[str], frozenset[str]]:
        """Values other entities hold for a property (with a short English label), which
        of them are people, and which are gone (the KG gives a dissolution or a death:
        ``facts.GONE``), so a present-tense question never asks "Is Nordhausen in the
        Soviet Union?" (a trick, not a question)."""
        found = self._pools.get(property_id)
        if found is None:
            rows = self.con.execute(
                "SELECT DISTINCT value_id, value_label, value_id IN (SELECT entity_id FROM "
                "entity_types WHERE type_id = 'Q5'), value_id IN (SELECT entity_id FROM "
                "statements WHERE list_contains(?, property_id)) "
                "FROM statement_values WHERE property_id = ? AND truthy AND value_id IS NOT "
                "NULL AND value_label IS NOT NULL AND length(value_label) <= ? "
                "ORDER BY value_id LIMIT ?",
                [list(GONE), property_id, self.max_label, FALSE_CANDIDATES]).fetchall()
            found = self._pools[property_id] = (
                [Value("wikibase-item", label, vid) for vid, label, _, _ in rows],
                frozenset(vid for vid, _, person, _ in rows if person),
                frozenset(vid for vid, _, _, gone in rows if gone))
        return found

    def pool_holders(self, property_id: str) -> dict[str, list[tuple[str, frozenset]]]:
        """Who holds each value of ``false_pool`` (at most ``POOL_HOLDERS`` entities a
        value, by id) and their ``PEER_PROPERTIES`` values: what makes a wrong candidate
        believable for a subject (``KGView.false_candidate``). Read once a run from the
        whole KG, so a conversation never depends on the batch it is made in."""
        found = self._holders.get(property_id)
        if found is None:
            pool, _, _ = self.false_pool(property_id)
            found = self._holders[property_id] = {}
            if pool:
                rows = self.con.execute(
                    "WITH held AS (SELECT value_id, entity_id FROM statements WHERE "
                    "property_id = ? AND truthy AND list_contains(?, value_id) QUALIFY "
                    "row_number() OVER (PARTITION BY value_id ORDER BY entity_id) <= ?) "
                    "SELECT h.value_id, h.entity_id, list(DISTINCT (p.property_id, "
                    "p.value_id)) FILTER (WHERE p.value_id IS NOT NULL) FROM held h LEFT JOIN "
                    "statements p ON p.entity_id = h.entity_id AND p.truthy AND "
                    "list_contains(?, p.property_id) GROUP BY h.value_id, h.entity_id "
                    "ORDER BY h.value_id, h.entity_id",
                    [property_id, [v.value_id for v in pool], POOL_HOLDERS,
                     list(PEER_PROPERTIES)]).fetchall()
                for vid, holder, context in rows:  # context: (property, value) tuples
                    found.setdefault(vid, []).append((holder, frozenset(context or ())))
        return found


class KGView:
    """Facts, templates and lookups of the entities one batch has loaded."""

    def __init__(self, con: duckdb.DuckDBPyConnection, cfg: GenerateConfig, run: RunLookups,
                 refreshes: list[str] | None = None) -> None:
        self.con = con
        self.cfg = cfg
        self.run = run
        self.max_label = cfg.max_label_chars
        self.max_values = cfg.max_answer_values
        self.refreshes = refreshes  # probes: the refreshes whose changed facts are asked
        self.trace = Trace()
        self.templates: dict[tuple, list[TemplateOption]] = defaultdict(list)
        # type -> property -> the facts (property, qualifier or None) with templates
        self.facts_by_type: dict[str, dict[str, list[tuple[str, str | None]]]] = {}
        self.type_labels: dict[str, str | None] = {}
        self._fetched_types: set[str] = set()
        self._facts: dict[str, EntityFacts | None] = {}
        self._subjects: set[str] = set()
        self.answered: list[str] = []  # with hops: items the subjects' facts name
        self.load_drops: dict[str, list[Drop]] = defaultdict(list)
        self.type_drops: dict[str, list[Drop]] = {}
        self.item_counts: dict[tuple[str, str], tuple[int, int]] = {}
        # (entity, property) -> the values (``facts.value_key``) of its ended statements below
        # the best rank: in the past tense they held as truly as the best-rank ones ("Who was
        # the head of state of the Soviet Union?" is not "Mikhail Gorbachev" alone;
        # ``facts.askable``), and one that holds again now (Piñera's second term, after an
        # ended first) is not asked with "Who is ...?", which reads as if nothing ended between
        self.ended_below: dict[tuple[str, str], set] = defaultdict(set)
        # (entity, property) -> every value below the best rank, ended or not: never the
        # wrong candidate of a yes/no question nor an "also" answered "no" (the KG says it
        # held, at some rank)
        self.below_best: dict[tuple[str, str], set] = defaultdict(set)
        self._sitelinks: dict[str, int] = {}  # values of qualified statements (``renown``)
        # (entity, property) -> (statement, value, start time, why unsayable) of every
        # statement with one start time, any rank but deprecated (kinds.BEFORE properties)
        self.successions: dict[tuple[str, str], list[tuple]] = defaultdict(list)
        self.family_names: dict[str, str] = {}
        # entity -> {P35/P6: the noun of its office}: "the president of Mali"
        # (``wording.office_noun``; English only)
        self.offices: dict[str, dict[str, str]] = {}
        # generate --language: templates and labels in the other languages
        self.local: dict[tuple, list[TemplateOption]] = {}
        self.local_labels: dict[str, dict[str, object]] = {code: {} for code in
                                                          run.languages}
        self.changes: dict[tuple[str, str], FactChange] = {}
        self.related: dict[str, str] = {}
        self.namesakes: dict[str, tuple[str, int, int | None]] = {}
        self._people: dict[str, bool] = {}
        self._peer_values: dict[tuple[str, str], dict[str, int]] = {}
        self._kinds: dict[str, frozenset[str]] = {}
        self._typeless: set[str] = set()  # items the KG holds no type of (``typeless``)
        self._genders: dict[str, str] = {}
        self._best: dict[str, tuple] = {}
        self._placeholders: dict[str, str] = {}
        self._plain: dict[tuple, list] = {}

    # -- loading, in bulk
    def load(self, ids: list[str], subjects: bool = False) -> None:
        """Load the facts of many entities at once (``subjects``: also what only a subject
        needs: its related entity, a better-known namesake and, with hops, the items its
        facts name, which ``answered`` collects)."""
        new = list(dict.fromkeys(i for i in ids if i not in self._facts))
        if new:
            with registered(self.con, "_wanted", {"id": new}):
                try:
                    self._stage_rows()
                    self._load(new)
                finally:
                    for table in BATCH_TABLES:
                        self.con.execute(f"DROP TABLE IF EXISTS {table}")
            self._fetch_templates({t for eid in new if self._facts.get(eid)
                                   for t in self._facts[eid].types})
            if self.run.languages:
                self._load_local_labels(new)
        asked = list(dict.fromkeys(i for i in ids if i not in self._subjects)) \
            if subjects else []
        if asked:
            self._subjects.update(asked)
            with registered(self.con, "_wanted", {"id": asked}):
                self._load_subjects()

    def _stage_rows(self) -> None:
        """The rows of the entities' facts that have templates for one of their types, read
        once from the KG into temporary tables that every query of ``_load`` reads: no other
        fact of theirs can be asked (nor its values or qualifiers be left out)."""
        con = self.con
        con.execute("CREATE OR REPLACE TEMP TABLE _batch_facts AS SELECT DISTINCT t.entity_id, "
                    "f.property_id FROM entity_types t JOIN _wanted w ON w.id = t.entity_id "
                    "JOIN (SELECT DISTINCT type_id, property_id FROM templates WHERE "
                    "interaction = ?) f ON f.type_id = t.type_id", [self.cfg.interaction])
        for table, source in (("_batch_statements", "statements"),
                              ("_batch_qualifiers", "qualifiers")):
            con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT x.* FROM {source} x "
                        "JOIN _batch_facts b ON b.entity_id = x.entity_id AND "
                        "b.property_id = x.property_id")
        # the labels of the items and units they name (the labels view, read once)
        con.execute("CREATE OR REPLACE TEMP TABLE _batch_labels AS SELECT id, label FROM "
                    "labels WHERE id IN (SELECT value_id FROM _batch_statements UNION SELECT "
                    "unit_id FROM _batch_statements UNION SELECT value_id FROM "
                    "_batch_qualifiers UNION SELECT unit_id FROM _batch_qualifiers)")

    def _load(self, ids: list[str]) -> None:
        con = self.con
        # an entity's gender: the first of its best-rank P21 values (one, nearly always)
        info = {r[0]: r[1:] for r in con.execute(
            "SELECT e.id, e.label, (SELECT min(g.value_id) FROM statements g WHERE "
            "g.entity_id = e.id AND g.property_id = 'P21' AND g.truthy), EXISTS (SELECT 1 "
            "FROM statements d WHERE d.entity_id = e.id AND list_contains(?, d.property_id)), "
            "coalesce(e.sitelinks, 0), (SELECT min(b.value_text) FROM statements b WHERE "
            "b.entity_id = e.id AND b.property_id = ? AND b.truthy) "
            "FROM entities e JOIN _wanted w ON w.id = e.id",
            [list(GONE), BIRTH]).fetchall()}
        types: dict[str, list[str]] = defaultdict(list)
        for eid, tid in con.execute(
                "SELECT entity_id, type_id FROM entity_types JOIN _wanted w "
                "ON w.id = entity_id ORDER BY entity_id, via DESC, type_id").fetchall():
            types[eid].append(tid)
        # (entity, property) -> [(statement id, value, ended)], in the dump's order; values
        # labelled as the statement_values view labels them
        found: dict[str, dict[str, list[tuple]]] = defaultdict(lambda: defaultdict(list))
        kept: set[tuple[str, str]] = set()
        for (eid, pid, sid, vtype, label, vid, precision, unit, unit_label,
             ended) in con.execute(
                "SELECT s.entity_id, s.property_id, s.statement_id, s.value_type, "
                "CASE WHEN s.value_id IS NOT NULL THEN l.label ELSE "
                "coalesce(s.value_text, s.value_raw) END, s.value_id, s.precision, "
                "s.unit_id, u.label, EXISTS (SELECT 1 FROM _batch_qualifiers q WHERE "
                "q.statement_id = s.statement_id AND q.entity_id = s.entity_id AND "
                "q.qualifier_property_id = ?) FROM _batch_statements s "
                "LEFT JOIN _batch_labels l ON l.id = s.value_id LEFT JOIN _batch_labels u ON "
                "u.id = s.unit_id "
                "WHERE s.truthy ORDER BY s.entity_id, s.property_id, s.ordinal",
                [END]).fetchall():
            if vid == eid:  # the subject itself is never its own answer (nor the query's)
                self.load_drops[eid].append(Drop(f"{eid}/{pid}",
                                                 "value names the subject itself", sid))
                continue
            found[eid][pid].append((sid, Value(vtype, label, vid, precision, unit,
                                               english_name(unit, unit_label)),
                                    bool(ended)))
            kept.add((eid, sid))
        qualifiers: dict[tuple[str, str], dict[str, tuple[Value, ...]]] = defaultdict(dict)
        gathered: dict[tuple[str, str, str], list[Value]] = defaultdict(list)
        for eid, sid, qid, vtype, label, vid, precision, unit, unit_label in con.execute(
                "SELECT q.entity_id, q.statement_id, q.qualifier_property_id, q.value_type, "
                "CASE WHEN q.value_id IS NOT NULL THEN l.label ELSE "
                "coalesce(q.value_text, q.value_raw) END, q.value_id, q.precision, "
                "q.unit_id, u.label FROM _batch_qualifiers q LEFT JOIN _batch_labels l ON "
                "l.id = q.value_id LEFT JOIN _batch_labels u ON u.id = q.unit_id "
                "ORDER BY q.entity_id, q.statement_id, q.qualifier_property_id, q.ordinal"
                ).fetchall():
            if (eid, sid) in kept and vid != eid:
                gathered[(eid, sid, qid)].append(
                    Value(vtype, label, vid, precision, unit, english_name(unit, unit_label)))
        for (eid, sid, qid), values in gathered.items():
            subject_label = info.get(eid, (None,))[0]
            why = next(filter(None, (unsayable(v, subject_label, self.max_label)
                                     for v in values)), None)
            if why is None:
                qualifiers[(eid, sid)][qid] = tuple(values)
            else:  # a qualifier is asked with all its values or not at all
                self.load_drops[eid].append(Drop(f"{eid}/{qid}", f"qualifier not asked: {why}",
                                                 f"statement {sid}"))
        dates: dict[tuple[str, str], dict[str, list[tuple]]] = defaultdict(
            lambda: defaultdict(list))
        for eid, pid, sid, text in con.execute(
                "SELECT q.entity_id, q.property_id, q.statement_id, q.value_text FROM "
                "_batch_qualifiers q JOIN _batch_statements s ON s.statement_id = "
                "q.statement_id AND s.entity_id = q.entity_id AND s.truthy WHERE "
                "q.qualifier_property_id = ? AND q.value_type = 'time' AND q.value_text IS "
                "NOT NULL", [POINT_IN_TIME]).fetchall():
            order = time_order(text)
            if order is not None:
                dates[(eid, pid)][sid].append(order)
        for eid, pid, every, current in con.execute(
                "SELECT s.entity_id, s.property_id, count(DISTINCT s.value_id), "
                "count(DISTINCT s.value_id) FILTER (WHERE NOT EXISTS (SELECT 1 FROM "
                "_batch_qualifiers q WHERE q.statement_id = s.statement_id AND q.entity_id = "
                "s.entity_id AND q.qualifier_property_id = ?)) FROM _batch_statements s "
                "WHERE s.truthy AND s.value_id LIKE 'Q%' AND list_contains(?, s.property_id) "
                "GROUP BY 1, 2", [END, list(kinds.COUNT)]).fetchall():
            self.item_counts[(eid, pid)] = (every, current)
        if self.run.interaction == "voice":
            self._load_family_names(info)
        self._load_offices(info)
        # who held an office in turn (every statement not deprecated, with one start time,
        # for the properties a "before" question asks): the follow-up "Who was mayor
        # before her?" reads the holders Wikidata keeps at normal rank beside the current one
        for eid, pid, sid, vid, label, begin in con.execute(
                "SELECT s.entity_id, s.property_id, s.statement_id, s.value_id, l.label, "
                "min(q.value_text) FROM _batch_statements s JOIN _batch_qualifiers q ON "
                "q.statement_id = s.statement_id AND q.entity_id = s.entity_id AND "
                "q.qualifier_property_id = 'P580' AND q.value_type = 'time' LEFT JOIN "
                "_batch_labels l ON l.id = s.value_id WHERE s.rank <> 'deprecated' AND "
                "s.value_id LIKE 'Q%' AND list_contains(?, s.property_id) GROUP BY 1, 2, 3, 4, 5 "
                "HAVING count(*) = 1 ORDER BY 1, 2, 3", [list(kinds.BEFORE)]).fetchall():
            value = Value("wikibase-item", label, vid)
            self.successions[(eid, pid)].append(
                (sid, value, begin, unsayable(value, info.get(eid, (None,))[0],
                                              self.max_label)))
        # how well known the values of qualified statements are, where the KG holds them:
        # a question naming one of several ("When was he awarded ...?") names the one
        # people know (``renown``)
        for vid, sitelinks in con.execute(
                "SELECT e.id, e.sitelinks FROM entities e WHERE e.sitelinks > 0 AND e.id IN "
                "(SELECT s.value_id FROM _batch_statements s JOIN _batch_qualifiers q ON "
                "q.statement_id = s.statement_id AND q.entity_id = s.entity_id)").fetchall():
            self._sitelinks[vid] = sitelinks
        for eid, pid, vtype, text, vid, precision, unit, ended in con.execute(
                "SELECT DISTINCT s.entity_id, s.property_id, s.value_type, coalesce("
                "s.value_text, s.value_raw), s.value_id, s.precision, s.unit_id, EXISTS ("
                "SELECT 1 FROM _batch_qualifiers q WHERE q.statement_id = s.statement_id AND "
                "q.entity_id = s.entity_id AND q.qualifier_property_id = ?) FROM "
                "_batch_statements s WHERE NOT s.truthy AND (s.value_id IS NULL OR s.value_id "
                "<> s.entity_id)", [END]).fetchall():
            key = value_key(Value(vtype, text, vid, precision, unit))
            self.below_best[(eid, pid)].add(key)
            if ended:
                self.ended_below[(eid, pid)].add(key)
        # which values are people, and their genders: every item a statement or qualifier
        # of these entities names; a character of fiction with a gender counts as one
        # ("Who is Bart Simpson's father?" "Homer Simpson." then "he" could be Homer)
        for vid, person, gender, character in con.execute(
                "WITH v AS (SELECT DISTINCT value_id FROM _batch_statements WHERE truthy AND "
                "value_id IS NOT NULL UNION SELECT value_id FROM _batch_qualifiers WHERE "
                "value_id IS NOT NULL) "
                "SELECT v.value_id, v.value_id IN (SELECT entity_id FROM entity_types WHERE "
                "type_id = 'Q5'), g.gender, v.value_id IN (SELECT entity_id FROM statements "
                "WHERE list_contains(?, property_id) AND entity_id IN (SELECT value_id FROM "
                "v)) FROM v LEFT JOIN (SELECT entity_id, "
                "min(value_id) AS gender FROM statements WHERE property_id = 'P21' AND "
                "truthy AND entity_id IN (SELECT value_id FROM v) GROUP BY 1) g "
                "ON g.entity_id = v.value_id", [list(CHARACTER_FACTS)]).fetchall():
            self._people[vid] = person or (character and gender in GENDER)
            if gender is not None:
                self._genders[vid] = gender
        self._load_value_kinds()
        if self.refreshes is not None:
            self._load_changes()
        for eid in ids:
            self._facts[eid] = self._entity(eid, info.get(eid), types.get(eid, []),
                                            found.get(eid, {}), qualifiers, dates)

    def _load_offices(self, info: dict[str, tuple]) -> None:
        """The offices of the batch's heads of state and of government, where each is one
        and the two differ (a president who also heads the government is no reason to
        say "Is he also its president?")."""
        titles: dict[str, dict[str, set]] = defaultdict(lambda: defaultdict(set))
        office_of = {office: pid for pid, office in OFFICE_OF.items()}
        for eid, office, label in self.con.execute(
                "SELECT s.entity_id, s.property_id, l.label FROM statements s JOIN _wanted w "
                "ON w.id = s.entity_id LEFT JOIN labels l ON l.id = s.value_id WHERE s.truthy "
                "AND list_contains(?, s.property_id)", [list(office_of)]).fetchall():
            titles[eid][office_of[office]].add(office_noun(label, info[eid][0])
                                               if eid in info else None)
        for eid, by_pid in titles.items():
            nouns = {pid: next(iter(found)) for pid, found in by_pid.items()
                     if len(found) == 1 and None not in found}
            if len(set(nouns.values())) == len(nouns) and nouns:
                self.offices[eid] = nouns

    def _entity(self, eid: str, info: tuple | None, types: list[str],
                found: dict[str, list[tuple]], qualifiers: dict, dates: dict
                ) -> EntityFacts | None:
        if info is None:
            return None
        label, gender, gone, sitelinks, born = info
        over = career_over(HUMAN in types and not gone, born, self.run.dump_year)
        if len(label) > self.max_label:
            self.load_drops[eid].append(Drop(eid, "label too long to ask about",
                                             f"{len(label):,} characters"))
            return None
        properties: dict[str, tuple[Statement, ...]] = {}
        for pid, rows in found.items():
            later = superseded(rows, dates[(eid, pid)]) if (eid, pid) in dates else ()
            properties[pid] = tuple(
                Statement(sid, value, ended or (over and pid in PLAYING_CAREER), sid in later,
                          qualifiers.get((eid, sid), {}), unsayable(value, label, self.max_label))
                for sid, value, ended in rows)
        return EntityFacts(eid, label, gender, tuple(types), HUMAN in types, bool(gone),
                           properties, sitelinks)

    def _load_subjects(self) -> None:
        con, cfg = self.con, self.cfg
        if cfg.related and self.refreshes is None:
            self.related.update(con.execute(
                "SELECT r.entity_id, r.related_id FROM related_entities r JOIN _wanted w "
                "ON w.id = r.entity_id").fetchall())
        if cfg.hops or (cfg.follow_ups and self.refreshes is None):
            # items their facts name that are subjects of a type with templates (follow-ups
            # turn only to an item of a short answer: facts of at most THREAD_VALUES_MAX
            # values)
            short = "" if cfg.hops else (
                "AND (s.entity_id, s.property_id) IN (SELECT entity_id, property_id FROM "
                "statements x JOIN _wanted u ON u.id = x.entity_id WHERE x.truthy GROUP BY 1, 2 "
                f"HAVING count(*) <= {THREAD_VALUES_MAX}) ")
            self.answered += [r[0] for r in con.execute(
                "SELECT DISTINCT s.value_id FROM statements s JOIN _wanted w ON w.id = "
                "s.entity_id JOIN entity_types t ON t.entity_id = s.value_id WHERE s.truthy "
                "AND t.type_id IN (SELECT type_id FROM templates WHERE interaction = ?) "
                "AND (s.entity_id, s.property_id) IN (SELECT e.entity_id, f.property_id FROM "
                "entity_types e JOIN _wanted v ON v.id = e.entity_id JOIN (SELECT DISTINCT "
                "type_id, property_id FROM templates WHERE interaction = ?) f ON f.type_id = "
                "e.type_id) " + short + "ORDER BY 1",
                [cfg.interaction, cfg.interaction]).fetchall()]
        if cfg.homonyms or cfg.entities:
            return
        # another entity of the KG with the same English name (any case) and at least as
        # many sitelinks, or one it does not hold that its facts name often: found once per
        # run (``RunLookups.namesakes``), joined here
        self.namesakes.update({eid: (other, n, k) for eid, other, n, k in con.execute(
            f"SELECT n.entity_id, n.other_id, n.sitelinks, n.named_by FROM "
            f"{self.run.namesakes()} n "
            "JOIN _wanted w ON w.id = n.entity_id").fetchall()})

    def _load_family_names(self, info: dict[str, tuple]) -> None:
        """People's family names, for later mentions in spoken questions ("Hegel" for "Georg
        Wilhelm Friedrich Hegel"): the one P734 value's English label; else, where the KG
        names no family name (none, or one without a label), the last word of a plain name
        (``naming.guessed_surname``; never for ``NAME_ORDER_UNKNOWN`` citizenships, past
        states included, from two words only for ``TWO_FAMILY_NAMES`` ones); never for two
        P734 values. Kept only
        where no other entity the word may stand for has a quarter of the person's
        sitelinks or more (``RunLookups.surnames``), unless that namesake is little known
        and the word no well-known name (``KNOWN_NAMESAKE``, ``KNOWN_NAME_ZIPF``): a
        listener hears "Putin" as the best-known Putin, and "Oxford" as the city, but
        "Ramsden" as the Ramsden the conversation is about."""
        con = self.con
        rows = con.execute(
            "SELECT h.entity_id, count(DISTINCT f.value_id) FILTER (WHERE f.property_id = "
            "'P734'), min(l.label) FILTER (WHERE f.property_id = 'P734'), "
            "coalesce(bool_or(f.property_id = 'P27' AND list_contains(?, f.value_id)), false), "
            "coalesce(bool_or(f.property_id = 'P27' AND list_contains(?, f.value_id)), false) "
            "FROM (SELECT DISTINCT t.entity_id FROM entity_types t JOIN _wanted w ON w.id = "
            "t.entity_id WHERE t.type_id = 'Q5') h LEFT JOIN statements f ON f.entity_id = "
            "h.entity_id AND f.truthy AND f.property_id IN ('P734', 'P27') LEFT JOIN labels l "
            "ON l.id = f.value_id AND f.property_id = 'P734' GROUP BY 1",
            [list(NAME_ORDER_UNKNOWN), list(TWO_FAMILY_NAMES)]).fetchall()
        wanted: dict[str, str] = {}
        for eid, families, family, order_unknown, two_families in rows:
            label = info.get(eid, (None,))[0]
            if not label or families > 1:
                continue
            if not family and not order_unknown:
                family = guessed_surname(label, 2 if two_families else 4)
            if family:
                wanted[eid] = family
        if not wanted:
            return
        # lowercased in DuckDB on both sides ("İnan" lowers differently in Python)
        tops = {word: (top, bare) for word, top, bare in con.execute(
            f"SELECT w.word, s.top, s.bare FROM (SELECT unnest(?) AS word) w JOIN "
            f"{self.run.surnames()} s ON s.word = lower(w.word)",
            [sorted(set(wanted.values()))]).fetchall()}
        for eid, family in wanted.items():
            own = info[eid][3]
            top, bare = tops.get(family, ([], False))
            top = list(top or [])
            if own in top:
                top.remove(own)  # the person's own count, once
            known_word = zipf(family.lower()) >= KNOWN_NAME_ZIPF
            if bare and known_word and own < FAMOUS_NAME:
                continue  # "When was London born?" (Jonathan London): the word names a thing
            if top and (top[0] * 4 > own or top[0] >= own) and (
                    top[0] >= KNOWN_NAMESAKE or known_word):
                continue  # "Putin" is heard as Vladimir Putin, never as Igor Putin
            self.family_names[eid] = family

    def _load_changes(self) -> None:
        """The facts of these entities the chosen refreshes changed: over several refreshes a
        fact keeps its oldest values."""
        for refresh_id, eid, pid, values, old_date, new_date in self.con.execute(
                "SELECT f.refresh_id, f.entity_id, f.property_id, f.old_values, "
                "f.old_dump_date, f.new_dump_date FROM fact_changes f JOIN refresh_runs r "
                "USING (refresh_id) JOIN _wanted w ON w.id = f.entity_id WHERE "
                "list_contains(?, f.refresh_id) ORDER BY r.started_at",
                [self.refreshes]).fetchall():
            if (eid, pid) in self.changes:  # an older refresh already gave the oldest values
                self.changes[(eid, pid)] = replace(self.changes[(eid, pid)],
                                                   new_dump_date=new_date)
                continue
            old = tuple(Value(v["value_type"], v["label"] if v["value_id"] else v["value_text"],
                              v["value_id"], v["precision"], v["unit_id"],
                              english_name(v["unit_id"], v["unit_label"]))
                        for v in json.loads(values))
            self.changes[(eid, pid)] = FactChange(refresh_id, old, old_date, new_date)

    def _load_local_labels(self, ids: list[str]) -> None:
        """The labels, in each of the configuration's other languages, of these entities and
        of every item and unit their statements and qualifiers name (with the fallback chain
        of ``kg.languages.labels_in_language``: the language, its variants, mul, English)."""
        from convkgyarn.kg.languages import labels_in_language

        wanted = set(ids)
        for eid in ids:
            e = self._facts.get(eid)
            if e is None:
                continue
            for stmts in e.properties.values():
                for st in stmts:
                    for v in (st.value, *(q for qs in st.qualifiers.values() for q in qs)):
                        wanted.update(i for i in (v.value_id, v.unit_id) if i)
            for (owner, _), held in self.successions.items():
                if owner == eid:
                    wanted.update(v.value_id for _, v, _, _ in held if v.value_id)
        for code in self.run.languages:
            known = self.local_labels[code]
            todo = [i for i in wanted if i not in known]
            found = labels_in_language(self.con, todo, code, chain=label_chain(code)) \
                if todo else {}
            for i in todo:
                known[i] = found.get(i)

    def local_label(self, language: str, entity_id: str):
        """An entity's label in a language (``LocalLabel``: the label and the language that
        gave it), None when no language of the chain has one."""
        labels = self.local_labels[language]
        if entity_id not in labels:
            from convkgyarn.kg.languages import labels_in_language
            labels[entity_id] = labels_in_language(self.con, [entity_id], language,
                                                   chain=label_chain(language)).get(entity_id)
        return labels[entity_id]

    def local_options(self, language: str, type_id: str, pid: str, qid: str | None,
                      tense: str, phenomenon: str) -> list[TemplateOption]:
        """A fact's templates in a language, in its tense (else in the present)."""
        return self.local.get((language, type_id, pid, qid, tense, phenomenon)) or \
            self.local.get((language, type_id, pid, qid, "present", phenomenon), [])

    def _fetch_templates(self, type_ids: set[str]) -> None:
        """The templates of these types for the configuration's interaction."""
        new = sorted(type_ids - self._fetched_types)
        if not new:
            return
        self._fetched_types.update(new)
        for type_id, (templates, facts) in self.run.templates(new).items():
            self.templates.update(templates)
            if facts:
                self.facts_by_type[type_id] = facts
        if self.run.languages:
            self.local.update(self.run.local_templates(new))
        self.type_labels.update(self.run.type_labels([t for t in new
                                                      if t in self.facts_by_type]))

    # -- what conversations read
    def entity(self, entity_id: str) -> EntityFacts | None:
        if entity_id not in self._facts:
            raise Missing(entity_id)
        self.trace.entities.add(entity_id)
        return self._facts[entity_id]

    def best_type(self, e: EntityFacts) -> tuple[str | None, list[tuple[str, str | None]]]:
        """The entity's type with templates that covers most of its facts (a type with an
        English label first among equals), and those facts in a stable order."""
        self.trace.typed.add(e.id)
        if e.id not in self._best:
            self._best[e.id] = self._best_type(e)
        return self._best[e.id]

    def _best_type(self, e: EntityFacts) -> tuple[str | None, list[tuple[str, str | None]]]:
        decided: dict[tuple[str, str | None], bool] = {}  # once per fact, whatever its types
        drops: list[Drop] = []

        def has(fact: tuple[str, str | None]) -> bool:
            if fact not in decided:
                decided[fact], drop = askable(e, fact, self.max_values,
                                              self.ended_below.get((e.id, fact[0]), ()))
                if drop is not None:
                    drops.append(drop)
            return decided[fact]

        best, best_facts, best_key = None, [], (-1, False)
        for t in e.types:
            by_property = self.facts_by_type.get(t, {})
            facts = sorted((f for pid in e.properties if pid in by_property
                            for f in by_property[pid] if has(f) and self._said_in_all(t, f)),
                           key=lambda f: (f[0], f[1] or ""))
            key = (len(facts), self.type_labels.get(t) is not None)
            if key > best_key and facts:
                best, best_facts, best_key = t, facts, key
        self.type_drops[e.id] = drops
        return best, best_facts

    def _said_in_all(self, type_id: str, fact: tuple[str, str | None]) -> bool:
        """With several languages: whether every one has templates for the fact (a fact
        one of them cannot phrase is asked in none)."""
        return all(self.local_options(code, type_id, fact[0], fact[1], "present", "original")
                   for code in self.run.languages)

    def is_person(self, value: Value, property_id: str | None = None) -> bool:
        """A person by the KG, or (for a value the KG does not hold) by its property."""
        if value.value_id is not None:
            person = self._people.get(value.value_id)
            if person is None:
                person = self._people[value.value_id] = self.con.execute(
                    "SELECT EXISTS (SELECT 1 FROM entity_types WHERE entity_id = ? AND "
                    "type_id = 'Q5')", [value.value_id]).fetchall()[0][0]
            if person:
                return True
        return property_id in self.run.person_properties and value.value_id is not None

    def kinds_of(self, value: Value) -> frozenset[str]:
        """What the KG's P31 types say a value is, in the kinds questions name ("person",
        "settlement", "region", "company": ``wording.value_kinds``); empty for a value the
        KG holds no types of. Read in bulk for every value a batch's facts name
        (``_load_value_kinds``); a value beyond them is read alone, once."""
        if value.value_id is None:
            return frozenset()
        if value.value_id not in self._kinds:
            self._read_kinds(self.con.execute(
                "SELECT ?, type_id FROM entity_types WHERE entity_id = ? AND via = 'P31'",
                [value.value_id, value.value_id]).fetchall() or [(value.value_id, None)])
        return self._kinds[value.value_id]

    def words_fit(self, template: str, property_id: str, values: tuple,
                  language: Language = ENGLISH) -> bool:
        """Whether every value is what a template's own words call it ("In which city ...?",
        "parent company", "Which region ...?": ``wording.answer_kinds``), by its types."""
        kinds = answer_kinds(template, property_id, self.run.property_labels.get(property_id),
                             language)
        return all(kind in self.kinds_of(v) for kind in kinds for v in values)

    def _load_value_kinds(self) -> None:
        """``kinds_of`` every item the batch's statements and qualifiers name, in one query."""
        self._read_kinds(self.con.execute(
            "WITH v AS (SELECT DISTINCT value_id FROM _batch_statements WHERE truthy AND "
            "value_id IS NOT NULL UNION SELECT value_id FROM _batch_qualifiers WHERE "
            "value_id IS NOT NULL) SELECT v.value_id, t.type_id FROM v LEFT JOIN "
            "entity_types t ON t.entity_id = v.value_id AND t.via = 'P31'").fetchall())

    def _read_kinds(self, rows: list[tuple[str, str | None]]) -> None:
        """``kinds_of`` from (item, P31 type or None) rows, the type labels from the run's
        cache; an item with no types has no kinds (and is not read again)."""
        typed: dict[str, list[str]] = defaultdict(list)
        for vid, tid in rows:
            types = typed[vid]
            if tid is not None:
                types.append(tid)
        labels = self.run.type_labels(sorted({t for ts in typed.values() for t in ts}))
        for vid, types in typed.items():
            self._kinds[vid] = value_kinds([(t, labels[t]) for t in types])
            if not types:
                self._typeless.add(vid)

    def typeless(self, value: Value) -> bool:
        """Whether the KG holds no P31 type of the item at all (a partial dump that names
        it in a fact but does not hold it), as opposed to types of no kind ``kinds_of``
        knows (a skyscraper, a museum)."""
        self.kinds_of(value)
        return value.value_id is not None and value.value_id in self._typeless

    def renown(self, value: Value) -> tuple[int, int]:
        """How well known an item that a qualified statement names is, to order several: its
        sitelinks where the KG holds it, else how early Wikidata gave it an id (the Nobel
        Prize in Physics is Q38104, the Hughes Medal Q844872; a partial dump holds few of
        the items its awards, offices and spouses name, and the lower id is the better
        known far more often than not). Higher is better known."""
        vid = value.value_id or ""
        number = int(vid[1:]) if vid[:1] == "Q" and vid[1:].isdigit() else 1 << 62
        return (self._sitelinks.get(vid, 0), -number)

    def gender_of(self, value: Value) -> str | None:
        return self._genders.get(value.value_id)

    def someone(self, e: EntityFacts) -> bool:
        """Whether the entity is referred to as a person ("he", "she"): a human, or a
        character of fiction of known gender (``wording.personal``)."""
        return e.human or personal(False, e.gender, [self.type_labels.get(t) for t in e.types],
                                   e.properties)

    def false_candidate(self, property_id: str, held: set[str],
                        rng: random.Random, subject_id: str | None = None,
                        tense: str = "past") -> Value | None:
        """A plausible wrong value for a yes/no question: a value other entities hold for the
        same property (with an English label), not one the subject ever held, and in the
        present tense of a property that needs it (``NEEDS_EXISTING``) not one that is gone
        (``facts.GONE``); first one its closest peers hold
        (``peer_values``: "Is Algiers the capital of Mali?", a neighbour's, rather than
        Dushanbe or Windhoek for the Soviet Union), else any."""
        pool, people, gone = self.run.false_pool(property_id)
        now = tense != "past" and property_id in NEEDS_EXISTING
        choices = [v for v in pool if v.value_id not in held and
                   not (now and v.value_id in gone)]
        if not choices:
            return None
        if subject_id is not None:
            near = self.peer_values(subject_id, property_id)
            closer = [v for v in choices if v.value_id in near]
            if closer:
                best = max(near[v.value_id] for v in closer)
                choices = [v for v in closer if near[v.value_id] == best]
        value = choices[int(rng.random() * len(choices))]
        self._people[value.value_id] = value.value_id in people
        return value

    def peer_values(self, subject_id: str, property_id: str) -> dict[str, int]:
        """How close to the subject each wrong candidate's closest holder is: a neighbour
        of the subject (P47) counts ``NEIGHBOUR_WEIGHT``, another holder the weights
        (``PEER_WEIGHTS``) of the values it shares with the subject among
        ``PEER_PROPERTIES`` (country, continent, citizenship, occupation, sport), and
        ``TYPE_WEIGHT`` once if it shares a type; candidates no peer holds are left out."""
        key = (subject_id, property_id)
        found = self._peer_values.get(key)
        if found is None:
            found = self._peer_values[key] = {}
            subject = self._facts.get(subject_id)
            if subject is None:
                return found
            mine = {(pid, s.value.value_id) for pid in PEER_PROPERTIES
                    for s in subject.properties.get(pid, ()) if s.value.value_id}
            mine |= {("P31", t) for t in subject.types}  # its types, asked about or not
            neighbours = {s.value.value_id for s in subject.properties.get("P47", ())}

            def closeness(holder: str, context: frozenset) -> int:
                if holder in neighbours:
                    return NEIGHBOUR_WEIGHT
                shared = context & mine
                return sum(PEER_WEIGHTS.get(pid, 0) for pid, _ in shared) + \
                    (TYPE_WEIGHT if any(pid == "P31" for pid, _ in shared) else 0)

            for vid, holders in self.run.pool_holders(property_id).items():
                near = max((closeness(holder, context) for holder, context in holders
                            if holder != subject_id), default=0)
                if near:
                    found[vid] = near
        return found

    def change(self, entity_id: str, property_id: str) -> FactChange | None:
        return self.changes.get((entity_id, property_id))

    # -- templates
    def options(self, type_id: str, pid: str, qid: str | None, tense: str,
                phenomenon: str) -> list[TemplateOption]:
        """A fact's templates in its tense (else in the present) for one phenomenon."""
        return self.templates.get((type_id, pid, qid, tense, phenomenon)) or \
            self.templates.get((type_id, pid, qid, "present", phenomenon), [])

    def ellipsis(self, type_id: str, pid: str, qid: str | None, tense: str,
                 with_reference: bool) -> list[TemplateOption]:
        """A fact's elliptic follow-ups ("[his] spouse?", "the spouse?"); without deixis
        only those with no reference at all."""
        key = (type_id, pid, qid, tense, "ellipsis")
        options = self.templates.get(key) or self.templates.get(key[:3] + ("present",
                                                                            "ellipsis"), [])
        if with_reference:
            return options
        found = self._plain.get(key)
        if found is None:
            found = self._plain[key] = [o for o in options if "[" not in o.text]
        return found

    def without_possessive(self, type_id: str, options: list) -> list:
        """The templates that do not say "[subject]'s" (all of them if none is left)."""
        key = (type_id, id(options))
        found = self._plain.get(key)
        if found is None:
            mark = self.placeholder(type_id) + "'s"
            found = self._plain[key] = [o for o in options if mark not in o.text] or options
        return found

    def placeholder(self, type_id: str) -> str:
        found = self._placeholders.get(type_id)
        if found is None:
            found = self._placeholders[type_id] = subject_placeholder(
                self.type_labels.get(type_id) or "entity")
        return found
