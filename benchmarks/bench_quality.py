"""Quality on real Wikidata: the real files in ../shared/data/wikidata, loaded as a user
would (property list + preferred labels, CoDEx-M's types as value labels since 0.8.23), the
paper's eight configurations, measured with the black-box tools in ../shared/tools (defects,
grammar, style). Prints one table per file, then the readability table (issue #33):
flow_defects.py (given the dump's own labels merged by dump_labels.py, as its doc asks) and
our detectors (benchmarks/readability.py), as shares
per configuration, with examples of every defect found.

The rules path (no LLM configured) is what this measures: it is the path every user has.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from benchmarks.blind_rating import LABEL_FILES, VALUE_LABEL_FILES  # noqa: E402
from benchmarks.readability import detect  # noqa: E402
from convkgyarn.config import GenerateConfig, paper_configs  # noqa: E402
from convkgyarn.kg.snapshot import type_labels  # noqa: E402
from tests.helpers import project  # noqa: E402

SHARED = REPO.parent / "shared"
FILES = ["real-entities-dev.ndjson.bz2", "entities-635.ndjson.bz2", "dump-sample-100.json.bz2"]
DEFECTS = ["raw_id_q", "raw_id_a", "housekeeping", "year_mismatch", "unit_singular",
           "iso_date", "ended_present", "long_text", "wh_text"]


SHORT = {"raw_id_q": "idQ", "raw_id_a": "idA", "housekeeping": "hk", "year_mismatch": "year",
         "unit_singular": "unit", "iso_date": "iso", "ended_present": "ended",
         "long_text": "long", "wh_text": "wh"}


def tool(name: str, *args: str) -> dict:
    out = subprocess.run([sys.executable, str(SHARED / "tools" / name), *args],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


FLOW = ["type_deixis", "restated_value", "same_answer", "doubled_word", "text_filler_start"]
OURS = ["same_answer_any", "data_date", "trivia_opener", "long_name_repeated",
        "type_reference", "built_on"]
READ_SHORT = {"type_deixis": "tdeix", "restated_value": "restate", "same_answer": "same",
              "doubled_word": "dbl", "text_filler_start": "filler",
              "same_answer_any": "same*", "data_date": "ddate", "trivia_opener": "trivia",
              "long_name_repeated": "longnm", "type_reference": "this", "built_on": "built"}


def readability(export: Path, dump: Path, labels: list[Path], tmp: Path,
                kinds: dict[str, str]) -> None:
    """The readability detectors per configuration, with examples (issue #33). ``kinds``:
    the nouns the project gave types that no label file names (``KIND_SIGNS``), added to
    the merged labels so that both tools judge a type as the conversations treat it."""
    merged = tmp / "labels.json"
    subprocess.run([sys.executable, str(SHARED / "tools" / "dump_labels.py"), str(merged),
                    *map(str, labels), str(dump)], capture_output=True, check=True)
    known = json.loads(merged.read_text())
    labelled = {**{t: k for t, k in kinds.items() if k and t not in known}, **known}
    merged.write_text(json.dumps(labelled))
    flow = tool("flow_defects.py", str(export), "--labels", str(merged), "--json")
    records = [json.loads(line) for line in export.read_text().splitlines() if line]
    ours = detect(records, labelled)
    print("readability in % (" + ", ".join(f"{READ_SHORT[k]} = {k}" for k in FLOW + OURS)
          + "): flow_defects.py, then ours")
    print(f"{'configuration':26} " + " ".join(f"{READ_SHORT[k]:>7}" for k in FLOW + OURS))
    for config in sorted(ours):
        f = flow["by_config"].get(config, {})
        print(f"{config:26} " + " ".join(f"{100 * f.get(k, 0):>7.2f}" for k in FLOW)
              + " " + " ".join(f"{100 * ours[config][k]:>7.2f}" for k in OURS))
    for key, found in (flow.get("examples") or {}).items():
        for text in found[:2]:
            print(f"  e.g. {key}: {text}")
    for config in sorted(ours):
        for key, found in ours[config]["examples"].items():
            for text in found[:2]:
                print(f"  e.g. {config} {key}: {text}")


def only(export: Path, config: str, dest: Path) -> Path:
    """The conversations of one configuration (the grammar tool reads whole exports)."""
    with open(export) as src, open(dest, "w") as out:
        for line in src:
            if json.loads(line)["config"]["name"] == config:
                out.write(line)
    return dest


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--conversations", type=int, default=200)
    args = ap.parse_args()
    if not (SHARED / "data" / "wikidata").is_dir():
        sys.exit(f"no real data at {SHARED / 'data' / 'wikidata'}")
    grammar = shutil.which("link-parser") is not None
    if not grammar:
        print("(link-parser not installed: `apt-get install link-grammar` for the grammar "
              "column)")

    for name in FILES:
        with tempfile.TemporaryDirectory() as tmp_dir:
            tmp = Path(tmp_dir)
            dump = SHARED / "data" / "wikidata" / name
            t0 = time.perf_counter()
            with project(tmp / "p.duckdb") as p:
                p.load([dump], labels=LABEL_FILES, value_labels=VALUE_LABEL_FILES)
                result = p.generate(paper_configs(GenerateConfig(
                    conversations=args.conversations, turns=5)))
                p.write_outputs(result.runs, tmp)
                kinds = type_labels(p.con, [r[0] for r in p.con.execute(  # as assembly
                    "SELECT DISTINCT type_id FROM templates").fetchall()], infer=True)
            took = time.perf_counter() - t0
            export = tmp / "conversations.jsonl"
            report = tool("real_quality.py", str(export), str(dump), "--json")
            print(f"\n{name}: load + 8 configurations x {args.conversations} conversations "
                  f"in {took:.0f} s")
            print("defects in % of turns: " + ", ".join(f"{SHORT[d]} = {d}" for d in DEFECTS))
            print(f"{'configuration':26} {'subj':>4} {'turns':>5} "
                  + " ".join(f"{SHORT[d]:>5}" for d in DEFECTS)
                  + "  grammar  words    wh  deixis")
            for config, fig in sorted(report["by_config"].items()):
                if config == "ALL":
                    continue
                part = only(export, config, tmp / f"{config}.jsonl")
                g = tool("grammar_rate.py", str(part))["parsed_without_null_links"] \
                    if grammar else float("nan")
                style = tool("style_stats.py", str(part))
                print(f"{config:26} {fig.get('subjects', 0):>4} "
                      f"{fig.get('turns_per_conversation', 0):>5.2f} "
                      + " ".join(f"{100 * fig.get(d, 0):>5.2f}" for d in DEFECTS)
                      + f"  {g:>7.3f}  {style['words_per_question']:>5.1f}"
                      f"  {style['wh_start']:>4.2f}  {style['deixis_in_followups']:>6.2f}")
            readability(export, dump, LABEL_FILES + VALUE_LABEL_FILES, tmp, kinds)


if __name__ == "__main__":
    main()
