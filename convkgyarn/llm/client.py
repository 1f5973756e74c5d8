"""The one LLM client: OpenAI-compatible HTTP with a DuckDB response cache, retries,
concurrency, structured-output validation with repair, cost accounting and a budget.

Threads do the HTTP; each result is written to the cache the moment it arrives, so a
killed run resumes from the cache and loses nothing it had received.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import duckdb
import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel, ValidationError
from tenacity import (
    RetryCallState, Retrying, retry_if_exception, stop_after_attempt, stop_when_event_set)
from tenacity.wait import wait_exponential_jitter

from convkgyarn.config import LLMConfig, Price, StageModel
from convkgyarn.errors import BudgetExceeded, EndpointError
from convkgyarn.stage import utcnow

log = logging.getLogger("convkgyarn.llm")

# A request that cannot succeed however often it is sent (401, 400, gave up): stop the run.
LLMFatalError = EndpointError
RAW_KEPT_CHARS = 20_000  # of an unusable reply, in llm_failures


class ReplyTooLarge(Exception):
    """The server sent more than the reply cap (it ignores max_tokens)."""

    def __init__(self, nbytes: int, cap: int) -> None:
        super().__init__(f"reply larger than {cap:,} bytes (the server ignores max_tokens); "
                         f"stopped reading at {nbytes:,}")
        self.nbytes = nbytes


class EmptyChoices(Exception):
    """A 200 reply without choices: a broken body, worth another attempt."""


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


@dataclass
class StageUsage:
    calls: int = 0
    cached: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float = 0.0
    estimated_calls: int = 0
    estimated_tokens: int = 0
    estimated_usd: float = 0.0


@dataclass
class CostMeter:
    """Tokens and USD per stage for one command, and the budget check."""

    prices: dict[str, Price]
    max_cost: float | None = None
    usage: dict[str, StageUsage] = field(default_factory=dict)
    reserved: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _unpriced: set[str] = field(default_factory=set)

    def price(self, model: str) -> Price | None:
        p = self.prices.get(model)
        if p is None:
            # "gpt-4o-2024-08-06" is priced as "gpt-4o": the longest matching prefix wins.
            prefixes = [m for m in self.prices if model.startswith(m)]
            p = self.prices[max(prefixes, key=len)] if prefixes else None
        if p is None and model not in self._unpriced:
            self._unpriced.add(model)
            log.warning("no price for model %s: its cost is counted as 0 (set [llm.prices])", model)
        return p

    def cost(self, model: str, prompt_tokens: int, completion_tokens: int) -> float:
        p = self.price(model)
        return 0.0 if p is None else (prompt_tokens * p.input + completion_tokens * p.output) / 1e6

    @property
    def spent(self) -> float:
        return sum(u.usd for u in self.usage.values())

    def stage(self, name: str) -> StageUsage:
        return self.usage.setdefault(name, StageUsage())

    def reserve(self, model: str, prompt_tokens: int, max_tokens: int) -> float:
        estimate = self.cost(model, prompt_tokens, max_tokens)
        with self._lock:
            if self.max_cost is not None and self.spent + self.reserved + estimate > self.max_cost:
                raise BudgetExceeded(
                    f"budget of ${self.max_cost:.4f} reached: spent ${self.spent:.4f}, next "
                    f"request estimated at ${estimate:.4f}; finished work is cached")
            self.reserved += estimate
        return estimate

    def settle(self, stage: str, model: str, reserved: float, prompt: int, completion: int,
               discount: float = 1.0) -> None:
        """Record a finished request (``discount``: the Batch API's half price)."""
        with self._lock:
            self.reserved -= reserved
            u = self.stage(stage)
            u.calls += 1
            u.prompt_tokens += prompt
            u.completion_tokens += completion
            u.usd += self.cost(model, prompt, completion) * discount

    def count(self, stage: str, what: str, n: int = 1) -> None:
        with self._lock:
            u = self.stage(stage)
            setattr(u, what, getattr(u, what) + n)


def request_key(model: str, messages: list[dict], params: dict, prompt_hash: str) -> str:
    blob = json.dumps({"model": model, "messages": messages, "params": params,
                       "prompt_hash": prompt_hash}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


def estimate_tokens(messages: list[dict]) -> int:
    """A generous prompt-token estimate (about 3 characters a token), for budgets and dry runs."""
    return max(1, sum(len(m.get("content", "")) for m in messages) // 3 + 8 * len(messages))


_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


def parse_json_reply(text: str) -> Any:
    """Parse a model's JSON reply leniently: code fences and raw control characters allowed."""
    m = _FENCE.match(text)
    if m:
        text = m.group(1)
    return json.loads(text, strict=False)


def _retry_after(exc: BaseException) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if not headers:
        return None
    value = headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def is_transient(exc: BaseException) -> bool:
    """Worth another attempt: rate limits, server errors, timeouts, dropped connections,
    and bodies that arrive broken."""
    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError,
                        openai.APIResponseValidationError, json.JSONDecodeError, EmptyChoices,
                        ValidationError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return False


class ResponseCache:
    """Usable responses by content hash, in the project database, and one row per failing
    request; safe to call from worker threads."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        self._lock = threading.Lock()
        self._local = threading.local()

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        """One cursor per thread, made once: creating a cursor per call costs milliseconds."""
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self._local.cursor = self._con.cursor()
        return cur

    def get(self, key: str) -> tuple[str, str | None] | None:
        """(response, the model the server said served it), or None."""
        with self._lock:
            row = self._cursor().execute(
                "SELECT response, served_by FROM llm_cache WHERE key = ?", [key]).fetchone()
        return (row[0], row[1]) if row else None

    def put(self, key: str, stage: str, model: str, prompt_hash: str, request: dict,
            response: str, prompt_tokens: int, completion_tokens: int, latency: float,
            served_by: str | None) -> None:
        with self._lock:
            self._cursor().execute(
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
            self._cursor().execute(
                "INSERT INTO llm_failures (key, stage, model, reason, raw, occurrences, "
                "created_at, last_at) VALUES (?, ?, ?, ?, ?, 1, ?, ?) ON CONFLICT (key) DO "
                "UPDATE SET reason = excluded.reason, raw = excluded.raw, "
                "occurrences = llm_failures.occurrences + 1, last_at = excluded.last_at",
                [key, stage, model, reason, raw, now, now])


class LLMClient:
    """Send chat requests for one pipeline stage through the cache, retries and budget.

    Only usable replies are cached (a reply that fails validation is kept in
    ``llm_failures`` and asked again next time); a re-run therefore asks exactly the work
    that failed before and nothing else.
    """

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        config: LLMConfig,
        stage: str,
        model: StageModel,
        prompt_hash: str,
        meter: CostMeter,
        http: openai.OpenAI | None = None,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.config = config
        self.stage = stage
        self.model = model
        self.prompt_hash = prompt_hash
        self.meter = meter
        self.cache = ResponseCache(con)
        self._secret = config.api_key.get_secret_value() if config.api_key else ""
        self._http = http or openai.OpenAI(
            base_url=config.base_url, api_key=self._secret or "no-key",
            timeout=config.timeout, max_retries=0)
        self._bias_note_logged = False
        # set when the command stops (Ctrl-C, SIGTERM, an error): requests in flight finish
        # and their replies are cached, but none is retried or started after that
        self._stopping = threading.Event()
        self._estimated: set[str] = set()  # request keys a dry run has counted
        self.served_by: set[str] = set()
        self.say = say or (lambda message: None)

    @property
    def reply_cap(self) -> int:
        """Bytes of reply read at most: generous for ``max_tokens`` tokens of JSON."""
        return max(256 << 10, 32 * self.model.max_tokens)

    # -- public ------------------------------------------------------------------------
    def run(self, requests: Sequence[LLMRequest]) -> list[LLMResult]:
        """Answer every request (in order), ``concurrency`` at a time.

        Raises EndpointError or BudgetExceeded once the requests in flight finish; results
        that arrived before are already cached, and requests not yet started are not sent.
        """
        if not requests:
            return []
        if self.config.batch and not self.config.dry_run:
            self._prefill_by_batch(requests)
        if self.config.dry_run:  # nothing is sent
            return [self.one(r) for r in requests]
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
            except BaseException:  # Ctrl-C, SIGTERM, a bug: nothing queued is sent after it
                stop.set()
                self._stopping.set()
                for other in futures:
                    other.cancel()
                raise
            if first_error is not None:
                raise first_error
            return results

    def _prefill_by_batch(self, requests: Sequence[LLMRequest]) -> None:
        """Answer the uncached requests through the Batch API first (see ``llm.batch``)."""
        from convkgyarn.llm.batch import BatchRunner

        shown: dict[str, tuple] = {}

        def progress(status: str, done: int, total: int) -> None:
            if shown.get("last") != (status, done):
                shown["last"] = (status, done)
                self.say(f"{self.stage}: batch {status}, {done:,} of {total:,} requests done")

        counts = BatchRunner(self, progress).prefill(requests)
        if counts["submitted"]:
            self.say(f"{self.stage}: {counts['cached']:,} replies from the batch"
                     + (f"; {counts['failed']:,} unusable, asked directly" if counts["failed"]
                        else ""))

    def one(self, request: LLMRequest) -> LLMResult:
        """One request, with structured-output validation and bounded re-asks (each re-ask
        sends the original messages plus the validation error, never the bad reply)."""
        messages = list(request.messages)
        result = LLMResult(request)
        first_key = None
        for attempt in range(1, self.config.validation_attempts + 1):
            reply = self._complete(messages, request)
            first_key = first_key or reply.key
            result.attempts, result.cached = attempt, reply.cached
            if reply.text is None and reply.error is None:  # dry run
                result.dry_run = True
                return result
            result.text = reply.text
            if reply.error is not None:
                reason = reply.error
            elif request.schema is None:
                self._keep(reply, first_key)
                result.error = None
                return result
            else:
                try:
                    result.parsed = request.schema.model_validate(parse_json_reply(reply.text))
                    self._keep(reply, first_key)
                    result.error = None
                    return result
                except (ValueError, ValidationError) as exc:
                    reason = _short_error(exc)
            result.error = f"invalid structured output after {attempt} attempt(s): {reason}"
            self.cache.fail(reply.key, self.stage, self.model.model, reason, reply.text)
            messages = list(request.messages) + [{"role": "user", "content": (
                f"Your previous reply could not be used: {reason}. Reply again with only the "
                "JSON object, following the required format exactly.")}]
        self.meter.count(self.stage, "failed")
        return result

    # -- internals -----------------------------------------------------------------------
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

    def _complete(self, messages: list[dict], request: LLMRequest) -> "_Reply":
        params = self._params(request)
        key = request_key(self.model.model, messages, params, self.prompt_hash)
        hit = self.cache.get(key)
        if hit is not None:
            self.meter.count(self.stage, "cached")
            if hit[1]:
                self.served_by.add(hit[1])
            return _Reply(key, hit[0], cached=True, served_by=hit[1])
        est_prompt = estimate_tokens(messages)
        if self.config.dry_run:
            if key in self._estimated:  # the same request twice: the real run's cache answers
                self.meter.count(self.stage, "cached")
                return _Reply(key, None)
            self._estimated.add(key)
            self.meter.count(self.stage, "estimated_calls")
            self.meter.count(self.stage, "estimated_tokens", est_prompt + self.model.max_tokens)
            self.meter.count(self.stage, "estimated_usd",
                             self.meter.cost(self.model.model, est_prompt, self.model.max_tokens))
            return _Reply(key, None)
        reserved = self.meter.reserve(self.model.model, est_prompt, self.model.max_tokens)
        t0 = time.perf_counter()
        try:
            response = self._send(messages, params)
        except ReplyTooLarge as exc:
            # what was received is paid for: count it, then treat the reply as unusable
            self.meter.settle(self.stage, self.model.model, reserved, est_prompt,
                              max(self.model.max_tokens, exc.nbytes // 4))
            return _Reply(key, None, error=str(exc))
        except BaseException:
            self.meter.settle(self.stage, self.model.model, reserved, 0, 0)
            raise
        text = response.choices[0].message.content or ""
        usage = response.usage
        prompt_tokens = usage.prompt_tokens if usage else est_prompt
        completion_tokens = usage.completion_tokens if usage else len(text) // 4
        # priced as the model the server says served the request (another server may serve
        # "gpt-4o" with a model of its own: unknown models cost 0, with a note)
        served_by = getattr(response, "model", None) or None
        self.meter.settle(self.stage, served_by or self.model.model, reserved, prompt_tokens,
                          completion_tokens)
        if served_by:
            self.served_by.add(served_by)
        return _Reply(key, text, request={"messages": messages, "params": params},
                      prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
                      latency=time.perf_counter() - t0, served_by=served_by)

    def _keep(self, reply: "_Reply", first_key: str) -> None:
        """Cache a usable reply the moment it is known to be usable, also under the original
        request's key when it took re-asks: a re-run then gets it at once."""
        if reply.text is None:
            return
        for key in dict.fromkeys((reply.key, first_key)):
            if reply.cached and key == reply.key:
                continue
            self.cache.put(key, self.stage, self.model.model, self.prompt_hash, reply.request,
                           reply.text, reply.prompt_tokens if key == reply.key else 0,
                           reply.completion_tokens if key == reply.key else 0, reply.latency,
                           reply.served_by)

    def _post(self, messages: list[dict], params: dict) -> ChatCompletion:
        """One HTTP request whose reply is read up to the cap, then parsed."""
        with self._http.chat.completions.with_streaming_response.create(
                model=self.model.model, messages=messages, **params) as raw:
            body = bytearray()
            for chunk in raw.iter_bytes():
                body += chunk
                if len(body) > self.reply_cap:
                    raise ReplyTooLarge(len(body), self.reply_cap)
        completion = ChatCompletion.model_validate_json(bytes(body))
        if not completion.choices:
            raise EmptyChoices("the reply has no choices")
        return completion

    def _send(self, messages: list[dict], params: dict) -> ChatCompletion:
        return self._retrying(lambda: self._post(messages, params), "")

    def _retrying(self, call: Callable[[], Any], what: str) -> Any:
        """``call`` with retries on 429/5xx/timeouts/broken bodies (honouring Retry-After);
        a failure that cannot succeed, or the last one, is one EndpointError line."""
        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            after = _retry_after(exc) if exc else None
            if after is not None:
                return min(after, 120.0)
            return wait_exponential_jitter(multiplier=0.5, max=self.config.backoff_max,
                                           jitter=0.5)(state)

        def before_sleep(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            log.info("%s: attempt %d failed (%s); retrying", self.stage, state.attempt_number,
                     self._clean(str(exc))[:200])

        retrying = Retrying(retry=retry_if_exception(is_transient),
                            stop=stop_after_attempt(self.config.max_attempts)
                            | stop_when_event_set(self._stopping),
                            wait=wait, sleep=self._stopping.wait, before_sleep=before_sleep,
                            reraise=True)
        doing = f" ({what})" if what else ""
        try:
            for attempt in retrying:
                with attempt:
                    return call()
        except openai.APIStatusError as exc:
            if is_transient(exc):
                raise EndpointError(self._describe(exc, "gave up after "
                                                   f"{self.config.max_attempts} attempts{doing}")
                                    ) from None
            raise EndpointError(self._describe(exc, f"cannot succeed; not retried{doing}")
                                ) from None
        except (openai.APITimeoutError, openai.APIConnectionError,
                openai.APIResponseValidationError, json.JSONDecodeError, EmptyChoices,
                ValidationError) as exc:
            raise EndpointError(self._describe(exc, f"gave up after {self.config.max_attempts} "
                                               f"attempts{doing}")) from None
        raise AssertionError("unreachable")

    def _describe(self, exc: BaseException, what: str) -> str:
        status = getattr(exc, "status_code", None)
        where = self.config.base_url or "the OpenAI API"
        head = f"{self.stage} ({self.model.model}) at {where}: "
        head += f"HTTP {status}, {what}" if status else f"{_kind(exc)}, {what}"
        body = self._clean(getattr(exc, "message", None) or str(exc))
        body = " ".join(body.split())
        if status == 401:
            body = "the API key was refused (check OPENAI_API_KEY or [llm] api_key). " + body
        return f"{head}: {body[:300]}"

    def _clean(self, text: str) -> str:
        """Never let the API key through, even if a server echoes it back."""
        if self._secret:
            text = text.replace(self._secret, "***")
        return re.sub(r"sk-[A-Za-z0-9_\-]{8,}", "sk-***", text)

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


@dataclass
class _Reply:
    key: str
    text: str | None
    cached: bool = False
    error: str | None = None  # unusable before parsing (too large)
    request: dict | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency: float = 0.0
    served_by: str | None = None


def _kind(exc: BaseException) -> str:
    return {"APIConnectionError": "endpoint unreachable", "APITimeoutError": "timed out",
            "EmptyChoices": "replies without choices", "ValidationError": "malformed replies",
            "JSONDecodeError": "broken reply bodies"}.get(type(exc).__name__,
                                                          type(exc).__name__)


def _short_error(exc: BaseException) -> str:
    if isinstance(exc, ValidationError):
        parts = []
        for e in exc.errors()[:5]:
            loc = ".".join(str(x) for x in e["loc"]) or "(root)"
            parts.append(f"{loc}: {e['msg']}")
        return "; ".join(parts)
    return str(exc).splitlines()[0][:300]
