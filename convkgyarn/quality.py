"""Quality at a glance: per configuration, what the conversations hold and what was left
out on the way, and why (``convkgyarn stats --quality``)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import duckdb

from convkgyarn.stages.assemble.records import SHORT_ASKABLE, SHORT_LEFT_OUT, SHORT_PLANNED


KINDS = {"id": "item", "time": "date", "amount": "quantity", "text": "text"}


def _share(n: int, total: int) -> float:
    return round(n / total, 4) if total else 0.0


def quality(con: duckdb.DuckDBPyConnection, runs: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {"configurations": {}}
    for run_id, name in con.execute(
            "SELECT run_id, config_name FROM generation_runs WHERE list_contains(?, run_id) "
            "ORDER BY config_name", [runs]).fetchall():
        convs, short, asked = con.execute(
            "SELECT count(*), count(short_reason), coalesce(avg(turns_asked), 0) FROM "
            "conversations WHERE run_id = ?", [run_id]).fetchone()
        reasons = dict(con.execute(
            # grouped by kind, the counts apart: "fewer askable facts than turns", not "N
            # askable facts" (a newcomer read the N as a figure left out)
            # (since 0.8.25 "why: N", records.SHORT_*; before, "N askable facts" and "N
            # planned turns could not be phrased", whose N was 0 or less where the plan
            # itself was short)
            "SELECT CASE WHEN regexp_matches(short_reason, '^[0-9]+ askable facts$') THEN $a "
            "WHEN regexp_matches(short_reason, '^(0|-[0-9]+) planned turns could not be "
            "phrased$') THEN $p WHEN regexp_matches(short_reason, '^[0-9]+ planned turns "
            "could not be phrased$') THEN $l WHEN short_reason LIKE '%: %' THEN "
            "regexp_replace(short_reason, ': [0-9]+$', '') ELSE short_reason END, "
            "count(*) FROM conversations WHERE run_id = $run AND short_reason IS NOT NULL "
            "GROUP BY 1 ORDER BY 2 DESC, 1",
            {"run": run_id, "a": SHORT_ASKABLE, "p": SHORT_PLANNED,
             "l": SHORT_LEFT_OUT}).fetchall())
        kinds: Counter = Counter()
        turns = past = left_out = 0
        for values, tense, left in con.execute(
                "SELECT answer_values, tense, left_out FROM turns WHERE run_id = ?",
                [run_id]).fetchall():
            turns += 1
            past += tense == "past"
            left_out += bool(left)
            for v in json.loads(values or "[]"):
                kinds[KINDS.get(next(iter(v), "text") if v else "text", "text")] += 1
        drops = dict(con.execute(
            "SELECT reason, count(*) FROM dropped WHERE run_id = ? GROUP BY 1 ORDER BY 2 DESC",
            [run_id]).fetchall())
        total_values = sum(kinds.values())
        out["configurations"][name] = {
            "conversations": convs, "turns": turns,
            "turns_per_conversation": round(turns / convs, 2) if convs else 0,
            "turns_asked": round(asked, 2),
            "short_conversations": _share(short, convs), "short_because": reasons,
            "answer_kinds": {k: _share(v, total_values) for k, v in sorted(kinds.items())},
            "past_tense_turns": _share(past, turns),
            "present_turns_without_ended_values": _share(left_out, turns),
            "left_out": drops,
        }
    out["predicates_left_out"] = dict(con.execute(
        "SELECT regexp_replace(detail, ':.*$', ''), count(*) FROM dropped "
        "WHERE stage = 'predicates.select' AND reason = 'rules pre-filter' "
        "GROUP BY 1 ORDER BY 2 DESC").fetchall())  # drops hold the current state
    out["types_left_out"] = dict(con.execute(
        "SELECT reason, count(*) FROM selected_types WHERE NOT selected GROUP BY 1 "
        "ORDER BY 2 DESC").fetchall())
    out["types_selected"] = con.execute(
        "SELECT count(*) FROM selected_types WHERE selected").fetchone()[0]
    return out
