"""The LLM layer against a real HTTP server on 127.0.0.1 with scripted replies and faults."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from pydantic import BaseModel

from convkgyarn.config import LLMConfig, Price
from convkgyarn.llm import (
    BudgetExceeded, LLMFatalError, LLMRequest, build_client, new_meter)
from convkgyarn.llm.client import parse_json_reply
from convkgyarn.store import connect
from tests.llm.scripted_server import Reply, ScriptedServer, json_reply

SECRET = "sk-test-SECRET-0123456789abcdef"


class Answer(BaseModel):
    answer: str
    confidence: int


def make_config(server: ScriptedServer, **kw) -> LLMConfig:
    base = dict(base_url=server.base_url, api_key=SECRET, timeout=5, backoff_max=0.2,
                prices={"gpt-4o": Price(input=0, output=0)})
    base.update(kw)
    return LLMConfig(**base)


def client_for(con, config: LLMConfig, stage="judge", prompt_hash="p1"):
    meter = new_meter(config)
    return build_client(con, config, stage, prompt_hash, meter), meter


def req(text: str, schema=None) -> LLMRequest:
    return LLMRequest(messages=[{"role": "user", "content": text}], schema=schema)


@pytest.fixture
def server():
    s = ScriptedServer().start()
    yield s
    s.stop()


def test_transient_faults_are_retried_until_success(db, server):
    server.handler = [Reply(status=429, headers={"Retry-After": "0.3"}), Reply(status=500),
                      Reply(status=503), Reply(content="fine")]
    client, meter = client_for(db, make_config(server))
    t0 = time.perf_counter()
    [result] = client.run([req("hello")])
    assert result.ok and result.text == "fine"
    assert len(server.requests) == 4
    assert time.perf_counter() - t0 >= 0.3  # Retry-After honoured over the jittered backoff


def test_slow_reply_past_timeout_and_broken_bodies_are_retried(db, server):
    server.handler = [Reply(delay=2.0), Reply(raw_body=b'{"id": "x", "choi'),
                      Reply(raw_body=b"<html>bad gateway</html>"), Reply(content="fine")]
    client, _ = client_for(db, make_config(server, timeout=0.5))
    [result] = client.run([req("hello")])
    assert result.text == "fine"
    assert len(server.requests) == 4


@pytest.mark.parametrize("status", [401, 400])
def test_unrecoverable_status_stops_at_once_without_leaking_the_key(db, server, status):
    server.handler = lambda body, n: Reply(status=status)
    client, _ = client_for(db, make_config(server))
    with pytest.raises(LLMFatalError) as info:
        client.run([req("hello")])
    message = str(info.value)
    assert f"HTTP {status}" in message and "not retried" in message
    assert SECRET not in message
    assert len(server.requests) == 1


def test_giving_up_after_max_attempts_is_a_clear_error(db, server):
    server.handler = lambda body, n: Reply(status=500)
    client, meter = client_for(db, make_config(server, max_attempts=3))
    with pytest.raises(LLMFatalError, match="gave up after 3 attempts"):
        client.run([req("hello")])
    assert len(server.requests) == 3
    # the usage table counts it failed (a newcomer saw "14 calls, 0 failed" when all had)
    assert meter.usage["judge"].failed == 1


def test_cache_stops_repeat_calls_across_runs_and_records_usage(db, server):
    server.handler = lambda body, n: Reply(content=f"reply {n}", usage=(11, 7))
    config = make_config(server)
    client, meter = client_for(db, config)
    first = client.run([req("a"), req("b")])
    assert [r.cached for r in first] == [False, False]
    again, meter2 = client_for(db, config)  # a new run: nothing changed
    second = again.run([req("a"), req("b")])
    assert [r.text for r in second] == [r.text for r in first]
    assert all(r.cached for r in second) and len(server.requests) == 2
    assert meter2.usage["judge"].cached == 2 and meter2.usage["judge"].calls == 0
    row = db.execute("SELECT stage, model, prompt_tokens, completion_tokens, latency_s > 0, "
                     "created_at IS NOT NULL FROM llm_cache LIMIT 1").fetchone()
    assert row == ("judge", "gpt-4o", 11, 7, True, True)
    # a changed prompt file (hash) is a different request
    other, _ = client_for(db, config, prompt_hash="p2")
    other.run([req("a")])
    assert len(server.requests) == 3


def test_requests_really_overlap(db, server):
    server.handler = lambda body, n: Reply(content=str(n), delay=0.4)
    client, _ = client_for(db, make_config(server, concurrency=8))
    t0 = time.perf_counter()
    results = client.run([req(f"q{i}") for i in range(8)])
    elapsed = time.perf_counter() - t0
    assert server.max_in_flight >= 6
    assert elapsed < 8 * 0.4 / 2
    assert [r.request.messages[0]["content"] for r in results] == [f"q{i}" for i in range(8)]


def test_invalid_structured_output_is_reasked_with_the_error_then_parsed(db, server):
    server.handler = [Reply(content="not json at all"),
                      json_reply({"answer": "Paris"}),  # missing field
                      json_reply({"answer": "Paris", "confidence": 3})]
    client, _ = client_for(db, make_config(server))
    [result] = client.run([req("capital of France?", Answer)])
    assert result.ok and result.parsed == Answer(answer="Paris", confidence=3)
    assert result.attempts == 3
    third = server.requests[2]["messages"]
    # the re-ask carries the validation error, never the unusable reply itself
    assert "confidence" in third[-1]["content"] and [m["role"] for m in third] == ["user", "user"]
    assert all("Paris" not in m["content"] for m in third)
    reasons = [r[0] for r in db.execute("SELECT reason FROM llm_failures ORDER BY created_at")
               .fetchall()]
    assert len(reasons) == 2 and "confidence" in reasons[1]  # each unusable reply kept
    # a re-run gets the valid reply at once: the unusable ones were never cached as answers
    again, _ = client_for(db, make_config(server))
    [cached] = again.run([req("capital of France?", Answer)])
    assert cached.cached and cached.parsed == result.parsed and len(server.requests) == 3


def test_structured_output_that_never_validates_is_recorded_not_dropped(db, server):
    server.handler = lambda body, n: Reply(content='{"answer": 1}')
    client, meter = client_for(db, make_config(server, validation_attempts=2))
    [result] = client.run([req("q", Answer)])
    assert not result.ok and "after 2 attempt(s)" in result.error
    assert result.text == '{"answer": 1}'
    assert meter.usage["judge"].failed == 1
    assert db.execute("SELECT count(*) FROM llm_failures").fetchone()[0] == 2


def test_response_format_follows_the_endpoint(db, server):
    server.handler = lambda body, n: json_reply({"answer": "x", "confidence": 1})
    local, _ = client_for(db, make_config(server))
    local.run([req("q", Answer)])
    fmt = server.requests[-1]["response_format"]
    assert fmt["type"] == "json_object" and "confidence" in json.dumps(fmt["schema"])
    forced, _ = client_for(db, make_config(server, structured_output="json_schema"))
    forced.run([req("q2", Answer)])
    assert server.requests[-1]["response_format"]["type"] == "json_schema"
    assert server.requests[-1]["max_tokens"] == 256  # max_tokens, not max_completion_tokens


def test_budget_stops_before_exceeding(db, server):
    server.handler = lambda body, n: Reply(content="x", usage=(4, 200))
    config = make_config(server, concurrency=1, max_cost=0.1,
                         prices={"gpt-4o": Price(input=10, output=100)})
    client, meter = client_for(db, config)
    with pytest.raises(BudgetExceeded, match="budget"):
        client.run([req(f"q{i}") for i in range(20)])
    assert 0.06 < meter.spent <= 0.1
    assert 0 < len(server.requests) < 20
    cached = db.execute("SELECT count(*) FROM llm_cache").fetchone()[0]
    assert cached == len(server.requests)  # what was paid for is kept


def test_dry_run_sends_nothing_and_estimates(db, server):
    client, meter = client_for(db, make_config(server, dry_run=True))
    results = client.run([req("a" * 400), req("b")])
    assert server.requests == []
    assert all(r.dry_run for r in results)
    assert meter.usage["judge"].estimated_calls == 2
    assert meter.usage["judge"].estimated_tokens > 2 * 256


def test_api_key_never_reaches_the_database(tmp_path, server):
    con = connect(tmp_path / "k.duckdb")
    server.handler = lambda body, n: Reply(content="x")
    client, _ = client_for(con, make_config(server))
    client.run([req("hello")])
    con.close()
    assert SECRET.encode() not in (tmp_path / "k.duckdb").read_bytes()


def test_killed_run_resumes_from_cache_with_nothing_lost_or_duplicated(tmp_path, server):
    server.handler = lambda body, n: Reply(content="answer to " + body["messages"][0]["content"],
                                           delay=0.15)
    dbfile = tmp_path / "kill.duckdb"
    script = textwrap.dedent(f"""
        from convkgyarn.config import LLMConfig
        from convkgyarn.llm import LLMRequest, build_client, new_meter
        from convkgyarn.store import connect
        config = LLMConfig(base_url={server.base_url!r}, api_key="k", concurrency=2)
        con = connect({str(dbfile)!r})
        client = build_client(con, config, "answerer", "p", new_meter(config))
        client.run([LLMRequest([{{"role": "user", "content": f"q{{i}}"}}]) for i in range(20)])
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).parents[2])
    deadline = time.time() + 30
    while len(server.requests) < 8 and time.time() < deadline:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    time.sleep(0.3)
    con = connect(dbfile)
    done_before = {json.loads(r[0])["messages"][0]["content"]
                   for r in con.execute("SELECT request FROM llm_cache").fetchall()}
    assert 4 <= len(done_before) < 20
    sent_before = len(server.requests)
    config = LLMConfig(base_url=server.base_url, api_key="k", concurrency=2)
    client = build_client(con, config, "answerer", "p", new_meter(config))
    results = client.run([LLMRequest([{"role": "user", "content": f"q{i}"}]) for i in range(20)])
    resent = {b["messages"][0]["content"] for b in server.requests[sent_before:]}
    assert not resent & done_before  # nothing answered before is asked again
    assert [r.text for r in results] == [f"answer to q{i}" for i in range(20)]
    keys = con.execute("SELECT count(*), count(DISTINCT key) FROM llm_cache").fetchone()
    assert keys == (20, 20)


def test_lenient_json_parsing():
    assert parse_json_reply('```json\n{"a": "x\ny"}\n```') == {"a": "x\ny"}


def test_logit_bias_is_skipped_with_a_note_for_servers_without_known_token_ids(db, server,
                                                                                caplog):
    server.handler = lambda body, n: Reply(content="x")
    client, _ = client_for(db, make_config(server))
    client.run([LLMRequest([{"role": "user", "content": "q"}], bias_words=("who", "what"))])
    assert "logit_bias" not in server.requests[-1]
    assert any("logit_bias skipped" in r.message for r in caplog.records)


def test_cache_keys_stay_what_earlier_releases_computed(db, server):
    """A project's cached replies stay valid across releases: the key of a request (model,
    messages, parameters with the response format, prompt hash) is pinned here as 0.5.5
    computed it. A change that moves it makes every project ask everything again."""
    server.handler = lambda body, n: json_reply({"answer": "x", "confidence": 1})
    client, _ = client_for(db, make_config(server, prices={}))
    client.run([req("Wer ist Angela Merkel?", Answer), req("plain")])
    keys = {r[0] for r in db.execute("SELECT key FROM llm_cache").fetchall()}
    assert keys == {"bcb6410aa374a545d8e08ca1479fbe9e4cab0124ff44e48bbff5c2e55e511231",
                    "ec05518ac8871ddf9a684cbba21103cf8543c38aa9ec62d731df60572069e588"}
