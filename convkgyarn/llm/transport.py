"""The transport layer: the only code that speaks HTTP to the LLM endpoint, and the only code
that retries.

``Endpoint`` holds what both transports share: the ``openai`` SDK client (its own retries
off), tenacity retries on 429, 5xx, timeouts, dropped connections and broken bodies
(honouring ``Retry-After``), and failures as one line that never shows the key.
``DirectTransport`` sends one chat request and reads its body itself: at most up to the
reply cap (``wire.reply_cap``), within ``timeout`` seconds after the headers, charging the
cost meter for whatever arrived. ``DryRunTransport`` sends nothing and counts estimates. The
Batch API transport is in ``llm.batch``.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import urlsplit

import openai
from openai.types.chat import ChatCompletion
from pydantic import ValidationError
from tenacity import (
    RetryCallState, Retrying, retry_if_exception, stop_after_attempt, stop_when_event_set)
from tenacity.wait import wait_exponential_jitter

from convkgyarn.config import LLMConfig
from convkgyarn.errors import EndpointError
from convkgyarn.llm.meter import Reservation, StageMeter
from convkgyarn.llm.wire import Call, Completion, estimate_tokens, reply_cap, tokens_in, tokens_read

log = logging.getLogger("convkgyarn.llm")
# Bytes of a reply kept at a time: the budget is checked before each piece is kept (a
# piece it cannot pay for is not), so it is never passed, and at most this much of it
# is left unused when reading stops.
READ_CHUNK = 1024


class BrokenReply(Exception):
    """A reply that did not arrive whole: the connection dropped mid-body, or the body
    stalled or dragged past the timeout. Worth another attempt, like a 5xx."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind


class ReplyTooLarge(Exception):
    """The server sent more than the reply cap (it ignores max_tokens)."""

    def __init__(self, cap: int) -> None:
        super().__init__(f"reply larger than {cap:,} bytes (the server ignores max_tokens); "
                         f"stopped reading at {cap:,}")


class EmptyChoices(Exception):
    """A 200 reply without choices: a broken body, worth another attempt."""


TRANSIENT = (openai.APITimeoutError, openai.APIConnectionError,
             openai.APIResponseValidationError, json.JSONDecodeError, EmptyChoices,
             ValidationError, BrokenReply)


def is_transient(exc: BaseException) -> bool:
    """Worth another attempt: rate limits, server errors, timeouts, dropped connections,
    and bodies that arrive broken or not at all."""
    if isinstance(exc, TRANSIENT):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    return False


def read_body(chunks: Iterator[bytes], body: bytearray, cap: int, seconds: float,
              on_bytes: Callable[[int], None] | None = None, piece: int = 1 << 30) -> None:
    """Read an HTTP body into ``body``: never past ``cap`` bytes (ReplyTooLarge, with the
    first ``cap`` bytes kept), within ``seconds`` (BrokenReply). Before each ``piece`` of
    bytes is kept, ``on_bytes(the length with it)`` runs: the budget's hook, which stops the
    reading by raising, and then that piece is not kept. A connection that drops or stalls
    mid-body is a BrokenReply; only the chunk iterator's own errors are read as that,
    whatever HTTP library the SDK uses underneath."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            chunk = next(chunks)
        except StopIteration:
            return
        except Exception as exc:  # noqa: BLE001 - the transport's errors, classified here
            kind = ("stalled after the headers" if "timeout" in type(exc).__name__.lower()
                    else "cut off mid-body")
            raise BrokenReply(kind, f"{type(exc).__name__} after {len(body):,} bytes: "
                              f"{exc}") from exc
        room = cap - len(body)
        for start in range(0, min(len(chunk), room), piece):
            part = chunk[start:min(start + piece, room)]
            if on_bytes is not None:
                on_bytes(len(body) + len(part))
            body += part
        if len(chunk) > room:
            raise ReplyTooLarge(cap)
        if time.monotonic() > deadline:
            raise BrokenReply("too slow", f"the body took longer than {seconds:g} s "
                              f"({len(body):,} bytes)")


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


class Endpoint:
    """One OpenAI-compatible endpoint as one stage uses it: the SDK client, the retries, and
    every failure as one line naming the stage, model and endpoint (never the key)."""

    def __init__(self, config: LLMConfig, stage: str, model: str,
                 http: openai.OpenAI | None = None) -> None:
        self.config = config
        self.stage = stage
        self.model = model
        self._secret = config.api_key.get_secret_value() if config.api_key else ""
        # set when the command stops (Ctrl-C, SIGTERM, an error): requests in flight finish
        # and their replies are cached, but none is retried after that, nor waits to be
        self.stopping = threading.Event()
        self._check_config()
        try:
            self.http = http or openai.OpenAI(
                base_url=config.base_url, api_key=self._secret or "no-key",
                timeout=config.timeout, max_retries=0)
        except Exception as exc:  # noqa: BLE001 - the SDK rejects the URL
            raise EndpointError(f"{self.stage} ({model}): llm.base_url {config.base_url!r} "
                                f"is not a usable URL ({self.clean(str(exc))})") from None

    def _check_config(self) -> None:
        """An endpoint no request could reach: one line now (exit 4), not retries."""
        base = self.config.base_url
        if base is not None:
            parts = urlsplit(base)
            if parts.scheme not in ("http", "https") or not parts.netloc:
                raise EndpointError(
                    f"{self.stage} ({self.model}): llm.base_url {base!r} is not an http:// "
                    "or https:// URL (OPENAI_BASE_URL, [llm] base_url or --base-url)")
        try:
            self._secret.encode("ascii")
        except UnicodeEncodeError:
            raise EndpointError(
                f"{self.stage} ({self.model}): llm.api_key (OPENAI_API_KEY or [llm] api_key) "
                "holds characters other than ASCII, which an HTTP header cannot carry; check "
                "for a pasted quote or space") from None

    @property
    def where(self) -> str:
        return self.config.base_url or "the OpenAI API"

    def retrying(self, call: Callable[[], Any], what: str = "") -> Any:
        """``call`` with retries on 429/5xx/timeouts/broken bodies (honouring Retry-After);
        a failure that cannot succeed, or the last one, is one EndpointError line."""
        config = self.config

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            after = _retry_after(exc) if exc else None
            if after is not None:
                return min(after, 120.0)
            return wait_exponential_jitter(multiplier=0.5, max=config.backoff_max,
                                           jitter=0.5)(state)

        def before_sleep(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            log.info("%s: attempt %d failed (%s); retrying", self.stage, state.attempt_number,
                     self.clean(str(exc))[:200])

        retrying = Retrying(retry=retry_if_exception(is_transient),
                            stop=stop_after_attempt(config.max_attempts)
                            | stop_when_event_set(self.stopping),
                            wait=wait, sleep=self.stopping.wait, before_sleep=before_sleep,
                            reraise=True)
        doing = f" ({what})" if what else ""
        try:
            for attempt in retrying:
                with attempt:
                    return call()
        except openai.APIStatusError as exc:
            if is_transient(exc):
                raise EndpointError(self.describe(exc, "gave up after "
                                                  f"{config.max_attempts} attempts{doing}")
                                    ) from None
            raise EndpointError(self.describe(exc, f"cannot succeed; not retried{doing}")
                                ) from None
        except TRANSIENT as exc:
            raise EndpointError(self.describe(exc, f"gave up after {config.max_attempts} "
                                              f"attempts{doing}")) from None
        raise AssertionError("unreachable")

    def describe(self, exc: BaseException, what: str) -> str:
        status = getattr(exc, "status_code", None)
        head = f"{self.stage} ({self.model}) at {self.where}: "
        head += f"HTTP {status}, {what}" if status else f"{_kind(exc)}, {what}"
        body = self.clean(getattr(exc, "message", None) or str(exc))
        body = " ".join(body.split())
        if status == 401:
            body = "the API key was refused (check OPENAI_API_KEY or [llm] api_key). " + body
        return f"{head}: {body[:300]}"

    def clean(self, text: str) -> str:
        """Never let the API key through, even if a server echoes it back."""
        if self._secret:
            text = text.replace(self._secret, "***")
        return re.sub(r"sk-[A-Za-z0-9_\-]{8,}", "sk-***", text)


def _kind(exc: BaseException) -> str:
    if isinstance(exc, BrokenReply):
        return f"replies {exc.kind}"
    return {"APIConnectionError": "endpoint unreachable", "APITimeoutError": "timed out",
            "EmptyChoices": "replies without choices", "ValidationError": "malformed replies",
            "JSONDecodeError": "broken reply bodies"}.get(type(exc).__name__,
                                                          type(exc).__name__)


class DirectTransport:
    """Chat completions, one HTTP request each (threads above send several at once).

    Every attempt that received any of a reply is charged: as the server's usage report
    says when the reply is whole, else as estimated from the bytes read (``wire``). A reply
    is read only as far as the reply cap and the budget allow: past the cap it is unusable
    (the server ignores max_tokens), past the budget the command stops (BudgetExceeded).
    """

    def __init__(self, endpoint: Endpoint, meter: StageMeter, max_tokens: int) -> None:
        self.endpoint = endpoint
        self.meter = meter
        self.max_tokens = max_tokens
        self.cap = reply_cap(max_tokens)

    def send(self, call: Call) -> Completion:
        prompt = estimate_tokens(call.messages)
        reservation = self.meter.reserve(call.model, prompt, self.max_tokens)
        try:
            return self.endpoint.retrying(lambda: self._attempt(call, reservation, prompt))
        finally:
            reservation.close()

    def _attempt(self, call: Call, reservation: Reservation, prompt: int) -> Completion:
        reservation.cover(prompt, self.max_tokens)  # a retry may cost a whole reply again

        def on_bytes(n: int) -> None:
            if tokens_read(n) > self.max_tokens:  # past what the hold covers
                reservation.cover(prompt, tokens_read(n))

        body = bytearray()
        t0 = time.perf_counter()
        try:
            with self.endpoint.http.chat.completions.with_streaming_response.create(
                    **call.body) as raw:
                read_body(raw.iter_bytes(), body, self.cap, self.endpoint.config.timeout,
                          on_bytes, piece=READ_CHUNK)
            reply = ChatCompletion.model_validate_json(bytes(body))
            if not reply.choices:
                raise EmptyChoices("the reply has no choices")
        except ReplyTooLarge as exc:
            reservation.charge(call.model, prompt, tokens_read(len(body)))
            return Completion(None, error=str(exc))
        except BaseException:
            if body:  # what arrived is paid for, whole or not
                reservation.charge(call.model, prompt, tokens_read(len(body)))
            raise
        text = reply.choices[0].message.content or ""
        usage = reply.usage
        prompt_tokens = usage.prompt_tokens if usage else prompt
        completion_tokens = usage.completion_tokens if usage else tokens_in(text)
        # priced as the model the server says served the request (another server may serve
        # "gpt-4o" with a model of its own: unknown models cost 0, with a note)
        served_by = reply.model or None
        reservation.charge(served_by or call.model, prompt_tokens, completion_tokens)
        return Completion(text, prompt_tokens, completion_tokens, served_by,
                          latency=time.perf_counter() - t0,
                          stored_request={"messages": call.messages, "params": call.params})


class DryRunTransport:
    """Sends nothing: counts each request that would be sent, with its estimated tokens."""

    def __init__(self, meter: StageMeter, model: str, max_tokens: int) -> None:
        self.meter = meter
        self.model = model
        self.max_tokens = max_tokens
        self._counted: set[str] = set()  # request keys this dry run has counted

    def send(self, call: Call) -> Completion:
        if call.key in self._counted:  # the same request twice: the real run's cache answers
            self.meter.count("cached")
            return Completion(None, dry_run=True)
        self._counted.add(call.key)
        prompt = estimate_tokens(call.messages)
        self.meter.count("estimated_calls")
        self.meter.count("estimated_tokens", prompt + self.max_tokens)
        self.meter.count("estimated_usd", self.meter.meter.cost(self.model, prompt,
                                                                 self.max_tokens))
        return Completion(None, dry_run=True)
