"""What the project says about itself stays true: `drops` describes the current state (an
identical re-run changes nothing, a reason that no longer holds goes), the refresh summary
counts the conversations that changed, and a refresh that fails after its snapshot was
swapped in leaves a project every command can use, with one line saying what to run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.test_errors import one_line_error
from tests.conversations_llm import healthy
from tests.helpers import cli, project
from tests.llm.scripted_server import Reply, ScriptedServer, json_reply, last_user_message
from tests.test_refresh import handler as refresh_handler
from tests.test_refresh import modified_dump, snapshot

KEY = {"OPENAI_API_KEY": "k"}


def drops(db: Path) -> list[tuple]:
    with project(db, write=False) as p:
        return p.drops()


def dropped_rows(db: Path) -> int:
    with project(db, write=False) as p:
        return p.con.execute("SELECT count(*) FROM dropped").fetchone()[0]


def test_identical_reruns_leave_drops_as_they_were_rules_path(tmp_path):
    db = tmp_path / "p.duckdb"
    seen = []
    for _ in range(3):
        r = cli("generate", "--db", db, "--out", tmp_path / "o", "--all-configs",
                "--conversations", "40")
        assert r.exit_code == 0, r.output
        seen.append((drops(db), dropped_rows(db)))
    assert seen[0][0] and seen[0] == seen[1] == seen[2]


def quirky(body, n):
    """A selector that also returns an id it was not offered, and a templater whose deixis
    variants are rejected for one fact in each reply (so templates have rejections)."""
    reply = healthy(body, n)
    prompt = last_user_message(body)
    data = json.loads(reply.content)
    if "describes one entity type" in prompt:
        return json_reply({"selected": data["selected"] + ["Q42"]})
    if prompt.startswith("You help build a dataset"):
        return reply
    first = data.get("1")
    if first:
        first["deixis"] = ["who is it"] * 3  # no [he]: rejected by the validator
    return json_reply(data)


def test_identical_reruns_leave_drops_as_they_were_llm_path(tmp_path, sample_path):
    db = tmp_path / "p.duckdb"
    with project(db) as p:
        p.load([sample_path])
    seen = []
    with ScriptedServer(quirky) as server:
        for _ in range(3):
            r = cli("generate", "--db", db, "--out", tmp_path / "o", "--conversations", "30",
                    "--base-url", server.base_url, env=KEY)
            assert r.exit_code == 0, r.output
            seen.append((drops(db), dropped_rows(db)))
    reasons = {row[1] for row in seen[0][0]}
    assert "type selector returned an id not offered" in reasons  # kept while it holds
    assert any("deixis" in r or "reference" in r for r in reasons), reasons
    assert seen[0] == seen[1] == seen[2]


def test_a_drop_whose_reason_no_longer_holds_goes(tmp_path):
    db = tmp_path / "p.duckdb"
    strict = tmp_path / "strict.toml"
    strict.write_text("[predicates]\nmin_share = 0.9\n")
    assert cli("generate", "--db", db, "--out", tmp_path / "o", "--config",
               strict).exit_code == 0
    share_drops = [r for r in drops(db) if r[1] == "rules pre-filter"]
    with project(db, write=False) as p:
        below = p.con.execute("SELECT count(*) FROM dropped WHERE detail LIKE '%below 90%%'"
                              ).fetchone()[0]
    assert below > 0 and share_drops
    assert cli("generate", "--db", db, "--out", tmp_path / "o").exit_code == 0
    with project(db, write=False) as p:
        assert p.con.execute("SELECT count(*) FROM dropped WHERE detail LIKE '%below 90%%'"
                             ).fetchone()[0] == 0


def test_drops_recorded_again_on_every_run_by_earlier_releases_are_collapsed(tmp_path):
    db = tmp_path / "p.duckdb"
    assert cli("generate", "--db", db, "--out", tmp_path / "o").exit_code == 0
    once = drops(db)
    with project(db) as p:  # as 0.5.5 left them: the same drops under two older run ids
        for older in ("20200101T000000-aaaaaa", "20200102T000000-bbbbbb"):
            p.con.execute("INSERT INTO dropped SELECT ? AS run_id, * EXCLUDE (run_id) FROM "
                          "dropped WHERE stage = 'predicates.select' AND run_id > '2021'",
                          [older])
    assert drops(db) != once
    assert cli("generate", "--db", db, "--out", tmp_path / "o").exit_code == 0
    assert drops(db) == once


def relabelled_dump(sample: Path, out: Path, item: str, label: str) -> None:
    entities = json.loads(sample.read_text())
    for e in entities:
        if e["id"] == item:
            e["labels"]["en"]["value"] = label
    out.write_text("[\n" + ",\n".join(json.dumps(e) for e in entities) + "\n]\n")


def contents(db: Path) -> dict[str, str]:
    with project(db, write=False) as p:
        return {c["conversation_id"]: json.dumps(c["turns"], sort_keys=True)
                for c in p.records()}


def test_the_refresh_summary_counts_conversations_whose_answers_changed(tmp_path, sample_path):
    """A relabelled answer keeps each conversation's id (it asks the same statements) and
    changes what it says: those conversations are updated, not unchanged."""
    db = tmp_path / "p.duckdb"
    assert cli("generate", "--db", db, "--out", tmp_path / "o", "--conversations",
               "80").exit_code == 0
    before = contents(db)
    new = tmp_path / "new.json"
    relabelled_dump(sample_path, new, "Q30", "the United States")
    r = cli("refresh", new, "--db", db)
    assert r.exit_code == 0, r.output
    after = contents(db)
    changed = sum(before[c] != after[c] for c in before if c in after)
    assert changed >= 2
    with project(db, write=False) as p:
        summary = json.loads(p.con.execute("SELECT summary FROM refresh_runs WHERE status = "
                                           "'done'").fetchone()[0])
    counts = summary["conversations"]
    assert counts["updated"] == changed + len(set(before) - set(after)) - counts["retired"]
    assert counts["unchanged"] == sum(before[c] == after[c] for c in before if c in after)


@pytest.fixture(scope="module")
def refreshable(tmp_path_factory, sample_path):
    tmp = tmp_path_factory.mktemp("refresh-fail")
    with ScriptedServer(refresh_handler([])) as server:
        for inter in ("voice", "text"):
            r = cli("generate", "--db", tmp / "p.duckdb", "--out", tmp / "out", "--interaction",
                    inter, "--conversations", "30", "--base-url", server.base_url, env=KEY)
            assert r.exit_code == 0, r.output
    modified_dump(sample_path, tmp / "new.json")
    return tmp


def test_a_refresh_failing_after_the_swap_leaves_a_usable_project(refreshable, tmp_path):
    db, clean = tmp_path / "p.duckdb", tmp_path / "clean.duckdb"
    shutil.copy(refreshable / "p.duckdb", db)
    shutil.copy(refreshable / "p.duckdb", clean)
    new = refreshable / "new.json"
    fast = tmp_path / "fast.toml"
    fast.write_text("[llm]\nmax_attempts = 1\nbackoff_max = 0.1\n")
    with ScriptedServer(lambda body, n: Reply(status=500)) as server:
        r = cli("refresh", new, "--db", db, "--config", fast, "--base-url", server.base_url,
                env=KEY)
    one_line_error(r, 4, f"the new snapshot is in place: run `convkgyarn refresh {new} "
                         f"--config {fast} --db {db}` again")  # the same project
    assert [line for line in r.output.splitlines() if "ERROR" in line] == []
    assert not Path(str(db) + ".next.duckdb").exists()  # the staging database is gone
    assert "refresh stopped (exit 4)" in Path(str(db) + ".refresh.log").read_text()
    # every command opens the project
    for args in (["stats"], ["kg", "stats"], ["drops"], ["export", "--out", tmp_path / "c.jsonl"]):
        r = cli(*args, "--db", db)
        assert r.exit_code == 0, (args, r.output)
    with ScriptedServer(refresh_handler([])) as server:
        r = cli("refresh", new, "--db", db, "--base-url", server.base_url, env=KEY)
        assert r.exit_code == 0, r.output
        assert "resuming" in r.output
        r = cli("refresh", new, "--db", clean, "--base-url", server.base_url, env=KEY)
        assert r.exit_code == 0, r.output
    with project(db, write=False) as a, project(clean, write=False) as b:
        assert snapshot(a.con) == snapshot(b.con)


def without_films(sample: Path, out: Path) -> None:
    entities = [e for e in json.loads(sample.read_text()) if not any(
        c["mainsnak"].get("datavalue", {}).get("value", {}).get("id") == "Q11424"
        for c in e.get("claims", {}).get("P31", []))]
    out.write_text("[\n" + ",\n".join(json.dumps(e) for e in entities) + "\n]\n")


def test_a_configuration_the_new_snapshot_cannot_make_does_not_block_refresh(tmp_path,
                                                                          sample_path):
    """A configuration of films only, and a new dump without films: the refresh rebuilds
    the others, keeps that one's conversations (from the earlier snapshot) and says so; the
    project is done refreshing, and later commands work."""
    db = tmp_path / "p.duckdb"
    assert cli("generate", "--db", db, "--out", tmp_path / "o").exit_code == 0
    assert cli("generate", "--db", db, "--out", tmp_path / "o", "--interaction", "text",
               "--type", "Q11424").exit_code == 0
    new = tmp_path / "new.json"
    without_films(sample_path, new)
    r = cli("refresh", new, "--db", db)
    assert r.exit_code == 0, r.output
    assert "note: text was not rebuilt: no conversations" in " ".join(r.output.split())
    r = cli("refresh", new, "--db", db)
    assert r.exit_code == 10, r.output  # done: nothing left to do
    r = cli("export", "--db", db, "--out", tmp_path / "c.jsonl")
    assert r.exit_code == 0
    assert "the text conversations were made from an earlier KG snapshot" in \
        " ".join(r.output.split())
    assert cli("generate", "--db", db, "--out", tmp_path / "o").exit_code == 0


def test_assembly_drops_describe_runs_that_exist(tmp_path, monkeypatch):
    """A run that made nothing keeps its drops (they say why) only until its configuration
    runs again; a run stopped part way records no drops of its own."""
    db = tmp_path / "p.duckdb"

    def assembly_runs() -> set[str]:
        with project(db, write=False) as p:
            return {r[0] for r in p.con.execute(
                "SELECT DISTINCT run_id FROM dropped WHERE stage = 'assemble'").fetchall()}

    r = cli("generate", "--db", db, "--out", tmp_path / "o", "--min-turns", "50", "--turns",
            "50", "--conversations", "5")
    assert r.exit_code != 0  # nothing can be made: its drops say why
    failed = assembly_runs()
    assert len(failed) == 1
    assert cli("generate", "--db", db, "--out", tmp_path / "o", "--conversations",
               "5").exit_code == 0
    with project(db, write=False) as p:
        current = {r[0] for r in p.con.execute(
            "SELECT run_id FROM generation_runs WHERE current").fetchall()}
    assert assembly_runs() == current  # the failed run's drops are gone

    import convkgyarn.stages.assemble.stage as stage_module

    def stopped(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(stage_module.RunStaging, "commit", stopped)
    r = cli("generate", "--db", db, "--out", tmp_path / "o", "--conversations", "7")
    assert r.exit_code == 130, r.output
    assert assembly_runs() == current  # the stopped run left no drops behind
