"""Typed msgspec views of a Wikidata entity: only the fields we use are decoded.

msgspec skips unknown keys without building objects for them, so decoding an
entity costs little more than scanning its bytes (references, other languages'
labels and sitelink payloads are never materialised). Wikidata writes empty
maps as ``[]``, hence the ``| list`` unions.

Every struct here is ``gc=False``: decoded entities are trees of strings, numbers,
lists and dicts, never cycles, so the cycle collector need not track them (measured:
~5% less decode time). Rank and snak type stay plain strings, not literals: an
unknown rank is kept as a statement that is never truthy, not a rejected line.
"""

from dataclasses import dataclass
from functools import cache

import msgspec


class _Plain(msgspec.Struct, gc=False):
    """Base of every struct below: not tracked by the cycle collector."""


class LangValue(_Plain):
    value: str


class EnLabel(_Plain):
    """A language map of which only English matters."""

    en: LangValue | None = None


class EnAliases(_Plain):
    en: list[LangValue] = []


class EntityId(_Plain):
    """An entity value on the fast path: its ``"id"`` only (msgspec skips the rest unread).
    A value without one fails here, and its entity is decoded raw: see ``AnyEntityId``."""

    id: str


class AnyEntityId(_Plain):
    """An entity value in either shape: ``"id"``, or in older dumps and some API replies only
    ``"entity-type"`` and ``"numeric-id"`` ({"entity-type": "item", "numeric-id": 60} is Q60).
    Decoded on the raw path only, so dumps of the current shape never pay for the two
    extra fields (``values.entity_value_id`` reads both shapes the same)."""

    id: str | None = None
    entity_type: str | None = msgspec.field(default=None, name="entity-type")
    numeric_id: int | None = msgspec.field(default=None, name="numeric-id")


class Time(_Plain):
    time: str
    precision: int = 11


class Quantity(_Plain):
    amount: str
    unit: str = "1"


class MonolingualText(_Plain):
    text: str
    language: str = ""


class GlobeCoordinate(_Plain):
    latitude: float | None = None
    longitude: float | None = None


class DataValue(_Plain):
    """Any datavalue, its value kept raw: the slow path for odd or unknown value types."""

    type: str
    value: msgspec.Raw


# Fast path: one decode pass, the value typed by the sibling "type" tag.
class _Tagged(_Plain, tag_field="type"):
    pass


class EntityValue(_Tagged, tag="wikibase-entityid"):
    value: EntityId


class StringValue(_Tagged, tag="string"):
    value: str


class TimeValue(_Tagged, tag="time"):
    value: Time


class QuantityValue(_Tagged, tag="quantity"):
    value: Quantity


class TextValue(_Tagged, tag="monolingualtext"):
    value: MonolingualText


class CoordValue(_Tagged, tag="globecoordinate"):
    value: GlobeCoordinate


TypedValue = EntityValue | StringValue | TimeValue | QuantityValue | TextValue | CoordValue


def _claim_struct(value_type):
    """Claim structs parameterised by how datavalues decode (typed fast path or raw)."""

    class Snak(_Plain):
        # no "property": claims and qualifiers are keyed by it already
        snaktype: str
        datatype: str | None = None
        datavalue: value_type | None = None

    class Claim(_Plain):
        mainsnak: Snak
        rank: str = "normal"
        id: str | None = None
        qualifiers: dict[str, list[Snak]] | list | None = None

    return Claim


def _entity_row(labels_type):
    """What an ``entities`` row is made of; both the whole and the light decode have it.
    ``labels_type``: the struct of the label and description maps (English only, or with
    more languages)."""

    class EntityRow(_Plain):
        id: str
        type: str
        labels: labels_type | list = msgspec.field(default_factory=labels_type)
        descriptions: labels_type | list = msgspec.field(default_factory=labels_type)
        sitelinks: dict[str, msgspec.Raw] | list = {}
        modified: str | None = None
        sitelink_count: int | None = None  # set by the SPARQL source instead of sitelinks

    return EntityRow


def _entity_struct(value_type, labels_type=EnLabel, aliases_type=EnAliases):
    Claim = _claim_struct(value_type)

    class Entity(_entity_row(labels_type)):
        aliases: aliases_type | list = msgspec.field(default_factory=aliases_type)
        claims: dict[str, list[Claim]] | list = {}
        datatype: str | None = None  # properties only

    return Entity


def _typing_struct(value_type, labels_type=EnLabel):
    """An item with only what decides whether it is kept whole by a type filter: English
    label, description, sitelinks and the P31 / P106 claims (msgspec skips the rest unread,
    which is most of an entity's bytes)."""
    claim = _claim_struct(value_type)

    class TypeClaims(_Plain):
        P31: list[claim] = []
        P106: list[claim] = []

    class TypingEntity(_entity_row(labels_type)):
        claims: TypeClaims | list = msgspec.field(default_factory=TypeClaims)

    return TypingEntity


Entity = _entity_struct(TypedValue)
RawEntity = _entity_struct(DataValue)
entity_decoder = msgspec.json.Decoder(Entity)
raw_entity_decoder = msgspec.json.Decoder(RawEntity)
typing_decoder = msgspec.json.Decoder(_typing_struct(TypedValue))
raw_typing_decoder = msgspec.json.Decoder(_typing_struct(DataValue))


# -- labels in more languages (kg load --language) -------------------------------------------

class TaggedText(_Plain):
    """A label, description or alias of a language besides English. ``language`` is where
    a reply of the API says whose text it really is: with language fallback, wbgetentities
    gives another language's label under the key asked for."""

    value: str
    language: str | None = None


tagged_text_decoder = msgspec.json.Decoder(TaggedText)
tagged_texts_decoder = msgspec.json.Decoder(list[TaggedText])


@dataclass(frozen=True)
class Decoders:
    """The four entity decoders of a load (whole or light, typed or raw values), and the
    languages besides English their label, description and alias maps hold: (code, field
    name) pairs. Each such language's value is kept raw (``msgspec.Raw``, a slice of the
    line) and decoded by the extractor on its own, so that a malformed label of one
    language leaves out that label, not the entity."""

    entity: msgspec.json.Decoder
    raw_entity: msgspec.json.Decoder
    typing: msgspec.json.Decoder
    raw_typing: msgspec.json.Decoder
    fields: tuple[tuple[str, str], ...] = ()


ENGLISH_ONLY = Decoders(entity_decoder, raw_entity_decoder, typing_decoder, raw_typing_decoder)


@cache
def decoders_for(languages: tuple[str, ...]) -> Decoders:
    """Decoders whose label maps also hold ``languages`` (codes checked by the caller).
    English decodes exactly as in ``ENGLISH_ONLY``: the maps are subclasses of ``EnLabel``
    and ``EnAliases``. Field names are ``l0``, ``l1``...: codes such as ``is`` or ``or`` are
    Python keywords, and ``zh-hans`` no name at all."""
    if not languages:
        return ENGLISH_ONLY
    fields = tuple((code, f"l{i}") for i, code in enumerate(languages))
    spec = [(name, msgspec.Raw, msgspec.Raw()) for _, name in fields]
    rename = {name: code for code, name in fields}
    labels = msgspec.defstruct("LanguageLabels", spec, bases=(EnLabel,), rename=rename)
    aliases = msgspec.defstruct("LanguageAliases", spec, bases=(EnAliases,), rename=rename)
    return Decoders(
        msgspec.json.Decoder(_entity_struct(TypedValue, labels, aliases)),
        msgspec.json.Decoder(_entity_struct(DataValue, labels, aliases)),
        msgspec.json.Decoder(_typing_struct(TypedValue, labels)),
        msgspec.json.Decoder(_typing_struct(DataValue, labels)), fields)


class AllLanguages(_Plain):
    """Every language's label, description and aliases of an entity, each raw: the second,
    light decode of a line under ``--language all`` (the entity itself decodes as ever, so
    English is read exactly as without it)."""

    labels: dict[str, msgspec.Raw] | list = {}
    descriptions: dict[str, msgspec.Raw] | list = {}
    aliases: dict[str, msgspec.Raw] | list = {}


all_languages_decoder = msgspec.json.Decoder(AllLanguages)
