"""A blind rating per language (issue #35): the same plans' conversations in English,
German, Japanese and Chinese, each read by a rater of that language who never sees the key,
scored, and recorded here over time.

    python benchmarks/language_rating.py build LABEL [--file real-entities-dev.ndjson.bz2]
        loads the real file with its German, Japanese and Chinese labels (and the property
        list and preferred labels), generates voice-deixis in en, de, ja and zh
        (100 plans, 5 turns, rules path), picks 30 plans (seeded) and writes, for each
        language, benchmarks/.work/lang-rating-LABEL/set-CODE/ with brief.md (a copy of
        benchmarks/ratings/brief_language.md) and single.json (that language's
        conversations of those plans, shuffled, anonymised); the key (which plan each id
        is) goes to benchmarks/.work/lang-rating-LABEL/key.json.
    (a rater who reads the language rates only its folder and writes ratings.json there)
    python benchmarks/language_rating.py score LABEL [--rater "who rated"]
        Likert means per language, and each language's difference from English on the same
        plans; appended to benchmarks/ratings/language_ratings.jsonl.

The target (issue #35): each language's fluency and grammar within 0.5 of English's on the
same plans.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics as st
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SHARED = REPO.parent / "shared"
WORK = REPO / "benchmarks" / ".work"
RECORD = REPO / "benchmarks" / "ratings" / "language_ratings.jsonl"
BRIEF = REPO / "benchmarks" / "ratings" / "brief_language.md"
LANGUAGES = ["en", "de", "ja", "zh"]
NAMES = {"en": "English", "de": "German", "ja": "Japanese", "zh": "Chinese"}
PLANS, SAMPLE, TURNS = 100, 30, 5


def commit() -> str:
    out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO,
                         capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def build(label: str, file: str, seed: int) -> None:
    from convkgyarn.config import GenerateConfig
    from tests.helpers import project

    here = WORK / f"lang-rating-{label}"
    if here.exists():
        sys.exit(f"{here} exists: pick another label")
    here.mkdir(parents=True)
    data = SHARED / "data"
    with tempfile.TemporaryDirectory() as tmp, project(Path(tmp) / "p.duckdb") as p:
        p.load([data / "wikidata" / file],
               labels=[data / "wikidata" / "property-labels-en.json",
                       data / "labels" / "preferred-labels-en.json"],
               languages=[c for c in LANGUAGES if c != "en"])
        result = p.generate([GenerateConfig(interaction="voice", deixis=True,
                                            conversations=PLANS, turns=TURNS, seed=seed,
                                            languages=LANGUAGES)])
        records = p.records(result.runs)
    plans: dict[str, dict[str, dict]] = {}
    for r in records:
        plans.setdefault(r["fact_set_id"], {})[r["language"]] = r
    rng = random.Random(2035)
    chosen = rng.sample(sorted(plans), min(SAMPLE, len(plans)))
    key = {}
    for code in LANGUAGES:
        folder = here / f"set-{code}"
        folder.mkdir()
        items = [(fs, plans[fs][code]) for fs in chosen]
        rng.shuffle(items)
        single = []
        for i, (fs, r) in enumerate(items):
            cid = f"{code.upper()}{i:03d}"
            key[cid] = fs
            single.append({"id": cid, "turns": [{"q": t["question"], "a": t["answer"]}
                                                for t in r["turns"]]})
        (folder / "single.json").write_text(json.dumps(single, ensure_ascii=False, indent=1),
                                            encoding="utf-8")
        brief = BRIEF.read_text(encoding="utf-8").replace("{LANGUAGE}", NAMES[code])
        (folder / "brief.md").write_text(brief, encoding="utf-8")
    (here / "key.json").write_text(json.dumps(key))
    (here / "settings.json").write_text(json.dumps(
        {"file": file, "seed": seed, "plans": PLANS, "rated_plans": len(chosen),
         "turns": TURNS, "commit": commit()}))
    print(f"sets: {', '.join(str(here / f'set-{c}') for c in LANGUAGES)} (give each rater "
          f"only its folder; key: {here / 'key.json'})")


def score(label: str, rater: str) -> None:
    here = WORK / f"lang-rating-{label}"
    means = {}
    for code in LANGUAGES:
        ratings = json.loads((here / f"set-{code}" / "ratings.json").read_text())
        means[code] = {d: round(st.mean(v[d] for v in ratings.values()), 2) for d in "FG"}
    gaps = {code: {d: round(means[code][d] - means["en"][d], 2) for d in "FG"}
            for code in LANGUAGES if code != "en"}
    record = {"date": date.today().isoformat(), "label": label, "rater": rater,
              **json.loads((here / "settings.json").read_text()),
              "means": means, "difference_from_english": gaps}
    with open(RECORD, "a") as f:
        f.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(json.dumps(record, indent=1, ensure_ascii=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("label")
    b.add_argument("--file", default="real-entities-dev.ndjson.bz2")
    b.add_argument("--seed", type=int, default=0)
    s = sub.add_parser("score")
    s.add_argument("label")
    s.add_argument("--rater", default="unnamed")
    args = ap.parse_args()
    if args.command == "build":
        build(args.label, args.file, args.seed)
    else:
        score(args.label, args.rater)


if __name__ == "__main__":
    main()
