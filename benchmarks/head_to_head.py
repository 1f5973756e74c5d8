"""Two releases' conversations about the same subjects, side by side and blind: did a change
make them better to read? The blind rating against ConvQuestions (blind_rating.py) draws its
pairs from each export, so two rounds differ by about ten points on the sample alone; here
every pair holds the same subject in both releases, and only the release differs.

    python benchmarks/head_to_head.py build OLD NEW [--config voice-deixis] [--pairs 40]
                                                [--moving]
        pairs one conversation per subject from benchmarks/.work/rating-OLD and rating-NEW
        (exports that blind_rating.py build made), for the first N subjects, in a seeded
        order, whose conversations differ, each pair in a random order. The set folder
        benchmarks/.work/ab-OLD-vs-NEW/set/ holds brief.md and pairs.json only; the key
        (the side that is NEW) goes beside it. --moving: only the subjects whose NEW
        conversation moves to another topic (a turn with hop_from), in export order, beside
        the OLD one (ab-OLD-vs-NEW-moving/): what a change to --hops does where it acts,
        when reseeding changes every other conversation too.
    (a rater reads only the set folder and writes set/ratings.json: {"P00": {"R": "A",
     "F": "Same", "D": "B"}, ...})
    python benchmarks/head_to_head.py score OLD NEW [--rater WHO] [--ratings FILE] [--moving]
        counts the pairs won by each release on relevance (R), fluency (F) and, since
        0.8.15, diversity (D; sets built before then were not asked it) and appends them,
        with both exports' commits, to benchmarks/ratings/head_to_head.jsonl.

The first run (r24, 0.8.7, against r26, 0.8.8 before one rule was reverted) is kept in
benchmarks/ratings/ab/.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
from collections import Counter
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
WORK = REPO / "benchmarks" / ".work"
RECORD = REPO / "benchmarks" / "ratings" / "head_to_head.jsonl"
BRIEF = REPO / "benchmarks" / "ratings" / "brief_head_to_head.md"


def conversations(export: Path, config: str, moving: bool = False
                  ) -> dict[str, list[list[dict]]]:
    """Subject id -> its conversations of one configuration, each as the rater sees it
    (questions and answers only); ``moving``: only those with a turn about another topic."""
    out: dict[str, list[list[dict]]] = {}
    with open(export) as f:
        for line in f:
            r = json.loads(line)
            if r["config"]["name"] == config and (
                    not moving or any(t.get("hop_from") is not None for t in r["turns"])):
                out.setdefault(r["entity"]["id"], []).append(
                    [{"q": t["question"], "a": t["answer"]} for t in r["turns"]])
    return out


def pair_up(old: dict, new: dict, n: int, seed: int, ordered: bool = False
            ) -> tuple[list[dict], dict[str, str]]:
    """Up to ``n`` pairs: for each subject in a seeded order (``ordered``: the new export's
    order), the first of its old conversations the new export does not hold beside the
    first new one the old does not, in a random order; subjects whose conversations are
    the same in both are skipped. Returns the pairs and the key (pair id -> the side that
    is new)."""
    rng = random.Random(seed)
    if ordered:
        subjects = [s for s in new if s in old]
    else:
        subjects = sorted(set(old) | set(new))
        rng.shuffle(subjects)
    pairs, key = [], {}
    for subject in subjects:
        before = [c for c in old.get(subject, []) if c not in new.get(subject, [])]
        after = [c for c in new.get(subject, []) if c not in old.get(subject, [])]
        if not before or not after:
            continue
        pid = f"P{len(pairs):02d}"
        if rng.random() < 0.5:
            pairs.append({"id": pid, "A": before[0], "B": after[0]})
            key[pid] = "B"
        else:
            pairs.append({"id": pid, "A": after[0], "B": before[0]})
            key[pid] = "A"
        if len(pairs) == n:
            break
    return pairs, key


def tally(ratings: dict, key: dict[str, str]) -> dict[str, dict[str, int]]:
    """Pairs won by the new release, the old one, or neither, per measure."""
    missing = set(key) - set(ratings)
    if missing:
        sys.exit(f"ratings miss {len(missing)} pairs, e.g. {sorted(missing)[0]}")
    out = {}
    # D (diversity) only where the rater was asked it (sets built since 0.8.15)
    asked = {"D" in ratings[p] for p in key}
    if asked == {True, False}:
        sys.exit("ratings give D (diversity) for some pairs only: rate it for every pair")
    measures = ("R", "F", "D") if asked == {True} else ("R", "F")
    for measure in measures:
        won = Counter("same" if ratings[p][measure] == "Same" else
                      "new" if ratings[p][measure] == side else "old"
                      for p, side in key.items())
        out[measure] = {k: won.get(k, 0) for k in ("new", "old", "same")}
    return out


def export_of(label: str) -> Path:
    """A rating's export: under the paper's configuration names where an experiment's
    options renamed its configurations (blind_rating.py build --options)."""
    renamed = WORK / f"rating-{label}" / "conversations-paper-names.jsonl"
    return renamed if renamed.exists() else WORK / f"rating-{label}" / "conversations.jsonl"


def folder(old: str, new: str, moving: bool = False) -> Path:
    return WORK / f"ab-{old}-vs-{new}{'-moving' if moving else ''}"


def build(old: str, new: str, config: str, n: int, seed: int, moving: bool = False) -> None:
    here = folder(old, new, moving)
    if here.exists():
        sys.exit(f"{here} exists: remove it or pick other labels")
    exports = [export_of(label) for label in (old, new)]
    for export in exports:
        if not export.exists():
            sys.exit(f"{export} does not exist: run blind_rating.py build first")
    sides = [conversations(exports[0], config), conversations(exports[1], config, moving)]
    for export, side in zip(exports, sides):
        if not side:
            sys.exit(f"{export} holds no {'moving ' if moving else ''}conversations of "
                     f"{config}")
    pairs, key = pair_up(*sides, n, seed, ordered=moving)
    (here / "set").mkdir(parents=True)
    (here / "set" / "pairs.json").write_text(json.dumps(pairs, ensure_ascii=False, indent=1))
    shutil.copy(BRIEF, here / "set" / "brief.md")
    (here / "key.json").write_text(json.dumps(key))
    (here / "settings.json").write_text(json.dumps(
        {"config": config, "pairs": len(pairs), "seed": seed,
         "exports": [str(e.relative_to(WORK)) for e in exports],
         **({"selection": "only the subjects whose new conversation moves to another topic "
                          "(a hop)"} if moving else {})}))
    print(f"{len(pairs)} pairs: {here / 'set'} (give a rater only that folder)")


def score(old: str, new: str, rater: str, ratings: Path | None, moving: bool = False) -> None:
    here = folder(old, new, moving)
    given = json.loads((ratings or here / "set" / "ratings.json").read_text())
    figures = tally(given, json.loads((here / "key.json").read_text()))
    commits = [json.loads((WORK / f"rating-{label}" / "settings.json").read_text())
               .get("commit") for label in (old, new)]
    record = {"date": date.today().isoformat(), "old": old, "new": new, "rater": rater,
              "commits": commits, **json.loads((here / "settings.json").read_text()),
              "won": figures}
    with open(RECORD, "a") as f:
        f.write(json.dumps(record) + "\n")
    print(json.dumps(figures))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("old")
    b.add_argument("new")
    b.add_argument("--config", default="voice-deixis")
    b.add_argument("--pairs", type=int, default=40)
    b.add_argument("--seed", type=int, default=5)
    b.add_argument("--moving", action="store_true",
                   help="only the subjects whose new conversation moves to another topic")
    s = sub.add_parser("score")
    s.add_argument("old")
    s.add_argument("new")
    s.add_argument("--rater", default="unnamed")
    s.add_argument("--ratings", type=Path, default=None)
    s.add_argument("--moving", action="store_true", help="score the --moving set")
    args = ap.parse_args()
    if args.command == "build":
        build(args.old, args.new, args.config, args.pairs, args.seed, args.moving)
    else:
        score(args.old, args.new, args.rater, args.ratings, args.moving)


if __name__ == "__main__":
    main()
