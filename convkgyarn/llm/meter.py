"""The cost meter: tokens and USD per stage for one command, and the budget (``--max-cost``).

Both transports call it as a hook, the same way: ``reserve`` before anything is sent (the
most the request may cost, held against the budget), ``cover`` while a reply is read (a reply
longer than the hold needs the budget to grow, or reading stops there), ``charge`` for what
was received, ``close`` when the request is over. The invariant: money charged plus money
held never passes the budget, so a command stops with exit 3 before it spends more than
``--max-cost`` (the one exception: a server's own usage report is charged as it says, even
past what its body's length let us expect).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field

from convkgyarn.config import Price
from convkgyarn.errors import BudgetExceeded

log = logging.getLogger("convkgyarn.llm")


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

    def for_stage(self, stage: str) -> "StageMeter":
        return StageMeter(self, stage)

    def count(self, stage: str, what: str, n: int = 1) -> None:
        with self._lock:
            u = self.stage(stage)
            setattr(u, what, getattr(u, what) + n)

    # -- the budget (called through Reservation) ------------------------------------------
    def _hold(self, extra: float, why: str) -> None:
        """Hold ``extra`` USD more against the budget, or raise BudgetExceeded. Lock held."""
        if self.max_cost is not None and self.spent + self.reserved + extra > self.max_cost + 1e-12:
            raise BudgetExceeded(f"budget of ${self.max_cost:.4f} reached: spent "
                                 f"${self.spent:.4f}, {why} ${extra:.4f} more; finished work "
                                 "is cached")
        self.reserved += extra


class StageMeter:
    """The meter as one stage's transports see it."""

    def __init__(self, meter: CostMeter, stage: str) -> None:
        self.meter = meter
        self.stage = stage

    def reserve(self, model: str, prompt_tokens: int, completion_tokens: int,
                discount: float = 1.0, why: str = "the next request may cost"
                ) -> "Reservation":
        """Hold what a request (or a batch) may cost; BudgetExceeded if the budget cannot."""
        reservation = Reservation(self, model, discount)
        reservation.cover(prompt_tokens, completion_tokens, why)
        return reservation

    def count(self, what: str, n: int = 1) -> None:
        self.meter.count(self.stage, what, n)


class Reservation:
    """Money held against the budget for one request (or one batch) until it is closed."""

    def __init__(self, meter: StageMeter, model: str, discount: float) -> None:
        self._meter = meter
        self.model = model
        self.discount = discount  # the Batch API's half price
        self.held = 0.0
        self.charged_usd = 0.0

    def cover(self, prompt_tokens: int, completion_tokens: int,
              why: str = "the reply being read may cost") -> None:
        """Make the hold cover this many more tokens than charged so far, or raise
        BudgetExceeded (nothing is held then beyond what was)."""
        m = self._meter.meter
        need = m.cost(self.model, prompt_tokens, completion_tokens) * self.discount
        with m._lock:
            if need > self.held:
                m._hold(need - self.held, why)
                self.held = need

    def charge(self, model: str, prompt_tokens: int, completion_tokens: int,
               calls: int = 0) -> None:
        """Record tokens received (priced as ``model``, the one that served them); the hold
        shrinks by as much."""
        m = self._meter.meter
        usd = m.cost(model, prompt_tokens, completion_tokens) * self.discount
        with m._lock:
            u = m.stage(self._meter.stage)
            u.calls += calls
            u.prompt_tokens += prompt_tokens
            u.completion_tokens += completion_tokens
            u.usd += usd
            self.charged_usd += usd
            release = min(self.held, usd)
            self.held -= release
            m.reserved -= release

    def close(self, calls: int = 1) -> None:
        """The request is over: release what is still held and count it."""
        m = self._meter.meter
        with m._lock:
            m.reserved -= self.held
            self.held = 0.0
            m.stage(self._meter.stage).calls += calls
