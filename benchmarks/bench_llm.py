"""LLM-layer benchmark against the scripted OpenAI-compatible server on 127.0.0.1:
client overhead per request (vs a bare HTTP POST), requests/s with 1 and 16 in flight,
and cache hits/s.

Overhead is given twice: as wall time, and as the CPU time of the calling thread (the
client's own work, HTTP stack included; the server runs in another thread), which other
jobs on a shared machine disturb far less than wall time."""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from convkgyarn.config import LLMConfig  # noqa: E402
from convkgyarn.llm import LLMClient, LLMRequest, build_client, new_meter  # noqa: E402
from convkgyarn.store import connect  # noqa: E402
from tests.llm.scripted_server import Reply, ScriptedServer  # noqa: E402


def client(con, server, concurrency: int) -> LLMClient:
    cfg = LLMConfig(base_url=server.base_url, api_key="k", concurrency=concurrency)
    return build_client(con, cfg, "judge", "p", new_meter(cfg), model="m")


def main() -> None:
    tmp = Path(tempfile.mkdtemp())
    con = connect(tmp / "bench.duckdb")
    n = 300
    with ScriptedServer(lambda body, i: Reply(content="ok")) as server:
        body = {"model": "m", "messages": [{"role": "user", "content": "warm"}]}
        with httpx.Client() as http:
            raw, raw_cpu = [], []
            for _ in range(n):
                t0, c0 = time.perf_counter(), time.thread_time()
                http.post(server.base_url + "/chat/completions", json=body).raise_for_status()
                raw.append(time.perf_counter() - t0)
                raw_cpu.append(time.thread_time() - c0)
        c = client(con, server, 1)
        ours, ours_cpu = [], []
        for i in range(n):
            t0, c0 = time.perf_counter(), time.thread_time()
            c.one(LLMRequest([{"role": "user", "content": f"overhead {i}"}]))
            ours.append(time.perf_counter() - t0)
            ours_cpu.append(time.thread_time() - c0)
        med = statistics.median
        print(f"per request, no server delay: bare httpx POST {med(raw) * 1e3:.2f} ms, "
              f"our client (cache lookup, HTTP, cache write) {med(ours) * 1e3:.2f} ms "
              f"-> overhead {1e3 * (med(ours) - med(raw)):.2f} ms")
        print(f"  CPU of the calling thread: bare POST {sum(raw_cpu) / n * 1e3:.2f} ms, "
              f"our client {sum(ours_cpu) / n * 1e3:.2f} ms -> overhead "
              f"{(sum(ours_cpu) - sum(raw_cpu)) / n * 1e3:.2f} ms")
        t0, c0 = time.perf_counter(), time.thread_time()
        for i in range(n):
            c.one(LLMRequest([{"role": "user", "content": f"overhead {i}"}]))
        print(f"cache hits: {n / (time.perf_counter() - t0):,.0f} requests/s "
              f"(CPU {(time.thread_time() - c0) / n * 1e3:.2f} ms each)")
    delay = 0.05
    with ScriptedServer(lambda body, i: Reply(content="ok", delay=delay)) as server:
        for inflight in (1, 16):
            c = client(con, server, inflight)
            reqs = [LLMRequest([{"role": "user", "content": f"q{inflight}-{i}"}])
                    for i in range(160)]
            t0 = time.perf_counter()
            c.run(reqs)
            rate = len(reqs) / (time.perf_counter() - t0)
            print(f"{inflight:>2} in flight, server latency {delay * 1e3:.0f} ms: {rate:,.0f} "
                  f"requests/s (server saw up to {server.max_in_flight} at once)")


if __name__ == "__main__":
    main()
