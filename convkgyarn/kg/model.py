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


class EntityRow(_Plain):
    """What an ``entities`` row is made of; both the whole and the light decode have it."""

    id: str
    type: str
    labels: EnLabel | list = msgspec.field(default_factory=EnLabel)
    descriptions: EnLabel | list = msgspec.field(default_factory=EnLabel)
    sitelinks: dict[str, msgspec.Raw] | list = {}
    modified: str | None = None
    sitelink_count: int | None = None  # set by the SPARQL source instead of sitelinks


def _entity_struct(value_type):
    Claim = _claim_struct(value_type)

    class Entity(EntityRow):
        aliases: EnAliases | list = msgspec.field(default_factory=EnAliases)
        claims: dict[str, list[Claim]] | list = {}
        datatype: str | None = None  # properties only

    return Entity


def _typing_struct(value_type):
    """An item with only what decides whether it is kept whole by a type filter: English
    label, description, sitelinks and the P31 / P106 claims (msgspec skips the rest unread,
    which is most of an entity's bytes)."""
    claim = _claim_struct(value_type)

    class TypeClaims(_Plain):
        P31: list[claim] = []
        P106: list[claim] = []

    class TypingEntity(EntityRow):
        claims: TypeClaims | list = msgspec.field(default_factory=TypeClaims)

    return TypingEntity


Entity = _entity_struct(TypedValue)
RawEntity = _entity_struct(DataValue)
entity_decoder = msgspec.json.Decoder(Entity)
raw_entity_decoder = msgspec.json.Decoder(RawEntity)
typing_decoder = msgspec.json.Decoder(_typing_struct(TypedValue))
raw_typing_decoder = msgspec.json.Decoder(_typing_struct(DataValue))
