"""The stage order lives in one place and is checked; the library entry point runs the main
job end to end, as the README shows."""

from __future__ import annotations

import json

import pytest

from convkgyarn import Project, load_project_config
from convkgyarn.config import GenerateConfig
from convkgyarn.pipeline import Pipeline, PipelineOrderError, generation_stages
from convkgyarn.stage import Stage
from tests.helpers import context


class Writes(Stage):
    name = "writes"
    writes = ("templates",)

    def process(self):
        return {}


class Reads(Stage):
    name = "reads"
    reads = ("templates",)

    def process(self):
        return {}


def test_a_stage_before_the_stage_that_writes_its_input_is_refused(db):
    ctx = context(db)
    Pipeline([Writes(ctx), Reads(ctx)])
    with pytest.raises(PipelineOrderError, match="reads reads templates, which writes writes"):
        Pipeline([Reads(ctx), Writes(ctx)])


def test_the_main_job_composition_is_in_order(db):
    stages = generation_stages(context(db), [GenerateConfig(related=True), GenerateConfig()])
    Pipeline(stages)  # does not raise
    assert [s.name for s in stages] == ["predicates.extract", "types.select",
                                        "predicates.select", "templates.generate",
                                        "related.build", "assemble", "assemble"]


def test_the_readme_example_runs(tmp_path, sample_path):
    config = load_project_config(overrides={"db": tmp_path / "my.duckdb"}, environ={})
    with Project(config) as project:
        project.load([sample_path])
        result = project.generate([GenerateConfig(interaction="voice", deixis=True,
                                                  conversations=5)])
        project.export("jsonl", tmp_path / "conversations.jsonl")
    lines = (tmp_path / "conversations.jsonl").read_text().splitlines()
    assert len(lines) == 5 and len(result.runs) == 1
    assert json.loads(lines[0])["config"]["name"] == "voice-deixis"


def test_every_stage_run_is_recorded_with_its_counters(tmp_path, sample_path):
    with Project(load_project_config(overrides={"db": tmp_path / "p.duckdb"},
                                     environ={})) as project:
        project.generate([GenerateConfig(conversations=3)])
        stages = [r[0] for r in project.con.execute(
            "SELECT stage FROM stage_runs ORDER BY started_at").fetchall()]
    assert stages == ["kg.load", "predicates.extract", "types.select", "predicates.select",
                      "templates.generate", "assemble"]
