"""The quality report (``convkgyarn stats --quality``) on a project's stored rows."""

from __future__ import annotations

from convkgyarn.quality import quality
from convkgyarn.stages.assemble.records import SHORT_ASKABLE, SHORT_LEFT_OUT, SHORT_PLANNED
from convkgyarn.store import connect


def test_short_conversations_are_grouped_by_cause_old_rows_included(tmp_path):
    """Rows of 0.8.24 and before ("3 askable facts", "2 planned turns could not be phrased",
    "0 ..." and "-1 ..." where the plan itself was short) land in the groups today's
    reasons do ("why: N"): a project from an older release reads the same way."""
    con = connect(tmp_path / "p.duckdb")
    con.execute("INSERT INTO generation_runs (run_id, config_name) VALUES ('r', 'voice')")
    reasons = ["3 askable facts", f"{SHORT_ASKABLE}: 2", "2 planned turns could not be phrased",
               f"{SHORT_LEFT_OUT}: 1", "0 planned turns could not be phrased",
               "-1 planned turns could not be phrased", f"{SHORT_PLANNED}: 4", None]
    for n, reason in enumerate(reasons):
        con.execute("INSERT INTO conversations (run_id, conversation_id, config_name, "
                    "turns_asked, short_reason) VALUES ('r', ?, 'voice', 5, ?)",
                    [f"c{n}", reason])
    report = quality(con, ["r"])["configurations"]["voice"]
    assert report["short_because"] == {SHORT_PLANNED: 3, SHORT_ASKABLE: 2, SHORT_LEFT_OUT: 2}
    assert report["short_conversations"] == round(7 / 8, 4)
