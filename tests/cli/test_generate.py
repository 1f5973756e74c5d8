"""``generate``, ``export`` and ``stats`` as a user meets them: the layout of outputs/,
configuration names that never collide, labels beside ids, defaults in --help."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from convkgyarn.config import GenerateConfig
from tests.helpers import cli, project


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(scope="module")
def two_generates(tmp_path_factory):
    """generate voice, then generate text-typos, into the same outputs/."""
    tmp = tmp_path_factory.mktemp("layout")
    db, out = tmp / "p.duckdb", tmp / "outputs"
    first = cli("generate", "--db", db, "--out", out, "--conversations", "6")
    assert first.exit_code == 0, first.output
    second = cli("generate", "--db", db, "--out", out, "--interaction", "text", "--typos",
                 "--conversations", "4")
    assert second.exit_code == 0, second.output
    return tmp, db, out, second


def test_outputs_hold_every_current_configuration_and_its_summary(two_generates):
    """The second generate does not drop the first one's conversations from outputs/, and
    summary.json describes exactly what conversations.jsonl holds."""
    _, _, out, second = two_generates
    recs = _lines(out / "conversations.jsonl")
    names = [r["config"]["name"] for r in recs]
    assert names.count("voice") == 6 and names.count("text-typos") == 4
    summary = json.loads((out / "summary.json").read_text())
    assert summary["configurations"] == {"text-typos": 4, "voice": 6}
    assert summary["conversations"] == len(recs)
    assert summary["turns"] == sum(len(r["turns"]) for r in recs)
    assert set(summary["runs"]) == {"voice", "text-typos"}
    assert summary["generated"] == ["text-typos"]  # what this generate made
    assert sorted(r["provenance"]["run_id"] for r in recs if r["config"]["name"] == "voice") \
        == summary["runs"]["voice"] * 6
    # the closing table says which configuration this command made
    rows = [line.replace("│", " ").split() for line in second.output.splitlines()]
    assert ["text-typos", "4", "now", *summary["runs"]["text-typos"]] in rows
    assert ["voice", "6", "earlier", *summary["runs"]["voice"]] in rows


def test_the_default_jsonl_export_rewrites_the_pair(two_generates, tmp_path):
    """`export` without --out writes generate's pair beside the project database, wherever
    the command runs: conversations.jsonl and a summary.json of exactly those
    conversations (with --run, only that run)."""
    tmp, db, out, _ = two_generates
    work = tmp_path / "w"
    work.mkdir()
    (voice_run,) = json.loads((out / "summary.json").read_text())["runs"]["voice"]
    import os

    here = os.getcwd()
    os.chdir(work)
    try:
        r = cli("export", "--db", db, "--run", voice_run)
    finally:
        os.chdir(here)
    assert r.exit_code == 0, r.output
    assert not (work / "outputs").exists()
    recs = _lines(db.parent / "conversations.jsonl")
    summary = json.loads((db.parent / "summary.json").read_text())
    assert {x["config"]["name"] for x in recs} == {"voice"}
    assert summary["configurations"] == {"voice": 6} and summary["conversations"] == 6
    assert summary["project"]["database"] == str(db.resolve())


def test_a_project_never_writes_over_another_projects_outputs(tmp_path, monkeypatch):
    """Found by a newcomer: `generate --db elsewhere/p.duckdb` run beside the default project
    replaced its outputs/conversations.jsonl without a word (the file was "ours"). Outputs
    now go beside their project's database, and a folder holding another project's
    outputs is refused (exit 2) unless --force."""
    monkeypatch.chdir(tmp_path)
    first = cli("generate", "--conversations", "3")
    assert first.exit_code == 0, first.output
    mine = (tmp_path / "outputs" / "conversations.jsonl").read_bytes()
    other = cli("generate", "--db", "lang/p.duckdb", "--conversations", "2")
    assert other.exit_code == 0, other.output
    assert (tmp_path / "outputs" / "conversations.jsonl").read_bytes() == mine
    assert len(_lines(tmp_path / "lang" / "conversations.jsonl")) == 2
    refused = cli("generate", "--db", "lang/p.duckdb", "--out", "outputs")
    assert refused.exit_code == 2
    assert "holds the outputs of another project" in refused.output
    assert (tmp_path / "outputs" / "conversations.jsonl").read_bytes() == mine
    forced = cli("generate", "--db", "lang/p.duckdb", "--out", "outputs", "--force")
    assert forced.exit_code == 0, forced.output
    summary = json.loads((tmp_path / "outputs" / "summary.json").read_text())
    assert summary["project"]["database"] == str((tmp_path / "lang" / "p.duckdb").resolve())


def test_exports_and_reports_never_write_over_another_projects_outputs(tmp_path, monkeypatch):
    """A reviewer's find: only generate's pair checked whose outputs a folder holds, so a
    second database in outputs/ replaced the first project's Parquet and hf exports (they
    share every default path). And a database deleted and made again at the same path
    (`make clean && make demo`) is the same project: its outputs are replaced."""
    monkeypatch.chdir(tmp_path)
    assert cli("generate", "--conversations", "3").exit_code == 0
    assert cli("export", "--format", "parquet").exit_code == 0
    parquet = (tmp_path / "outputs" / "conversations.parquet").read_bytes()
    assert cli("generate", "--db", "outputs/b.duckdb", "--out", "lang",
               "--conversations", "2").exit_code == 0
    for args in (["export", "--format", "parquet"], ["export", "--format", "hf"],
                 ["export", "--format", "jsonl", "--out", "outputs/mine.jsonl"], ["report"]):
        refused = cli(*args, "--db", "outputs/b.duckdb")
        assert refused.exit_code == 2, (args, refused.output)
        assert "holds the outputs of another project" in refused.output, args
    assert (tmp_path / "outputs" / "conversations.parquet").read_bytes() == parquet
    assert not (tmp_path / "outputs" / "hf").exists()
    assert not (tmp_path / "outputs" / "mine.jsonl").exists()
    # the default project's database made again: its own outputs, replaced without --force
    (tmp_path / "outputs" / "convkgyarn.duckdb").unlink()
    again = cli("generate", "--conversations", "2")
    assert again.exit_code == 0, again.output
    assert len(_lines(tmp_path / "outputs" / "conversations.jsonl")) == 2


def test_stats_and_the_summary_name_types_and_properties_by_label(two_generates):
    tmp, db, out, _ = two_generates
    summary = json.loads((out / "summary.json").read_text())
    assert summary["types"]["Q5"]["label"] == "human"
    pid, top = next(iter(summary["predicates"].items()))  # the most asked property
    con = duckdb.connect(str(db), read_only=True)
    label = con.execute("SELECT label FROM labels WHERE id = ?", [pid]).fetchone()[0]
    con.close()
    assert top["label"] == label and label
    assert all(e["label"] for e in summary["types"].values())
    assert "labels_missing" in summary and not summary["labels_missing"]
    r = cli("stats", "--db", db)
    assert r.exit_code == 0, r.output
    assert "human (Q5)" in r.output and f"{label} ({pid})" in r.output
    card = tmp / "hf"
    assert cli("export", "--db", db, "--format", "hf", "--out", card).exit_code == 0
    text = (card / "README.md").read_text()
    assert "| human (Q5) |" in text and f"| {label} ({pid}) |" in text


def test_a_missing_label_is_said(tmp_path):
    """A type or property without an English label shows its id and says so."""
    from convkgyarn.export import Summary, missing_labels_note, with_label

    with project(tmp_path / "p.duckdb") as p:
        p.generate([GenerateConfig(conversations=3)])
        recs = p.records()
        recs[0]["provenance"]["entity_type"] = "Q999999999"  # no label anywhere
        recs[0]["turns"][0]["property_id"] = "P999999"
        gathered = Summary()
        for rec in recs:
            gathered.add(rec)
        info = gathered.result(p.con, p.config.llm)
    assert info["labels_missing"] == {"types": ["Q999999999"], "predicates": ["P999999"]}
    assert with_label("Q999999999", info["types"]["Q999999999"]) == \
        "Q999999999 (no English label)"
    assert missing_labels_note(info).startswith("1 type and 1 property have no English label")


def test_settings_that_differ_are_kept_apart(tmp_path):
    """--kind count --kind verify and --kind count are two configurations: the second run
    does not replace the first (before, both were "voice-kinds")."""
    db, out = tmp_path / "p.duckdb", tmp_path / "o"
    for kinds in (["count", "verify"], ["count"]):
        r = cli("generate", "--db", db, "--out", out, "--conversations", "5",
                *[a for k in kinds for a in ("--kind", k)])
        assert r.exit_code == 0, r.output
    names = {r["config"]["name"] for r in _lines(out / "conversations.jsonl")}
    assert names == {"voice-kinds-count-verify", "voice-kinds-count"}


def test_generate_help_shows_the_defaults():
    r = cli("generate", "--help", env={"COLUMNS": "200"})
    assert r.exit_code == 0
    lines = {line.split()[1]: line for line in r.output.splitlines()
             if len(line.split()) > 1 and line.split()[1].startswith("--")}
    for option, default in (("--turns", "5"), ("--conversations", "100"), ("--seed", "0"),
                            ("--interaction", "voice"), ("--topics", "3"),
                            ("--ellipsis-share", "0.5"), ("--answer-style", "short")):
        assert f"[default: ({default})]" in lines[option], lines[option]
    assert "[default: (no)]" in lines["--deixis"]


def test_an_entity_the_kg_lacks_is_named_beside_the_count(tmp_path):
    """`--entity Q76 --entity Q1339` on the sample: Q1339 is not in it, and the line that
    gives the count says so (it used to be left out without a word)."""
    r = cli("generate", "--db", tmp_path / "p.duckdb", "--entity", "Q76", "--entity", "Q1339",
            "--conversations", "3")
    assert r.exit_code == 0, r.output
    assert "assemble voice: 1 of 3 conversations" in r.output
    assert "Q1339 not in the KG" in r.output and "Q76 not" not in r.output


def test_little_known_stock_profiles_are_left_out_and_the_user_told_how_to_keep_them(
        tmp_path):
    """The bundled sample's Leslie Bibb (35 sitelinks) has only a job, a birth date and a
    nationality to ask: generate leaves her out and its note says --profiles keeps such
    people; --profiles, or naming her with --entity, makes her conversation."""
    bibb = "Q239453"
    runs = {}
    for name, extra in (("default", ()), ("profiles", ("--profiles",)),
                        ("entity", ("--entity", bibb))):
        out = tmp_path / name
        r = cli("generate", "--db", tmp_path / f"{name}.duckdb", "--out", out,
                "--interaction", "voice", "--deixis", *extra)
        assert r.exit_code == 0, r.output
        runs[name] = (r.output, {rec["entity"]["id"] for rec in
                                 _lines(out / "conversations.jsonl")})
    output, subjects = runs["default"]
    assert bibb not in subjects and "--profiles keeps them" in " ".join(output.split())
    assert bibb in runs["profiles"][1] and runs["entity"][1] == {bibb}
    con = duckdb.connect(str(tmp_path / "default.duckdb"), read_only=True)
    reason, = con.execute("SELECT DISTINCT reason FROM drops WHERE item = ?", [bibb]).fetchone()
    con.close()
    assert reason.startswith("nothing to ask about a little-known person or place")
    # a KG loaded without sitelinks says nothing of who is little known: no one left out
    from convkgyarn.resources import bundled_sample
    bare = tmp_path / "bare.duckdb"
    assert cli("kg", "load", bundled_sample(), "--db", bare).exit_code == 0
    con = duckdb.connect(str(bare))
    con.execute("UPDATE entities SET sitelinks = 0")
    con.close()
    r = cli("generate", "--db", bare, "--out", tmp_path / "again", "--interaction", "voice",
            "--deixis")
    assert r.exit_code == 0, r.output
    assert bibb in {rec["entity"]["id"] for rec in _lines(tmp_path / "again" /
                                                           "conversations.jsonl")}


def test_a_kg_too_small_for_any_type_says_which_setting_to_lower(tmp_path, shared_data):
    """A newcomer's try: three entities from a wbgetentities response. No type has the three
    entities predicates are picked from, so nothing is asked; the error used to end in an
    empty "left out: " and now names the setting, which then works."""
    db = tmp_path / "p.duckdb"
    response = shared_data / "wikidata" / "wbgetentities-response.json"
    labels = shared_data / "wikidata" / "property-labels-en.json"
    r = cli("kg", "load", response, "--labels", labels, "--db", db)
    assert r.exit_code == 0, r.output
    # the reply marks one entity missing: a reject, and the hint works as printed
    assert f"see rejects: convkgyarn kg rejects --db {db}" in " ".join(r.output.split())
    with project(db, write=False) as p:  # said as the reply says it, not "missing `type`"
        reasons = [r[0] for r in p.con.execute("SELECT reason FROM load_rejects").fetchall()]
    assert reasons == ["the reply marks Q789 missing: no such entity"]
    r = cli("generate", "--db", db, "--out", tmp_path / "o")
    assert r.exit_code != 0
    said = " ".join(r.output.split())
    assert "[predicates] min_type_entities = 1" in said and "left out: (" not in said
    small = tmp_path / "small.toml"
    small.write_text("[predicates]\nmin_type_entities = 1\n")
    r = cli("generate", "--db", db, "--out", tmp_path / "o", "--config", small)
    assert r.exit_code == 0, r.output
    assert (tmp_path / "o" / "conversations.jsonl").read_text().strip()


def test_drops_names_its_stages_and_refuses_one_that_is_none(tmp_path):
    """`drops --stage bogus` printed an empty table and exited 0; --help named no stage."""
    db = tmp_path / "p.duckdb"
    assert cli("generate", "--db", db, "--out", tmp_path / "o").exit_code == 0
    r = cli("drops", "--db", db, "--stage", "bogus")
    assert r.exit_code == 2 and "no such stage" in r.output and "assemble" in r.output
    r = cli("drops", "--db", db, "--stage", "assemble")
    assert r.exit_code == 0 and "assemble" in r.output
    assert "templates.generate" in " ".join(cli("drops", "--help").output.split())


def test_drops_says_how_many_items_its_counts_are(tmp_path):
    """A newcomer read `drops`' 6,256 beside `stats --quality`'s 782 as a disagreement: the
    count is over every configuration's run. Each reason also says how many distinct items
    and runs it holds."""
    db = tmp_path / "p.duckdb"
    assert cli("generate", "--db", db, "--out", tmp_path / "o", "--all-configs").exit_code == 0
    with project(db, write=False) as p:
        rows = p.drops("assemble", items=True)
    assert rows and all(count >= items for _, _, count, items, _, _ in rows)
    repeated = [r for r in rows if r[4] == 8 and r[2] == 8 * r[3]]
    assert repeated, rows  # dropped alike by each of the eight configurations
    stage, reason, count, items, runs, _ = repeated[0]
    r = cli("drops", "--db", db, "--stage", "assemble")
    words = " ".join(r.output.split())
    assert r.exit_code == 0 and "items" in words and "runs" in words
    assert f"{count:,} │ {items:,} │ {runs:,}" in words, r.output


def test_drops_lists_what_was_left_out_of_one_item_and_for_one_reason(tmp_path):
    """A newcomer could see how many items a reason held but not which, nor ask why one
    subject's facts were not asked: --item lists an item's drops (its facts' too: "Q42"
    holds "Q42/P69"), --reason the items behind a reason; an id or text matching nothing
    says so, and text is a bound value, never a pattern ("%" matches nothing)."""
    db = tmp_path / "p.duckdb"
    assert cli("generate", "--db", db, "--out", tmp_path / "o").exit_code == 0
    with project(db, write=False) as p:
        counts = p.drops("assemble", items=True)
        every, total = p.drop_items("assemble", limit=10_000)
    assert total == len(every) >= max(items for _, _, _, items, _, _ in counts)
    stage, reason, count, items, runs, example = counts[0]
    subject = example.split("/")[0]
    with project(db, write=False) as p:
        of_subject, n = p.drop_items(item=subject, limit=10_000)
        by_reason, m = p.drop_items(reason=reason.upper()[:30], limit=10_000)
    assert of_subject and n == len(of_subject)
    assert all(i == subject or i.startswith(subject + "/") for _, i, _, _, _ in of_subject)
    assert any(i == example for _, i, _, _, _ in of_subject)
    assert m >= items and all(reason.upper()[:30] in r.upper() for _, _, r, _, _ in by_reason)
    r = cli("drops", "--db", db, "--item", subject, "--limit", "1")
    words = " ".join(r.output.split())
    assert r.exit_code == 0 and subject in words and f"1 of {n:,} drop" in words, r.output
    if subject[:1] == "Q":  # an id typed in lower case is the same id
        r = cli("drops", "--db", db, "--item", subject.lower(), "--limit", "1")
        assert f"1 of {n:,} drop" in " ".join(r.output.split()), r.output
    for flag, value in (("--item", "%"), ("--item", "Q999999999"), ("--reason", "no such")):
        r = cli("drops", "--db", db, flag, value)
        assert r.exit_code == 0 and "nothing left out matches" in r.output, r.output
    r = cli("drops", "--db", db, "--reason", " ")
    assert r.exit_code == 2 and "--reason" in r.output, r.output
