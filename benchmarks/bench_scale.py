"""Scale benchmark: the pipeline on KGs of growing size, each command timed with its peak RSS.

For each size N (entities; 20,000, 100,000 and 1,000,000 by default) it builds a dump of
N real entities repeated under fresh ids and labels (``scaled_dump``: the bytes of
``../shared/tools/make_scaled_kg.py`` over ``real-entities-dev`` and ``entities-635``,
written ten times faster), loads it with the
property list and the preferred labels, runs each stage before assembly as its own command,
times the run-wide lookups of assembly (the namesake rule, the family-name rule, the
person-valued properties)
in a process of their own, then ``generate`` (rules path, voice) of 1,000 and of 100,000
conversations, each on a copy of the database with the stages built. It prints one row per
command: wall time, CPU time (user + system, all its threads and waited-for children: on a
machine shared with other jobs the steadier figure) and the peak RSS of its process, then
the #32 targets.

Targets (issue #32): generate of 1,000 conversations on the ~100k KG within 1.5x its time
on the ~20k one, at most 1 GB peak RSS; 100,000 conversations at most 1.5 GB.

Dumps and databases are cached under benchmarks/.work/scale/ (a size is built once; delete
the folder to build again). Disk: about 25 KB of JSON per entity (2.3 GB at 90,000, 25 GB
at a million) while it loads; the dump is deleted once loaded (``--keep-dumps`` keeps it),
the database stays (about 2 KB per entity). Every command runs in its own process, as a
user's would.
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
WORK = REPO / "benchmarks" / ".work" / "scale"
STAGES = ("predicates extract", "types select", "predicates select", "templates generate")
# the run-wide lookups of assembly, timed apart (``--lookups DB`` runs them in this file)
LOOKUPS = """
import sys, time
from convkgyarn.config import GenerateConfig
from convkgyarn.stages.assemble.view import RunLookups
from convkgyarn.store import connect
con = connect(sys.argv[1], read_only=True)
t0 = time.perf_counter()
lookups = RunLookups(con, GenerateConfig())
t1 = time.perf_counter()
table = lookups.namesakes()
t2 = time.perf_counter()
n = con.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
t3 = time.perf_counter()
words = con.execute(f"SELECT count(*) FROM {lookups.surnames()}").fetchone()[0]
t4 = time.perf_counter()
print(f"{t1 - t0:.2f} {t2 - t1:.2f} {n} {t4 - t3:.2f} {words}")
"""


def measured(*args: str, cwd: Path, python: tuple[str, ...] = ("-m", "convkgyarn")
             ) -> tuple[float, float, str, float]:
    """Run one convkgyarn command in its own process: (seconds, peak RSS in MB, output,
    CPU seconds)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *python, *args], cwd=cwd,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"convkgyarn {' '.join(args)} failed:\n{output}")
    return seconds, usage.ru_maxrss / 1024, output, usage.ru_utime + usage.ru_stime


def row(size: int, what: str, seconds: float, rss: float, cpu: float, note: str = "") -> None:
    """Print one command's figures; the load's and the stages' are also kept beside the
    database, and printed again when it is reused."""
    line = (f"{size:>9,}  {what:<24} {seconds:8.1f} s {cpu:8.1f} s  {rss:7,.0f} MB  "
            f"{note}".rstrip())
    print(line, flush=True)
    if not what.startswith(("generate", "assembly")):
        with open(WORK / str(size) / "figures.txt", "a") as fh:
            fh.write(line + "\n")


def scaled_dump(n: int, out: Path) -> None:
    """The dump ``make_scaled_kg.py N OUT SOURCES`` writes, byte for byte (tested): entity i
    is source entity i mod m under the id Q(900000000 + i), its English label suffixed with
    " (i // m + 1)". Each source entity is serialised once with markers for the two, and
    every copy is a splice (``json.dumps`` of every copy took 40 min for a million)."""
    import bz2
    import json
    import re

    ents = []
    for src in SOURCES:
        with bz2.open(src, "rt") as fh:
            ents += [json.loads(line.rstrip().rstrip(",")) for line in fh
                     if line.strip() not in ("", "[", "]")]
    ents = [e for e in ents if e.get("type", "item") == "item"]
    ident, copy = "\u2060@@ID@@\u2060", "\u2060@@COPY@@\u2060"
    parts = []
    for e in ents:
        e = dict(e, id=ident)
        labels = dict(e.get("labels") or {})
        if "en" in labels:
            labels["en"] = {"language": "en", "value": f"{labels['en']['value']} {copy}"}
        e["labels"] = labels
        text = json.dumps(e, ensure_ascii=False) + ",\n"
        assert text.count(ident) == 1 and text.count(copy) == ("en" in labels)
        parts.append(re.split(f"({ident}|{copy})", text))
    m = len(ents)
    with open(out, "w", buffering=1 << 24) as fh:
        fh.write("[\n")
        for i in range(n):
            fill = {ident: f"Q{900000000 + i}", copy: str(i // m + 1)}
            fh.write("".join(fill.get(p, p) for p in parts[i % m]))
        fh.write("]\n")


def built(size: int, keep_dump: bool) -> Path:
    """The database of a scaled KG of ``size`` entities with its stages built (cached: the
    load and the stages each once)."""
    folder = WORK / str(size)
    folder.mkdir(parents=True, exist_ok=True)
    db, loaded, done = folder / "kg.duckdb", folder / "loaded.done", folder / "stages.done"
    figures = folder / "figures.txt"
    if done.exists():
        print(f"{size:>9,}  (built before: {db}; its figures then:)")
        print(figures.read_text() if figures.exists() else "", end="", flush=True)
        return db
    if not loaded.exists():
        figures.unlink(missing_ok=True)
        dump = folder / "kg.json"
        if not dump.exists():
            t0 = time.perf_counter()
            scaled_dump(size, dump)
            print(f"{size:>9,}  {'make dump':<24} {time.perf_counter() - t0:8.1f} s  "
                  f"{dump.stat().st_size / 1e9:.2f} GB", flush=True)
        db.unlink(missing_ok=True)
        labels = [a for f in LABELS for a in ("--labels", str(f))]
        seconds, rss, _, cpu = measured("kg", "load", str(dump), *labels, "--db", str(db),
                                        cwd=folder)
        row(size, "kg load", seconds, rss, cpu, f"{dump.stat().st_size / 1e6 / seconds:.0f} "
            "MB/s of JSON (CPU: this process only, not its parse workers)")
        loaded.touch()
        if not keep_dump:
            dump.unlink()
    else:
        print(f"{size:>9,}  (loaded before: {db}; its figures then:)")
        lines = figures.read_text().splitlines() if figures.exists() else []
        print("".join(f"{line}\n" for line in lines if " kg load " in line), end="")
        figures.write_text("".join(f"{line}\n" for line in lines if " kg load " in line))
    entities, statements = _counts(db)
    print(f"{size:>9,}  KG: {entities:,} entities, {statements:,} statements, database "
          f"{db.stat().st_size / 1e9:.2f} GB", flush=True)
    for stage in STAGES:
        seconds, rss, _, cpu = measured(*stage.split(), "--db", str(db), cwd=folder)
        row(size, stage, seconds, rss, cpu)
    done.touch()
    return db


def _counts(db: Path) -> tuple[int, int]:
    import duckdb

    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute("SELECT (SELECT count(*) FROM entities), "
                           "(SELECT count(*) FROM statements)").fetchone()


def lookups(size: int, db: Path) -> None:
    """Assembly's run-wide lookups, in a process of their own: the person-valued properties
    the namesake rule and the family-name rule (each one grouping of the KG's names per
    run)."""
    seconds, rss, out, cpu = measured(str(db), cwd=db.parent, python=("-c", LOOKUPS))
    people, namesakes, n, surnames, words = out.split()[-5:]
    row(size, "assembly lookups", seconds, rss, cpu, f"person properties {people} s, namesake "
        f"rule {namesakes} s ({int(n):,} shadowed), family-name rule {surnames} s "
        f"({int(words):,} words)")


def generate(size: int, db: Path, conversations: int) -> tuple[float, float, float]:
    """generate on a copy of the built database (its stages are then unchanged)."""
    folder = db.parent
    copy = folder / f"generate-{conversations}.duckdb"
    wal = copy.with_name(copy.name + ".wal")  # a killed run's log must not replay on the copy
    wal.unlink(missing_ok=True)
    shutil.copy(db, copy)
    # volume as asked: conversations may repeat a subject's facts (by default a run stops
    # once every subject's facts are used up, and 100,000 would not be made at ~20k)
    settings = folder / "volume.toml"
    settings.write_text("[generate]\nnew_fact_share = 0\n")
    try:
        seconds, rss, _, cpu = measured(
            "generate", "--interaction", "voice", "--conversations", str(conversations),
            "--db", str(copy), "--config", str(settings),
            "--out", str(folder / f"out-{conversations}"), cwd=folder)
        row(size, f"generate {conversations:,}", seconds, rss, cpu)
        return seconds, rss, cpu
    finally:
        copy.unlink(missing_ok=True)
        wal.unlink(missing_ok=True)
        shutil.rmtree(folder / f"out-{conversations}", ignore_errors=True)


def targets(results: dict[tuple[int, int], tuple[float, float, float]]) -> None:
    """The #32 targets, from the sizes nearest 20,000 and 100,000 entities."""
    sizes = sorted({size for size, _ in results})
    small = min(sizes, key=lambda n: abs(n - 20_000))
    large = min(sizes, key=lambda n: abs(n - 100_000))
    if (small, 1000) in results and (large, 1000) in results and large > small:
        (t_small, _, c_small), (t_large, rss, c_large) = (results[(small, 1000)],
                                                          results[(large, 1000)])
        print(f"target: generate 1,000 on {large:,} entities {t_large:.1f} s = "
              f"{t_large / t_small:.2f}x its {t_small:.1f} s on {small:,} (<= 1.5x; CPU "
              f"{c_large:.1f} s = {c_large / c_small:.2f}x), peak RSS {rss:,.0f} MB "
              "(<= 1,000 MB)")
    if (large, 100_000) in results:
        print(f"target: generate 100,000 on {large:,} entities, peak RSS "
              f"{results[(large, 100_000)][1]:,.0f} MB (<= 1,500 MB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 100_000, 1_000_000],
                    help="entities per scaled KG")
    ap.add_argument("--conversations", type=int, nargs="+", default=[1_000, 100_000],
                    help="conversations per generate")
    ap.add_argument("--keep-dumps", action="store_true",
                    help="keep each size's JSON dump once loaded (25 KB per entity)")
    args = ap.parse_args()
    missing = [p for p in (*SOURCES, *LABELS) if not p.exists()]
    if missing:
        sys.exit(f"needs ../shared beside the repository: {missing[0]} is missing")
    print(f"{'entities':>9}  {'command':<24} {'time':>10} {'CPU':>10}  {'peak RSS':>10}")
    results = {}
    for size in args.sizes:
        db = built(size, args.keep_dumps)
        lookups(size, db)
        for n in args.conversations:
            results[(size, n)] = generate(size, db, n)
    targets(results)


if __name__ == "__main__":
    main()
