"""How the CLI shows progress (``convkgyarn.progress.StepProgress`` events from any stage,
the LLM layer included): in a terminal, a live bar per step (items done, rate, time left,
and for LLM requests the tokens and USD so far); otherwise one quiet line per step when it
ends. Every command that opens a project shows it (``common.open_project``)."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import (
    BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn,
    TimeRemainingColumn)
from rich.text import Text

from convkgyarn.progress import StepProgress


class _Rate(ProgressColumn):
    """Items per second of a task, in its own unit ("3.2 epochs/s")."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        unit = task.fields.get("unit", "")
        return Text(f"{speed:,.1f} {unit}/s" if speed else f"- {unit}/s",
                    style="progress.data.speed")


class _Spent(ProgressColumn):
    """Tokens and USD spent so far by an LLM step (blank for other steps)."""

    def render(self, task) -> Text:
        tokens, usd = task.fields.get("tokens"), task.fields.get("usd")
        if tokens is None:
            return Text("")
        return Text(f"{tokens:,} tok ${usd or 0:.4f}", style="progress.data.speed")


def _line(event: StepProgress, seconds: float) -> str:
    total = f" of {event.total:,}" if event.total and event.total != event.done else ""
    spent = (f"; {event.tokens:,} tokens, ${event.usd or 0:.4f}"
             if event.tokens is not None else "")
    note = f"; {event.note}" if event.note else ""
    return f"{event.step}: {event.done:,}{total} {event.unit} in {seconds:.1f}s{spent}{note}"


class ProgressDisplay:
    """The progress hook of a command (a context manager around the command's work)."""

    def __init__(self, console: Console, say, live: bool | None = None) -> None:
        self.live = console.is_terminal if live is None else live
        self.say = say
        self.started: dict[str, float] = {}
        self.tasks: dict[str, int] = {}
        self.bars = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                             _Rate(), TimeRemainingColumn(), TimeElapsedColumn(), _Spent(),
                             console=console, transient=False) if self.live else None

    def __enter__(self) -> ProgressDisplay:
        if self.bars:
            self.bars.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.bars:
            self.bars.stop()

    def __call__(self, event: StepProgress) -> None:
        now = time.perf_counter()
        self.started.setdefault(event.step, now)
        if self.bars:
            fields = {"tokens": event.tokens, "usd": event.usd}
            if event.step not in self.tasks:
                self.tasks[event.step] = self.bars.add_task(event.step, total=event.total,
                                                            unit=event.unit, **fields)
            task = self.tasks[event.step]
            self.bars.update(task, completed=event.done, total=event.total, **fields)
            if event.finished:
                self.bars.update(task, total=event.done,
                                 description=f"{event.step}" + (f" ({event.note})"
                                                                if event.note else ""))
                self.bars.stop_task(task)
                del self.tasks[event.step]  # the same step again later: a new bar
                del self.started[event.step]
            return
        if event.finished:
            self.say(_line(event, now - self.started.pop(event.step)))
