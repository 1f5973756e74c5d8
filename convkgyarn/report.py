"""The evaluation report: a Markdown and CSV table like the paper's Table 3, and a plot.

Conversations in several languages (issue #35) are reported per language: each row of
the tables and each bar of the plot is a configuration in one language, and the recall of
each language against English over the same plans has its own section, table
(``language_effects.csv``) and plot. A project whose conversations are all English gets
the report it always got (results.csv has a ``language`` column, last, of ``en``)."""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from convkgyarn.outputs import (
    EFFECTS_CSV, LANGUAGE_EFFECTS_CSV, PNG_SOFTWARE, REPORT_MD, REPORT_PNG, RESULTS_CSV,
    OutputKind, OutputRefused, check_file, replacing_file)

REPORT_FILES = {"report.md": REPORT_MD, "results.csv": RESULTS_CSV, "recall.png": REPORT_PNG,
                "effects.csv": EFFECTS_CSV, "effects.png": REPORT_PNG,
                "language_effects.csv": LANGUAGE_EFFECTS_CSV,
                "language_effects.png": REPORT_PNG}
LANGUAGE_EFFECTS_FIELDS = [
    "model", "config", "language", "base_language", "pairs", "base_mean", "mean", "effect",
    "effect_lo", "effect_hi", "base_only_right", "language_only_right", "mcnemar_p",
    "conversations", "conversation_base_mean", "conversation_mean", "conversation_effect",
    "conversation_effect_lo", "conversation_effect_hi"]


def check_report_folder(out: Path, force: bool = False, protected: Iterable[Path] = ()) -> None:
    """Refuse, before any work, a report folder that is a file, or one holding files of the
    report's names that convkgyarn did not write (unless ``force``)."""
    if out.exists() and not out.is_dir():
        raise OutputRefused(f"{out}: is a file; --out takes the folder the report goes to")
    for name, kind in REPORT_FILES.items():
        check_file(out / name, kind, force=force, protected=protected)


def _write(path: Path, kind: OutputKind, fill: Callable[[Path], None], force: bool,
           protected: Iterable[Path]) -> Path:
    with replacing_file(path, kind, force=force, protected=protected) as tmp:
        fill(tmp)
    return path


def _fmt(value: float, ci: tuple[float, float] | None = None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    text = f"{round(value, 3) + 0.0:.3f}"  # + 0.0: no "-0.000"
    if ci and not any(math.isnan(x) for x in ci):
        text += f" [{round(ci[0], 3) + 0.0:.3f}, {round(ci[1], 3) + 0.0:.3f}]"
    return text


def _language(row: dict[str, Any]) -> str:
    return row.get("language") or "en"


def _language_key(code: str) -> tuple[int, str]:
    return (code != "en", code)


def write_report(rows: list[dict[str, Any]], ratings: list[dict[str, Any]], out: Path,
                 effects: list[dict[str, Any]] = (), force: bool = False,
                 protected: Iterable[Path] = (),
                 language_effects: list[dict[str, Any]] = ()) -> list[Path]:
    """report.md, results.csv and recall.png (with effects, effects.csv and effects.png;
    with language effects, language_effects.csv and language_effects.png) in ``out``, each
    replaced only when complete and only when it is a previous report's file (or with
    ``force``); other files in the folder are never touched."""
    check_report_folder(out, force, protected)
    csv_path = out / "results.csv"
    fields = ["model", "config", "conversations", "turns", "mean_turn", "mean_turn_lo",
              "mean_turn_hi", "mean_conversation", "mean_conversation_lo", "mean_conversation_hi",
              "na_ratio", "na_ratio_lo", "na_ratio_hi", "decided_by_matcher", "decided_by_judge",
              "undecided", "current_share", "outdated_share", "wrong_share", "na_share",
              "language"]  # last: a results table of an earlier release is still ours

    def results_csv(path: Path) -> None:
        with open(path, "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=fields)
            w.writeheader()
            for r in rows:
                w.writerow({**{k: r[k] for k in fields if k in r},
                            "mean_turn_lo": r["mean_turn_ci"][0],
                            "mean_turn_hi": r["mean_turn_ci"][1],
                            "mean_conversation_lo": r["mean_conversation_ci"][0],
                            "mean_conversation_hi": r["mean_conversation_ci"][1],
                            "na_ratio_lo": r["na_ratio_ci"][0], "na_ratio_hi": r["na_ratio_ci"][1],
                            "language": _language(r)})

    _write(csv_path, RESULTS_CSV, results_csv, force, protected)
    multilingual = any(_language(r) != "en" for r in rows)
    models = sorted({r["model"] for r in rows})
    groups = sorted({(r["config"], _language(r)) for r in rows},
                    key=lambda g: (g[0], _language_key(g[1])))
    by = {(r["model"], r["config"], _language(r)): r for r in rows}
    lines = ["# Fact recall by configuration", "",
             "Mean score per turn, mean per conversation (the mean of each conversation's turn "
             "mean) and the share of NA answers, with 95% bootstrap intervals over "
             "conversations" + (", per configuration and the language its conversations "
                                "are in." if multilingual else "."), ""]
    lead = "| configuration | language | " if multilingual else "| configuration | "
    header = lead + " | ".join(
        f"{m} turn | {m} conversation | {m} NA" for m in models) + " |"
    lines += [header, "|" + "---|" * ((2 if multilingual else 1) + 3 * len(models))]
    for c, language in groups:
        cells = []
        for m in models:
            r = by.get((m, c, language))
            cells += [_fmt(r["mean_turn"], r["mean_turn_ci"]) if r else "-",
                      _fmt(r["mean_conversation"], r["mean_conversation_ci"]) if r else "-",
                      _fmt(r["na_ratio"], r["na_ratio_ci"]) if r else "-"]
        name = f"{c} | {language}" if multilingual else c
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    matcher = sum(r["decided_by_matcher"] for r in rows)
    judge = sum(r["decided_by_judge"] for r in rows)
    undecided = sum(r["undecided"] for r in rows)
    lines += ["", f"Turns decided by the deterministic matcher: {matcher}; by the LLM judge: "
              f"{judge}; undecided (judge reply unusable, scored 0): {undecided}."]
    configs = sorted({c for c, _ in groups})
    if any(r.get("outdated_share") for r in rows) or any("changes" in c for c in configs):
        lang_head, lang_rule = ("language | ", "---|") if multilingual else ("", "")
        lines += ["", "## Current or outdated knowledge", "",
                  "Share of turns answered with the current value, with a value the fact held "
                  "before (an ended statement's, or the older snapshot's in stale-knowledge "
                  "probes, configurations ending in `-changes`), with something else, or NA.",
                  "", f"| model | configuration | {lang_head}turns | current | outdated | "
                  "wrong | NA |", f"|---|---|{lang_rule}---|---|---|---|---|"]
        for r in rows:
            lang_cell = f"{_language(r)} | " if multilingual else ""
            lines.append(f"| {r['model']} | {r['config']} | {lang_cell}{r['turns']} | "
                         f"{r.get('current_share', 0):.3f} | {r.get('outdated_share', 0):.3f} | "
                         f"{r.get('wrong_share', 0):.3f} | {r.get('na_share', 0):.3f} |")
    paths = []
    if effects:
        lang_head, lang_rule = ("language | ", "---|") if multilingual else ("", "")
        lines += ["", "## Phenomenon effects (paired, same facts)", "",
                  "Each phenomenon against its base configuration, over turns asking about "
                  "the same statement" + (" in the same language" if multilingual else "") +
                  ": effect = mean(phenomenon - base) with a 95% bootstrap "
                  "interval over subject entities; McNemar's exact test on the turns only one "
                  "side got right.", "",
                  f"| model | configuration | base | {lang_head}pairs | base | with phenomenon | "
                  "effect | right only in base | right only with phenomenon | McNemar p |",
                  f"|---|---|---|{lang_rule}---|---|---|---|---|---|---|"]
        for e in effects:
            lang_cell = f"{_language(e)} | " if multilingual else ""
            lines.append(f"| {e['model']} | {e['config']} | {e['base']} | {lang_cell}"
                         f"{e['pairs']} | {e['base_mean']:.3f} | {e['mean']:.3f} | "
                         f"{_fmt(e['effect'], e['effect_ci'])} | {e['base_only_right']} | "
                         f"{e['phenomenon_only_right']} | {e['mcnemar_p']:.3g} |")
        def effects_table(path: Path) -> None:
            with open(path, "w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(["model", "config", "base", "pairs", "base_mean", "mean", "effect",
                            "effect_lo", "effect_hi", "base_only_right",
                            "phenomenon_only_right", "mcnemar_p", "language"])
                for e in effects:
                    w.writerow([e["model"], e["config"], e["base"], e["pairs"], e["base_mean"],
                                e["mean"], e["effect"], *e["effect_ci"], e["base_only_right"],
                                e["phenomenon_only_right"], e["mcnemar_p"], _language(e)])

        label = (lambda e: f"{e['config']} [{_language(e)}]") if multilingual else \
            (lambda e: e["config"])
        paths += [_write(out / "effects.csv", EFFECTS_CSV, effects_table, force, protected),
                  _write(out / "effects.png", REPORT_PNG,
                         lambda p: _plot_effects(effects, p, label,
                                                 "effect on the mean turn score (phenomenon "
                                                 "- base)", "Phenomenon effects, paired over "
                                                 "the same facts"), force, protected)]
    if language_effects:
        lines += ["", "## Languages against English (paired, same plans)", "",
                  "Each language's recall against English in the same configuration, over "
                  "the same plans: a plan's conversations in its languages ask the same "
                  "statements turn by turn (the same `fact_set_id`). Per turn: effect = "
                  "mean(language - English) over the paired turns, with a 95% bootstrap "
                  "interval over subject entities and McNemar's exact test on the turns only "
                  "one language got right. Per conversation: the mean over plans of the "
                  "language's mean turn score minus English's, its interval the same way.",
                  "", "| model | configuration | language | turn pairs | English | language | "
                  "effect per turn | right only in English | right only in the language | "
                  "McNemar p | conversations | English | language | effect per conversation |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for e in language_effects:
            lines.append(
                f"| {e['model']} | {e['config']} | {e['language']} | {e['pairs']} | "
                f"{e['base_mean']:.3f} | {e['mean']:.3f} | {_fmt(e['effect'], e['effect_ci'])} | "
                f"{e['base_only_right']} | {e['language_only_right']} | {e['mcnemar_p']:.3g} | "
                f"{e['conversations']} | {e['conversation_base_mean']:.3f} | "
                f"{e['conversation_mean']:.3f} | "
                f"{_fmt(e['conversation_effect'], e['conversation_effect_ci'])} |")

        def language_table(path: Path) -> None:
            with open(path, "w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=LANGUAGE_EFFECTS_FIELDS)
                w.writeheader()
                for e in language_effects:
                    w.writerow({**{k: e[k] for k in LANGUAGE_EFFECTS_FIELDS if k in e},
                                "effect_lo": e["effect_ci"][0], "effect_hi": e["effect_ci"][1],
                                "conversation_effect_lo": e["conversation_effect_ci"][0],
                                "conversation_effect_hi": e["conversation_effect_ci"][1]})

        paths += [_write(out / "language_effects.csv", LANGUAGE_EFFECTS_CSV, language_table,
                         force, protected),
                  _write(out / "language_effects.png", REPORT_PNG,
                         lambda p: _plot_effects(
                             language_effects, p, lambda e: f"{e['config']} [{e['language']}]",
                             "effect on the mean turn score (language - English)",
                             "Languages against English, paired over the same plans"),
                         force, protected)]
    if ratings:
        lines += ["", "## Automatic psychometric ratings (1-5)", "",
                  "| configuration | rater | conversations | fluency | relevance | diversity | "
                  "grammar |", "|---|---|---|---|---|---|---|"]
        for r in ratings:
            lines.append(f"| {r['config']} | {r['model']} | {r['n']} | {r['fluency']:.2f} | "
                         f"{r['relevance']:.2f} | {r['diversity']:.2f} | {r['grammar']:.2f} |")
    md_path = _write(out / "report.md", REPORT_MD,
                     lambda p: p.write_text("\n".join(lines) + "\n"), force, protected)
    png_path = _write(out / "recall.png", REPORT_PNG,
                      lambda p: _plot(rows, models, groups, multilingual, p), force, protected)
    return [md_path, csv_path, png_path, *paths]


def _save(fig, path: Path) -> None:
    """PNG whatever the (temporary) file's name, saying in its text that we wrote it."""
    from convkgyarn import __version__

    fig.savefig(path, dpi=120, format="png",
                metadata={"Software": f"{PNG_SOFTWARE} (convkgyarn {__version__})"})


def _plot_effects(effects: list[dict[str, Any]], path: Path,
                  label: Callable[[dict[str, Any]], str], xlabel: str, title: str) -> None:
    """Horizontal bars of paired effects with their intervals, one per ``label`` and model."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = sorted({e["model"] for e in effects})
    names = sorted({label(e) for e in effects})
    by = {(e["model"], label(e)): e for e in effects}
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(names) * max(1, len(models))), 4))
    height = 0.8 / max(1, len(models))
    for k, m in enumerate(models):
        ys, xs, errs = [], [], [[], []]
        for i, c in enumerate(names):
            e = by.get((m, c))
            if not e:
                continue
            ys.append(i + k * height)
            xs.append(e["effect"])
            lo, hi = e["effect_ci"]
            errs[0].append(max(0.0, e["effect"] - lo) if not math.isnan(lo) else 0.0)
            errs[1].append(max(0.0, hi - e["effect"]) if not math.isnan(hi) else 0.0)
        ax.barh(ys, xs, height, xerr=errs, capsize=3, label=m)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks([i + height * (len(models) - 1) / 2 for i in range(len(names))])
    ax.set_yticklabels(names)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def _plot(rows, models, groups, multilingual: bool, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by = {(r["model"], r["config"], _language(r)): r for r in rows}
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(groups) * max(1, len(models))), 4))
    width = 0.8 / max(1, len(models))
    for k, m in enumerate(models):
        xs, ys, errs = [], [], [[], []]
        for i, (c, language) in enumerate(groups):
            r = by.get((m, c, language))
            if not r:
                continue
            xs.append(i + k * width)
            ys.append(r["mean_turn"])
            errs[0].append(max(0.0, r["mean_turn"] - r["mean_turn_ci"][0]))
            errs[1].append(max(0.0, r["mean_turn_ci"][1] - r["mean_turn"]))
        ax.bar(xs, ys, width, yerr=errs, capsize=3, label=m)
    ax.set_xticks([i + width * (len(models) - 1) / 2 for i in range(len(groups))])
    ax.set_xticklabels([f"{c} [{language}]" if multilingual else c for c, language in groups],
                       rotation=30, ha="right")
    ax.set_ylabel("mean score per turn")
    ax.set_ylim(0, 1)
    ax.set_title("LLM fact recall by configuration" + (" and language" if multilingual else ""))
    ax.legend()
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
