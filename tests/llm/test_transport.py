"""The transport against a real HTTP server on 127.0.0.1: replies that arrive broken, late or
not at all are retried like a 5xx and end, if they never arrive, in one line with exit 4;
configuration no request could succeed with is one line at once."""

from __future__ import annotations

import time

import pytest

from convkgyarn.config import LLMConfig
from convkgyarn.errors import EXIT_ENDPOINT, ConvKGYarnError
from convkgyarn.llm import LLMFatalError, LLMRequest, build_client, new_meter
from tests.llm.scripted_server import Reply, ScriptedServer, stalled

SECRET = "sk-test-SECRET-0123456789abcdef"


def client(db, server, **kw):
    base = dict(base_url=server.base_url, api_key=SECRET, timeout=0.5, backoff_max=0.05,
                max_attempts=3)
    config = LLMConfig(**(base | kw))
    return build_client(db, config, "judge", "p", new_meter(config))


def ask(c, text="hello"):
    [result] = c.run([LLMRequest([{"role": "user", "content": text}])])
    return result


@pytest.fixture
def server():
    s = ScriptedServer().start()
    yield s
    s.stop()


def test_a_body_cut_off_mid_way_is_retried(db, server):
    server.handler = [Reply(content="a long answer " * 40, cut_after=120), Reply(content="fine")]
    result = ask(client(db, server))
    assert result.ok and result.text == "fine"
    assert len(server.requests) == 2
    assert server.sent_bytes[0] == 120  # the first reply really was cut mid-body


def test_headers_then_a_stall_is_retried(db, server):
    server.handler = [stalled(after=0, seconds=30), stalled(after=30, seconds=30),
                      Reply(content="fine")]
    t0 = time.perf_counter()
    result = ask(client(db, server))
    assert result.text == "fine" and len(server.requests) == 3
    assert time.perf_counter() - t0 < 15  # each stall ended at the 0.5 s timeout


def test_a_body_that_trickles_past_the_timeout_is_retried(db, server):
    """Bytes every 0.2 s never trip a 0.5 s read timeout; the body's own deadline does."""
    server.handler = [Reply(content="slow " * 200, chunk=10, chunk_delay=0.2),
                      Reply(content="fine")]  # the first would take over 20 s
    t0 = time.perf_counter()
    result = ask(client(db, server))
    assert result.text == "fine" and len(server.requests) == 2
    assert time.perf_counter() - t0 < 10


@pytest.mark.parametrize("fault,kind", [
    (Reply(content="x" * 500, cut_after=40), "replies cut off mid-body"),
    (stalled(after=0, seconds=30), "replies stalled after the headers"),
])
def test_replies_that_never_arrive_whole_end_in_one_endpoint_error(db, server, fault, kind):
    server.handler = lambda body, n: fault
    with pytest.raises(LLMFatalError) as info:
        ask(client(db, server))
    message = str(info.value)
    assert info.value.exit_code == EXIT_ENDPOINT
    assert kind in message and "gave up after 3 attempts" in message
    assert message.startswith("judge (gpt-4o) at http://127.0.0.1") and "\n" not in message
    assert SECRET not in message
    assert len(server.requests) == 3
    assert db.execute("SELECT count(*) FROM llm_cache").fetchone()[0] == 0


def test_malformed_json_and_5xx_then_success(db, server):
    server.handler = [Reply(raw_body=b'{"id": "x", "choices": [{"message": {"conte'),
                      Reply(status=502), Reply(raw_body=b"not json"), Reply(content="fine")]
    result = ask(client(db, server, max_attempts=4))
    assert result.text == "fine" and len(server.requests) == 4


@pytest.mark.parametrize("settings,field", [
    ({"api_key": "sk-caf\u00e9\u2019"}, "llm.api_key"),
    ({"base_url": "localhost:8080/v1"}, "llm.base_url"),
    ({"base_url": "ftp://127.0.0.1/v1"}, "llm.base_url"),
])
def test_an_endpoint_no_request_could_reach_is_one_line_at_once(db, server, settings, field):
    t0 = time.perf_counter()
    with pytest.raises(ConvKGYarnError) as info:
        ask(client(db, server, **settings))
    assert info.value.exit_code == EXIT_ENDPOINT
    assert field in str(info.value) and "\n" not in str(info.value)
    assert "caf" not in str(info.value)  # never the key itself
    assert server.requests == [] and time.perf_counter() - t0 < 5  # no retries
