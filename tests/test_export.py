"""Exports: what users get, in every format, written whole or not at all."""

from __future__ import annotations

import json
import os

import pyarrow.parquet as pq
import pytest

from convkgyarn.config import GenerateConfig
from convkgyarn.export import write_jsonl
from convkgyarn.outputs import CONVERSATIONS_JSONL, replacing_file
from tests.helpers import cli, project


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("export")
    with project(tmp / "p.duckdb") as p:
        p.generate([GenerateConfig(conversations=6), GenerateConfig(
            interaction="text", typos=True, conversations=6)])
    return tmp / "p.duckdb"


def test_jsonl_parquet_and_hf_hold_the_same_conversations(generated, tmp_path):
    with project(generated, write=False) as p:
        assert p.export("jsonl", tmp_path / "c.jsonl") == 12
        p.export("parquet", tmp_path / "c.parquet")
        p.export("hf", tmp_path / "hf")
    recs = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert pq.read_table(tmp_path / "c.parquet").num_rows == len(recs) == 12
    card = (tmp_path / "hf" / "README.md").read_text()
    assert "text-typos" in card and "voice" in card and "rules" in card
    import datasets

    ds = datasets.load_dataset(str(tmp_path / "hf"), "text-typos", split="train",
                              cache_dir=str(tmp_path / "cache"))  # not another run's tables
    assert len(ds) == 6 and ds[0]["turns"][0]["turn"] == 1
    for r in recs:  # provenance on every record
        assert {"run_id", "dump_date", "code_version", "templates"} <= set(r["provenance"])


def test_an_interrupted_write_leaves_the_previous_file_whole(tmp_path):
    path = tmp_path / "c.jsonl"
    record = {"conversation_id": "c1", "config": {}, "turns": [], "provenance": {}}
    write_jsonl([record], path)
    before = path.read_bytes()
    with pytest.raises(KeyboardInterrupt):
        with replacing_file(path, CONVERSATIONS_JSONL) as tmp:
            tmp.write_text('{"half": ')
            raise KeyboardInterrupt
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["c.jsonl"]  # no temporary left behind


def test_an_hf_export_of_ours_is_replaced_whole(generated, tmp_path):
    """A previous hf export (ours by its marker file) is replaced whole: data files of
    configurations no longer exported go with it."""
    folder = tmp_path / "hf"
    with project(generated, write=False) as p:
        p.export("hf", folder)
    (folder / "data" / "stale.jsonl").write_text("{}\n")
    marker = json.loads((folder / ".convkgyarn-output.json").read_text())
    marker["files"].append("data/stale.jsonl")  # as an earlier export with another config
    (folder / ".convkgyarn-output.json").write_text(json.dumps(marker))
    with project(generated, write=False) as p:
        p.export("hf", folder)
    assert not (folder / "data" / "stale.jsonl").exists()
    assert sorted(f.name for f in (folder / "data").iterdir()) == ["text-typos.jsonl",
                                                                   "voice.jsonl"]


def test_export_of_an_unknown_run_or_format_is_a_clear_error(generated, tmp_path):
    r = cli("export", "--db", generated, "--run", "gen-nope", "--out", tmp_path / "x.jsonl")
    assert r.exit_code == 2 and "no generation run gen-nope" in r.output
    r = cli("export", "--db", generated, "--format", "xml")
    assert r.exit_code == 2 and "jsonl, parquet, hf or inspect" in r.output
