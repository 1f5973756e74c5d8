"""The blind rating loop: our conversations beside human-written ConvQuestions ones, rated by
a reader who never sees which is which, scored, and recorded here over time.

    python benchmarks/blind_rating.py build LABEL [--file real-entities-dev.ndjson.bz2]
        loads the real file (with the property list and the preferred labels), generates the
        paper's eight configurations (200 conversations, 5 turns, rules path), and builds a
        blind set with ../shared/tools/blind_set.py: benchmarks/.work/rating-LABEL/set/ holds
        brief.md (a copy of benchmarks/ratings/brief.md), single.json and pairs.json, and
        nothing else; the key goes to benchmarks/.work/rating-LABEL/key.json.
    (a rater reads only the set folder and writes set/ratings.json: a person, or a model
     given only brief.md and the two files)
    python benchmarks/blind_rating.py build LABEL --min-sitelinks 50
        the same with only the subjects people know (at least 50 sitelinks), one
        conversation each: the exp-popular-only experiment, which found relevance no higher.
    python benchmarks/blind_rating.py build LABEL --options '{"hops": true}'
        the same with generate options other than the defaults (an experiment; the options
        are recorded with the figures).
    python benchmarks/blind_rating.py build LABEL --no-value-labels
        the same without CoDEx-M's type names as value labels (as every round before 0.8.23).
    python benchmarks/blind_rating.py score LABEL [--rater "who rated"] [--ratings FILE]
        scores it with blind_set.py and appends the figures, with the commit, the export's
        settings and the rater, to benchmarks/ratings/ratings.jsonl. A second rater of the
        same set works in a copy of the set folder and is scored with --ratings pointing
        at their ratings.json (three raters of the r15 set agreed on relevance to the
        point: the spread between rounds comes from the conversations drawn, not the rater).

The targets (issue #33, the ConvKGYarn paper's figures against ConvQuestions): voice-deixis
preferred over a human conversation at least 50% of the time on fluency and relevance, 40%
on diversity and 60% on grammar; voice Likert fluency and relevance within 0.3 of the human
conversations rated by the same reader.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SHARED = REPO.parent / "shared"
WORK = REPO / "benchmarks" / ".work"
RECORD = REPO / "benchmarks" / "ratings" / "ratings.jsonl"
BRIEF = REPO / "benchmarks" / "ratings" / "brief.md"
CONVERSATIONS, TURNS = 200, 5
# generate options every rating sets itself: --options may not change them
FIXED_OPTIONS = frozenset({"turns", "seed", "conversations", "entities", "interaction",
                           "deixis", "disfluency", "typos", "same_facts", "languages"})
# the property list and the preferred labels every rating loads with the dump
LABEL_FILES = [SHARED / "data" / "wikidata" / "property-labels-en.json",
               SHARED / "data" / "labels" / "preferred-labels-en.json"]
# and, since 0.8.23, CoDEx-M's type names as labels of values only (`kg load --value-labels`:
# occupations, genres, fields the dump's values lack; --no-value-labels for the rounds before)
VALUE_LABEL_FILES = [SHARED / "data" / "codex-m" / "types-en.json"]


def commit() -> str:
    out = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=REPO,
                         capture_output=True, text=True)
    return out.stdout.strip() or "unknown"


def build(label: str, file: str, seed: int, min_sitelinks: int = 0,
          options: dict | None = None, no_value_labels: bool = False) -> None:
    from convkgyarn.config import GenerateConfig, paper_configs
    from tests.helpers import project

    here = WORK / f"rating-{label}"
    if here.exists():
        sys.exit(f"{here} exists: pick another label")
    if options is not None:
        if not isinstance(options, dict):
            sys.exit("--options: a JSON object of generate options, such as '{\"hops\": true}'")
        fixed = sorted(set(options) & FIXED_OPTIONS)
        if fixed:
            sys.exit(f"--options: {', '.join(fixed)} are the rating's own (the paper's eight "
                     "configurations, 200 conversations, 5 turns, English): give others")
    (here / "set").mkdir(parents=True)
    dump = SHARED / "data" / "wikidata" / file
    sample = {"conversations": CONVERSATIONS}
    with tempfile.TemporaryDirectory() as tmp, project(Path(tmp) / "p.duckdb") as p:
        p.load([dump], labels=LABEL_FILES,
               value_labels=[] if no_value_labels else VALUE_LABEL_FILES)
        if min_sitelinks:  # the experiment: only entities people know, one conversation each
            popular = [r[0] for r in p.con.execute(
                "SELECT id FROM entities WHERE coalesce(sitelinks, 0) >= ? ORDER BY id",
                [min_sitelinks]).fetchall()]
            sample = {"conversations": len(popular), "entities": popular}
        result = p.generate(paper_configs(GenerateConfig(turns=TURNS, seed=seed, **sample,
                                                         **(options or {}))))
        p.write_outputs(result.runs, here)
    export = here / "conversations.jsonl"
    if options:  # the blind set knows the paper's names: "voice-hops" is rated as "voice"
        export = here / "conversations-paper-names.jsonl"
        with open(here / "conversations.jsonl") as src, open(export, "w") as out:
            for line in src:
                record = json.loads(line)
                c = record["config"]
                c["name"] = "-".join([c["interaction"]] + [
                    p for p in ("deixis", "disfluency", "typos") if c[p]])
                out.write(json.dumps(record) + "\n")
    subprocess.run([sys.executable, str(SHARED / "tools" / "blind_set.py"), "build",
                    str(export), str(SHARED / "data" / "convquestions"),
                    str(here / "set"), str(here / "key.json")], check=True)
    shutil.copy(BRIEF, here / "set" / "brief.md")
    (here / "settings.json").write_text(json.dumps(
        {"file": file, "seed": seed, "conversations": sample["conversations"], "turns": TURNS,
         "commit": commit(), **({"min_sitelinks": min_sitelinks} if min_sitelinks else {}),
         **({"options": options} if options else {}),
         **({"value_labels": False} if no_value_labels else {})}))
    print(f"blind set: {here / 'set'} (give a rater only that folder; key: {here / 'key.json'})")


def score(label: str, rater: str, ratings: Path | None = None) -> None:
    here = WORK / f"rating-{label}"
    ratings = ratings or here / "set" / "ratings.json"
    out = subprocess.run([sys.executable, str(SHARED / "tools" / "blind_set.py"), "score",
                          str(ratings), str(here / "key.json")],
                         capture_output=True, text=True, check=True)
    figures = json.loads(out.stdout)
    record = {"date": date.today().isoformat(), "label": label, "rater": rater,
              **json.loads((here / "settings.json").read_text()), "scores": figures}
    with open(RECORD, "a") as f:
        f.write(json.dumps(record) + "\n")
    print(json.dumps(figures, indent=1))


def main(doc: str = __doc__, build=build, score=score, single_set: bool = True) -> None:
    """``build LABEL [--file F] [--seed N] [--min-sitelinks N] [--options JSON]`` and
    ``score LABEL [--rater WHO] [--ratings FILE]`` (also the per-language rating's command
    line, which builds a set per language and so takes neither --min-sitelinks, --options
    nor --ratings: ``single_set``)."""
    ap = argparse.ArgumentParser(description=doc,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build")
    b.add_argument("label")
    b.add_argument("--file", default="real-entities-dev.ndjson.bz2")
    b.add_argument("--seed", type=int, default=0)
    if single_set:
        b.add_argument("--min-sitelinks", type=int, default=0,
                       help="an experiment: only subjects with this many sitelinks or more, "
                            "one conversation each (the exp-popular-only rating: 50)")
        b.add_argument("--options", type=json.loads, default=None,
                       help='an experiment: generate options other than the defaults, as '
                            'JSON (\'{"hops": true}\'), recorded with the figures')
        b.add_argument("--no-value-labels", action="store_true",
                       help="load without CoDEx-M's value labels, as rounds before 0.8.23")
    s = sub.add_parser("score")
    s.add_argument("label")
    s.add_argument("--rater", default="unnamed")
    if single_set:
        s.add_argument("--ratings", type=Path, default=None,
                       help="a rater's ratings.json (default: the set folder's)")
    args = ap.parse_args()
    # the single set's options, passed only where given (the per-language build and score
    # take none)
    given = {k: v for k, v in vars(args).items() if k in (
        "min_sitelinks", "options", "ratings", "no_value_labels") and v is not None and v != 0}
    if args.command == "build":
        build(args.label, args.file, args.seed, **given)
    else:
        score(args.label, args.rater, **given)


if __name__ == "__main__":
    main()
