"""The Batch API transport (half the price, results within the completion window).

It answers a set of calls at once: one JSONL file of request bodies, uploaded and submitted
as one batch, polled until it ends, its output read back. It only sends and reads; the cache
layer decides what to keep (``CachedTransport.prefill``), under exactly the keys the direct
path computes, so the direct path then finds the replies and returns identical results.
The batch id is stored the moment the batch exists: an interrupted command resumes polling
the same batch instead of paying for a second one. Every HTTP call goes through the
endpoint's retries, the output download included (a body cut off or stalled is retried);
the output is read no further than the replies' caps allow, and each reply is charged to
the meter at the batch discount.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

import duckdb
from openai.types.chat import ChatCompletion
from pydantic import ValidationError

from convkgyarn.config import LLMConfig
from convkgyarn.llm.meter import StageMeter
from convkgyarn.llm.transport import Endpoint, ReplyTooLarge, read_body
from convkgyarn.llm.wire import (
    REPLY_ENVELOPE_BYTES, Call, Completion, estimate_tokens, reply_cap, tokens_in)
# The clock lives in stage.py for now (see llm.cache).
from convkgyarn.runtime import utcnow

log = logging.getLogger("convkgyarn.llm")
FINAL = ("completed", "failed", "expired", "cancelled")
BATCH_DISCOUNT = 0.5  # the Batch API's price against the direct one


class BatchTransport:
    """One stage's calls through the Batch API."""

    def __init__(self, endpoint: Endpoint, meter: StageMeter, con: duckdb.DuckDBPyConnection,
                 config: LLMConfig, max_tokens: int, report: Callable[[str], None]) -> None:
        self.endpoint = endpoint
        self.meter = meter
        self.con = con
        self.config = config
        self.max_tokens = max_tokens
        self.report = report
        self.stage = meter.stage
        self.model = endpoint.model

    def send_many(self, calls: Sequence[Call]) -> dict[str, Completion]:
        """Submit (or resume) the batch of these calls; their replies by key (a reply that
        cannot be used whatever it says carries ``error``). Calls missing from the result
        were not answered by the batch."""
        pending = {c.key: c for c in calls}
        batch_key = hashlib.sha256(json.dumps([self.stage, self.model, sorted(pending)]
                                              ).encode()).hexdigest()[:24]
        row = self.con.execute(
            "SELECT batch_id, status FROM llm_batches WHERE batch_key = ? AND status NOT IN "
            "('failed', 'expired', 'cancelled')", [batch_key]).fetchone()
        if row:  # already paid for: resumed whatever the budget says
            batch_id = row[0]
            log.info("%s: resuming batch %s (%s)", self.stage, batch_id, row[1])
            reservation = self.meter.reserve(self.model, 0, 0)
        else:
            reservation = self.meter.reserve(
                self.model, sum(estimate_tokens(c.messages) for c in calls),
                self.max_tokens * len(calls), discount=BATCH_DISCOUNT,
                why=f"the batch of {len(calls)} requests may cost")
            try:
                batch_id = self._submit(batch_key, pending)
            except BaseException:
                reservation.close(calls=0)
                raise
        try:
            batch = self._wait(batch_id, len(pending))
            if batch.status != "completed" or not batch.output_file_id:
                log.warning("%s: batch %s ended %s; its requests are sent directly",
                            self.stage, batch_id, batch.status)
                self._set(batch_key, status=batch.status)
                return {}
            replies = self._read_output(batch, pending, reservation)
            self._set(batch_key, status="ingested", output_file_id=batch.output_file_id)
        finally:
            reservation.close(calls=0)
        return replies

    # -- steps --------------------------------------------------------------------------
    def _submit(self, batch_key: str, pending: dict[str, Call]) -> str:
        lines = [json.dumps({"custom_id": key, "method": "POST", "url": "/v1/chat/completions",
                             "body": call.body}, ensure_ascii=False)
                 for key, call in pending.items()]
        data = ("\n".join(lines) + "\n").encode()
        http = self.endpoint.http
        uploaded = self.endpoint.retrying(lambda: http.files.create(
            file=(f"convkgyarn-{self.stage}-{batch_key}.jsonl", data, "application/jsonl"),
            purpose="batch"), "upload the batch input")
        batch = self.endpoint.retrying(lambda: http.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions",
            completion_window=self.config.batch_window,
            metadata={"tool": "convkgyarn", "stage": self.stage}), "create the batch")
        self.con.execute(
            "INSERT OR REPLACE INTO llm_batches (batch_key, batch_id, stage, model, "
            "input_file_id, output_file_id, status, requests, created_at, finished_at) "
            "VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, NULL)",
            [batch_key, batch.id, self.stage, self.model, uploaded.id, batch.status,
             len(pending), utcnow()])
        log.info("%s: batch %s submitted with %d requests", self.stage, batch.id, len(pending))
        return batch.id

    def _wait(self, batch_id: str, total: int):
        shown = None
        while True:
            batch = self.endpoint.retrying(
                lambda: self.endpoint.http.batches.retrieve(batch_id), "poll the batch")
            done = batch.request_counts.completed if batch.request_counts else 0
            if (batch.status, done) != shown:
                shown = (batch.status, done)
                self.report(f"{self.stage}: batch {batch.status}, {done:,} of {total:,} "
                            "requests done")
            self.con.execute("UPDATE llm_batches SET status = ? WHERE batch_id = ?",
                             [batch.status, batch_id])
            if batch.status in FINAL:
                return batch
            time.sleep(self.config.batch_poll)

    def _download(self, file_id: str, cap: int) -> tuple[bytes, bool]:
        """The output file, read up to ``cap`` bytes: (its bytes, whether it was whole)."""
        body = bytearray()
        with self.endpoint.http.files.with_streaming_response.content(file_id) as raw:
            try:
                read_body(raw.iter_bytes(), body, cap, self.config.timeout)
            except ReplyTooLarge:
                return bytes(body), False
        return bytes(body), True

    def _read_output(self, batch, pending: dict[str, Call], reservation) -> dict[str, Completion]:
        per_reply = reply_cap(self.max_tokens)
        cap = len(pending) * (per_reply + REPLY_ENVELOPE_BYTES)
        data, whole = self.endpoint.retrying(lambda: self._download(batch.output_file_id, cap),
                                             "download the batch output")
        lines = data.decode("utf-8", errors="replace").splitlines()
        if not whole:  # the last line is cut: its request goes direct with the others
            log.warning("%s: batch %s output is larger than its replies may be (the server "
                        "ignores max_tokens); read %d bytes, the rest is asked directly",
                        self.stage, batch.id, len(data))
            lines = lines[:-1]
        out: dict[str, Completion] = {}
        for line in lines:
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(entry, dict) or entry.get("custom_id") not in pending:
                continue
            call = pending[entry["custom_id"]]
            out[call.key] = self._entry(entry, call, batch.id, len(line.encode()), per_reply,
                                        reservation)
        return out

    def _entry(self, entry: dict[str, Any], call: Call, batch_id: str, nbytes: int,
               cap: int, reservation) -> Completion:
        """One output line as a reply, charged at the batch discount."""
        response = entry.get("response")
        response = response if isinstance(response, dict) else {}
        raw = json.dumps(response, ensure_ascii=False)[:2000]
        try:
            if response.get("status_code") != 200:
                raise ValueError(f"HTTP {response.get('status_code')} in the batch: "
                                 f"{json.dumps(entry.get('error') or response)[:200]}")
            completion = ChatCompletion.model_validate(response["body"])
            if not completion.choices:
                raise ValueError("the reply has no choices")
        except (ValueError, ValidationError, KeyError, TypeError) as exc:
            return Completion(raw, error=str(exc).splitlines()[0][:300] or type(exc).__name__)
        text = completion.choices[0].message.content or ""
        usage = completion.usage
        prompt = usage.prompt_tokens if usage else estimate_tokens(call.messages)
        done = usage.completion_tokens if usage else tokens_in(text)
        served_by = completion.model or None
        reservation.charge(served_by or self.model, prompt, done, calls=1)
        if nbytes > cap:  # as the direct path would have cut it off
            return Completion(text[:2000], error=str(ReplyTooLarge(cap)))
        return Completion(text, prompt, done, served_by,
                          stored_request={"messages": call.messages, "params": call.params,
                                          "batch": batch_id})

    def _set(self, batch_key: str, **fields: Any) -> None:
        sets = ", ".join(f"{k} = ?" for k in fields)
        self.con.execute(f"UPDATE llm_batches SET {sets}, finished_at = ? WHERE batch_key = ?",
                         [*fields.values(), utcnow(), batch_key])
