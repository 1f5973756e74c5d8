"""Evaluation against the scripted server: answers and judgements chosen by the test, metrics
checked against hand-computed values."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from convkgyarn.cli import app
from convkgyarn.stages.evaluate import match, metrics, parse_answer
from convkgyarn.store import connect
from tests.llm.prompts import data_blocks
from tests.llm.scripted_server import Reply, ScriptedServer, json_reply

# per (configuration, conversation ordinal): how each of the three turns is answered
PLAN = {
    ("voice", 0): ["correct", "correct", "correct"],
    ("voice", 1): ["na", "list", "judge0"],
    ("text", 0): ["correct", "judge1", "judge0"],
    ("text", 1): ["na", "na", "correct"],
}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("eval")
    db = tmp / "e.duckdb"
    runner = CliRunner()
    for args in (["--interaction", "voice"], ["--interaction", "text"]):
        r = runner.invoke(app, ["generate", "--db", str(db), "--out", str(tmp / "out"),
                                "--conversations", "2", "--turns", "3", "--same-facts", *args])
        assert r.exit_code == 0, r.output
    con = connect(db)
    plan = {}
    for name, ordinal, cid in con.execute(
            "SELECT config_name, ordinal, conversation_id FROM conversations").fetchall():
        turns = con.execute("SELECT question, answer FROM turns WHERE conversation_id = ? "
                            "ORDER BY turn", [cid]).fetchall()
        questions = [q for q, _ in turns]
        for i, (_q, gold) in enumerate(turns):
            plan[tuple(questions[:i + 1])] = (PLAN[(name, ordinal)][i], list(gold))
    con.close()
    return tmp, db, plan


def handler_for(plan, log):
    def handler(body, n):
        msgs = body["messages"]
        if msgs[0]["role"] == "system":  # the answerer
            key = tuple(m["content"] for m in msgs if m["role"] == "user")
            kind, gold = plan[key]
            log.append(("answer", key[-1]))
            text = {"correct": f"Answer: {gold[0]}", "na": "Answer: NA",
                    "list": "Answer: " + json.dumps(["Nobody In Particular", *gold]),
                    "judge0": "Answer: WRONG-JUDGE-0", "judge1": "Answer: WRONG-JUDGE-1"}[kind]
            return Reply(content=text)
        cands = [row["candidate"] for row in data_blocks(msgs[-1]["content"])[0]]
        log.append(("judge", len(cands)))
        return json_reply({"ratings": [1 if "WRONG-JUDGE-1" in c else 0 for c in cands]})
    return handler


def run_eval(db, server, *extra):
    env_args = ["--base-url", server.base_url]
    return CliRunner(env={"OPENAI_API_KEY": "k"}).invoke(
        app, ["evaluate", "--db", str(db), "--model", "model-under-test", *env_args, *extra])


def test_metrics_equal_hand_computed_values(project):
    tmp, db, plan = project
    log = []
    with ScriptedServer(handler_for(plan, log)) as server:
        r = run_eval(db, server)
        assert r.exit_code == 0, r.output
    # evaluate ends with a table, not a Python dict: turns, who decided, NA, unparsable
    assert "{" not in r.output
    rows = [line.replace("│", " ").split() for line in r.output.splitlines()]
    assert ["model-under-test", "12", "9", "3", "3", "0"] in rows, r.output
    judge_calls = [n for kind, n in log if kind == "judge"]
    assert sorted(judge_calls) == [1, 2]  # only undecided turns go to the judge
    con = connect(db)
    rows = {m["config"]: m for m in metrics(con, bootstrap=200)}
    v, t = rows["voice"], rows["text"]
    assert v["mean_turn"] == pytest.approx(4 / 6) and v["mean_conversation"] == pytest.approx(
        (1 + 1 / 3) / 2) and v["na_ratio"] == pytest.approx(1 / 6)
    assert t["mean_turn"] == pytest.approx(3 / 6) and t["mean_conversation"] == pytest.approx(
        (2 / 3 + 1 / 3) / 2) and t["na_ratio"] == pytest.approx(2 / 6)
    assert v["decided_by_judge"] == 1 and t["decided_by_judge"] == 2
    assert v["decided_by_matcher"] == 5 and t["decided_by_matcher"] == 4
    lo, hi = v["mean_turn_ci"]
    assert 0 <= lo <= v["mean_turn"] <= hi <= 1
    per_turn = con.execute(
        "SELECT answer_parsed, na, matcher_verdict, judge_verdict, score, decided_by "
        "FROM eval_turns WHERE answer_raw LIKE '%Nobody%'").fetchone()
    assert len(per_turn[0]) >= 2 and per_turn[2:] == (1, None, 1, "matcher")
    con.close()
    # the report
    r = CliRunner().invoke(app, ["report", "--db", str(db), "--out", str(tmp / "report")])
    assert r.exit_code == 0, r.output
    # report says where it wrote and the scores in short, not the whole Markdown
    assert "# Fact recall" not in r.output and "|" not in r.output
    rows = [line.replace("│", " ").split() for line in r.output.splitlines()]
    assert ["model-under-test", "voice", "6", "0.667", "0.667", "0.167"] in rows, r.output
    assert f"written to {tmp / 'report'}" in " ".join(r.output.split())
    for name in ("report.md", "results.csv", "recall.png"):
        assert (tmp / "report" / name).stat().st_size > 0
    md = (tmp / "report" / "report.md").read_text()
    assert "0.667" in md and "by the LLM judge: 3" in md


def test_rerun_asks_nothing_again(project):
    _, db, plan = project
    log = []
    with ScriptedServer(handler_for(plan, log)) as server:
        assert run_eval(db, server).exit_code == 0
    assert log == []


def test_killed_evaluation_resumes_without_reasking(project, tmp_path):
    _, db, plan = project
    fresh = tmp_path / "k.duckdb"
    import shutil

    shutil.copy(db, fresh)
    con = connect(fresh)
    con.execute("DELETE FROM llm_cache")
    con.execute("DELETE FROM eval_turns")
    con.close()
    log = []

    def slow(body, n):
        time.sleep(0.2)
        return handler_for(plan, log)(body, n)

    with ScriptedServer(slow) as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "convkgyarn.cli", "evaluate", "--db", str(fresh), "--model",
             "model-under-test", "--base-url", server.base_url, "--concurrency", "2"],
            env={**os.environ, "OPENAI_API_KEY": "k"}, cwd=Path(__file__).parents[2],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while len([x for x in log if x[0] == "answer"]) < 5 and time.time() < deadline:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        time.sleep(0.5)
        con = connect(fresh)
        answered = {json.loads(r[0])["messages"][-1]["content"] for r in con.execute(
            "SELECT request FROM llm_cache WHERE stage = 'answerer'").fetchall()}
        con.close()
        assert 0 < len(answered) < 12
        before = len(log)
        r = run_eval(fresh, server)
        assert r.exit_code == 0, r.output
        again = {q for kind, q in log[before:] if kind == "answer"}
    assert not again & answered and len(again) + len(answered) == 12


def test_answer_parsing():
    assert parse_answer("Answer: Paris").candidates == ["Paris"]
    assert parse_answer('Answer: ["Malia", "Sasha"]').candidates == ["Malia", "Sasha"]
    assert parse_answer("Answer: ['a', 'b']").candidates == ["a", "b"]
    assert parse_answer("answer: N/A").na and parse_answer("Answer: NA.").na
    odd = parse_answer("I think it might be Paris, but I'm not sure at all.")
    assert odd.unparsable and odd.candidates
    assert parse_answer("").unparsable


def test_matcher_normalises_aliases_dates_and_numbers():
    assert match(["the united states"], [["United States of America", "United States"]]) == 1
    assert match(["August 4, 1961"], [["1961-08-04"]]) == 1
    assert match(["1962"], [["1961-08-04"]]) == 0
    assert match(["194 minutes"], [["194 minute"]]) == 1
    assert match(["3,898,747"], [["3898747"]]) == 1
    assert match(["Honolulu, Hawaii"], [["Honolulu"]]) is None  # for the judge


def test_the_judge_is_recorded_and_priced_as_the_model_that_served_it(project, tmp_path):
    """Another server may answer a request for "gpt-4o" with a model of its own: the judge
    is recorded as that model (on a re-run from the cache too) and priced at 0 with a note,
    never as gpt-4o."""
    import shutil

    _, db, plan = project
    fresh = tmp_path / "j.duckdb"
    shutil.copy(db, fresh)
    con = connect(fresh)
    con.execute("DELETE FROM llm_cache")
    con.execute("DELETE FROM eval_turns")
    con.close()
    inner = handler_for(plan, [])

    def served_locally(body, n):
        reply = inner(body, n)
        if body["messages"][0]["role"] != "system":  # the judge
            reply.model = "local-judge-7b"
            reply.usage = (100_000, 100_000)  # at gpt-4o prices this would be $1.25
        return reply

    for attempt in range(2):  # the second run answers from the cache
        with ScriptedServer(served_locally) as server:
            r = run_eval(fresh, server)
        assert r.exit_code == 0, r.output
        if attempt == 0:  # the usage table: the judge's calls cost $0, not $1.25 each
            judge_row = next(line for line in r.output.splitlines()
                             if line.lstrip("│ ").startswith("judge"))
            assert "0.0000" in judge_row and "1.25" not in judge_row, judge_row
        con = connect(fresh)
        judges = {row[0] for row in con.execute(
            "SELECT DISTINCT judge_model FROM eval_turns WHERE decided_by = 'judge'").fetchall()}
        con.close()
        assert judges == {"local-judge-7b"}
    first_usage = r.output
    assert "gpt-4o" not in judges and "Traceback" not in first_usage


def test_unknown_served_models_cost_nothing_and_say_so(caplog):
    from convkgyarn.config import LLMConfig
    from convkgyarn.llm import new_meter

    meter = new_meter(LLMConfig())
    request = meter.for_stage("judge").reserve("gpt-4o", 1000, 100)
    with caplog.at_level("WARNING"):
        request.charge("local-judge-7b", 100_000, 100_000)
    assert meter.stage("judge").usd == 0 and "local-judge-7b" in caplog.text
    request.charge("gpt-4o-2024-08-06", 1_000_000, 0)
    assert meter.stage("judge").usd == pytest.approx(2.5)


def test_paired_effects_against_the_base_over_the_same_facts(tmp_path):
    """voice and voice-deixis over the same facts; the scripted model answers every base
    turn right and only the first turn of each deixis conversation: the deixis effect is
    minus the share of paired turns after the first, McNemar's test sees only that side."""
    from convkgyarn.stages.evaluate import mcnemar_p, paired_effects

    db = tmp_path / "p.duckdb"
    runner = CliRunner()
    for args in ([], ["--deixis"]):
        r = runner.invoke(app, ["generate", "--db", str(db), "--out", str(tmp_path / "out"),
                                "--conversations", "6", "--turns", "3", "--same-facts", *args])
        assert r.exit_code == 0, r.output
    con = connect(db)
    plan = {}
    for name, cid in con.execute("SELECT config_name, conversation_id FROM conversations"
                                 ).fetchall():
        turns = con.execute("SELECT question, answer FROM turns WHERE conversation_id = ? "
                            "ORDER BY turn", [cid]).fetchall()
        for i in range(len(turns)):
            right = name == "voice" or i == 0
            plan[tuple(q for q, _ in turns[:i + 1])] = "correct" if right else "na", \
                list(turns[i][1])
    facts = {}
    for name, subject, prop, qual, sid, turn in con.execute(
            "SELECT c.config_name, t.subject_id, t.property_id, t.qualifier_property_id, "
            "t.statement_id, t.turn FROM turns t JOIN conversations c USING (run_id, "
            "conversation_id)").fetchall():
        facts.setdefault(name, {})[(subject, prop, qual, sid)] = turn
    con.close()
    shared = facts["voice"].keys() & facts["voice-deixis"].keys()
    wrong_with_deixis = sum(1 for f in shared if facts["voice-deixis"][f] > 1)
    assert shared and wrong_with_deixis

    def handler(body, n):
        msgs = body["messages"]
        key = tuple(m["content"] for m in msgs if m["role"] == "user")
        kind, gold = plan[key]
        return Reply(content=f"Answer: {gold[0]}" if kind == "correct" else "Answer: NA")

    with ScriptedServer(handler) as server:
        assert run_eval(db, server).exit_code == 0
    con = connect(db)
    (effect,) = paired_effects(con, bootstrap=200)
    con.close()
    assert (effect["config"], effect["base"], effect["pairs"]) == ("voice-deixis", "voice",
                                                                   len(shared))
    assert effect["effect"] == pytest.approx(-wrong_with_deixis / len(shared))
    assert effect["base_only_right"] == wrong_with_deixis and effect["phenomenon_only_right"] == 0
    assert effect["mcnemar_p"] == pytest.approx(min(1.0, 2 * 0.5 ** wrong_with_deixis))
    lo, hi = effect["effect_ci"]
    assert lo <= effect["effect"] <= hi < 0
    assert mcnemar_p(0, 0) == 1.0 and mcnemar_p(5, 5) == pytest.approx(1.0)
    r = runner.invoke(app, ["report", "--db", str(db), "--out", str(tmp_path / "report")])
    assert r.exit_code == 0, r.output
    md = (tmp_path / "report" / "report.md").read_text()
    assert "Phenomenon effects" in md and "voice-deixis" in md
    assert (tmp_path / "report" / "effects.png").stat().st_size > 0


def _fresh_copy(db, dest):
    import shutil

    shutil.copy(db, dest)
    con = connect(dest)
    for table in ("llm_cache", "llm_failures", "eval_turns", "llm_batches"):
        con.execute(f"DELETE FROM {table}")
    con.close()
    return dest


def _metrics(db):
    con = connect(db)
    rows = metrics(con, bootstrap=200)
    verdicts = con.execute("SELECT config_name, conversation_id, turn, score, decided_by "
                           "FROM eval_turns ORDER BY ALL").fetchall()
    con.close()
    return rows, verdicts


def test_batch_evaluation_gives_exactly_the_direct_metrics(project, tmp_path):
    _, db, plan = project
    direct, batched = _fresh_copy(db, tmp_path / "d.duckdb"), _fresh_copy(db, tmp_path / "b.duckdb")
    conf = tmp_path / "convkgyarn.toml"
    conf.write_text("[llm]\nbatch_poll = 0.05\n")
    with ScriptedServer(handler_for(plan, [])) as server:
        assert run_eval(direct, server).exit_code == 0
    with ScriptedServer(handler_for(plan, [])) as server:
        server.polls_until_done = 3
        r = run_eval(batched, server, "--batch", "--config", str(conf))
        assert r.exit_code == 0, r.output
        assert server.requests == []  # nothing was sent directly
        assert len(server.batches) == 2  # one for the answers, one for the judge
        assert "replies from the batch" in r.output
    assert _metrics(batched) == _metrics(direct)
    con = connect(batched)
    assert {row[0] for row in con.execute("SELECT status FROM llm_batches").fetchall()} == {
        "ingested"}
    con.close()


def test_an_interrupted_batch_is_resumed_not_paid_twice(project, tmp_path):
    _, db, plan = project
    direct, batched = _fresh_copy(db, tmp_path / "d.duckdb"), _fresh_copy(db, tmp_path / "b.duckdb")
    conf = tmp_path / "convkgyarn.toml"
    conf.write_text("[llm]\nbatch_poll = 0.05\n")
    with ScriptedServer(handler_for(plan, [])) as server:
        assert run_eval(direct, server).exit_code == 0
    with ScriptedServer(handler_for(plan, [])) as server:
        server.polls_until_done = 10**9  # never done while the first command runs
        proc = subprocess.Popen(
            [sys.executable, "-m", "convkgyarn.cli", "evaluate", "--db", str(batched),
             "--model", "model-under-test", "--base-url", server.base_url, "--batch",
             "--config", str(conf)],
            env={**os.environ, "OPENAI_API_KEY": "k"}, cwd=Path(__file__).parents[2],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 60
        while not any(b["polls"] >= 2 for b in server.batches.values()) and \
                time.time() < deadline:
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGINT)
        proc.wait(30)
        assert len(server.batches) == 1
        server.polls_until_done = 1
        r = run_eval(batched, server, "--batch", "--config", str(conf))
        assert r.exit_code == 0, r.output
        assert len(server.batches) == 2  # the answers' batch resumed, then the judge's
        assert server.requests == []
    assert _metrics(batched) == _metrics(direct)


def test_an_unusable_answer_is_never_scored_as_wrong(project, tmp_path):
    """Found in review: a reply past the size cap was judged as the model's answer, stored
    as "wrong" and the run ended 0. Now the evaluation stops with exit 4 and stores
    nothing for the model; the next run asks only what was unusable."""
    _, db, plan = project
    fresh = _fresh_copy(db, tmp_path / "u.duckdb")
    log = []
    normal = handler_for(plan, log)
    huge = {}

    def one_huge(body, n):  # one question's replies (re-asks, later turns) are too large
        msgs = body["messages"]
        users = [m["content"] for m in msgs if m["role"] == "user"]
        if msgs[0]["role"] == "system" and huge.setdefault("question", users[-1]) in users:
            unusable.add(next(u for u in reversed(users) if not u.startswith("Your previous")))
            return Reply(content="Answer: " + "x" * 20_000)
        return normal(body, n)

    unusable: set[str] = set()
    with ScriptedServer(one_huge) as server:
        r = run_eval(fresh, server)
    assert r.exit_code == 4, r.output
    assert f"{len(unusable)} of 12 replies unusable" in " ".join(r.output.split())
    con = connect(fresh)
    assert con.execute("SELECT count(*) FROM eval_turns").fetchone()[0] == 0
    con.close()
    before = len(log)
    with ScriptedServer(normal) as server:
        r = run_eval(fresh, server)
    assert r.exit_code == 0, r.output
    assert {q for kind, q in log[before:] if kind == "answer"} == unusable
