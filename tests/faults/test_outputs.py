"""Nothing lost at --out: a command never deletes, empties or overwrites what convkgyarn did
not write. Every command with --out: export (jsonl, parquet, hf), kg rdf, generate, report,
annotations export, verify. A refusal is exit 2 and one line naming the path and what to do;
what was there stays byte for byte."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_errors import one_line_error
from tests.helpers import cli

REPO = Path(__file__).resolve().parents[2]


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under a folder with its bytes (what must stay as it was)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix != ".lock"}


def foreign_folder(path: Path) -> Path:
    (path / "sub").mkdir(parents=True)
    (path / "thesis.tex").write_text("three years of work\n")
    (path / "sub" / "data.csv").write_text("a,b\n1,2\n")
    return path


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "hf"])
def test_export_into_a_folder_of_other_files_is_refused_and_deletes_nothing(db, tmp_path, fmt):
    folder = foreign_folder(tmp_path / "mine")
    before = tree(folder)
    r = cli("export", "--db", db, "--format", fmt, "--out", folder)
    one_line_error(r, 2, str(folder))
    assert tree(folder) == before
    r = cli("export", "--db", db, "--format", fmt, "--out", folder, *(
        ["--force"] if fmt != "hf" else []))
    assert r.exit_code == 2 and tree(folder) == before  # --force never deletes a folder


def test_an_hf_export_into_the_folder_holding_the_database_is_refused(made, tmp_path):
    outputs = tmp_path / "outputs"
    shutil.copytree(made, outputs, ignore=shutil.ignore_patterns("*.lock"))
    before = tree(outputs)
    r = cli("export", "--db", outputs / "p.duckdb", "--format", "hf", "--out", outputs)
    one_line_error(r, 2, "holds the project's database")
    assert tree(outputs) == before
    assert cli("stats", "--db", outputs / "p.duckdb").exit_code == 0


@pytest.mark.parametrize("out", [".", ""])
@pytest.mark.parametrize("fmt", ["jsonl", "hf"])
def test_export_to_the_current_folder_is_refused(db, tmp_path, monkeypatch, out, fmt):
    here = foreign_folder(tmp_path / "work")
    monkeypatch.chdir(here)
    before = tree(here)
    r = cli("export", "--db", db, "--format", fmt, "--out", out)
    one_line_error(r, 2, "folder")
    assert tree(here) == before
    assert Path.cwd() == here


@pytest.mark.parametrize("name", ["p.duckdb", "p.duckdb.lock", "p.duckdb.wal",
                                  "p.duckdb.refresh.log"])
def test_no_output_ever_replaces_the_projects_own_files(db, name):
    target = db.parent / name
    if not target.exists():
        target.write_text("the project's\n")
    before = target.read_bytes()
    for args in (["export"], ["export", "--format", "parquet"], ["kg", "rdf"]):
        r = cli(*args, "--db", db, "--out", target, "--force")
        one_line_error(r, 2, "one of the project's own files")
        assert target.read_bytes() == before
    assert cli("stats", "--db", db).exit_code == 0


@pytest.mark.parametrize("fmt,name", [("jsonl", "c.jsonl"), ("parquet", "c.parquet")])
def test_a_file_that_is_not_our_export_is_replaced_only_with_force(db, tmp_path, fmt, name):
    target = tmp_path / name
    target.write_text("my own notes\n")
    r = cli("export", "--db", db, "--format", fmt, "--out", target)
    one_line_error(r, 2, "--force to replace it")
    assert target.read_text() == "my own notes\n"
    r = cli("export", "--db", db, "--format", fmt, "--out", target, "--force")
    assert r.exit_code == 0, r.output
    assert target.read_bytes() != b"my own notes\n"
    r = cli("export", "--db", db, "--format", fmt, "--out", target)  # ours now: replaced
    assert r.exit_code == 0, r.output


def test_an_export_of_one_format_is_not_taken_for_another(db, tmp_path):
    jsonl, summary = tmp_path / "c.jsonl", tmp_path / "summary.json"
    assert cli("export", "--db", db, "--out", jsonl).exit_code == 0
    summary.write_text(json.dumps({"conversations": 1, "turns": 2, "configurations": {},
                                   "distinct_facts": 1}))
    before = jsonl.read_bytes(), summary.read_bytes()
    one_line_error(cli("export", "--db", db, "--format", "parquet", "--out", jsonl), 2,
                   "is not a Parquet export")
    one_line_error(cli("export", "--db", db, "--out", summary), 2, "is not a JSONL export")
    one_line_error(cli("kg", "rdf", "--db", db, "--out", jsonl), 2, "N-Triples")
    assert (jsonl.read_bytes(), summary.read_bytes()) == before


def test_previous_exports_of_ours_are_replaced_and_no_temporary_is_left(db, tmp_path):
    out = tmp_path / "exports"
    for _ in range(2):
        for args in (["export", "--out", out / "c.jsonl"],
                     ["export", "--format", "parquet", "--out", out / "c.parquet"],
                     ["export", "--format", "hf", "--out", out / "hf"],
                     ["kg", "rdf", "--out", out / "kg.nt"]):
            r = cli(*args, "--db", db)
            assert r.exit_code == 0, r.output
    assert sorted(p.name for p in out.iterdir()) == ["c.jsonl", "c.parquet", "hf", "kg.nt"]
    marker = json.loads((out / "hf" / ".convkgyarn-output.json").read_text())
    assert marker["command"] == "export --format hf" and "README.md" in marker["files"]
    assert (out / "kg.nt").read_text().startswith("# convkgyarn kg rdf")


def test_exports_of_earlier_releases_are_recognised(db, tmp_path):
    """An hf folder without the marker (our card and data/*.jsonl only) and a Parquet file
    without our metadata (our columns) are earlier exports of ours: replaced."""
    hf = tmp_path / "hf"
    assert cli("export", "--db", db, "--format", "hf", "--out", hf).exit_code == 0
    (hf / ".convkgyarn-output.json").unlink()  # as 0.5.5 wrote it: no marker, no Croissant
    (hf / "croissant.json").unlink()
    (hf / "data" / "old-config.jsonl").write_text("{}\n")
    assert cli("export", "--db", db, "--format", "hf", "--out", hf).exit_code == 0
    assert not (hf / "data" / "old-config.jsonl").exists()
    import pyarrow as pa
    import pyarrow.parquet as pq

    old = tmp_path / "c.parquet"
    pq.write_table(pa.table({"conversation_id": ["x"], "config": ["{}"], "turns": [[]],
                             "provenance": ["{}"]}), old)
    assert cli("export", "--db", db, "--format", "parquet", "--out", old).exit_code == 0


def test_a_file_put_into_our_hf_export_is_never_deleted(db, tmp_path):
    hf = tmp_path / "hf"
    assert cli("export", "--db", db, "--format", "hf", "--out", hf).exit_code == 0
    (hf / "my-analysis.ipynb").write_text("{}")
    before = tree(hf)
    r = cli("export", "--db", db, "--format", "hf", "--out", hf)
    one_line_error(r, 2, "my-analysis.ipynb")
    assert tree(hf) == before


@pytest.mark.parametrize("fmt", ["hf", "inspect"])
def test_a_users_empty_folders_are_never_removed(db, tmp_path, fmt):
    """Found in review: a folder holding only empty folders counted as empty, and an hf
    export replaced it (photos/2023/summer gone); so did an empty folder made inside an
    earlier export of ours."""
    out = tmp_path / "out"
    (out / "photos" / "2023" / "summer").mkdir(parents=True)
    r = cli("export", "--db", db, "--format", fmt, "--out", out)
    one_line_error(r, 2, "did not write" if fmt == "hf" else "not empty")
    assert (out / "photos" / "2023" / "summer").is_dir()
    ours = tmp_path / "ours"
    assert cli("export", "--db", db, "--format", fmt, "--out", ours).exit_code == 0
    (ours / "my-notes" / "drafts").mkdir(parents=True)
    r = cli("export", "--db", db, "--format", fmt, "--out", ours)
    one_line_error(r, 2, "my-notes/drafts")
    assert (ours / "my-notes" / "drafts").is_dir()


def test_an_empty_folder_takes_an_hf_export(db, tmp_path):
    hf = tmp_path / "empty"
    hf.mkdir()
    assert cli("export", "--db", db, "--format", "hf", "--out", hf).exit_code == 0
    assert (hf / "README.md").is_file()


def test_a_symbolic_link_to_our_export_keeps_pointing_at_the_new_one(db, tmp_path):
    real = tmp_path / "runs" / "v1.jsonl"
    assert cli("export", "--db", db, "--out", real).exit_code == 0
    link = tmp_path / "latest.jsonl"
    link.symlink_to(real)
    real.write_bytes(real.read_bytes().replace(b'"seed"', b'"seed" ', 1))
    assert cli("export", "--db", db, "--out", link).exit_code == 0
    assert link.is_symlink() and link.resolve() == real.resolve()
    assert b'"seed" ' not in real.read_bytes()


def test_generate_refuses_an_out_that_is_a_file_before_doing_any_work(db, tmp_path):
    target = tmp_path / "notes.txt"
    target.write_text("keep me\n")
    r = cli("generate", "--db", db, "--out", target, "--seed", "7")
    one_line_error(r, 2, "is a file")
    assert target.read_text() == "keep me\n"
    from tests.helpers import project

    with project(db, write=False) as p:  # no run of seed 7 was made or stored
        assert p.con.execute("SELECT count(*) FROM generation_runs WHERE seed = 7"
                             ).fetchone()[0] == 0


def test_generate_never_overwrites_files_of_the_same_name_it_did_not_write(db, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "conversations.jsonl").write_text("my hand-made conversations\n")
    (out / "summary.json").write_text('{"mine": true}\n')
    before = tree(out)
    r = cli("generate", "--db", db, "--out", out)
    one_line_error(r, 2, "conversations.jsonl: exists and is not a JSONL export")
    assert tree(out) == before
    (out / "conversations.jsonl").unlink()
    one_line_error(cli("generate", "--db", db, "--out", out), 2, "summary.json")
    r = cli("generate", "--db", db, "--out", out, "--force")
    assert r.exit_code == 0, r.output
    assert json.loads((out / "summary.json").read_text())["conversations"] > 0


def test_report_never_overwrites_files_of_its_names_it_did_not_write(db, tmp_path):
    out = tmp_path / "report"
    out.mkdir()
    (out / "results.csv").write_text("my,results\n1,2\n")
    r = cli("report", "--db", db, "--out", out)
    one_line_error(r, 2, "results.csv: exists and is not an evaluation results table")
    assert (out / "results.csv").read_text() == "my,results\n1,2\n"
    one_line_error(cli("report", "--db", db, "--out", out / "results.csv"), 2, "is a file")


def test_a_filled_in_annotation_sample_is_an_annotators_work(db, tmp_path):
    sample = tmp_path / "sample.csv"
    assert cli("annotations", "export", "--db", db, "--out", sample,
               "--sample", "3").exit_code == 0
    assert cli("annotations", "export", "--db", db, "--out", sample, "--sample", "3",
               "--seed", "1").exit_code == 0  # blank: nobody's work yet, replaced
    import csv

    with open(sample, newline="") as fh:
        rows = list(csv.reader(fh))
    rows[1][3:] = ["4", "5", "3", "5"]  # an annotator rates the first conversation
    with open(sample, "w", newline="") as fh:
        csv.writer(fh).writerows(rows)
    before = sample.read_bytes()
    r = cli("annotations", "export", "--db", db, "--out", sample, "--sample", "3")
    one_line_error(r, 2, "annotation sample nobody has filled in")
    assert sample.read_bytes() == before


def test_verify_never_writes_its_report_over_another_file(made, tmp_path):
    export = tmp_path / "c.jsonl"
    shutil.copy(made / "out" / "conversations.jsonl", export)
    before = export.read_bytes()
    r = cli("verify", "--endpoint", "http://127.0.0.1:9/sparql", "--input", export,
            "--out", export)
    one_line_error(r, 2, "is not a drift report")
    assert export.read_bytes() == before
    one_line_error(cli("verify", "--endpoint", "http://127.0.0.1:9/sparql", "--input", export,
                       "--out", tmp_path), 2, "is a folder")


def test_temporaries_of_a_killed_export_are_cleared_by_the_next_one(db, tmp_path):
    target = tmp_path / "c.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                              capture_output=True, text=True).stdout.strip()
        stale = tmp_path / f".c.jsonl.convkgyarn-{dead}-0123abcd.tmp"
        alive = tmp_path / f".c.jsonl.convkgyarn-{proc.pid}-0123abcd.tmp"
        stale.write_text('{"half"')
        alive.write_text('{"being written"')
        assert cli("export", "--db", db, "--out", target).exit_code == 0
        assert not stale.exists()
        assert alive.exists()  # another export still writing it
    finally:
        proc.kill()
        proc.wait()
    assert sorted(os.listdir(tmp_path)) == sorted([target.name, alive.name, "p.duckdb",
                                                   "p.duckdb.lock"])


def test_a_long_file_name_the_system_allows_is_written_and_replaced(db, tmp_path):
    """The temporary sibling's name must not be what exceeds the 255-byte limit."""
    name = "x" * 240 + ".jsonl"
    for _ in range(2):
        r = cli("export", "--db", db, "--out", tmp_path / name)
        assert r.exit_code == 0, r.output
    assert sorted(os.listdir(tmp_path)) == sorted([name, "p.duckdb", "p.duckdb.lock"])
