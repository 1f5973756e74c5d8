"""Fault injection through the main job: whatever the endpoint does, `generate` ends with one
line naming the stage, model, endpoint and reason and a documented exit code; nothing
unusable is cached or recorded as done; previous outputs stay; a re-run against a healthy
endpoint asks exactly the failed work again."""

from __future__ import annotations

import json
import shutil

import pytest

from convkgyarn.config import GenerateConfig
from convkgyarn.errors import BudgetExceeded
from tests.conversations_llm import healthy
from tests.helpers import cli, llm, project
from tests.llm.prompts import template_language
from tests.llm.scripted_server import Reply, ScriptedServer, huge_reply, stalled

EMPTY_CHOICES = json.dumps({"id": "x", "object": "chat.completion", "created": 0,
                            "model": "m", "choices": [],
                            "usage": {"prompt_tokens": 1, "completion_tokens": 0,
                                      "total_tokens": 1}}).encode()


@pytest.fixture(scope="module")
def loaded(tmp_path_factory, sample_path):
    tmp = tmp_path_factory.mktemp("faults")
    with project(tmp / "base.duckdb") as p:
        p.load([sample_path])
    return tmp / "base.duckdb"


def run(db, out, server, *extra, config=None):
    args = ["generate", "--db", db, "--out", out, "--conversations", "10",
            "--base-url", server.base_url, "--concurrency", "4", *extra]
    if config:
        args += ["--config", config]
    return cli(*args, env={"OPENAI_API_KEY": "sk-secret-key-123456789"})


def fast(tmp_path, **llm) -> str:
    cfg = tmp_path / "fast.toml"
    lines = ["[llm]", "max_attempts = 3", "backoff_max = 0.05", "validation_attempts = 2"]
    lines += [f"{k} = {v}" for k, v in llm.items()]
    cfg.write_text("\n".join(lines) + "\n")
    return str(cfg)


def one_line(r, code: int, *needles: str) -> None:
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output and "CancelledError" not in r.output
    errors = [line for line in r.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, r.output
    text = " ".join(r.output.split())
    for needle in needles:
        assert needle in text, (needle, r.output)
    assert "sk-secret-key-123456789" not in r.output


@pytest.mark.parametrize("fault,code,needles", [
    (Reply(content="this is not json at all"), 4, ["no predicates selected", "unusable"]),
    (Reply(content='{"chosen": ["P26"]}'), 4, ["no predicates selected", "unusable"]),
    (Reply(content='{"selected": ["P26", "P5'), 4, ["no predicates selected", "unusable"]),
    (Reply(raw_body=EMPTY_CHOICES), 4, ["selector (gpt-4o) at http://127.0.0.1",
                                        "replies without choices", "gave up after 3"]),
    (Reply(status=401), 4, ["selector (gpt-4o)", "HTTP 401", "API key was refused",
                            "not retried"]),
    (Reply(status=400), 4, ["selector (gpt-4o)", "HTTP 400", "cannot succeed"]),
    (Reply(status=429, headers={"Retry-After": "0"}), 4, ["HTTP 429", "gave up after 3"]),
    (Reply(content="x" * (2 << 20)), 4, ["no predicates selected", "unusable"]),
])
def test_a_failing_selector_stops_the_main_job_with_one_line(loaded, tmp_path, fault, code,
                                                              needles):
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    out = tmp_path / "out"
    out.mkdir()
    previous = '{"conversation_id": "c0", "config": {}, "turns": [], "provenance": {}}\n'
    (out / "conversations.jsonl").write_text(previous)  # an earlier export of ours
    with ScriptedServer(lambda body, n: fault) as server:
        r = run(db, out, server, config=fast(tmp_path))
        sent = len(server.requests)
    one_line(r, code, *needles)
    assert (out / "conversations.jsonl").read_text() == previous
    assert not (out / "summary.json").exists()
    with project(db, write=False) as p:
        con = p.con
        assert con.execute("SELECT count(*) FROM llm_cache").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM selection_inputs").fetchone()[0] == 0
        failures = con.execute("SELECT count(*), count(DISTINCT key) FROM llm_failures"
                               ).fetchone()
        assert failures[0] == failures[1]  # one row per failing request
    if fault.content and fault.content.startswith("xxx"):
        bodies = server.requests
        assert all(len(json.dumps(b)) < 50_000 for b in bodies)  # the huge reply never re-sent
    # a healthy endpoint afterwards: exactly the failed work is asked, and the job completes
    with ScriptedServer(healthy) as server:
        r = run(db, out, server, config=fast(tmp_path))
        assert r.exit_code == 0, r.output
        assert len(server.requests) > 0
    assert len((out / "conversations.jsonl").read_text().splitlines()) == 10
    del sent


def test_a_fatal_error_in_a_parallel_stage_is_one_line_and_keeps_finished_work(loaded,
                                                                                tmp_path):
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    seen = {"templater": 0}

    def handler(body, n):
        if "voice assistant" in body["messages"][-1]["content"][:80] or \
                "search-engine" in body["messages"][-1]["content"][:80]:
            seen["templater"] += 1
            if seen["templater"] > 6:
                return Reply(status=401)
        return healthy(body, n)

    with ScriptedServer(handler) as server:
        r = run(db, tmp_path / "out", server, config=fast(tmp_path))
    one_line(r, 4, "templater (gpt-3.5-turbo) at http://127.0.0.1", "HTTP 401")
    with project(db, write=False) as p:
        cached = p.con.execute("SELECT count(*) FROM llm_cache WHERE stage = 'templater'"
                               ).fetchone()[0]
    assert 1 <= cached <= 6  # what arrived before the stop is kept


def test_a_refused_templater_in_another_language_is_one_line_and_keeps_english(loaded,
                                                                              tmp_path):
    """The templater refuses the German prompts (HTTP 401) after the English ones succeeded:
    one line, exit 4; the English templates are kept, no German one is recorded as done,
    and a healthy endpoint afterwards asks only the German work."""
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)

    def handler(body, n):
        if template_language(body["messages"][-1]["content"]) == "de":
            return Reply(status=401)
        return healthy(body, n)

    with ScriptedServer(handler) as server:
        r = run(db, tmp_path / "out", server, "--language", "en", "--language", "de",
                config=fast(tmp_path))
    one_line(r, 4, "templater (gpt-3.5-turbo) at http://127.0.0.1", "HTTP 401")
    with project(db, write=False) as p:
        english = p.con.execute("SELECT count(*) FROM template_inputs WHERE complete"
                                ).fetchone()[0]
        assert english > 0
        assert p.con.execute("SELECT count(*) FROM local_template_inputs").fetchone()[0] == 0
    with ScriptedServer(healthy) as server:
        run(db, tmp_path / "out", server, "--language", "en", "--language", "de",
            config=fast(tmp_path))
        asked = {template_language(b["messages"][-1]["content"]) for b in server.requests}
    assert asked == {"de"}


def test_the_budget_stops_the_job_with_exit_3(loaded, tmp_path):
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    with ScriptedServer(healthy) as server:
        cfg = fast(tmp_path)
        with open(cfg, "a") as fh:
            fh.write("[llm.prices.gpt-4o]\ninput = 100\noutput = 100\n"
                     "[llm.prices.\"gpt-3.5-turbo\"]\ninput = 100\noutput = 100\n")
        r = run(db, tmp_path / "out", server, "--max-cost", "0.5", config=cfg)
    one_line(r, 3, "budget of $0.5000 reached")


def test_failures_are_kept_once_however_often_they_recur(loaded, tmp_path):
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    garbage = Reply(content="not json")
    for _ in range(3):
        with ScriptedServer(lambda body, n: garbage) as server:
            run(db, tmp_path / "out", server, config=fast(tmp_path))
    with project(db, write=False) as p:
        n, distinct, most = p.con.execute("SELECT count(*), count(DISTINCT key), "
                                          "max(occurrences) FROM llm_failures").fetchone()
    assert n == distinct and most == 3


@pytest.mark.parametrize("fault,kind", [
    (Reply(content="x" * 300, cut_after=40), "replies cut off mid-body"),
    (stalled(after=0, seconds=10), "replies stalled after the headers"),
])
def test_replies_that_never_arrive_whole_are_retried_then_one_line(loaded, tmp_path, fault,
                                                                    kind):
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    out = tmp_path / "out"
    out.mkdir()
    previous = '{"conversation_id": "c0", "config": {}, "turns": [], "provenance": {}}\n'
    (out / "conversations.jsonl").write_text(previous)  # an earlier export of ours
    with ScriptedServer(lambda body, n: fault) as server:
        r = run(db, out, server, config=fast(tmp_path, timeout=0.5))
    one_line(r, 4, "selector (gpt-4o) at http://127.0.0.1", kind, "gave up after 3 attempts")
    assert (out / "conversations.jsonl").read_text() == previous
    with project(db, write=False) as p:
        assert p.con.execute("SELECT count(*) FROM selection_inputs").fetchone()[0] == 0


def test_replies_cut_off_now_and_then_are_retried_and_the_job_completes(loaded, tmp_path):
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    cut = []
    seen = set()

    def flaky(body, n):
        reply = healthy(body, n)
        request = json.dumps(body, sort_keys=True)
        if request not in seen:  # every first attempt breaks off mid-body or stalls
            seen.add(request)
            cut.append(n)
            reply.cut_after, reply.stall = (30, 0.0) if n % 2 else (0, 5.0)
        return reply

    with ScriptedServer(flaky) as server:
        r = run(db, tmp_path / "out", server, config=fast(tmp_path, timeout=0.5))
    assert r.exit_code == 0, r.output
    assert len(cut) >= 3 and len(server.requests) == 2 * len(cut)
    assert len((tmp_path / "out" / "conversations.jsonl").read_text().splitlines()) == 10


def test_a_server_that_ignores_max_tokens_cannot_spend_past_max_cost(loaded, tmp_path):
    """Every reply 2 MB whatever max_tokens says: the job stops at the budget with exit 3,
    and what it was charged (what it read) stays within --max-cost."""
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    prices = {"gpt-4o": {"input": 100, "output": 100},
              "gpt-3.5-turbo": {"input": 100, "output": 100}}
    cfg = fast(tmp_path)
    with open(cfg, "a") as fh:
        fh.write("[llm.prices.gpt-4o]\ninput = 100\noutput = 100\n"
                 "[llm.prices.\"gpt-3.5-turbo\"]\ninput = 100\noutput = 100\n")
    with ScriptedServer(lambda body, n: huge_reply()) as server:
        r = run(db, tmp_path / "out", server, "--max-cost", "0.5", config=cfg)
        one_line(r, 3, "budget of $0.5000 reached")
        with project(db, **llm(server, max_cost=0.5, concurrency=4, max_attempts=3,
                               validation_attempts=2, prices=prices)) as p:
            with pytest.raises(BudgetExceeded):
                p.generate([GenerateConfig(conversations=10)])
            spent = p.meter.spent
    assert 0 < spent <= 0.5


def test_an_endpoint_url_without_http_is_one_line_at_once(loaded, tmp_path):
    db = tmp_path / "p.duckdb"
    shutil.copy(loaded, db)
    r = cli("generate", "--db", db, "--out", tmp_path / "out", "--base-url",
            "localhost:8080/v1", "--config", fast(tmp_path),
            env={"OPENAI_API_KEY": "sk-secret-key-123456789"})
    one_line(r, 4, "llm.base_url 'localhost:8080/v1' is not an http:// or https:// URL")
