"""The cost meter against a server that ignores max_tokens (on 127.0.0.1): a reply is read no
further than its cap, charged what was read, and `--max-cost` holds whatever the server
sends; usable replies that arrived before the stop stay cached."""

from __future__ import annotations

import pytest

from convkgyarn.config import LLMConfig, Price
from convkgyarn.errors import EXIT_BUDGET, BudgetExceeded
from convkgyarn.llm import LLMRequest, build_client, new_meter
from tests.llm.scripted_server import Reply, ScriptedServer, huge_reply

PRICES = {"gpt-4o": Price(input=100, output=100)}  # USD per million tokens
JUDGE_MAX_TOKENS = 256  # the judge stage's default


def client(db, server, **kw):
    base = dict(base_url=server.base_url, api_key="k", timeout=5, backoff_max=0.05,
                prices=PRICES)
    config = LLMConfig(**(base | kw))
    meter = new_meter(config)
    return build_client(db, config, "judge", "p", meter), meter


def req(text: str) -> LLMRequest:
    return LLMRequest([{"role": "user", "content": text}])


@pytest.fixture
def server():
    s = ScriptedServer().start()
    yield s
    s.stop()


def test_a_reply_past_the_cap_is_cut_off_and_charged_what_was_read(db, server):
    server.handler = lambda body, n: huge_reply(2 << 20)  # 2 MB, 524,288 tokens reported
    c, meter = client(db, server, validation_attempts=2)
    [result] = c.run([req("q")])
    assert not result.ok and "ignores max_tokens" in result.error
    usage = meter.usage["judge"]
    # two attempts, each charged at most what the cap lets through (2 x max_tokens at the
    # documented 4 bytes a token), never the 524,288 tokens sent
    assert usage.completion_tokens <= 2 * 2 * JUDGE_MAX_TOKENS
    assert usage.completion_tokens > 0  # what was read is paid for
    assert db.execute("SELECT count(*) FROM llm_cache").fetchone()[0] == 0


def test_the_budget_holds_against_a_server_that_ignores_max_tokens(db, server):
    """Every other request gets a huge reply; four in flight. The command stops with exit 3
    at the budget, never past it, and the usable replies received are cached."""
    def handler(body, n):
        asked = body["messages"][0]["content"]
        if int(asked[1:]) % 2:
            return huge_reply(1 << 20)
        return Reply(content=f"answer to {asked}", usage=(10, 20))

    server.handler = handler
    c, meter = client(db, server, concurrency=4, max_cost=0.5)
    with pytest.raises(BudgetExceeded) as info:
        c.run([req(f"q{i}") for i in range(40)])
    assert info.value.exit_code == EXIT_BUDGET
    assert "budget of $0.5000 reached" in str(info.value)
    assert meter.spent <= 0.5
    assert meter.reserved == pytest.approx(0, abs=1e-9)  # every hold released
    answered = {b["messages"][0]["content"] for b in server.requests
                if int(b["messages"][0]["content"][1:]) % 2 == 0}
    cached = {r[0] for r in db.execute("SELECT response FROM llm_cache").fetchall()}
    assert answered and cached == {f"answer to {q}" for q in answered}


def test_a_reply_is_read_only_as_far_as_the_budget_pays(db, server):
    """A budget that covers the request but not the whole reply: reading stops there."""
    server.handler = lambda body, n: huge_reply(1 << 20, chunk=1024)
    c, meter = client(db, server, max_cost=0.035)  # the request reserves ~$0.0257
    with pytest.raises(BudgetExceeded):
        c.run([req("q")])
    assert 0.0257 < meter.spent <= 0.035


def test_the_meter_never_holds_and_charges_past_the_budget():
    meter = new_meter(LLMConfig(prices=PRICES, max_cost=1.0))
    stage = meter.for_stage("judge")
    first = stage.reserve("gpt-4o", 1000, 4000)  # $0.50
    second = stage.reserve("gpt-4o", 1000, 3000)  # $0.40
    with pytest.raises(BudgetExceeded):
        stage.reserve("gpt-4o", 1000, 1000)  # $0.20 more than is left
    first.charge("gpt-4o", 1000, 1000, calls=1)  # $0.20 of the $0.50 held
    assert meter.spent == pytest.approx(0.2) and meter.reserved == pytest.approx(0.7)
    with pytest.raises(BudgetExceeded):
        second.cover(1000, 9000)  # the reply grows past what is left
    second.cover(1000, 4000)  # $0.50: fits in what is left ($0.10 more)
    first.close(calls=0)
    second.close()
    assert meter.reserved == pytest.approx(0) and meter.spent == pytest.approx(0.2)
    assert meter.usage["judge"].calls == 2
