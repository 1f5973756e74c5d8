"""Scale benchmark: the pipeline on KGs of growing size, each command timed with its peak RSS.

For each size N (entities; defaults 20,000 and 100,000, ``--sizes 1000000`` for a million)
it builds a dump of N real entities repeated under fresh ids and labels
(``../shared/tools/make_scaled_kg.py`` over ``real-entities-dev`` and ``entities-635``),
loads it with the property list and the preferred labels, runs each stage before assembly as
its own command, then ``generate`` (rules path, voice) of 1,000 and of 100,000
conversations, each on a copy of the database with the stages built. It prints one row per
command: wall time and the peak RSS of its process.

Targets (issue #32): generate of 1,000 conversations on the ~100k KG within 1.5x its time
on the ~20k one, at most 1 GB peak RSS; 100,000 conversations at most 1.5 GB.

Dumps and databases are cached under benchmarks/.work/scale/ (a size is built once; delete
the folder to build again). Disk: about 25 KB of JSON per entity (2.3 GB at 90,000, 25 GB
at a million) plus the database. Every command runs in its own process, as a user's would.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
SOURCES = [SHARED / "data" / "wikidata" / f for f in ("real-entities-dev.ndjson.bz2",
                                                      "entities-635.ndjson.bz2")]
LABELS = [SHARED / "data" / "wikidata" / "property-labels-en.json",
          SHARED / "data" / "labels" / "preferred-labels-en.json"]
MAKE = SHARED / "tools" / "make_scaled_kg.py"
WORK = REPO / "benchmarks" / ".work" / "scale"
STAGES = (("predicates extract",), ("types select",), ("predicates select",),
          ("templates generate",))


def measured(*args: str, cwd: Path) -> tuple[float, float, str]:
    """Run one convkgyarn command in its own process: (seconds, peak RSS in MB, output)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "convkgyarn", *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"convkgyarn {' '.join(args)} failed:\n{output}")
    return seconds, usage.ru_maxrss / 1024, output


def row(size: int, what: str, seconds: float, rss: float) -> None:
    print(f"{size:>9,}  {what:<32} {seconds:8.1f} s  {rss:7,.0f} MB", flush=True)


def built(size: int) -> Path:
    """The database of a scaled KG of ``size`` entities with its stages built (cached)."""
    folder = WORK / str(size)
    folder.mkdir(parents=True, exist_ok=True)
    db, done = folder / "kg.duckdb", folder / "stages.done"
    if done.exists():
        print(f"{size:>9,}  (built before: {db})")
        return db
    dump = folder / "kg.json"
    if not dump.exists():
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(MAKE), str(size), str(dump), *map(str, SOURCES)],
                       check=True)
        print(f"{size:>9,}  {'make dump':<32} {time.perf_counter() - t0:8.1f} s  "
              f"{dump.stat().st_size / 1e9:.2f} GB")
    db.unlink(missing_ok=True)
    labels = [a for f in LABELS for a in ("--labels", str(f))]
    row(size, "kg load", *measured("kg", "load", str(dump), *labels, "--db", str(db),
                                   cwd=folder)[:2])
    for stage in STAGES:
        row(size, " ".join(stage), *measured(*" ".join(stage).split(), "--db", str(db),
                                             cwd=folder)[:2])
    done.touch()
    return db


def generate(size: int, db: Path, conversations: int) -> None:
    """generate on a copy of the built database (its stages are then unchanged)."""
    folder = db.parent
    copy = folder / f"generate-{conversations}.duckdb"
    wal = copy.with_name(copy.name + ".wal")  # a killed run's log must not replay on the copy
    wal.unlink(missing_ok=True)
    shutil.copy(db, copy)
    try:
        seconds, rss, _ = measured("generate", "--interaction", "voice", "--conversations",
                                   str(conversations), "--db", str(copy), "--out",
                                   str(folder / f"out-{conversations}"), cwd=folder)
        row(size, f"generate {conversations:,}", seconds, rss)
    finally:
        copy.unlink(missing_ok=True)
        wal.unlink(missing_ok=True)
        shutil.rmtree(folder / f"out-{conversations}", ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000],
                    help="entities per scaled KG")
    ap.add_argument("--conversations", type=int, nargs="+", default=[1_000, 100_000],
                    help="conversations per generate")
    args = ap.parse_args()
    missing = [p for p in (*SOURCES, *LABELS, MAKE) if not p.exists()]
    if missing:
        sys.exit(f"needs ../shared beside the repository: {missing[0]} is missing")
    print(f"{'entities':>9}  {'command':<32} {'time':>10}  {'peak RSS':>10}")
    for size in args.sizes:
        db = built(size)
        for n in args.conversations:
            generate(size, db, n)


if __name__ == "__main__":
    main()
