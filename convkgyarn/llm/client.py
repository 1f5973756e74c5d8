"""The structured-output layer, around the cache: what a pipeline stage holds.

A stage hands ``LLMClient.run`` its requests; each becomes a ``Call`` (model, messages,
parameters: its cache key), goes through the cache layer (``llm.cache``) to a transport
(``llm.transport``: direct or dry run; ``llm.batch`` first fills the cache when asked), and
its reply is parsed and validated here. A reply that fails validation is recorded and asked
again with the reason (bounded); only a usable reply is cached, also under the original
request's key. Threads send ``concurrency`` requests at once; each result is cached the
moment it is known usable, so a killed run resumes from the cache and loses nothing it had
received.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from convkgyarn.config import LLMConfig, StageModel
from convkgyarn.errors import BudgetExceeded, EndpointError
from convkgyarn.llm.cache import BatchSender, CachedTransport
from convkgyarn.llm.meter import StageMeter
from convkgyarn.llm.wire import Call, Completion
from convkgyarn.progress import ProgressHook, StepProgress
from convkgyarn.scoring import (  # one reading of replies, also in exported Inspect tasks
    parse_json_reply, reask_message)
from convkgyarn.scoring import short_error as _short_error

log = logging.getLogger("convkgyarn.llm")

# A request that cannot succeed however often it is sent (401, 400, gave up): stop the run.
LLMFatalError = EndpointError


@dataclass
class LLMRequest:
    messages: list[dict[str, str]]
    schema: type[BaseModel] | None = None
    bias_words: Sequence[str] = ()


@dataclass
class LLMResult:
    request: LLMRequest
    text: str | None = None
    parsed: Any = None
    error: str | None = None
    cached: bool = False
    attempts: int = 0
    dry_run: bool = False

    @property
    def ok(self) -> bool:
        return self.error is None and not self.dry_run


class LLMClient:
    """Send one stage's chat requests: structured output, re-asks, concurrency.

    Only usable replies are cached (a reply that fails validation is kept in
    ``llm_failures`` and asked again next time); a re-run therefore asks exactly the work
    that failed before and nothing else.
    """

    def __init__(self, *, stage: str, model: StageModel, config: LLMConfig, prompt_hash: str,
                 cached: CachedTransport, meter: StageMeter, where: str,
                 batch: BatchSender | None = None,
                 report: Callable[[str], None] = lambda message: None,
                 stopping: threading.Event | None = None,
                 progress: ProgressHook | None = None) -> None:
        self.stage = stage
        self.model = model
        self.config = config
        self.prompt_hash = prompt_hash
        self.cached = cached
        self.meter = meter
        self.batch = batch
        self.report = report
        self.progress = progress  # live progress: calls, tokens and USD so far
        self.where = where  # "gpt-4o at http://127.0.0.1:8080/v1", for messages
        self.served_by: set[str] = set()
        self._bias_note_logged = False
        # set when the command stops (Ctrl-C, SIGTERM, an error): the transport retries
        # nothing after that, and nothing queued is sent
        self.stopping = stopping or threading.Event()

    @property
    def dry_run(self) -> bool:
        return self.config.dry_run

    @property
    def answered_by(self) -> str:
        """The model(s) the server said served this stage's replies, else the one asked."""
        return ", ".join(sorted(self.served_by)) or self.model.model

    # -- public ------------------------------------------------------------------------
    def run(self, requests: Sequence[LLMRequest]) -> list[LLMResult]:
        """Answer every request (in order), ``concurrency`` at a time.

        Raises EndpointError or BudgetExceeded once the requests in flight finish; results
        that arrived before are already cached, and requests not yet started are not sent.
        """
        if not requests:
            return []
        if self.batch is not None:
            self._prefill_by_batch(requests)
        if self.dry_run:  # nothing is sent
            return [self.one(r) for r in requests]
        self._tick(0, len(requests))
        # even one request goes through a worker thread: when the command is stopped (Ctrl-C,
        # SIGTERM) this thread stops waiting, and the request in flight still gets its reply
        # (paid for) into the cache
        stop = threading.Event()

        def guarded(request: LLMRequest) -> LLMResult | None:
            return None if stop.is_set() else self.one(request)

        with ThreadPoolExecutor(max_workers=self.config.concurrency) as pool:
            futures = [pool.submit(guarded, r) for r in requests]
            results: list[LLMResult] = []
            first_error: BaseException | None = None
            try:
                for fut in futures:
                    try:
                        result = fut.result()
                    except (EndpointError, BudgetExceeded) as exc:
                        if first_error is None:
                            first_error = exc
                            stop.set()
                            for other in futures:
                                other.cancel()
                        continue
                    except CancelledError:
                        continue
                    if result is not None:
                        results.append(result)
                        self._tick(len(results), len(requests))
            except BaseException:  # Ctrl-C, SIGTERM, a bug: nothing queued is sent after it
                stop.set()
                self.stopping.set()
                for other in futures:
                    other.cancel()
                raise
            if first_error is not None:
                raise first_error
            self._tick(len(results), len(requests), finished=True)
            return results

    def one(self, request: LLMRequest) -> LLMResult:
        """One request, with structured-output validation and bounded re-asks (each re-ask
        sends the original messages plus the reason, never the bad reply)."""
        messages = list(request.messages)
        result = LLMResult(request)
        first: Call | None = None
        for attempt in range(1, self.config.validation_attempts + 1):
            call = self.call_for(request, messages)
            first = first or call
            try:
                reply = self.cached.complete(call)
            except EndpointError:  # the endpoint gave up: a failed call in the usage table
                self.meter.count("failed")
                raise
            result.attempts, result.cached = attempt, reply.cached
            if reply.dry_run:
                result.dry_run = True
                return result
            if reply.served_by:
                self.served_by.add(reply.served_by)
            result.text = reply.text
            parsed, reason = (None, reply.error) if reply.error else self.check(request, reply)
            if reason is None:
                self.cached.keep(call, reply, first)
                result.parsed, result.error = parsed, None
                return result
            result.error = f"invalid structured output after {attempt} attempt(s): {reason}"
            self.cached.reject(call, reason, reply.text)
            messages = list(request.messages) + [reask_message(reason)]
        self.meter.count("failed")
        return result

    def check(self, request: LLMRequest, reply: Completion) -> tuple[Any, str | None]:
        """(the parsed reply, None) when usable, else (None, the reason)."""
        if request.schema is None:
            return None, None
        try:
            return request.schema.model_validate(parse_json_reply(reply.text or "")), None
        except (ValueError, ValidationError) as exc:
            return None, _short_error(exc)

    def call_for(self, request: LLMRequest, messages: list[dict]) -> Call:
        return Call.make(self.model.model, messages, self._params(request), self.prompt_hash)

    # -- internals -----------------------------------------------------------------------
    def _tick(self, done: int, total: int, finished: bool = False) -> None:
        """One progress event: requests answered of this batch of requests, with the tokens
        and USD the stage has spent so far (cached replies cost nothing)."""
        if self.progress is None:
            return
        usage = self.meter.meter.stage(self.stage)
        cached = f"{usage.cached:,} from the cache" if usage.cached else ""
        self.progress(StepProgress(f"{self.stage} LLM requests", done, total, "requests",
                                   finished=finished, note=cached,
                                   tokens=usage.prompt_tokens + usage.completion_tokens,
                                   usd=usage.usd))

    def _prefill_by_batch(self, requests: Sequence[LLMRequest]) -> None:
        """Answer the uncached requests through the Batch API first; the direct path then
        reads their replies from the cache and asks only what the batch could not answer."""
        calls = [self.call_for(r, list(r.messages)) for r in requests]
        by_key = {c.key: r for c, r in zip(calls, requests)}

        def usable(call: Call, text: str) -> str | None:
            return self.check(by_key[call.key], Completion(text))[1]

        counts = self.cached.prefill(calls, self.batch, usable)
        if counts["submitted"]:
            self.report(f"{self.stage}: {counts['cached']:,} replies from the batch"
                        + (f"; {counts['failed']:,} unusable, asked directly"
                           if counts["failed"] else ""))

    def _params(self, request: LLMRequest) -> dict[str, Any]:
        params: dict[str, Any] = {"temperature": self.model.temperature,
                                  "max_tokens": self.model.max_tokens}
        if request.schema is not None:
            schema = request.schema.model_json_schema()
            if self.config.json_mode == "json_schema":
                params["response_format"] = {"type": "json_schema", "json_schema": {
                    "name": request.schema.__name__, "schema": schema, "strict": False}}
            else:
                params["response_format"] = {"type": "json_object", "schema": schema}
        bias = self._logit_bias(request.bias_words)
        if bias:
            params["logit_bias"] = bias
        return params

    def _logit_bias(self, words: Sequence[str]) -> dict[str, int] | None:
        if not words or self.config.logit_bias == "off":
            return None
        base = self.config.base_url
        if base and "openai.com" not in base and "azure" not in base:
            self._note_bias("the endpoint is not OpenAI's and its token ids are unknown")
            return None
        try:
            import tiktoken

            enc = tiktoken.encoding_for_model(self.model.model)
        except Exception as exc:  # noqa: BLE001 - unknown model or no tokenizer file offline
            self._note_bias(f"no tiktoken encoding ({type(exc).__name__})")
            return None
        bias: dict[str, int] = {}
        for word in words:
            for variant in (word, " " + word, word.capitalize(), " " + word.capitalize()):
                ids = enc.encode(variant)
                if len(ids) == 1:
                    bias[str(ids[0])] = -100
        return bias or None

    def _note_bias(self, why: str) -> None:
        if not self._bias_note_logged:
            self._bias_note_logged = True
            log.warning("%s: logit_bias skipped for %s: %s", self.stage, self.model.model, why)
