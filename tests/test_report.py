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


def language_effect(config, language, effect, conv_effect):
    return {"model": "m1", "config": config, "language": language, "base_language": "en",
            "pairs": 40, "base_mean": 0.75, "mean": 0.75 + effect, "effect": effect,
            "effect_ci": (effect - 0.1, effect + 0.1), "base_only_right": 9,
            "language_only_right": 1, "mcnemar_p": 0.0215, "conversations": 10,
            "conversation_base_mean": 0.7, "conversation_mean": 0.7 + conv_effect,
            "conversation_effect": conv_effect,
            "conversation_effect_ci": (conv_effect - 0.05, conv_effect + 0.05)}


def test_a_report_per_language_with_effects_against_english(tmp_path):
    config = "voice-en-de-ja"
    rows = [{**row("m1", config, turn, turn, 0.1), "language": code}
            for code, turn in (("en", 0.75), ("de", 0.55), ("ja", 0.5))]
    effects = [language_effect(config, "de", -0.2, -0.15),
               language_effect(config, "ja", -0.25, -0.3)]
    paths = write_report(rows, [], tmp_path, language_effects=effects)
    assert [p.name for p in paths] == ["report.md", "results.csv", "recall.png",
                                       "language_effects.csv", "language_effects.png"]
    md = (tmp_path / "report.md").read_text()
    assert "| configuration | language | m1 turn |" in md
    assert f"| {config} | de | 0.550 [0.450, 0.650] |" in md
    assert "## Languages against English (paired, same plans)" in md
    assert (f"| m1 | {config} | ja | 40 | 0.750 | 0.500 | -0.250 [-0.350, -0.150] | 9 | 1 | "
            "0.0215 | 10 | 0.700 | 0.400 | -0.300 [-0.350, -0.250] |") in md
    results = list(csv.DictReader(open(tmp_path / "results.csv")))
    assert [(r["config"], r["language"]) for r in results] == [
        (config, "en"), (config, "de"), (config, "ja")]
    table = list(csv.DictReader(open(tmp_path / "language_effects.csv")))
    assert [(r["language"], float(r["effect"]), float(r["conversation_effect_lo"]))
            for r in table] == [("de", -0.2, -0.15 - 0.05), ("ja", -0.25, -0.3 - 0.05)]
    assert (tmp_path / "language_effects.png").read_bytes()[:4] == b"\x89PNG"
    # a report again replaces its own files, and one of an earlier release (no language
    # column) is recognised as ours too
    old = "model,config,conversations,turns,mean_turn,mean_turn_lo\n"
    (tmp_path / "results.csv").write_text(old)
    assert write_report(rows, [], tmp_path, language_effects=effects)


def test_an_english_report_has_no_language_column_but_the_csv_says_en(tmp_path):
    write_report([row("m1", "voice", 0.75, 0.7, 0.1)], [], tmp_path)
    md = (tmp_path / "report.md").read_text()
    assert "| configuration | m1 turn |" in md and "language" not in md
    assert [r["language"] for r in csv.DictReader(open(tmp_path / "results.csv"))] == ["en"]
    assert not (tmp_path / "language_effects.csv").exists()
