"""One declared schema for every export format: JSONL records, Parquet columns and the hf
folder's features are the same, and configurations concatenate with ``datasets``."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from convkgyarn import export_schema
from convkgyarn.config import GenerateConfig
from tests.helpers import project


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Configurations whose inferred schemas differ: one with related entities, hops,
    every kind of question and sentences (struct and yes/no values everywhere), plain voice
    (related_entity always null, no sentences) and text with typos."""
    tmp = tmp_path_factory.mktemp("schema")
    with project(tmp / "p.duckdb") as p:
        p.generate([GenerateConfig(conversations=8),
                    GenerateConfig(interaction="text", typos=True, conversations=8),
                    GenerateConfig(related=True, hops=True, ellipsis=True, turns=8,
                                   kinds=["count", "verify", "before"],
                                   answer_style="sentence", conversations=12)])
        p.export("jsonl", tmp / "c.jsonl")
        p.export("parquet", tmp / "c.parquet")
        p.export("hf", tmp / "hf")
    recs = [json.loads(line) for line in (tmp / "c.jsonl").read_text().splitlines()]
    return tmp, recs


def _keys_follow(value, arrow_type: pa.DataType, where: str) -> None:
    """Every dict in ``value`` has exactly its struct's fields, in the schema's order
    (a value of answer_values has the fields of its kind only, in that order)."""
    if value is None:
        return
    if pa.types.is_struct(arrow_type):
        names = [f.name for f in arrow_type]
        assert isinstance(value, dict), where
        if arrow_type == export_schema.VALUE:
            assert [k for k in names if k in value] == list(value), where
        elif arrow_type == export_schema.CONFIG:  # generated runs: every field but source
            assert list(value) == names[:-1], where
        else:
            assert list(value) == names, where
        for f in arrow_type:
            _keys_follow(value.get(f.name), f.type, f"{where}.{f.name}")
    elif pa.types.is_list(arrow_type):
        for i, item in enumerate(value):
            _keys_follow(item, arrow_type.value_type, f"{where}[{i}]")


def test_every_jsonl_record_has_exactly_the_schemas_fields(exported):
    _, recs = exported
    assert len(recs) >= 25
    for rec in recs:
        _keys_follow(rec, pa.struct(list(export_schema.CONVERSATION)), rec["conversation_id"])
    kinds = {t["question_kind"] for r in recs for t in r["turns"]}
    assert {"count", "verify", "before"} & kinds  # the rich configuration made them


def _padded(value, arrow_type: pa.DataType):
    """A JSONL value as Arrow reads it back: a struct's missing fields as None."""
    if value is None:
        return None
    if pa.types.is_struct(arrow_type):
        return {f.name: _padded(value.get(f.name), f.type) for f in arrow_type}
    if pa.types.is_list(arrow_type):
        return [_padded(v, arrow_type.value_type) for v in value]
    return value


def test_parquet_nests_config_and_provenance_and_holds_every_record(exported):
    tmp, recs = exported
    table = pq.read_table(tmp / "c.parquet")
    assert table.schema.remove_metadata() == export_schema.CONVERSATION
    assert pa.types.is_struct(table.schema.field("config").type)
    assert pa.types.is_struct(table.schema.field("provenance").type)
    whole = pa.struct(list(export_schema.CONVERSATION))
    assert table.to_pylist() == [_padded(r, whole) for r in recs]


def test_parquet_is_written_a_row_group_per_chunk(exported, tmp_path):
    from convkgyarn.export import write_parquet

    _, recs = exported
    write_parquet(iter(recs), tmp_path / "c.parquet", chunk=10)
    f = pq.ParquetFile(tmp_path / "c.parquet")
    assert f.metadata.num_row_groups == -(-len(recs) // 10)
    assert f.read().num_rows == len(recs)


def test_hf_configurations_load_with_the_declared_features_and_concatenate(exported):
    datasets = pytest.importorskip("datasets")
    tmp, recs = exported
    folder = str(tmp / "hf")
    names = datasets.get_dataset_config_names(folder)
    assert sorted(names) == sorted({r["config"]["name"] for r in recs})
    # a cache of this run's own: datasets keys its cache by folder name and may hand back
    # another run's tables for a folder that was called "hf" too
    parts = [datasets.load_dataset(folder, name, split="train", cache_dir=str(tmp / "cache"))
             for name in names]
    for part in parts:
        assert part.features == export_schema.features()
    joined = datasets.concatenate_datasets(parts)
    assert len(joined) == len(recs)
    by_id = {r["conversation_id"]: r for r in recs}
    row = next(r for r in joined if r["related_entity"] is not None)
    assert row["turns"][0]["question"] == by_id[row["conversation_id"]]["turns"][0]["question"]


def test_the_cards_features_are_what_datasets_writes_for_the_schema():
    datasets = pytest.importorskip("datasets")
    yaml = pytest.importorskip("yaml")
    info = yaml.safe_load(export_schema.hf_features_yaml(["voice", "text-typos"]))
    assert [c["config_name"] for c in info["dataset_info"]] == ["voice", "text-typos"]
    for c in info["dataset_info"]:
        assert datasets.Features._from_yaml_list(c["features"]) == export_schema.features()
    assert datasets.Features._to_yaml_list(export_schema.features()) == \
        export_schema.hf_features()


def test_every_generate_option_is_a_field_of_the_exported_config():
    names = [f.name for f in export_schema.CONFIG]
    assert names == ["name", *GenerateConfig.model_fields, "source"]
    assert export_schema.CONFIG.field("kinds").type == pa.list_(pa.string())
    assert export_schema.CONFIG.field("kind_share").type == pa.float64()
