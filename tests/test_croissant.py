"""Croissant metadata beside the HF export: mlcroissant validates it and reads back every
conversation as the JSONL holds it."""

from __future__ import annotations

import hashlib
import json

import mlcroissant as mlc
import pytest

from convkgyarn.config import GenerateConfig
from tests.helpers import cli, project


@pytest.fixture(scope="module")
def hf_export(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("croissant")
    with project(tmp / "p.duckdb") as p:
        p.generate([
            GenerateConfig(deixis=True, hops=True, ellipsis=True, turns=8, conversations=6,
                           kinds=["count", "verify", "before"], answer_style="sentence"),
            GenerateConfig(interaction="text", typos=True, conversations=6),
            GenerateConfig(entities=["Q145", "Q8877"], turns=5)])  # facts with earlier values
    r = cli("export", "--db", tmp / "p.duckdb", "--format", "hf", "--out", tmp / "hf")
    assert r.exit_code == 0, r.output
    return tmp / "hf"


def _text(value):
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list):
        return [_text(v) for v in value]
    return value


def test_croissant_validates_and_reads_back_every_conversation(hf_export):
    meta = json.loads((hf_export / "croissant.json").read_text())
    assert meta["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    dataset = mlc.Dataset(jsonld=hf_export / "croissant.json")  # raises on an error
    assert not dataset.metadata.issues.errors
    files = {d["contentUrl"]: d for d in meta["distribution"]}
    assert set(files) == {f"data/{p.name}" for p in (hf_export / "data").glob("*.jsonl")}
    for url, d in files.items():
        assert d["sha256"] == hashlib.sha256((hf_export / url).read_bytes()).hexdigest()
    seen: set[str] = set()
    for record_set in meta["recordSet"]:
        name = record_set["@id"]
        jsonl = [json.loads(line) for line in
                 (hf_export / "data" / f"{name}.jsonl").read_text().splitlines()]
        read = [{k.split("/", 1)[1]: _text(v) for k, v in r.items()}
                for r in dataset.records(name)]
        assert len(read) == len(jsonl) > 0
        for got, rec in zip(read, jsonl):
            assert got["conversation_id"] == rec["conversation_id"]
            assert got["config"] == rec["config"]["name"] == name
            assert (got["entity_id"], got["entity_label"], got["entity_types"], got["seed"]) \
                == (rec["entity"]["id"], rec["entity"]["label"], rec["entity"]["types"],
                    rec["seed"])
            turns = [{k.split("/")[-1]: _text(v) for k, v in t.items()} for t in got["turns"]]
            assert len(turns) == len(rec["turns"])
            for t, want in zip(turns, rec["turns"]):
                for key in ("turn", "question", "answer", "answer_ids", "subject_id", "hop_from",
                            "question_kind", "answer_sentence", "property_id",
                            "qualifier_property_id", "tense", "phenomenon",
                            "question_before_typo", "statement_ids", "sparql",
                            "outdated_answer"):
                    assert t[key] == want[key], (name, key, t[key], want[key])
                    if want[key] not in (None, [], "fact"):
                        seen.add(key)
    # every field was read with a value somewhere (hops, kinds, sentences, typos ...)
    assert seen == {"turn", "question", "answer", "answer_ids", "subject_id", "hop_from",
                    "question_kind", "answer_sentence", "property_id", "qualifier_property_id",
                    "tense", "phenomenon", "question_before_typo", "statement_ids", "sparql",
                    "outdated_answer"}, seen


def test_the_metadata_is_the_same_for_the_same_export(hf_export, tmp_path):
    db = hf_export.parent / "p.duckdb"
    r = cli("export", "--db", db, "--format", "hf", "--out", tmp_path / "again")
    assert r.exit_code == 0, r.output
    assert (tmp_path / "again" / "croissant.json").read_bytes() == \
        (hf_export / "croissant.json").read_bytes()
