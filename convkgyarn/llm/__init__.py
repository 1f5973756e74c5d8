"""LLM access, in layers, one client per stage built in one place (``build_client``, called
through ``Context.client``):

    LLMClient          structured output: parameters, validation, re-asks; threads  (client)
      CachedTransport  usable replies by request key; failures recorded             (cache)
        transport      DirectTransport (HTTP, reply cap, retries) or DryRunTransport;
                       BatchTransport fills the cache first with --batch   (transport, batch)
    CostMeter          the hook both transports call: reserve, cover, charge, close  (meter)

Progress goes through one reporting hook (``reporter``): logged, so a command's log file
has it, and said to the user.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import duckdb

from convkgyarn.config import LLMConfig
from convkgyarn.errors import BudgetExceeded, EndpointError
from convkgyarn.progress import ProgressHook
from convkgyarn.llm.batch import BatchTransport
from convkgyarn.llm.cache import CachedTransport, ResponseCache
from convkgyarn.llm.client import LLMClient, LLMFatalError, LLMRequest, LLMResult
from convkgyarn.llm.meter import CostMeter, StageUsage
from convkgyarn.llm.transport import DirectTransport, DryRunTransport, Endpoint

__all__ = ["BudgetExceeded", "CostMeter", "EndpointError", "LLMClient", "LLMFatalError",
           "LLMRequest", "LLMResult", "StageUsage", "build_client", "new_meter", "reporter"]

log = logging.getLogger("convkgyarn.llm")


def new_meter(config: LLMConfig) -> CostMeter:
    return CostMeter(prices=dict(config.prices), max_cost=config.max_cost)


def reporter(say: Callable[[str], None] | None) -> Callable[[str], None]:
    """The one way LLM progress reaches people: the log (a command's log file, -v) and
    ``say`` (the terminal)."""
    def report(message: str) -> None:
        log.info(message)
        if say is not None:
            say(message)
    return report


def build_client(con: duckdb.DuckDBPyConnection, config: LLMConfig, stage: str,
                 prompt_hash: str, meter: CostMeter, model: str | None = None,
                 say: Callable[[str], None] | None = None,
                 progress: ProgressHook | None = None) -> LLMClient | None:
    """The client for one stage, or None when no endpoint is configured (rules path)."""
    if not config.configured:
        return None
    settings = getattr(config.stages, stage)
    if model is not None:
        settings = settings.model_copy(update={"model": model})
    report = reporter(say)
    stage_meter = meter.for_stage(stage)
    endpoint = Endpoint(config, stage, settings.model)
    transport = (DryRunTransport(stage_meter, settings.model, settings.max_tokens)
                 if config.dry_run
                 else DirectTransport(endpoint, stage_meter, settings.max_tokens))
    cache = ResponseCache(con)
    batch = (BatchTransport(endpoint, stage_meter, cache.cursor(), config, settings.max_tokens,
                            report) if config.batch and not config.dry_run else None)
    return LLMClient(stage=stage, model=settings, config=config, prompt_hash=prompt_hash,
                     cached=CachedTransport(cache, transport, stage_meter, prompt_hash),
                     meter=stage_meter, batch=batch, report=report,
                     where=f"{settings.model} at {endpoint.where}", stopping=endpoint.stopping,
                     progress=progress)
