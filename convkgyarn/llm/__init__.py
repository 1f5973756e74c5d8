"""LLM access: one OpenAI-compatible client per stage, built in one place (``build_client``,
called through ``Context.client``)."""

from __future__ import annotations

import duckdb

from convkgyarn.config import LLMConfig
from convkgyarn.errors import BudgetExceeded, EndpointError
from convkgyarn.llm.client import (
    CostMeter, LLMClient, LLMFatalError, LLMRequest, LLMResult)

__all__ = ["BudgetExceeded", "CostMeter", "EndpointError", "LLMClient", "LLMFatalError",
           "LLMRequest", "LLMResult", "build_client", "new_meter"]


def new_meter(config: LLMConfig) -> CostMeter:
    return CostMeter(prices=dict(config.prices), max_cost=config.max_cost)


def build_client(con: duckdb.DuckDBPyConnection, config: LLMConfig, stage: str,
                 prompt_hash: str, meter: CostMeter, model: str | None = None,
                 say=None) -> LLMClient | None:
    """The client for one stage, or None when no endpoint is configured (rules path)."""
    if not config.configured:
        return None
    settings = getattr(config.stages, stage)
    if model is not None:
        settings = settings.model_copy(update={"model": model})
    return LLMClient(con, config, stage, settings, prompt_hash, meter, say=say)
