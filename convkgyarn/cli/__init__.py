"""Command line: small command modules over one library entry point (``Project``).

Each command turns its options into typed config, makes one library call and prints the
result. Exit codes are documented in ``convkgyarn.errors`` and the README.
"""

from __future__ import annotations

import logging
import sys
from typing import Annotated

import typer
from rich.logging import RichHandler
from typer.core import TyperGroup

from convkgyarn import __version__
from convkgyarn.cli import (
    evaluate, generate, kg, predicates, refresh, related, templates, verify)
from convkgyarn.cli.common import console, out, sigterm_as_interrupt
from convkgyarn.errors import EXIT_INTERRUPTED, EXIT_TERMINATED, Terminated

GLOBAL_FLAGS = ("-v", "--verbose", "--version")


class GlobalFlagsFirst(TyperGroup):
    """``-v`` and ``--version`` work anywhere on the line, not only before the command."""

    def parse_args(self, ctx, args):
        if "--" in args:
            head, tail = args[:args.index("--")], args[args.index("--"):]
        else:
            head, tail = args, []
        flags = [a for a in head if a in GLOBAL_FLAGS]
        rest = [a for a in head if a not in GLOBAL_FLAGS]
        return super().parse_args(ctx, flags + rest + tail)

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True,
             **extra):
        """Usage errors are one line too (exit 2), like every other failure; SIGTERM is
        handled like Ctrl-C (exit 143) from here on."""
        try:
            with sigterm_as_interrupt():
                rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var,
                                  standalone_mode=False, **extra)
        except typer.Abort as exc:
            if isinstance(exc.__context__, Terminated):
                _one_line("terminated (SIGTERM)")
                rv = EXIT_TERMINATED
            else:
                _one_line("interrupted")
                rv = EXIT_INTERRUPTED
        except Terminated:
            _one_line("terminated (SIGTERM)")
            rv = EXIT_TERMINATED
        except Exception as exc:
            # click's usage errors (typer vendors click, so matched by their interface)
            if type(exc).__name__ == "NoArgsIsHelpError":
                out.print(exc.ctx.get_help())
                rv = 0
            elif hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
                ctx = getattr(exc, "ctx", None)
                where = f" (see `{ctx.command_path} --help`)" if ctx else ""
                _one_line(exc.format_message() + where)
                rv = exc.exit_code
            else:
                raise
        if not standalone_mode:
            return rv
        sys.exit(rv if isinstance(rv, int) else 0)


def _one_line(message: str) -> None:
    from rich.text import Text

    console.print(Text.assemble(("error: ", "bold red"), " ".join(message.split())),
                  soft_wrap=True)


app = typer.Typer(
    cls=GlobalFlagsFirst,
    help="Spin conversational question-answering datasets out of Wikidata "
    "(the ConvKGYarn method) and measure how well LLMs recall those facts.",
    rich_markup_mode="rich",
    pretty_exceptions_show_locals=False,  # locals could hold secrets
    invoke_without_command=True,
)


def _setup_logging(verbose: bool) -> None:
    # the terminal's handler has its own level: a command that logs more to a file (refresh
    # logs INFO to <db>.refresh.log) never prints more lines here
    level = logging.INFO if verbose else logging.WARNING
    logging.basicConfig(
        level=level, format="%(message)s",
        handlers=[RichHandler(console=console, show_path=False, markup=False, level=level)],
        force=True,
    )


def _version(value: bool) -> None:
    if value:
        out.print(__version__)
        raise typer.Exit()


@app.callback()
def main_callback(
    ctx: typer.Context,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log each stage.")] = False,
    version: Annotated[bool, typer.Option("--version", help="Print the version.",
                                          callback=_version, is_eager=True)] = False,
) -> None:
    _setup_logging(verbose)
    if ctx.invoked_subcommand is None:
        out.print(ctx.get_help())
        raise typer.Exit()


for module in (kg, predicates, templates, related, generate, evaluate, refresh, verify):
    module.register(app)


def main() -> None:
    """The ``convkgyarn`` console script."""
    app()
