"""Requests through the OpenAI Batch API (half the price, results within the window).

A batch fills the same response cache the direct path reads: every request that is not
cached yet goes into one JSONL file, uploaded and submitted as one batch; its usable
replies are cached under exactly the keys the direct path computes, so the direct path
then finds them and returns identical results. A reply that fails validation is recorded
in ``llm_failures`` and asked again directly (with the error), as it would be without a
batch. The batch id is stored the moment the batch exists: an interrupted command resumes
polling the same batch instead of paying for a second one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from openai.types.chat import ChatCompletion
from pydantic import ValidationError

from convkgyarn.errors import BudgetExceeded
from convkgyarn.stage import utcnow

if TYPE_CHECKING:
    from convkgyarn.llm.client import LLMClient, LLMRequest

log = logging.getLogger("convkgyarn.llm")
FINAL = ("completed", "failed", "expired", "cancelled")
BATCH_DISCOUNT = 0.5  # the Batch API's price against the direct one


class BatchRunner:
    """Fill a stage client's cache through one batch per set of uncached requests."""

    def __init__(self, client: "LLMClient",
                 progress: Callable[[str, int, int], None] | None = None) -> None:
        self.client = client
        self.con = client.cache._cursor()
        self.progress = progress

    def prefill(self, requests: Sequence["LLMRequest"]) -> dict[str, int]:
        """Submit (or resume) the batch for the uncached requests; cache the usable replies.
        Returns counts: submitted, cached, failed (left to the direct path)."""
        from convkgyarn.llm.client import estimate_tokens, request_key

        c = self.client
        pending: dict[str, tuple["LLMRequest", dict]] = {}
        for r in requests:
            params = c._params(r)
            key = request_key(c.model.model, list(r.messages), params, c.prompt_hash)
            if key not in pending and c.cache.get(key) is None:
                pending[key] = (r, params)
        if not pending:
            return {"submitted": 0, "cached": 0, "failed": 0}
        batch_key = hashlib.sha256(json.dumps([c.stage, c.model.model, sorted(pending)]
                                              ).encode()).hexdigest()[:24]
        row = self.con.execute(
            "SELECT batch_id, status FROM llm_batches WHERE batch_key = ? AND status NOT IN "
            "('failed', 'expired', 'cancelled')", [batch_key]).fetchone()
        if row:
            batch_id = row[0]
            log.info("%s: resuming batch %s (%s)", c.stage, batch_id, row[1])
        else:
            estimate = sum(c.meter.cost(c.model.model, estimate_tokens(list(r.messages)),
                                        c.model.max_tokens) for r, _ in pending.values())
            if c.meter.max_cost is not None and \
                    c.meter.spent + c.meter.reserved + estimate * BATCH_DISCOUNT > c.meter.max_cost:
                raise BudgetExceeded(
                    f"budget of ${c.meter.max_cost:.4f} reached: the batch of {len(pending)} "
                    f"requests is estimated at ${estimate * BATCH_DISCOUNT:.4f}")
            batch_id = self._submit(batch_key, pending)
        batch = self._wait(batch_id, len(pending))
        if batch.status != "completed" or not batch.output_file_id:
            log.warning("%s: batch %s ended %s; its requests are sent directly", c.stage,
                        batch_id, batch.status)
            self._set(batch_key, status=batch.status)
            return {"submitted": len(pending), "cached": 0, "failed": len(pending)}
        cached, failed = self._ingest(batch, pending)
        self._set(batch_key, status="ingested", output_file_id=batch.output_file_id)
        return {"submitted": len(pending), "cached": cached, "failed": failed}

    # -- steps --------------------------------------------------------------------------
    def _call(self, what: str, fn: Callable[[], Any]) -> Any:
        """A Batch or Files API call with the client's retries; a failure is one line."""
        return self.client._retrying(fn, what)

    def _submit(self, batch_key: str, pending: dict[str, tuple["LLMRequest", dict]]) -> str:
        c = self.client
        lines = [json.dumps({"custom_id": key, "method": "POST", "url": "/v1/chat/completions",
                             "body": {"model": c.model.model, "messages": list(r.messages),
                                      **params}}, ensure_ascii=False)
                 for key, (r, params) in pending.items()]
        data = ("\n".join(lines) + "\n").encode()
        uploaded = self._call("upload the batch input", lambda: c._http.files.create(
            file=(f"convkgyarn-{c.stage}-{batch_key}.jsonl", data, "application/jsonl"),
            purpose="batch"))
        batch = self._call("create the batch", lambda: c._http.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions",
            completion_window=c.config.batch_window,
            metadata={"tool": "convkgyarn", "stage": c.stage}))
        self.con.execute(
            "INSERT OR REPLACE INTO llm_batches (batch_key, batch_id, stage, model, "
            "input_file_id, output_file_id, status, requests, created_at, finished_at) "
            "VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, NULL)",
            [batch_key, batch.id, c.stage, c.model.model, uploaded.id, batch.status,
             len(pending), utcnow()])
        log.info("%s: batch %s submitted with %d requests", c.stage, batch.id, len(pending))
        return batch.id

    def _wait(self, batch_id: str, total: int):
        c = self.client
        while True:
            batch = self._call("poll the batch", lambda: c._http.batches.retrieve(batch_id))
            done = batch.request_counts.completed if batch.request_counts else 0
            if self.progress:
                self.progress(batch.status, done, total)
            self.con.execute("UPDATE llm_batches SET status = ? WHERE batch_id = ?",
                             [batch.status, batch_id])
            if batch.status in FINAL:
                return batch
            time.sleep(c.config.batch_poll)

    def _ingest(self, batch, pending: dict[str, tuple["LLMRequest", dict]]) -> tuple[int, int]:
        from convkgyarn.llm.client import parse_json_reply

        c = self.client
        content = self._call("download the batch output",
                             lambda: c._http.files.content(batch.output_file_id))
        text = content.text if hasattr(content, "text") else content.read().decode()
        cached = failed = 0
        seen = set()
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            key = entry.get("custom_id")
            if key not in pending:
                continue
            seen.add(key)
            request, params = pending[key]
            response = entry.get("response") or {}
            reason = None
            try:
                if response.get("status_code") != 200:
                    raise ValueError(f"HTTP {response.get('status_code')} in the batch: "
                                     f"{json.dumps(entry.get('error') or response)[:200]}")
                completion = ChatCompletion.model_validate(response["body"])
                if not completion.choices:
                    raise ValueError("the reply has no choices")
                reply = completion.choices[0].message.content or ""
                usage = completion.usage
                c.meter.settle(c.stage, completion.model or c.model.model, 0.0,
                               usage.prompt_tokens if usage else 0,
                               usage.completion_tokens if usage else 0,
                               discount=BATCH_DISCOUNT)
                if request.schema is not None:
                    request.schema.model_validate(parse_json_reply(reply))
            except (ValueError, ValidationError, KeyError, TypeError) as exc:
                reason = str(exc).splitlines()[0][:300]
                c.cache.fail(key, c.stage, c.model.model, f"batch: {reason}",
                             json.dumps(response)[:2000])
                failed += 1
                continue
            c.cache.put(key, c.stage, c.model.model, c.prompt_hash,
                        {"messages": list(request.messages), "params": params, "batch": batch.id},
                        reply, usage.prompt_tokens if usage else 0,
                        usage.completion_tokens if usage else 0, 0.0, completion.model)
            if completion.model:
                c.served_by.add(completion.model)
            cached += 1
        failed += len(pending.keys() - seen)
        return cached, failed

    def _set(self, batch_key: str, **fields: Any) -> None:
        sets = ", ".join(f"{k} = ?" for k in fields)
        self.con.execute(f"UPDATE llm_batches SET {sets}, finished_at = ? WHERE batch_key = ?",
                         [*fields.values(), utcnow(), batch_key])
