"""The one schema of an exported conversation record, for every format.

``CONVERSATION`` (an Arrow schema) is declared here once; everything else derives from it:

- the JSONL record's fields and their order (``export.TURN_FIELDS`` is the turn struct's
  field names; the tests hold every record to this schema, key for key),
- the Parquet file's columns (``config`` and ``provenance`` are nested structs, not JSON
  strings), written chunk by chunk with this schema,
- the Hugging Face folder's ``dataset_info`` in its card (``hf_features_yaml``: the
  ``datasets.Features`` of this schema, ``features()``), so that ``datasets`` reads every
  configuration with the same features, not one inferred per file, and
  ``datasets.concatenate_datasets`` joins them.

Why one declared schema instead of inference: a configuration without related entities,
probes or yes/no questions has only nulls in those fields, and each file's inferred type
then differs (null against struct). A value of ``answer_values`` is one struct holding
whichever of ``id`` / ``time``, ``precision`` / ``amount``, ``unit`` / ``text`` it has; in
Parquet and ``datasets`` the others read as null.

The ``config`` struct is ``GenerateConfig``'s fields in their declared order (after
``name``; ``source`` for imported ConvQuestions runs), derived from the pydantic model so a
new option cannot be left out of the exports.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Literal

import pyarrow as pa

from convkgyarn.config import GenerateConfig

VALUE = pa.struct([("id", pa.string()), ("time", pa.string()), ("precision", pa.int64()),
                   ("amount", pa.string()), ("unit", pa.string()), ("text", pa.string())])

CHANGE = pa.struct([("refresh_id", pa.string()), ("old_dump_date", pa.string()),
                    ("new_dump_date", pa.string()),
                    ("current_since", pa.list_(pa.string()))])

TURN = pa.struct([
    ("turn", pa.int64()),
    ("question", pa.string()),
    ("answer", pa.list_(pa.string())),          # the values as people say them
    ("answer_values", pa.list_(VALUE)),         # the exact values
    ("answer_ids", pa.list_(pa.string())),
    ("answer_languages", pa.list_(pa.string())),  # the language of each answer's label
    ("subject_id", pa.string()),
    ("hop_from", pa.int64()),
    ("question_kind", pa.string()),
    ("answer_sentence", pa.string()),
    ("property_id", pa.string()),
    ("qualifier_property_id", pa.string()),
    ("tense", pa.string()),
    ("phenomenon", pa.string()),
    ("template_id", pa.string()),
    ("question_before_typo", pa.string()),
    ("statement_ids", pa.list_(pa.string())),
    ("sparql", pa.string()),
    ("outdated_answer", pa.list_(pa.string())),
    ("outdated_values", pa.list_(VALUE)),
    ("change", CHANGE),
])


def _arrow_type(annotation: Any) -> pa.DataType:
    """The Arrow type of a ``GenerateConfig`` field's annotation (optional means nullable,
    which every Arrow field is)."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _arrow_type(inner)
    if origin is list:
        return pa.list_(_arrow_type(typing.get_args(annotation)[0]))
    if origin is Literal:
        kinds = {type(a) for a in typing.get_args(annotation)}
        if kinds == {str}:
            return pa.string()
    simple = {bool: pa.bool_(), int: pa.int64(), float: pa.float64(), str: pa.string()}
    if annotation in simple:
        return simple[annotation]
    raise TypeError(f"GenerateConfig: no export type for {annotation!r}; add it to "
                    "convkgyarn/export_schema.py")


CONFIG = pa.struct(
    [("name", pa.string())]
    + [(name, _arrow_type(field.annotation)) for name, field in GenerateConfig.model_fields.items()]
    + [("source", pa.string())])  # an imported ConvQuestions run: the file it came from

TEMPLATE_PROVENANCE = pa.struct([("model", pa.string()), ("prompt_hash", pa.string()),
                                 ("writer", pa.string())])

PROVENANCE = pa.struct([("run_id", pa.string()), ("dump_date", pa.string()),
                        ("code_version", pa.string()), ("entity_type", pa.string()),
                        ("templates", pa.list_(TEMPLATE_PROVENANCE))])

CONVERSATION = pa.schema([
    ("conversation_id", pa.string()),
    ("config", CONFIG),
    ("seed", pa.int64()),
    ("language", pa.string()),      # BCP-47: the language the conversation is said in
    ("fact_set_id", pa.string()),   # the plan's facts: the same in each of its languages
    ("plan_id", pa.string()),       # the plan: its conversations in every language share it
    ("entity", pa.struct([("id", pa.string()), ("label", pa.string()),
                          ("types", pa.list_(pa.string()))])),
    ("related_entity", pa.struct([("id", pa.string()), ("label", pa.string())])),
    ("turns", pa.list_(TURN)),
    ("provenance", PROVENANCE),
])

TURN_FIELDS: tuple[str, ...] = tuple(f.name for f in TURN)


def table(records: list[dict[str, Any]]) -> pa.Table:
    """Records as an Arrow table of ``CONVERSATION`` (a field a record lacks is null)."""
    return pa.Table.from_pylist(records, schema=CONVERSATION)


def features():
    """The ``datasets.Features`` of ``CONVERSATION`` (needs ``datasets``: the ``hf``
    extra)."""
    import datasets

    return datasets.Features.from_arrow_schema(CONVERSATION)


# -- the card's dataset_info, written without datasets installed ------------------------------
_DTYPES = {pa.string(): "string", pa.int64(): "int64", pa.float64(): "float64",
           pa.bool_(): "bool"}


def _feature(t: pa.DataType) -> Any:
    """A type in the card's YAML shape (what ``datasets.Features._to_yaml_list`` writes):
    a dtype name, ``{"struct": [...]}`` or ``{"list": ...}``."""
    if pa.types.is_struct(t):
        return {"struct": [_named(f) for f in t]}
    if pa.types.is_list(t):  # a list of structs lists its fields directly, as datasets does
        inner = _feature(t.value_type)
        return {"list": inner["struct"] if isinstance(inner, dict) and "struct" in inner
                else inner}
    return _DTYPES[t]


def _named(f: pa.Field) -> dict[str, Any]:
    inner = _feature(f.type)
    return {"name": f.name, **(inner if isinstance(inner, dict) else {"dtype": inner})}


def hf_features() -> list[dict[str, Any]]:
    """``CONVERSATION`` as the ``features`` list of a dataset card's ``dataset_info``."""
    return [_named(f) for f in CONVERSATION]


def _yaml(value: Any, indent: int) -> list[str]:
    """Block YAML for the card (names and dtypes are plain identifiers: no quoting needed)."""
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, list):
        for item in value:
            sub = _yaml(item, indent + 2)
            lines.append(pad + "- " + sub[0].lstrip())
            lines += sub[1:]
    else:
        for key, v in value.items():
            if isinstance(v, (list, dict)):
                lines.append(f"{pad}{key}:")
                lines += _yaml(v, indent + 2)
            else:
                lines.append(f"{pad}{key}: {v}")
    return lines


def hf_features_yaml(config_names: list[str]) -> str:
    """The card's ``dataset_info`` (YAML, top level): every configuration with the same
    features, those of ``CONVERSATION``."""
    infos = [{"config_name": name, "features": hf_features()} for name in config_names]
    return "\n".join(["dataset_info:"] + _yaml(infos, 0))
