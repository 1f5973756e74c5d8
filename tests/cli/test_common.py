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
