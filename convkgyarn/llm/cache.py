"""The cache layer, around a transport: usable replies by request key in ``llm_cache``, and
one row per failing request in ``llm_failures``.

Only the layer above knows whether a reply is usable (structured output validates it), so
the cache stores a reply only when told to (``keep``); a request whose reply is cached is
never sent again, and a re-run therefore asks exactly the work that failed before. Safe to
call from worker threads.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from typing import Protocol

import duckdb

from convkgyarn.llm.meter import StageMeter
from convkgyarn.llm.wire import Call, Completion
# The clock lives in stage.py for now; a leaf module for clocks, run ids and the code
# version is another task's (issue #31), which will move this import.
from convkgyarn.runtime import utcnow

RAW_KEPT_CHARS = 20_000  # of an unusable reply, in llm_failures


class Transport(Protocol):
    def send(self, call: Call) -> Completion: ...


class ResponseCache:
    """The two tables, through one cursor per thread."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self._lock = threading.Lock()
        self._local = threading.local()

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """One cursor per thread, made once: creating a cursor per call costs milliseconds."""
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self._local.cursor = self._con.cursor()
        return cur

    def get(self, key: str) -> tuple[str, str | None] | None:
        """(response, the model the server said served it), or None."""
        with self._lock:
            row = self.cursor().execute(
                "SELECT response, served_by FROM llm_cache WHERE key = ?", [key]).fetchone()
        return (row[0], row[1]) if row else None

    def put(self, key: str, stage: str, model: str, prompt_hash: str, request: dict,
            response: str, prompt_tokens: int, completion_tokens: int, latency: float,
            served_by: str | None) -> None:
        with self._lock:
            self.cursor().execute(
                "INSERT OR IGNORE INTO llm_cache (key, stage, model, prompt_hash, request, "
                "response, prompt_tokens, completion_tokens, latency_s, served_by, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [key, stage, model, prompt_hash, json.dumps(request, ensure_ascii=False),
                 response, prompt_tokens, completion_tokens, latency, served_by, utcnow()])

    def fail(self, key: str, stage: str, model: str, reason: str, raw: str | None) -> None:
        """Keep one row per failing request, counting how often it failed."""
        now = utcnow()
        raw = raw[:RAW_KEPT_CHARS] if raw else raw
        with self._lock:
            self.cursor().execute(
                "INSERT INTO llm_failures (key, stage, model, reason, raw, occurrences, "
                "created_at, last_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (key) DO "
                "UPDATE SET reason = excluded.reason, raw = excluded.raw, "
                "occurrences = llm_failures.occurrences + 1, last_at = excluded.last_at",
                [key, stage, model, reason, raw, now, now])


class CachedTransport:
    """A transport behind the response cache, for one stage and prompt."""

    def __init__(self, cache: ResponseCache, transport: Transport, meter: StageMeter,
                 prompt_hash: str) -> None:
        self.cache = cache
        self.transport = transport
        self.meter = meter
        self.stage = meter.stage
        self.prompt_hash = prompt_hash

    def complete(self, call: Call) -> Completion:
        """The cached reply, or the transport's."""
        hit = self.cache.get(call.key)
        if hit is not None:
            self.meter.count("cached")
            return Completion(hit[0], served_by=hit[1], cached=True)
        return self.transport.send(call)

    def keep(self, call: Call, completion: Completion, first: Call | None = None) -> None:
        """Cache a usable reply, also under the original request's key when it took re-asks:
        a re-run then gets it at once. A reply that came from the cache is not written again
        under its own key."""
        if completion.text is None:
            return
        for key in dict.fromkeys((call.key, (first or call).key)):
            if completion.cached and key == call.key:
                continue
            own = key == call.key
            self.cache.put(key, self.stage, call.model, self.prompt_hash,
                           completion.stored_request or {"messages": call.messages,
                                                         "params": call.params},
                           completion.text, completion.prompt_tokens if own else 0,
                           completion.completion_tokens if own else 0, completion.latency,
                           completion.served_by)

    def reject(self, call: Call, reason: str, raw: str | None) -> None:
        self.cache.fail(call.key, self.stage, call.model, reason, raw)

    def uncached(self, calls: Sequence[Call]) -> list[Call]:
        """Each call whose reply is not cached, once."""
        seen: dict[str, Call] = {}
        for c in calls:
            if c.key not in seen and self.cache.get(c.key) is None:
                seen[c.key] = c
        return list(seen.values())

    def prefill(self, calls: Sequence[Call], batch: "BatchSender",
                usable: Callable[[Call, str], str | None]) -> dict[str, int]:
        """Answer the uncached calls through ``batch`` first; cache each reply ``usable``
        accepts (it returns None, or the reason it cannot be used), record the others, which
        the direct path then asks again. Returns counts: submitted, cached, failed."""
        pending = self.uncached(calls)
        if not pending:
            return {"submitted": 0, "cached": 0, "failed": 0}
        replies = batch.send_many(pending)
        cached = failed = 0
        for call in pending:
            reply = replies.get(call.key)
            if reply is None:
                failed += 1
                continue
            reason = reply.error or usable(call, reply.text or "")
            if reason is not None:
                self.reject(call, f"batch: {reason}", reply.text)
                failed += 1
                continue
            self.keep(call, reply)
            cached += 1
        return {"submitted": len(pending), "cached": cached, "failed": failed}


class BatchSender(Protocol):
    def send_many(self, calls: Sequence[Call]) -> dict[str, Completion]: ...
