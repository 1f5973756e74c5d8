"""Typed config: the environment, then the config file, then options; every bad value is
one line naming the field."""

from __future__ import annotations

import re

import pytest

from convkgyarn.config import ConfigError, GenerateConfig, load_project_config, paper_configs
from convkgyarn.errors import EXIT_BAD_INPUT

SECRET = "sk-test-SECRET-0123456789abcdef"


def test_environment_then_file_then_cli_build_the_endpoint(tmp_path):
    cfg = tmp_path / "convkgyarn.toml"
    cfg.write_text('[llm]\nconcurrency = 3\n[llm.stages.judge]\nmodel = "my-judge"\n')
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": SECRET}
    project = load_project_config(cfg, {"llm.max_cost": 1.5}, environ=env)
    assert project.llm.base_url == "http://127.0.0.1:9/v1"
    assert project.llm.api_key.get_secret_value() == SECRET
    assert SECRET not in repr(project) and SECRET not in project.model_dump_json()
    assert project.llm.concurrency == 3 and project.llm.max_cost == 1.5
    assert project.llm.stages.judge.model == "my-judge"
    assert load_project_config(None, environ={}).llm.configured is False


def test_a_missing_config_file_is_an_error_not_ignored(tmp_path):
    with pytest.raises(ConfigError, match="none.toml: no such config file") as info:
        load_project_config(tmp_path / "none.toml", environ={})
    assert info.value.exit_code == EXIT_BAD_INPUT


def test_bad_values_name_the_field(tmp_path):
    with pytest.raises(ConfigError, match=r"generate\.turns: .*greater than or equal to 1"):
        load_project_config(None, {"generate.turns": 0}, environ={})
    cfg = tmp_path / "c.toml"
    cfg.write_text("[predicates]\nmin_share = 2\n")
    with pytest.raises(ConfigError, match=r"c\.toml: predicates\.min_share"):
        load_project_config(cfg, environ={})
    cfg.write_text("[predicates\n")
    with pytest.raises(ConfigError, match="c.toml"):
        load_project_config(cfg, environ={})


@pytest.mark.parametrize("options,message", [
    ({"interaction": "text", "disfluency": True}, "disfluency applies to voice"),
    ({"interaction": "voice", "typos": True}, "typos apply to text"),
])
def test_options_that_do_not_fit_the_interaction_are_refused(options, message):
    with pytest.raises(ConfigError, match=message):
        load_project_config(None, {f"generate.{k}": v for k, v in options.items()}, environ={})


def test_configuration_names_and_the_paper_configurations():
    assert GenerateConfig(interaction="voice", deixis=True, disfluency=True).name == \
        "voice-deixis-disfluency"
    names = [c.name for c in paper_configs(GenerateConfig(turns=7, seed=3))]
    assert names == ["voice", "voice-deixis", "voice-disfluency", "voice-deixis-disfluency",
                     "text", "text-deixis", "text-typos", "text-deixis-typos"]
    assert all(c.turns == 7 and c.seed == 3 and c.same_facts for c in
               paper_configs(GenerateConfig(turns=7, seed=3)))


def test_every_setting_that_changes_the_conversations_is_in_the_name():
    """Two settings never share a name: a run of one would silently replace the other's."""
    settings = [
        {}, {"kinds": ["count"]}, {"kinds": ["count", "verify"]},
        {"kinds": ["verify", "count"]}, {"kinds": ["count"], "kind_share": 0.5},
        {"hops": True}, {"hops": True, "topics": 2}, {"hops": True, "hop_share": 0.9},
        {"ellipsis": True}, {"ellipsis": True, "ellipsis_share": 0.3},
        {"hops": True, "ellipsis": True, "ellipsis_share": 0.3},
        {"answer_style": "sentence"}, {"related": True},
        {"follow_share": 0.8}, {"also_share": 0.5}, {"follow_share": 0.8, "also_share": 0.5},
        {"list_share": 0.5}, {"list_share": 0.5, "also_share": 0.5},
        {"changed_since": "last"}, {"changed_since": "2024-01-01"},
        {"changed_since": "refresh-0123abcd-4567"},
    ]
    names = [GenerateConfig(**s).name for s in settings]
    assert len(set(names)) == len(names), names
    assert GenerateConfig(kinds=["count", "verify"]).name == "voice-kinds-count-verify"
    assert GenerateConfig(hops=True, topics=2).name == "voice-hops-topics2"
    assert GenerateConfig(changed_since="2024-01-01").name == "voice-changes-2024-01-01"
    assert GenerateConfig(also_share=0.5).name == "voice-also0.5"
    # probes of changed facts ask no follow-up: the share changes nothing there
    assert GenerateConfig(also_share=0.5, changed_since="last").name == "voice-changes"
    assert GenerateConfig(follow_ups=False, also_share=0.5).name == "voice-nofollowups"
    assert GenerateConfig(list_share=1.0).name == "voice-list1"
    assert GenerateConfig(follow_share=0.0, list_share=1.0).name == "voice-follow0"
    assert GenerateConfig(list_share=1.0, hops=True).name == "voice-hops"  # (no counts there)
    assert GenerateConfig(list_share=1.0, kinds=["count"]).name == "voice-kinds-count"
    # a setting at its default adds nothing; the sample (how many, which, how long) neither
    assert GenerateConfig(hops=True, topics=3, ellipsis=True, ellipsis_share=0.5).name == \
        "voice-hops-ellipsis"
    assert GenerateConfig(conversations=7, seed=4, turns=9, types=["Q5"]).name == "voice"
    assert GenerateConfig(changed_since="last").name == "voice-changes"
    # a name is a file name in the hf folder
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+", n) for n in names)


def test_subjects_listed_twice_are_one_subject_and_ids_are_checked(tmp_path):
    """``--entity Q76 --entity Q76`` (a list pasted from a file) stopped the run on a
    duplicate key; it is one subject, in its first place. Anything but an item id is refused
    with the option named, before it reaches a query."""
    assert GenerateConfig(entities=["Q76", "Q42", "Q76"]).entities == ["Q76", "Q42"]
    assert GenerateConfig(types=["Q5", "Q5"]).types == ["Q5"]
    with pytest.raises(ValueError, match="Wikidata item ids"):
        GenerateConfig(entities=["Q76' OR 1=1"])
    from convkgyarn.resources import bundled_sample
    from tests.helpers import project
    with project(tmp_path / "p.duckdb") as p:
        p.load([bundled_sample()])
        result = p.generate([GenerateConfig(entities=["Q76", "Q76"], conversations=2)])
        assert [r["entity"]["id"] for r in p.records(result.runs)] == ["Q76"]
