"""The evaluation report: a Markdown and CSV table like the paper's Table 3, and a plot."""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from convkgyarn.outputs import (
    EFFECTS_CSV, PNG_SOFTWARE, REPORT_MD, REPORT_PNG, RESULTS_CSV, OutputKind, OutputRefused,
    check_file, replacing_file)

REPORT_FILES = {"report.md": REPORT_MD, "results.csv": RESULTS_CSV, "recall.png": REPORT_PNG,
                "effects.csv": EFFECTS_CSV, "effects.png": REPORT_PNG}


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
    text = f"{value:.3f}"
    if ci and not any(math.isnan(x) for x in ci):
        text += f" [{ci[0]:.3f}, {ci[1]:.3f}]"
    return text


def write_report(rows: list[dict[str, Any]], ratings: list[dict[str, Any]], out: Path,
                 effects: list[dict[str, Any]] = (), force: bool = False,
                 protected: Iterable[Path] = ()) -> list[Path]:
    """report.md, results.csv and recall.png (with effects, effects.csv and effects.png) in
    ``out``, each replaced only when complete and only when it is a previous report's file
    (or with ``force``); other files in the folder are never touched."""
    check_report_folder(out, force, protected)
    csv_path = out / "results.csv"
    fields = ["model", "config", "conversations", "turns", "mean_turn", "mean_turn_lo",
              "mean_turn_hi", "mean_conversation", "mean_conversation_lo", "mean_conversation_hi",
              "na_ratio", "na_ratio_lo", "na_ratio_hi", "decided_by_matcher", "decided_by_judge",
              "undecided", "current_share", "outdated_share", "wrong_share", "na_share"]

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
                            "na_ratio_lo": r["na_ratio_ci"][0], "na_ratio_hi": r["na_ratio_ci"][1]})

    _write(csv_path, RESULTS_CSV, results_csv, force, protected)
    models = sorted({r["model"] for r in rows})
    configs = sorted({r["config"] for r in rows})
    by = {(r["model"], r["config"]): r for r in rows}
    lines = ["# Fact recall by configuration", "",
             "Mean score per turn, mean per conversation (the mean of each conversation's turn "
             "mean) and the share of NA answers, with 95% bootstrap intervals over "
             "conversations.", ""]
    header = "| configuration | " + " | ".join(
        f"{m} turn | {m} conversation | {m} NA" for m in models) + " |"
    lines += [header, "|" + "---|" * (1 + 3 * len(models))]
    for c in configs:
        cells = []
        for m in models:
            r = by.get((m, c))
            cells += [_fmt(r["mean_turn"], r["mean_turn_ci"]) if r else "-",
                      _fmt(r["mean_conversation"], r["mean_conversation_ci"]) if r else "-",
                      _fmt(r["na_ratio"], r["na_ratio_ci"]) if r else "-"]
        lines.append(f"| {c} | " + " | ".join(cells) + " |")
    matcher = sum(r["decided_by_matcher"] for r in rows)
    judge = sum(r["decided_by_judge"] for r in rows)
    undecided = sum(r["undecided"] for r in rows)
    lines += ["", f"Turns decided by the deterministic matcher: {matcher}; by the LLM judge: "
              f"{judge}; undecided (judge reply unusable, scored 0): {undecided}."]
    if any(r.get("outdated_share") for r in rows) or any("changes" in c for c in configs):
        lines += ["", "## Current or outdated knowledge", "",
                  "Share of turns answered with the current value, with a value the fact held "
                  "before (an ended statement's, or the older snapshot's in stale-knowledge "
                  "probes, configurations ending in `-changes`), with something else, or NA.",
                  "", "| model | configuration | turns | current | outdated | wrong | NA |",
                  "|---|---|---|---|---|---|---|"]
        for r in rows:
            lines.append(f"| {r['model']} | {r['config']} | {r['turns']} | "
                         f"{r.get('current_share', 0):.3f} | {r.get('outdated_share', 0):.3f} | "
                         f"{r.get('wrong_share', 0):.3f} | {r.get('na_share', 0):.3f} |")
    paths = []
    if effects:
        lines += ["", "## Phenomenon effects (paired, same facts)", "",
                  "Each phenomenon against its base configuration, over turns asking about "
                  "the same statement: effect = mean(phenomenon - base) with a 95% bootstrap "
                  "interval over subject entities; McNemar's exact test on the turns only one "
                  "side got right.", "",
                  "| model | configuration | base | pairs | base | with phenomenon | effect | "
                  "right only in base | right only with phenomenon | McNemar p |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for e in effects:
            lines.append(f"| {e['model']} | {e['config']} | {e['base']} | {e['pairs']} | "
                         f"{e['base_mean']:.3f} | {e['mean']:.3f} | "
                         f"{_fmt(e['effect'], e['effect_ci'])} | {e['base_only_right']} | "
                         f"{e['phenomenon_only_right']} | {e['mcnemar_p']:.3g} |")
        def effects_table(path: Path) -> None:
            with open(path, "w", newline="") as fh:
                w = csv.writer(fh)
                w.writerow(["model", "config", "base", "pairs", "base_mean", "mean", "effect",
                            "effect_lo", "effect_hi", "base_only_right",
                            "phenomenon_only_right", "mcnemar_p"])
                for e in effects:
                    w.writerow([e["model"], e["config"], e["base"], e["pairs"], e["base_mean"],
                                e["mean"], e["effect"], *e["effect_ci"], e["base_only_right"],
                                e["phenomenon_only_right"], e["mcnemar_p"]])

        paths += [_write(out / "effects.csv", EFFECTS_CSV, effects_table, force, protected),
                  _write(out / "effects.png", REPORT_PNG,
                         lambda p: _plot_effects(effects, p), force, protected)]
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
                      lambda p: _plot(rows, models, configs, p), force, protected)
    return [md_path, csv_path, png_path, *paths]


def _save(fig, path: Path) -> None:
    """PNG whatever the (temporary) file's name, saying in its text that we wrote it."""
    from convkgyarn import __version__

    fig.savefig(path, dpi=120, format="png",
                metadata={"Software": f"{PNG_SOFTWARE} (convkgyarn {__version__})"})


def _plot_effects(effects: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    models = sorted({e["model"] for e in effects})
    configs = sorted({e["config"] for e in effects})
    by = {(e["model"], e["config"]): e for e in effects}
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(configs) * max(1, len(models))), 4))
    height = 0.8 / max(1, len(models))
    for k, m in enumerate(models):
        ys, xs, errs = [], [], [[], []]
        for i, c in enumerate(configs):
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
    ax.set_yticks([i + height * (len(models) - 1) / 2 for i in range(len(configs))])
    ax.set_yticklabels(configs)
    ax.set_xlabel("effect on the mean turn score (phenomenon - base)")
    ax.set_title("Phenomenon effects, paired over the same facts")
    ax.legend()
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)


def _plot(rows, models, configs, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by = {(r["model"], r["config"]): r for r in rows}
    fig, ax = plt.subplots(figsize=(max(6, 1.2 * len(configs) * max(1, len(models))), 4))
    width = 0.8 / max(1, len(models))
    for k, m in enumerate(models):
        xs, ys, errs = [], [], [[], []]
        for i, c in enumerate(configs):
            r = by.get((m, c))
            if not r:
                continue
            xs.append(i + k * width)
            ys.append(r["mean_turn"])
            errs[0].append(max(0.0, r["mean_turn"] - r["mean_turn_ci"][0]))
            errs[1].append(max(0.0, r["mean_turn_ci"][1] - r["mean_turn"]))
        ax.bar(xs, ys, width, yerr=errs, capsize=3, label=m)
    ax.set_xticks([i + width * (len(models) - 1) / 2 for i in range(len(configs))])
    ax.set_xticklabels(configs, rotation=30, ha="right")
    ax.set_ylabel("mean score per turn")
    ax.set_ylim(0, 1)
    ax.set_title("LLM fact recall by configuration")
    ax.legend()
    fig.tight_layout()
    _save(fig, path)
    plt.close(fig)
