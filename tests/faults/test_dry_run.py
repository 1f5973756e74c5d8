"""A dry run changes nothing and estimates everything: with an LLM configured, `--dry-run`
leaves the database file byte for byte as it was, the next real run behaves as if the dry
run never happened, and the estimate counts the calls, tokens and USD of every LLM stage
the real run then makes against the scripted server."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections import Counter
from pathlib import Path

import pytest

from tests.conversations_llm import healthy
from tests.helpers import cli, project
from tests.llm.prompts import data_blocks, template_language
from tests.llm.scripted_server import Reply, ScriptedServer, json_reply, last_user_message

KEY = {"OPENAI_API_KEY": "k"}


def keeps_everything(body, n):
    """A selector that keeps every type, predicate and qualifier it is offered (what the
    dry run assumes of a selector it did not ask), and the healthy templater."""
    prompt = last_user_message(body)
    if prompt.startswith("You help build a dataset") and "describes one entity type" not in \
            prompt:  # the predicate selector (the type selector keeps all in `healthy`)
        rows = data_blocks(prompt)[0][1:]
        return json_reply({"selected": [r[0] for r in rows],
                           "qualifiers": {r[0]: [q[0] for q in r[2]] for r in rows if r[2]}})
    return healthy(body, n)


def stage_of(body) -> str:
    prompt = last_user_message(body)
    if body["messages"][0]["role"] == "system":
        return "answerer"
    if "describes one entity type" in prompt or prompt.startswith("You help build a dataset"):
        return "selector"
    if '"candidate": [' in prompt:  # the judge's data block
        return "judge"
    if "Some earlier variants were rejected" in prompt:
        return "templater re-ask"
    return "templater"


_USAGE_LINE = re.compile(
    r"\s*(?P<stage>\S+): (?P<calls>[\d,]+) calls \(.*?\); estimated (?P<est_calls>[\d,]+) calls, "
    r"(?P<est_tokens>[\d,]+) tokens, USD (?P<est_usd>[\d.]+)")


def usage(output: str) -> dict[str, dict[str, float]]:
    """The LLM usage printed at the end, by stage: the table, or where the terminal is too
    narrow for its numbers (CliRunner's 80 columns), one line per stage."""
    rows = {}
    lines = output.splitlines()
    for k, line in enumerate(lines):
        cells = [c.strip() for c in line.strip("│ ").split("│")]
        if len(cells) == 10 and cells[1].replace(",", "").isdigit():
            rows[cells[0]] = {"calls": _int(cells[1]), "est_calls": _int(cells[7]),
                              "est_tokens": _int(cells[8]), "est_usd": float(cells[9])}
        joined = " ".join([line, *lines[k + 1:k + 3]])  # a stage's line may wrap
        m = _USAGE_LINE.match(joined) if line.startswith("  ") and ": " in line else None
        if m:
            rows[m["stage"]] = {"calls": _int(m["calls"]), "est_calls": _int(m["est_calls"]),
                                "est_tokens": _int(m["est_tokens"]),
                                "est_usd": float(m["est_usd"])}
    return rows


def _int(text: str) -> int:
    return int(text.replace(",", ""))


def file_hash(db: Path) -> str:
    return hashlib.sha256(db.read_bytes()).hexdigest()


def contents(db: Path) -> dict[str, str]:
    """Every table's rows, hashed in a stable order."""
    with project(db, write=False) as p:
        tables = [r[0] for r in p.con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'").fetchall()]
        return {t: hashlib.sha256(repr(p.con.execute(
            f"SELECT * FROM {t} ORDER BY ALL").fetchall()).encode()).hexdigest()
            for t in tables}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory, sample_path):
    tmp = tmp_path_factory.mktemp("dry")
    with project(tmp / "base.duckdb") as p:
        p.load([sample_path])
    return tmp / "base.duckdb"


def run(db, out, server, *extra):
    return cli("generate", "--db", db, "--out", out, "--conversations", "20", "--base-url",
               server.base_url, "--concurrency", "4", *extra, env={**KEY, "COLUMNS": "200"})


def test_a_dry_run_writes_nothing_and_the_real_run_is_as_if_it_never_happened(loaded,
                                                                            tmp_path):
    db, twin = tmp_path / "p.duckdb", tmp_path / "twin.duckdb"
    shutil.copy(loaded, db)
    shutil.copy(loaded, twin)
    before, before_rows = file_hash(db), contents(db)
    with ScriptedServer(healthy) as server:
        r = run(db, tmp_path / "o", server, "--dry-run")
        assert r.exit_code == 0, r.output
        assert server.requests == []
        assert file_hash(db) == before and contents(db) == before_rows
        assert sorted(p.name for p in tmp_path.iterdir()) == ["p.duckdb", "p.duckdb.lock",
                                                              "twin.duckdb"]
        r = run(db, tmp_path / "o", server)
        assert r.exit_code == 0, r.output
        after_dry = len(server.requests)
    with ScriptedServer(healthy) as server:  # the same run on a twin that never had one
        assert run(twin, tmp_path / "o2", server).exit_code == 0
        assert len(server.requests) == after_dry
    with project(db, write=False) as a, project(twin, write=False) as b:
        for sql in ("SELECT type_id, selected, reason FROM selected_types",
                    "SELECT type_id, property_id, qualifier_property_id FROM selected_predicates",
                    "SELECT template_id FROM templates",
                    "SELECT count(*) FROM conversations"):
            assert sorted(map(repr, a.con.execute(sql).fetchall())) == \
                sorted(map(repr, b.con.execute(sql).fetchall())), sql
    assert (tmp_path / "o" / "conversations.jsonl").read_bytes() == \
        (tmp_path / "o2" / "conversations.jsonl").read_bytes()


def test_the_estimate_counts_every_llm_stage_the_real_run_calls(loaded, tmp_path):
    """Per stage, the estimated calls equal the requests the real run sends, but for the
    templater's re-asks of rejected variants (counted apart: how many depends on the
    replies), against a selector that keeps what it is offered, as the estimate assumes."""
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    with ScriptedServer(keeps_everything) as server:
        r = run(db, tmp_path / "o", server, "--dry-run")
        assert r.exit_code == 0, r.output
        estimate = usage(r.output)
        assert run(db, tmp_path / "o", server).exit_code == 0
        sent = Counter(stage_of(b) for b in server.requests)
    assert set(estimate) == {"selector", "templater"}
    assert estimate["selector"]["est_calls"] == sent["selector"] > 1
    assert estimate["templater"]["est_calls"] == sent["templater"] > 20
    assert sent["templater re-ask"] <= 0.1 * sent["templater"]
    for stage in estimate.values():
        assert stage["est_tokens"] > 0 and stage["est_usd"] > 0


@pytest.fixture(scope="module")
def loaded_languages(tmp_path_factory, sample_path):
    """The sample with a German and a Japanese name for every entity (a label file)."""
    tmp = tmp_path_factory.mktemp("dry-languages")
    with project(tmp / "names.duckdb") as p:
        p.load([sample_path])
        names = dict(p.con.execute("SELECT id, label FROM entities WHERE label IS NOT NULL"
                                   ).fetchall())
    labels = tmp / "labels.json"
    labels.write_text(json.dumps({i: {"de": n, "ja": n} for i, n in names.items()}))
    with project(tmp / "base.duckdb") as p:
        p.load([sample_path], labels=[labels], languages=["de", "ja"])
    return tmp / "base.duckdb"


def test_the_estimate_counts_the_templates_asked_in_other_languages(loaded_languages,
                                                                   tmp_path):
    """With --language, the templater is asked in German and Japanese too: the estimate
    counts those calls exactly as the real run sends them, and the dry run still writes
    nothing."""
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded_languages, db)
    languages = ["--language", "en", "--language", "de", "--language", "ja"]
    before = file_hash(db)
    with ScriptedServer(keeps_everything) as server:
        r = run(db, tmp_path / "o", server, "--dry-run", *languages)
        assert r.exit_code == 0, r.output
        assert server.requests == [] and file_hash(db) == before
        estimate = usage(r.output)
        assert run(db, tmp_path / "o", server, *languages).exit_code == 0
        sent = Counter(stage_of(b) for b in server.requests)
        asked_in = Counter(template_language(last_user_message(b)) for b in server.requests
                           if stage_of(b) == "templater")
    assert estimate["templater"]["est_calls"] == sent["templater"]
    assert asked_in["de"] == asked_in["ja"] > 10 and asked_in["en"] > 10
    with ScriptedServer(keeps_everything) as server:  # done: nothing more to estimate
        r = run(db, tmp_path / "o", server, "--dry-run", *languages)
        assert r.exit_code == 0 and "no LLM call would be made" in " ".join(r.output.split())


def test_a_dry_run_after_a_real_run_estimates_only_what_changed(loaded, tmp_path):
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    with ScriptedServer(healthy) as server:
        assert run(db, tmp_path / "o", server).exit_code == 0
        before = file_hash(db)
        r = run(db, tmp_path / "o", server, "--dry-run")
        assert r.exit_code == 0, r.output
        assert usage(r.output) == {}
        assert "no LLM call would be made" in " ".join(r.output.split())
    assert file_hash(db) == before


@pytest.mark.parametrize("command", [["types", "select"], ["predicates", "select"],
                                     ["templates", "generate"]])
def test_every_stage_command_dry_run_writes_nothing(loaded, tmp_path, command):
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    with project(db) as p:
        p.extract_predicates()
    with ScriptedServer(healthy) as server:
        if command[0] == "templates":  # templates are written for a selection
            assert cli("predicates", "select", "--db", db, "--base-url", server.base_url,
                       env=KEY).exit_code == 0
            server.requests.clear()
        before = file_hash(db)
        r = cli(*command, "--db", db, "--dry-run", "--base-url", server.base_url,
                env={**KEY, "COLUMNS": "200"})
        assert r.exit_code == 0, r.output
        assert server.requests == []
    assert file_hash(db) == before
    assert sum(s["est_calls"] for s in usage(r.output).values()) > 0


def test_a_dry_run_with_no_project_yet_creates_nothing(tmp_path):
    db = tmp_path / "new" / "p.duckdb"
    with ScriptedServer(healthy) as server:
        r = run(db, tmp_path / "o", server, "--dry-run")
        assert r.exit_code == 0, r.output
        assert "estimating on the bundled sample" in " ".join(r.output.split())
        assert usage(r.output)["selector"]["est_calls"] > 1
    assert not (tmp_path / "new").exists() and not (tmp_path / "o").exists()


def answer_handler(body, n):
    """The model under test answers something the matcher cannot decide; the judge says
    wrong; the rater rates."""
    if body["messages"][0]["role"] == "system":
        return Reply(content="Answer: somebody else entirely")
    prompt = last_user_message(body)
    if prompt.startswith("You rate the quality"):
        return json_reply({"fluency": 4, "relevance": 4, "diversity": 3, "grammar": 5})
    return json_reply({"ratings": [0] * prompt.count('"candidate": [')})


@pytest.fixture(scope="module")
def generated(loaded, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dry-eval")
    db = tmp / "g.duckdb"
    shutil.copy(loaded, db)
    assert cli("generate", "--db", db, "--out", tmp / "o", "--conversations", "4"
               ).exit_code == 0
    return db


@pytest.mark.parametrize("command", [["evaluate", "--model", "m"], ["rate"]])
def test_evaluate_and_rate_dry_runs_write_nothing_and_estimate_what_is_sent(generated, tmp_path,
                                                                           command):
    db = tmp_path / "p.duckdb"
    shutil.copy(generated, db)
    before = file_hash(db)
    with ScriptedServer(answer_handler) as server:
        r = cli(*command, "--db", db, "--dry-run", "--base-url", server.base_url,
                env={**KEY, "COLUMNS": "200"})
        assert r.exit_code == 0, r.output
        assert server.requests == [] and file_hash(db) == before
        estimate = usage(r.output)
        r = cli(*command, "--db", db, "--base-url", server.base_url, env=KEY)
        assert r.exit_code == 0, r.output
        sent = Counter(stage_of(b) for b in server.requests)
    if command[0] == "rate":
        assert estimate["rater"]["est_calls"] == len(server.requests) == 4
    else:  # every answer is asked; the judge at most once per conversation
        assert estimate["answerer"]["est_calls"] == sent["answerer"]
        assert 0 < sent["judge"] <= estimate["judge"]["est_calls"] == 4


@pytest.mark.parametrize("command", [["evaluate", "--model", "m"], ["rate"]])
def test_evaluate_and_rate_estimate_with_no_endpoint_configured(generated, tmp_path, command):
    """A newcomer's find: `generate --dry-run` estimates with no LLM configured, but
    `evaluate --dry-run` and `rate --dry-run` stopped with "needs an LLM endpoint", so the
    cost could not be known before choosing one. They estimate the same calls now, and
    the real run without an endpoint still stops (exit 2)."""
    db = tmp_path / "p.duckdb"
    shutil.copy(generated, db)
    before = file_hash(db)
    r = cli(*command, "--db", db, "--dry-run", env={"COLUMNS": "200"})
    assert r.exit_code == 0, r.output
    assert "no LLM endpoint configured" in " ".join(r.output.split())
    estimate = usage(r.output)
    assert file_hash(db) == before
    stage = "rater" if command[0] == "rate" else "answerer"
    assert estimate[stage]["est_calls"] >= 4
    assert command[0] != "rate" or estimate[stage]["est_usd"] > 0  # gpt-4o's list price
    r = cli(*command, "--db", db)
    assert r.exit_code == 2 and "needs an LLM endpoint" in r.output


def test_evaluate_dry_run_of_a_dataset_imports_nothing(generated, tmp_path, shared_data):
    data = sorted((shared_data / "convquestions").glob("*.json"))
    if not data:
        pytest.skip("no ConvQuestions file in ../shared/data/convquestions")
    db = tmp_path / "p.duckdb"
    shutil.copy(generated, db)
    before = contents(db)
    small = tmp_path / "cq.json"
    small.write_text(json.dumps(json.loads(data[0].read_text())[:3]))
    with ScriptedServer(answer_handler) as server:
        r = cli("evaluate", "--db", db, "--dry-run", "--dataset", small, "--model", "m",
                "--base-url", server.base_url, env={**KEY, "COLUMNS": "200"})
        assert r.exit_code == 0, r.output
        assert server.requests == []
    assert contents(db) == before
    assert usage(r.output)["answerer"]["est_calls"] > 0


@pytest.mark.slow
@pytest.mark.shared_data
def test_the_estimate_on_real_data_is_what_the_real_run_sends(shared_data, tmp_path):
    """real-entities-dev, loaded as a user would: the dry run estimates 70 selector and
    1,166 templater calls (0.8.3) and the real run sends exactly those (0.5.5's dry run
    counted 1). Identical requests (types of the same label) are counted once, as the
    real run's cache answers the second."""
    db = tmp_path / "p.duckdb"
    wikidata = shared_data / "wikidata"
    with project(db) as p:
        p.load([wikidata / "real-entities-dev.ndjson.bz2"],
               labels=[wikidata / "property-labels-en.json",
                       shared_data / "labels" / "preferred-labels-en.json"])
    before = file_hash(db)
    with ScriptedServer(keeps_everything) as server:
        r = run(db, tmp_path / "o", server, "--dry-run")
        assert r.exit_code == 0, r.output
        estimate = usage(r.output)
        assert file_hash(db) == before
        assert run(db, tmp_path / "o", server, "--concurrency", "16").exit_code == 0
        sent = Counter(stage_of(b) for b in server.requests)
    assert {k: v["est_calls"] for k, v in estimate.items()} == {
        "selector": sent["selector"], "templater": sent["templater"]}
    assert sent["selector"] + sent["templater"] > 1000
