"""Related entities: how long `related build` takes at each size, and whether its pairs hold up.

1. Time. `convkgyarn related build` with its defaults, as a user runs it (a subprocess,
   start-up included), on the bundled sample, on real-entities-dev and on a scaled KG of
   ~18k entities made by ../shared/tools/make_scaled_kg.py (targets: 120 s and 300 s).
2. CoDEx-M (../shared/data/codex-m: 17,050 entities, 13,223 people, 206k facts). The train
   split becomes a project database (labels where ../shared/data/labels has them, else the
   id; no sitelinks, so every person is "popular"). For every person, each method's pick is
   checked against the facts it never saw (valid + test): is the pair *supported*, i.e.
   linked in a held-out fact directly, or through an item one of them is linked to by a
   held-out fact and the other by any fact (connecting properties only)? Methods: the
   default `shared`; `complex` (the stage's training within its time budget; cosine among
   the 100 best connected candidates); a random connected candidate (the floor); and the
   embedding's nearest person by cosine with no connection required (what 0.5.5 stored):
   how often does that pair share any connecting link at all? And `min_score`: for people
   whose best pair scores below it, is the pick any better than a random connected one?
Link-prediction MRR of the stage's training: `bench_codex.py --stage-defaults`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from convkgyarn.stages.related import (  # noqa: E402
    CANDIDATES_SQL, CONNECTING_PROPERTIES, BuildRelated, nearest_neighbours)
from convkgyarn.store import connect, insert_rows  # noqa: E402
from tests.helpers import context  # noqa: E402

SHARED = REPO.parent / "shared"
DATA = SHARED / "data"
CLI = str(Path(sys.executable).with_name("convkgyarn"))


def run(*args: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "200"})
    if out.returncode:
        sys.exit(f"{' '.join(map(str, args))}: exit {out.returncode}\n{out.stdout}{out.stderr}")
    return time.perf_counter() - t0, out.stdout + out.stderr


def timing(work: Path, scaled: int) -> None:
    labels = ["--labels", DATA / "wikidata" / "property-labels-en.json",
              "--labels", DATA / "labels" / "preferred-labels-en.json"]
    cases = [("bundled sample", [REPO / "wikidata" / "sample-dump.json"], [], 120),
             ("real-entities-dev", [DATA / "wikidata" / "real-entities-dev.ndjson.bz2"],
              labels, None)]
    if scaled:
        dump = work / f"scaled-{scaled}.json"
        subprocess.run([sys.executable, SHARED / "tools" / "make_scaled_kg.py", str(scaled),
                        dump, DATA / "wikidata" / "real-entities-dev.ndjson.bz2",
                        DATA / "wikidata" / "entities-635.ndjson.bz2"], check=True)
        cases.append((f"scaled KG ({scaled:,} entities)", [dump], labels, 300))
    print("`related build` with its defaults (wall time of the command, start-up included)")
    for name, files, extra, target in cases:
        db = work / (name.split()[0] + ".duckdb")
        run("kg", "load", *files, *extra, "--db", db)
        seconds, output = run("related", "build", "--db", db)
        summary = [line for line in output.splitlines() if "related entities for" in line]
        verdict = "" if target is None else \
            f" (target <= {target} s: {'met' if seconds <= target else 'MISSED'})"
        print(f"  {name}: {seconds:.1f} s{verdict}; {summary[0] if summary else output}")


def codex_db(path: Path) -> tuple[dict, list, list]:
    """A project database of CoDEx-M's train split; returns types and the held-out facts."""
    splits = {s: [tuple(line.split()) for line in (DATA / "codex-m" / f"{s}.txt")
                  .read_text().splitlines() if line.strip()] for s in ("train", "valid", "test")}
    types = json.loads((DATA / "codex-m" / "entity2types.json").read_text())
    labels = json.loads((DATA / "labels" / "preferred-labels-en.json").read_text())
    ents = sorted({x for rows in splits.values() for h, _, t in rows for x in (h, t)})
    con = connect(path)
    insert_rows(con, "entities", {"id": ents, "label": [labels.get(e, e) for e in ents],
                                  "sitelinks": [0] * len(ents)})
    typed = [(e, t) for e in ents for t in types.get(e, [])]
    insert_rows(con, "entity_types", {"entity_id": [e for e, _ in typed],
                                      "type_id": [t for _, t in typed],
                                      "via": ["P31"] * len(typed)})
    train = splits["train"]
    insert_rows(con, "statements", {
        "statement_id": [f"{h}-{r}-{t}" for h, r, t in train],
        "entity_id": [h for h, _, _ in train], "property_id": [r for _, r, _ in train],
        "rank": ["normal"] * len(train), "datatype": ["wikibase-item"] * len(train),
        "value_type": ["wikibase-entityid"] * len(train), "value_id": [t for _, _, t in train],
        "truthy": [True] * len(train)})
    con.close()
    return types, train, splits["valid"] + splits["test"]


def adjacency(facts) -> dict[str, set[str]]:
    adj: dict[str, set[str]] = defaultdict(set)
    for h, r, t in facts:
        if r in CONNECTING_PROPERTIES and h != t:
            adj[h].add(t)
            adj[t].add(h)
    return adj


def codex(work: Path, complex_budget: float | None) -> None:
    path = work / "codex.duckdb"
    types, train, held = codex_db(path)
    held_adj, all_adj = adjacency(held), adjacency(train + held)
    train_adj = adjacency(train)

    def supported(p: str, r: str) -> bool:
        return r in held_adj[p] or bool(held_adj[p] & all_adj[r]) or bool(all_adj[p] & held_adj[r])

    def connected(p: str, r: str) -> bool:
        return r in train_adj[p] or bool(train_adj[p] & train_adj[r])

    con = connect(path)
    # min_score: is a pick better than a random connected candidate, below and above it?
    BuildRelated(context(con, work_dir=work, **{"related.min_sitelinks": 0,
                                                "related.min_score": 0})).run()
    loose = {p: (r, s) for p, r, s in con.execute(
        "SELECT entity_id, related_id, score FROM related_entities").fetchall()}
    BuildRelated(context(con, work_dir=work, **{"related.min_sitelinks": 0})).prepare()
    options: dict[str, list[str]] = defaultdict(list)
    everyone = sorted(loose)
    for i in range(0, len(everyone), 500):
        for p, r, *_ in con.execute(CANDIDATES_SQL, [everyone[i:i + 500], 100]).fetchall():
            options[p].append(r)
    rng = random.Random(0)
    threshold = context(con).config.related.min_score
    for below in (True, False):
        group = [p for p in everyone if (loose[p][1] < threshold) == below]
        pick = sum(supported(p, loose[p][0]) for p in group) / max(len(group), 1)
        chance = sum(supported(p, rng.choice(options[p])) for p in group) / max(len(group), 1)
        print(f"  people whose best score is {'below' if below else 'at least'} min_score "
              f"{threshold}: {len(group):,}; the pick is supported by held-out facts for "
              f"{pick:.3f}, a random connected candidate for {chance:.3f}")
    picks: dict[str, dict[str, str]] = {}
    for method in ("shared", "complex"):
        overrides = {"related.min_sitelinks": 0, "related.method": method}
        if method == "complex" and complex_budget:
            overrides["related.time_budget"] = complex_budget
        ctx = context(con, work_dir=work, **overrides)
        report = BuildRelated(ctx).run()
        picks[method] = dict(con.execute(
            "SELECT entity_id, related_id FROM related_entities").fetchall())
        s = report.stats
        extra = (f"; training {s['epochs']} epochs, {s['train_seconds']} s, stopped by "
                 f"{s['stopped']}, held-out MRR {s['held_out_mrr']}") if method == "complex" else ""
        print(f"  {method}: {report.seconds:.1f} s for {s['people']:,} people, "
              f"{s['related']:,} with a related entity{extra}")
        if method == "complex":
            files = sorted((work / "embeddings").glob("embeddings-*.json"),
                           key=lambda f: f.stat().st_mtime)
            meta = json.loads(files[-1].read_text())
            vectors = np.load(files[-1].with_suffix(".npy"))
    # the floor: any connected candidate (of the 100 best), at random
    people = sorted(picks["shared"])
    picks["random connected"] = {p: rng.choice(options[p]) for p in people}
    # the embedding's nearest person, no connection required
    index = {e: i for i, e in enumerate(meta["ids"])}
    humans = [e for e in meta["ids"] if "Q5" in types.get(e, [])]
    queries = [p for p in people if p in index]
    _, nn = nearest_neighbours(vectors[[index[h] for h in humans]],
                               vectors[[index[p] for p in queries]], k=2)
    picks["nearest person by cosine (0.5.5)"] = {
        p: next(humans[j] for j in row if humans[j] != p) for p, row in zip(queries, nn)}
    con.close()
    print(f"  {len(people):,} people with a connected candidate (of the train split); "
          "each method's pick for them:")
    print("  | method | people | supported by held-out facts | connected in train | "
          "same pick as shared |")
    print("  |---|---|---|---|---|")
    for method, chosen in picks.items():
        rows = [(p, chosen[p]) for p in people if p in chosen]
        sup = sum(supported(p, r) for p, r in rows) / len(rows)
        con_ = sum(connected(p, r) for p, r in rows) / len(rows)
        same = sum(picks["shared"].get(p) == r for p, r in rows) / len(rows)
        print(f"  | {method} | {len(rows):,} | {sup:.3f} | {con_:.3f} | {same:.3f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--scaled", type=int, default=18000, help="entities of the scaled KG "
                    "(0: skip it)")
    ap.add_argument("--skip-codex", action="store_true")
    ap.add_argument("--complex-budget", type=float, default=None,
                    help="CoDEx-M: seconds of ComplEx training [default: the stage's]")
    ap.add_argument("--skip-timing", action="store_true")
    args = ap.parse_args()
    if not DATA.is_dir():
        sys.exit(f"needs {DATA}")
    with tempfile.TemporaryDirectory(prefix="bench-related-") as tmp:
        work = Path(tmp)
        if not args.skip_timing:
            timing(work, args.scaled)
        if not args.skip_codex:
            print("CoDEx-M (train split as the KG; valid + test held out)")
            codex(work, args.complex_budget)


if __name__ == "__main__":
    main()
