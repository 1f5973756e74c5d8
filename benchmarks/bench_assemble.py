"""Assembly benchmark: 100,000 five-turn conversations from ready templates, written to
DuckDB and exported as JSONL, on the bundled sample. Target: at most 30 s in all."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from convkgyarn.config import GenerateConfig  # noqa: E402
from convkgyarn.export import records, write_jsonl  # noqa: E402
from convkgyarn.resources import bundled_sample  # noqa: E402
from convkgyarn.stages.assemble import AssembleConversations  # noqa: E402
from tests.helpers import project  # noqa: E402

WORK = REPO / "benchmarks" / ".work"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--conversations", type=int, default=100_000)
    args = ap.parse_args()
    WORK.mkdir(parents=True, exist_ok=True)
    db = WORK / "assemble.duckdb"
    db.unlink(missing_ok=True)
    p = project(db)
    p.load([bundled_sample()], kind="sample")
    p.extract_predicates()
    p.select_predicates()
    p.write_templates()
    con = p.con
    for cfg in (GenerateConfig(interaction="voice", deixis=True, disfluency=True),
                GenerateConfig(interaction="text", deixis=True, typos=True),
                # conversations that move: twelve turns over up to three entities
                GenerateConfig(interaction="voice", deixis=True, hops=True, ellipsis=True,
                               turns=12)):
        # volume as asked: the bundled sample's subjects repeat their facts (new_fact_share
        # 0), as they did before a run stopped once their facts were used up
        cfg = cfg.model_copy(update={"conversations": args.conversations, "new_fact_share": 0,
                                     "turns": cfg.turns if cfg.hops else 5})
        t0 = time.perf_counter()
        stage = AssembleConversations(p.ctx, cfg)
        report = stage.run()
        t1 = time.perf_counter()
        recs = records(con, [stage.run_id])
        out = write_jsonl(recs, WORK / "bench-conversations.jsonl")
        t2 = time.perf_counter()
        n, turns = report.stats["conversations"], report.stats["turns"]
        store = report.stats["store_seconds"]
        print(f"{stage.config_name}: {n:,} conversations, {turns:,} turns: assembly "
              f"{t1 - t0 - store:.1f}s + DuckDB write {store:.1f}s, JSONL export {t2 - t1:.1f}s "
              f"({out.stat().st_size / 1e6:.0f} "
              f"MB); total {t2 - t0:.1f}s = {n / (t2 - t0):,.0f} conversations/s (target: 100,000 "
              f"in <= 30 s)")


if __name__ == "__main__":
    main()
