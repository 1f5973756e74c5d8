"""The head-to-head rating (benchmarks/head_to_head.py): pairs hold one subject's
conversations from two releases, only where they differ, in a random order the key
records; the tally counts each release's wins from that key."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.head_to_head import pair_up, tally  # noqa: E402


def _conv(*questions):
    return [{"q": q, "a": ["x"]} for q in questions]


def test_pairs_hold_one_subject_from_each_release_only_where_they_differ():
    old = {"Q1": [_conv("a?")], "Q2": [_conv("b?")], "Q3": [_conv("c?")]}
    new = {"Q1": [_conv("a?")], "Q2": [_conv("b2?")], "Q3": [_conv("c2?")], "Q4": [_conv("d")]}
    pairs, key = pair_up(old, new, 10, seed=1)
    assert len(pairs) == 2  # Q1 is the same in both; Q4 has no old conversation
    for pair in pairs:
        new_side = pair[key[pair["id"]]]
        old_side = pair["B" if key[pair["id"]] == "A" else "A"]
        assert new_side[0]["q"].endswith("2?") and not old_side[0]["q"].endswith("2?")
    assert pair_up(old, new, 10, seed=1) == (pairs, key)  # seeded
    assert len(pair_up(old, new, 1, seed=1)[0]) == 1


def test_the_tally_reads_the_key_and_refuses_missing_pairs():
    key = {"P00": "A", "P01": "B", "P02": "A"}
    ratings = {"P00": {"R": "A", "F": "Same"}, "P01": {"R": "A", "F": "B"},
               "P02": {"R": "Same", "F": "A"}}
    assert tally(ratings, key) == {"R": {"new": 1, "old": 1, "same": 1},
                                   "F": {"new": 2, "old": 0, "same": 1}}
    with pytest.raises(SystemExit):
        tally({"P00": ratings["P00"]}, key)


def test_diversity_is_counted_where_the_rater_was_asked_it():
    key = {"P00": "A", "P01": "B"}
    ratings = {"P00": {"R": "A", "F": "Same", "D": "A"}, "P01": {"R": "A", "F": "B", "D": "Same"}}
    assert tally(ratings, key)["D"] == {"new": 1, "old": 0, "same": 1}
    del ratings["P01"]["D"]  # D for some pairs only: refused
    with pytest.raises(SystemExit):
        tally(ratings, key)
    del ratings["P00"]["D"]  # a set built before D was asked: R and F only
    assert set(tally(ratings, key)) == {"R", "F"}


def test_moving_pairs_only_the_conversations_that_move_in_export_order(tmp_path):
    from benchmarks.head_to_head import conversations
    import json
    export = tmp_path / "c.jsonl"
    rows = [("Q3", [None, 1]), ("Q1", [None, None]), ("Q2", [None, 1])]
    export.write_text("".join(json.dumps(
        {"config": {"name": "voice-deixis"}, "entity": {"id": e},
         "turns": [{"question": f"{e} {i}?", "answer": ["x"], "hop_from": h}
                   for i, h in enumerate(hops)]}) + "\n" for e, hops in rows))
    moving = conversations(export, "voice-deixis", moving=True)
    assert list(moving) == ["Q3", "Q2"]  # Q1 never moves
    old = {"Q1": [_conv("a?")], "Q2": [_conv("b?")], "Q3": [_conv("c?")]}
    pairs, key = pair_up(old, moving, 10, seed=1, ordered=True)
    # the export's order, not the seeded shuffle (which puts Q2 first)
    assert [p[key[p["id"]]][0]["q"] for p in pairs] == ["Q3 0?", "Q2 0?"]
