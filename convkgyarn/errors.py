"""Every way a command can stop, each with its documented exit code.

The library raises these; the CLI prints ``str(error)`` as one line and exits with
``error.exit_code``. Anything else that escapes is a bug (exit 1, with the traceback in the
log). The codes are part of the interface (README, "Exit codes"):

    0   done
    1   an unexpected failure (a bug)
    2   bad input: a file, an option, the config, a database that is not a project; or
        the environment: an output path that is a file or a folder not ours, a disk that is
        full or read-only, a damaged database, a memory limit too small
    3   the LLM budget (--max-cost) was reached; finished work is kept
    4   an endpoint failed: the LLM's, or a SPARQL endpoint (verify, kg load --sparql):
        refused, unreachable, gave up after retries, or its replies were unusable
    5   verify --fail-on-drift: some turns' answers changed or went away
    10  nothing to do (refresh found no change)
    75  the project is busy: another convkgyarn command is using it
    130 interrupted (Ctrl-C); finished work is kept, nothing half-written
    143 terminated (SIGTERM, as `kill`, systemd and job schedulers send): handled exactly
        like Ctrl-C, with the conventional code 128 + 15
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_BAD_INPUT = 2
EXIT_BUDGET = 3
EXIT_ENDPOINT = 4
EXIT_DRIFT = 5
EXIT_NOTHING = 10
EXIT_BUSY = 75
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class ConvKGYarnError(Exception):
    """A stop the user should understand from one line."""

    exit_code = EXIT_FAILURE


class UserError(ConvKGYarnError):
    """Bad input: the message names the file, line, option or field."""

    exit_code = EXIT_BAD_INPUT


class BusyError(ConvKGYarnError):
    """Another convkgyarn command holds the project."""

    exit_code = EXIT_BUSY


class BudgetExceeded(ConvKGYarnError):
    """The next LLM request would take spending past ``--max-cost``."""

    exit_code = EXIT_BUDGET


class EndpointError(ConvKGYarnError):
    """An LLM request that cannot succeed however often it is sent (401, 400, gave up)."""

    exit_code = EXIT_ENDPOINT


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived. A ``KeyboardInterrupt``, so every path that cleans up after Ctrl-C
    (rolled-back transactions, temporary files, worker processes, replies in flight) cleans
    up after it too; only the exit code differs."""


# -- the particular ways, each raised where it is found ---------------------------------
class ConfigError(UserError):
    """A config file or option that does not validate; the message names the field."""


class DumpError(UserError):
    """A dump file that cannot be read at all (missing, unreadable, corrupt compression)."""


class NoEntities(UserError):
    """A dump file that loaded no entity: ``text`` names its first rejected line, and ``hint``
    points at `kg rejects` for the others (a refresh leaves the hint out: its staging load
    is not the project `kg rejects` reads)."""

    def __init__(self, text: str, hint: str = "") -> None:
        super().__init__(text + hint)
        self.text = text


class BadId(UserError):
    """An id not of Wikidata's form on its way into a query: only a KG loaded before ids
    were checked holds one."""


class OutputRefused(UserError):
    """An output path the rule forbids: the message says why and what to give instead."""


class ImportError_(UserError):
    """A ConvQuestions file that does not have the expected shape; the message says where."""


class NoKGToEstimate(UserError):
    """A dry run of a project that has loaded nothing: the real run would load the bundled
    sample first, which a dry run may not do in the project."""


class SparqlError(ConvKGYarnError):
    """A SPARQL endpoint that failed: unreachable, refused the query, or still failing (or
    answering with something that is no SPARQL result) after the retries. Exit 4, one line."""

    exit_code = EXIT_ENDPOINT


class DriftFound(ConvKGYarnError):
    """``verify --fail-on-drift`` found turns whose answer changed or went away."""

    exit_code = EXIT_DRIFT


class PipelineOrderError(ValueError):
    """A stage placed before the stage that writes what it reads, or reading what nothing
    before it produces (a programming error, not the user's)."""
