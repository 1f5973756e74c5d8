"""What passes between the layers: a chat request exactly as sent (``Call``, whose content
hash is its cache key) and a reply as received (``Completion``), plus the token estimates
used where a server reports no usage."""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass, field
from typing import Any

# A reply is read at most this far: its envelope (id, model, usage, a server's extras) plus
# REPLY_BYTES_PER_TOKEN bytes for each of max_tokens tokens. A server that keeps max_tokens
# cannot reach it (JSON-escaped non-ASCII text takes about 6 bytes a token); one that
# ignores max_tokens is cut off there and its reply is unusable.
REPLY_ENVELOPE_BYTES = 4096
REPLY_BYTES_PER_TOKEN = 8
# The documented estimate where a server reports no usage, or a reply did not arrive whole:
# 4 bytes of reply text a token (OpenAI's rule of thumb for English; an over-estimate for
# JSON-escaped text, so the budget errs on the safe side).
BYTES_PER_TOKEN_ESTIMATE = 4


def request_key(model: str, messages: list[dict], params: dict, prompt_hash: str) -> str:
    """The cache key: a content hash of everything that decides the reply. Changing how it
    is computed re-asks every cached request; tests pin it."""
    blob = json.dumps({"model": model, "messages": messages, "params": params,
                       "prompt_hash": prompt_hash}, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


def estimate_tokens(messages: list[dict]) -> int:
    """A generous prompt-token estimate (about 3 characters a token), for budgets and dry runs."""
    return max(1, sum(len(m.get("content", "")) for m in messages) // 3 + 8 * len(messages))


def reply_cap(max_tokens: int) -> int:
    """Bytes of one reply body read at most."""
    return REPLY_ENVELOPE_BYTES + REPLY_BYTES_PER_TOKEN * max_tokens


def tokens_read(nbytes: int) -> int:
    """Completion tokens charged for ``nbytes`` of a reply body that has no usable usage
    report: the bytes past the envelope at BYTES_PER_TOKEN_ESTIMATE."""
    return math.ceil(max(0, nbytes - REPLY_ENVELOPE_BYTES) / BYTES_PER_TOKEN_ESTIMATE)


def tokens_in(text: str) -> int:
    """Completion tokens of a whole reply whose server reported no usage."""
    return math.ceil(len(text.encode()) / BYTES_PER_TOKEN_ESTIMATE)


@dataclass(frozen=True)
class Call:
    """One chat request as it goes on the wire; ``key`` is its cache key."""

    model: str
    messages: list[dict]
    params: dict[str, Any]
    key: str

    @classmethod
    def make(cls, model: str, messages: list[dict], params: dict[str, Any],
             prompt_hash: str) -> "Call":
        return cls(model, messages, params, request_key(model, messages, params, prompt_hash))

    @property
    def body(self) -> dict[str, Any]:
        return {"model": self.model, "messages": self.messages, **self.params}


@dataclass
class Completion:
    """A reply: its text, the tokens it was charged, the model the server said served it.
    ``error`` is set for a reply that arrived but cannot be used whatever it says (larger
    than the cap, an error inside a batch; ``text`` then holds what to keep of it, if
    anything); ``dry_run`` when nothing was sent."""

    text: str | None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    served_by: str | None = None
    latency: float = 0.0
    cached: bool = False
    error: str | None = None
    dry_run: bool = False
    stored_request: dict[str, Any] = field(default_factory=dict)  # as kept in llm_cache
