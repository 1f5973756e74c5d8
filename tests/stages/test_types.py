"""Which types get conversations: rules on real data, config overrides, the LLM selector
(and a failed selector never recorded as done)."""

from __future__ import annotations

import pytest

from convkgyarn.stages.types import SelectTypes, rules_reason
from tests.helpers import context, llm, project
from tests.llm.prompts import data_blocks
from tests.llm.scripted_server import Reply, ScriptedServer, json_reply, last_user_message


@pytest.fixture(scope="module")
def real(shared_data, tmp_path_factory):
    path = tmp_path_factory.mktemp("types") / "t.duckdb"
    with project(path) as p:
        p.load([shared_data / "wikidata" / "entities-635.ndjson.bz2",
                shared_data / "wikidata" / "real-entities-dev.ndjson.bz2"],
               labels=[shared_data / "wikidata" / "property-labels-en.json",
                       shared_data / "labels" / "preferred-labels-en.json"])
        p.extract_predicates()
    return path


def decisions(con) -> dict[str, tuple[bool, str, str]]:
    return {r[0]: (r[1], r[2], r[3]) for r in con.execute(
        "SELECT type_id, selected, reason, selected_by FROM selected_types").fetchall()}


def test_rules_leave_out_bookkeeping_and_science_types(real):
    with project(real) as p:
        p.select_types()
        got = decisions(p.con)
    assert got["Q5"][0] is True  # humans
    assert got["Q13442814"][:2] == (False, "bibliographic record")  # scholarly article
    assert got["Q4167836"][0] is False  # Wikimedia category (no English label here)
    assert not got.get("Q7187", (False,))[0] and not got.get("Q8054", (False,))[0]  # genes
    assert rules_reason("Q1", "Wikimedia disambiguation page") is not None
    assert rules_reason("Q1", "review article") is not None
    assert rules_reason("Q1", "city") is None


def test_the_config_overrides_the_rules(real, tmp_path):
    import shutil

    db = tmp_path / "c.duckdb"
    shutil.copy(real, db)
    with project(db, **{"types.include": ["Q13442814"], "types.exclude": ["Q5"]}) as p:
        p.select_types()
        got = decisions(p.con)
    assert got["Q13442814"][0] is True and got["Q13442814"][2] == "config"
    assert got["Q5"][0] is False and "types.exclude" in got["Q5"][1]


def test_generate_by_type_asks_for_it_even_where_the_rules_say_no(real, tmp_path):
    import shutil

    from convkgyarn.config import GenerateConfig

    db = tmp_path / "g.duckdb"
    shutil.copy(real, db)
    with project(db) as p:
        result = p.generate([GenerateConfig(types=["Q13442814"], conversations=5,
                                            min_turns=1)])
        assert decisions(p.con)["Q13442814"][0] is True
        subjects = p.con.execute("SELECT DISTINCT entity_type FROM conversations WHERE "
                                 "run_id = ?", [result.runs[0]]).fetchall()
    assert subjects == [("Q13442814",)]


def test_the_llm_selector_decides_what_the_rules_leave_open(real, tmp_path):
    import shutil

    db = tmp_path / "l.duckdb"
    shutil.copy(real, db)
    seen = []

    def chooser(body, n):
        rows = data_blocks(last_user_message(body))[0]
        seen.append(rows)
        return json_reply({"selected": [r[0] for r in rows if r[0] in ("Q5", "Q8502")]
                           + ["Q42"]})  # Q42 was not offered: dropped

    with ScriptedServer(chooser) as server, project(db) as p:
        SelectTypes(context(p.con, **llm(server))).run()
        got = decisions(p.con)
    offered = {r[0] for rows in seen for r in rows}
    assert "Q13442814" not in offered  # the rules decided it; the LLM never saw it
    assert got["Q5"] == (True, "chosen by the type selector", "llm")
    assert got["Q8502"][0] is True  # mountain
    assert all(not v[0] for k, v in got.items() if k in offered - {"Q5", "Q8502"})
    assert all(len(rows) <= 50 for rows in seen)


def test_a_failed_type_selector_falls_back_to_rules_and_asks_again(real, tmp_path):
    import shutil

    db = tmp_path / "f.duckdb"
    shutil.copy(real, db)
    with ScriptedServer(lambda body, n: Reply(content="no json")) as server, project(db) as p:
        SelectTypes(context(p.con, **llm(server, validation_attempts=1))).run()
        got = decisions(p.con)
        assert got["Q5"][0] is True and got["Q5"][2] == "rules"
        assert p.con.execute("SELECT count(*) FROM selected_types WHERE input_hash IS NOT "
                             "NULL").fetchone()[0] == 0
    calls = []

    def healthy(body, n):
        calls.append(n)
        return json_reply({"selected": ["Q5"]})

    with ScriptedServer(healthy) as server, project(db) as p:
        SelectTypes(context(p.con, **llm(server))).run()
        assert calls and decisions(p.con)["Q5"][2] == "llm"


def test_a_failed_run_keeps_the_last_runs_drops(real, tmp_path):
    """A reviewer's find: a type selection stopped by the endpoint (401) stored nothing, yet
    deleted the drops of the last complete run ("types.exclude") while selected_types still
    held its decisions. A failed run of a stage that works as one whole records no drops
    and deletes none."""
    import shutil

    from convkgyarn.errors import EndpointError

    db = tmp_path / "d.duckdb"
    shutil.copy(real, db)
    query = "SELECT item, reason FROM dropped WHERE stage = 'types.select' ORDER BY ALL"
    with project(db, **{"types.exclude": ["Q5"]}) as p:
        p.select_types()
        before = p.con.execute(query).fetchall()
    assert any(item == "Q5" for item, _ in before), before
    with ScriptedServer(lambda body, n: Reply(status=401)) as server, \
            project(db, **{"types.exclude": ["Q5"]}) as p:
        with pytest.raises(EndpointError):
            SelectTypes(context(p.con, **llm(server))).run()
        assert p.con.execute(query).fetchall() == before
