"""Every stage keyed by everything that decides it (#31 item 1): a changed model in
convkgyarn.toml re-asks exactly that stage and credits the new model; an unchanged project
asks nothing; the keys are recorded in one table; table content is fingerprinted."""

from __future__ import annotations

from collections import Counter

import pytest


from tests.conversations_llm import healthy
from tests.helpers import cli, project
from tests.llm.scripted_server import ScriptedServer


def write_toml(path, db, server, selector: str, templater: str) -> None:
    path.write_text(f'db = "{db}"\n[llm]\nbase_url = "{server.base_url}"\nbackoff_max = 0.1\n'
                    f'[llm.stages.selector]\nmodel = "{selector}"\n'
                    f'[llm.stages.templater]\nmodel = "{templater}"\n')


@pytest.mark.slow
def test_a_changed_model_in_the_toml_re_asks_that_stage_and_credits_it(tmp_path, sample_path):
    db, toml = tmp_path / "p.duckdb", tmp_path / "convkgyarn.toml"
    asked: Counter = Counter()

    def handler(body, n):
        asked[body["model"]] += 1
        return healthy(body, n)

    def generate() -> Counter:
        asked.clear()
        r = cli("generate", "--config", toml, "--interaction", "voice", "--conversations", "5",
                "--out", tmp_path / "out", env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        return Counter(asked)

    def credited(con) -> dict[str, set]:
        return {t: {r[0] for r in con.execute(f"SELECT DISTINCT model FROM {t} WHERE model IS "
                                              "NOT NULL").fetchall()}
                for t in ("selected_types", "selected_predicates", "templates")}

    with ScriptedServer(handler) as server:
        assert cli("kg", "load", sample_path, "--db", db).exit_code == 0
        write_toml(toml, db, server, "sel-a", "tpl-a")
        first = generate()
        assert first["sel-a"] > 0 and first["tpl-a"] > 0
        assert generate() == Counter()  # nothing changed: nothing asked
        write_toml(toml, db, server, "sel-b", "tpl-a")
        second = generate()
        assert second["sel-b"] > 0 and second["sel-a"] == 0
        with project(db, write=False) as p:
            got = credited(p.con)
        assert got["selected_types"] == {"sel-b"} and got["selected_predicates"] == {"sel-b"}
        assert second["tpl-a"] == 0 or got["templates"] == {"tpl-a"}  # templater not re-keyed
        write_toml(toml, db, server, "sel-b", "tpl-b")
        third = generate()
        assert third["tpl-b"] > 0 and third["sel-b"] == 0  # the selector is not re-asked
        with project(db, write=False) as p:
            got = credited(p.con)
            keys = dict(p.con.execute("SELECT stage, parts->>'$.llm.model' FROM stage_inputs "
                                      "WHERE scope = ''").fetchall())
        assert got["templates"] == {"tpl-b"}
        assert keys["types.select"] == "sel-b" and keys["templates.generate"] == "tpl-b"
        assert generate() == Counter()


def test_every_stage_of_generate_records_its_input_key(tmp_path, sample_path):
    with project(tmp_path / "p.duckdb") as p:
        p.load([sample_path], kind="sample")
        from convkgyarn.config import GenerateConfig

        p.generate([GenerateConfig(conversations=5)])
        rows = {(r[0], r[1]): r[2] for r in p.con.execute(
            "SELECT stage, scope, parts FROM stage_inputs").fetchall()}
    assert {s for s, _ in rows} >= {"predicates.extract", "types.select", "predicates.select",
                                    "templates.generate", "assemble"}
    assert ("assemble", "voice") in rows or any(s == "assemble" and c for s, c in rows)
    import json

    parts = json.loads(rows[("predicates.select", "")])
    assert set(parts) == {"config", "llm", "code", "tables"}
    assert parts["tables"]["type_predicates"] and parts["tables"]["selected_types"]


def test_an_unchanged_extraction_is_skipped_and_a_changed_kg_redoes_it(tmp_path, sample_path,
                                                                     monkeypatch):
    with project(tmp_path / "p.duckdb") as p:
        p.load([sample_path], kind="sample")
        first = p.extract_predicates().stats
        assert not first.get("unchanged") and first["type_predicates"] > 0
        again = p.extract_predicates().stats
        assert again["unchanged"] is True and again["type_predicates"] == first["type_predicates"]
        p.con.execute("INSERT OR REPLACE INTO kg_meta VALUES ('kg_version', 'another')")
        assert not p.extract_predicates().stats.get("unchanged")


def test_a_table_fingerprint_follows_its_content(tmp_path, sample_path):
    from convkgyarn.stage import table_fingerprint

    with project(tmp_path / "p.duckdb") as p:
        p.load([sample_path], kind="sample")
        p.extract_predicates()
        before = table_fingerprint(p.con, "type_predicates")
        assert table_fingerprint(p.con, "type_predicates") == before
        p.con.execute("UPDATE type_predicates SET entities = entities + 1 WHERE rowid = 0")
        assert table_fingerprint(p.con, "type_predicates") != before
        kg = table_fingerprint(p.con, "statements")
        assert kg.startswith("kg:") and kg == table_fingerprint(p.con, "labels")
