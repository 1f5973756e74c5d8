"""The report: a table like the paper's Table 3 (Markdown and CSV) and a plot, from metrics."""

from __future__ import annotations

import csv

from convkgyarn.report import write_report


def row(model, config, turn, conv, na):
    return {"model": model, "config": config, "conversations": 10, "turns": 40,
            "mean_turn": turn, "mean_turn_ci": (turn - 0.1, turn + 0.1),
            "mean_conversation": conv, "mean_conversation_ci": (conv - 0.1, conv + 0.1),
            "na_ratio": na, "na_ratio_ci": (0.0, na + 0.05), "decided_by_matcher": 30,
            "decided_by_judge": 8, "undecided": 2}


def test_report_tables_and_plot(tmp_path):
    rows = [row("m1", "voice", 0.75, 0.7, 0.1), row("m1", "text", 0.5, 0.45, 0.2),
            row("m2", "voice", 0.6, 0.55, 0.0)]
    ratings = [{"config": "voice", "model": "rater", "n": 3, "fluency": 4.0, "relevance": 4.5,
                "diversity": 3.0, "grammar": 4.25}]
    paths = write_report(rows, ratings, tmp_path)
    assert [p.name for p in paths] == ["report.md", "results.csv", "recall.png"]
    md = (tmp_path / "report.md").read_text()
    assert "| voice | 0.750 [0.650, 0.850]" in md
    assert "| text |" in md and " - |" in md  # m2 has no text row
    assert "by the LLM judge: 24" in md and "| voice | rater | 3 | 4.00 |" in md
    table = list(csv.DictReader(open(tmp_path / "results.csv")))
    assert len(table) == 3 and float(table[0]["mean_turn_lo"]) == 0.65
    assert (tmp_path / "recall.png").read_bytes()[:4] == b"\x89PNG"
