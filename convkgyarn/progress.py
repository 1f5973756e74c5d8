"""Progress of long steps: the one event every stage, the LLM layer and the loader send, and
the one hook they send it to (``Context.progress``). What shows it is the caller's choice:
the CLI's ``convkgyarn.cli.progress.ProgressDisplay`` draws live bars in a terminal and one
quiet line per step otherwise; a library user passes any callable (or nothing: no output).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class StepProgress:
    """One progress event of a long step: ``done`` of ``total`` (None: unknown) ``unit``;
    ``finished`` once when the step ends (``note`` says how, e.g. why training stopped).
    LLM steps also carry the tokens and the cost in USD spent so far by the step."""

    step: str
    done: int
    total: int | None
    unit: str
    finished: bool = False
    note: str = ""
    tokens: int | None = None
    usd: float | None = None


ProgressHook = Callable[[StepProgress], None]


def no_progress(event: StepProgress) -> None:
    """The hook of a caller that shows nothing."""


def counted(n: int, singular: str, plural: str | None = None) -> str:
    """``n`` and its noun as a message says them: "1 entry", "2,301 entries" (never
    "1 entries"); ``plural`` defaults to the singular with an s."""
    return f"{n:,} {singular if n == 1 else plural or singular + 's'}"
