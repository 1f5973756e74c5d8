"""What every command prints: tables whose numbers are never cut."""

from __future__ import annotations

import io
import re
from types import SimpleNamespace

import pytest
from rich.console import Console

from convkgyarn.cli import common
from convkgyarn.llm.meter import StageUsage


@pytest.mark.parametrize("width", [60, 80])
@pytest.mark.parametrize("estimate", [False, True])
def test_the_usage_table_never_truncates_a_number(monkeypatch, width, estimate):
    usage = {
        "templates.generate": StageUsage(calls=1278, cached=12345, failed=3,
                                         prompt_tokens=94_612_345, completion_tokens=66_912_345,
                                         usd=123.4567, estimated_calls=1278,
                                         estimated_tokens=161_524_690, estimated_usd=98.7654),
        "predicates.select": StageUsage(calls=70, prompt_tokens=1_234_567,
                                        completion_tokens=234_567, usd=0.5),
    }
    buf = io.StringIO()
    monkeypatch.setattr(common, "console", Console(file=buf, width=width, highlight=False))
    common.print_usage(SimpleNamespace(usage=usage), estimate=estimate)
    text = buf.getvalue()
    assert "…" not in text
    numbers = set(re.findall(r"[\d][\d,.]*", text))
    for figure in ("1,278", "12,345", "94,612,345", "66,912,345", "123.4567", "1,234,567"):
        assert figure in numbers, (figure, text)
    if estimate:
        assert "161,524,690" in numbers and "98.7654" in numbers, text


def test_numeric_tables_align_numbers_and_wrap_text():
    buf = io.StringIO()
    Console(file=buf, width=40).print(common.table(
        "a rather long label column", "count", numeric=True,
        rows=[("an uncommonly long label that cannot fit on one line", 1234567)]))
    text = buf.getvalue()
    assert "1,234,567" in text and "…" not in text


def _duckdb_reads_a_stream_that_is_interrupted_by(exc: BaseException) -> None:
    """DuckDB reading a registered Arrow stream whose producer is stopped by a signal
    handler: DuckDB wraps the Python exception in its own InvalidInputException."""
    import duckdb
    import pyarrow as pa

    schema = pa.schema([("x", pa.int64())])

    def batches():
        yield pa.record_batch([pa.array([1])], schema=schema)
        raise exc

    con = duckdb.connect()
    con.register("staged", pa.RecordBatchReader.from_batches(schema, batches()))
    con.execute("CREATE TABLE t AS SELECT * FROM staged").fetchall()


@pytest.mark.parametrize("signalled, code", [("term", 143), ("int", 130)])
def test_a_signal_duckdb_wraps_still_exits_with_the_signal_code(monkeypatch, signalled, code):
    """A SIGTERM (or Ctrl-C) that lands while DuckDB reads a staged Arrow stream is
    'terminated' (143) or 'interrupted' (130), never 'unexpected ... (a bug)'."""
    import typer
    from convkgyarn.errors import Terminated

    buf = io.StringIO()
    monkeypatch.setattr(common, "console", Console(file=buf, width=200, highlight=False))
    monkeypatch.setattr(common, "_sigterm_received", [15] if signalled == "term" else [])
    exc = Terminated() if signalled == "term" else KeyboardInterrupt()

    @common.command
    def body():
        _duckdb_reads_a_stream_that_is_interrupted_by(exc)

    with pytest.raises(typer.Exit) as stopped:
        body()
    assert stopped.value.exit_code == code, buf.getvalue()
    assert "a bug" not in buf.getvalue()
