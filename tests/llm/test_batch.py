"""The Batch API transport against the scripted server on 127.0.0.1: broken downloads are
retried, replies past the cap are neither cached nor paid for beyond what was read, and its
progress goes through the one reporting hook (the terminal and the log, a refresh's too)."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

import pytest

from convkgyarn.config import LLMConfig
from convkgyarn.llm import LLMRequest, build_client, new_meter
from tests.helpers import cli
from tests.llm.scripted_server import Reply, ScriptedServer, huge_reply, stalled


def batch_client(db, server, say=None, **kw):
    base = dict(base_url=server.base_url, api_key="k", timeout=0.5, backoff_max=0.05,
                max_attempts=3, batch=True, batch_poll=0.02)
    config = LLMConfig(**(base | kw))
    meter = new_meter(config)
    return build_client(db, config, "judge", "p", meter, say=say), meter


def reqs(n: int) -> list[LLMRequest]:
    return [LLMRequest([{"role": "user", "content": f"q{i}"}]) for i in range(n)]


@pytest.fixture
def server():
    s = ScriptedServer().start()
    yield s
    s.stop()


def test_a_batch_output_cut_off_or_stalled_is_downloaded_again(db, server):
    server.handler = lambda body, n: Reply(content="answer to " + body["messages"][0]["content"])
    server.output_fault = [Reply(cut_after=60), stalled(after=0, seconds=10)]
    c, _ = batch_client(db, server)
    results = c.run(reqs(3))
    assert [r.text for r in results] == [f"answer to q{i}" for i in range(3)]
    assert server.requests == []  # everything came from the batch
    assert server.output_fault == []  # both faults were served


def test_batch_replies_past_the_cap_are_not_kept_and_are_asked_directly(db, server):
    """A batch server that ignores max_tokens: its output is read no further than the
    replies' caps allow, nothing of it is cached, and the direct path (cut off at the cap
    there too) gets the answers."""
    served = []

    def handler(body, n):
        served.append(n)
        if len(served) <= 3:  # the batch's three lines
            return huge_reply(1 << 20)
        return Reply(content="answer to " + body["messages"][0]["content"])

    server.handler = handler
    c, meter = batch_client(db, server)
    results = c.run(reqs(3))
    assert [r.text for r in results] == [f"answer to q{i}" for i in range(3)]
    assert len(server.requests) == 3
    biggest = db.execute("SELECT max(length(response)) FROM llm_cache").fetchone()[0]
    assert biggest < 100
    # the 3 x 262,144 completion tokens the batch reported were never read, nor charged
    assert meter.usage["judge"].completion_tokens < 3 * 1024


def test_batch_progress_goes_to_the_terminal_and_the_log(db, server, caplog):
    server.polls_until_done = 2
    said: list[str] = []
    c, _ = batch_client(db, server, say=said.append)
    with caplog.at_level(logging.INFO, logger="convkgyarn"):
        c.run(reqs(2))
    progress = [m for m in said if "batch" in m]
    assert progress == ["judge: batch in_progress, 0 of 2 requests done",
                        "judge: batch completed, 2 of 2 requests done",
                        "judge: 2 replies from the batch"]
    logged = [r.getMessage() for r in caplog.records if r.name == "convkgyarn.llm"]
    assert all(m in logged for m in progress)


def test_a_refresh_log_has_the_rebuild_s_llm_progress(tmp_path, sample_path):
    """Refresh logs to <db>.refresh.log; the LLM progress of the stages it re-runs is there
    too, not only on the terminal."""
    from tests.test_refresh import handler, modified_dump

    db = tmp_path / "p.duckdb"
    with ScriptedServer(handler([])) as server:
        r = cli("generate", "--db", db, "--out", tmp_path / "out", "--conversations", "5",
                "--base-url", server.base_url, env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        modified_dump(sample_path, tmp_path / "new.json")
        cfg = tmp_path / "batch.toml"
        cfg.write_text("[llm]\nbatch = true\nbatch_poll = 0.02\n")
        r = cli("refresh", tmp_path / "new.json", "--db", db, "--base-url", server.base_url,
                "--config", cfg, env={"OPENAI_API_KEY": "k"})
        assert r.exit_code == 0, r.output
        assert server.batches  # the rebuild asked through the batch
    log = Path(str(db) + ".refresh.log").read_text()
    assert "batch completed" in log and "replies from the batch" in log
    shutil.rmtree(tmp_path / "out", ignore_errors=True)
