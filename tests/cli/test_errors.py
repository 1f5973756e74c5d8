"""Every failure a user can cause is one line and a documented exit code, never a
traceback; and a failed command leaves what was there before."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

import convkgyarn

from convkgyarn.store import ProjectLock
from tests.helpers import cli

REPO = Path(__file__).resolve().parents[2]


def one_line_error(r, code: int, needle: str) -> None:
    assert r.exit_code == code, r.output
    text = " ".join(r.output.split())
    assert needle in text, r.output
    assert "Traceback" not in r.output
    assert sum(line.startswith("error:") for line in r.output.splitlines()) == 1


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A project with voice conversations and their exports."""
    tmp = tmp_path_factory.mktemp("made")
    r = cli("generate", "--db", tmp / "p.duckdb", "--out", tmp / "out", "--conversations", "8")
    assert r.exit_code == 0, r.output
    return tmp


@pytest.mark.parametrize("args,needle", [
    (["--interaction", "text", "--disfluency"], "disfluency applies to voice"),
    (["--interaction", "voice", "--typos"], "typos apply to text"),
    (["--all-configs", "--deixis"], "--all-configs makes the paper's eight configurations"),
    (["--all-configs", "--interaction", "text"], "leave out --interaction"),
    (["--turns", "0"], "generate.turns"),
    (["--turns", "-3"], "generate.turns"),
    (["--conversations", "-1"], "generate.conversations"),
    (["--interaction", "speech"], "generate.interaction"),
])
def test_conflicting_or_impossible_options_are_exit_2(tmp_path, args, needle):
    r = cli("generate", "--db", tmp_path / "p.duckdb", "--out", tmp_path / "o", *args)
    one_line_error(r, 2, needle)
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("args,needle", [
    (["--type", "Q999999999"], "no entities of type Q999999999"),
    (["--entity", "Q999999999"], "Q999999999 not in the KG"),
])
def test_nothing_to_generate_is_exit_2_and_keeps_the_previous_outputs(made, tmp_path, args,
                                                                     needle):
    db = tmp_path / "p.duckdb"
    shutil.copy(made / "p.duckdb", db)
    out = tmp_path / "out"
    shutil.copytree(made / "out", out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    r = cli("generate", "--db", db, "--out", out, *args)
    one_line_error(r, 2, needle)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    r = cli("export", "--db", db, "--out", tmp_path / "c.jsonl")  # the previous run is intact
    assert r.exit_code == 0 and len((tmp_path / "c.jsonl").read_text().splitlines()) == 8


def test_an_interrupted_export_prints_interrupted_exits_130_and_keeps_the_files(
        made, tmp_path, monkeypatch):
    db = tmp_path / "p.duckdb"
    shutil.copy(made / "p.duckdb", db)
    out = tmp_path / "out"
    shutil.copytree(made / "out", out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    import convkgyarn.export as export

    def half_then_ctrl_c(recs, path):
        path.write_text(json.dumps(next(iter(recs))) + "\n")  # records stream
        raise KeyboardInterrupt

    monkeypatch.setattr(export, "_jsonl", half_then_ctrl_c)
    r = cli("generate", "--db", db, "--out", out, "--seed", "5")
    one_line_error(r, 130, "interrupted")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


@pytest.mark.parametrize("args", [
    ["kg", "stats"], ["kg", "load", "{sample}"], ["generate"], ["stats"], ["export"],
    ["predicates", "show", "Q5"], ["templates", "show", "Q5"], ["kg", "rejects"],
])
def test_any_command_on_a_busy_project_is_exit_75_naming_the_holder(made, tmp_path, args,
                                                                   sample_path):
    db = tmp_path / "p.duckdb"
    shutil.copy(made / "p.duckdb", db)
    args = [str(sample_path) if a == "{sample}" else a for a in args]
    with ProjectLock(db, exclusive=True, command="generate"):
        r = cli(*args, "--db", db, "--out" if args[0] == "generate" else "--db", db)
    one_line_error(r, 75, f"another convkgyarn command is using {db} (pid {os.getpid()}")


def test_a_database_held_by_another_program_is_busy_too(made, tmp_path):
    db = tmp_path / "p.duckdb"
    shutil.copy(made / "p.duckdb", db)
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; "
                               f"c = duckdb.connect({str(db)!r}); print('ok', flush=True); "
                               "time.sleep(60)"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ok"
        one_line_error(cli("stats", "--db", db), 75, "another process is using")
    finally:
        holder.kill()
        holder.wait()


@pytest.mark.parametrize("command", [
    ["templates", "show", "Q5"], ["predicates", "show", "Q5"], ["related", "show"],
    ["kg", "rejects"], ["kg", "stats"], ["stats"], ["export"], ["drops"], ["report"],
])
def test_a_missing_database_is_one_line_and_never_created(tmp_path, command):
    db = tmp_path / "nope.duckdb"
    one_line_error(cli(*command, "--db", db), 2, "no project database here")
    assert not db.exists()


@pytest.mark.parametrize("command", [["templates", "show", "Q5"], ["stats"], ["generate"],
                                     ["kg", "load", "{sample}"]])
def test_a_file_that_is_not_a_project_database_is_one_line(tmp_path, command, sample_path):
    """Whatever its name: DuckDB opens an existing summary.json or data.csv as an in-memory
    database over that file, and `kg load --db summary.json` said "done" and stored nothing
    (a newcomer's find). The file is left exactly as it was, with no lock file beside it."""
    command = [str(sample_path) if a == "{sample}" else a for a in command]
    for name in ("notes.duckdb", "summary.json", "data.csv"):
        db = tmp_path / name
        db.write_text('{"these are": "my notes, not a database"}\n' * 100)
        before = db.read_bytes()
        one_line_error(cli(*command, "--db", db), 2, "not a convkgyarn project database")
        assert db.read_bytes() == before
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
            f"{n}" for n in ("notes.duckdb", "summary.json", "data.csv")
            if (tmp_path / n).exists()), list(tmp_path.iterdir())
    other = tmp_path / "other.duckdb"
    duckdb.connect(str(other)).execute("CREATE TABLE invoices (id INTEGER)").close()
    one_line_error(cli(*command, "--db", other), 2, "not a convkgyarn project database")
    assert not (tmp_path / "other.duckdb.lock").exists()  # the refused open made it: gone


def test_a_label_file_given_as_a_dump_is_one_true_line(tmp_path):
    """A newcomer loaded the property-labels file as a dump: it said "the file is empty" (it
    holds 8,204 labels), after a blank line the load's progress display left when the output
    is not a terminal. Now one line on stderr says what the file is not, and where it goes."""
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps({"P26": {"label": "spouse"}, "P31": {"label": "instance of"}},
                                 indent=2))
    r = subprocess.run([sys.executable, "-m", "convkgyarn", "kg", "load", str(labels), "--db",
                        str(tmp_path / "p.duckdb")], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no Wikidata entities in"), lines
    assert 'no "entities" in it' in lines[0] and "--labels" in lines[0], lines
    assert "empty" not in lines[0]


def test_piped_tables_keep_ids_whole(made, tmp_path):
    """Piped or redirected, the output has no terminal width: rich folded the summary table
    at 80 columns, and a run id split over two lines could not be copied into
    `export --run` (a newcomer's find)."""
    db = tmp_path / "p.duckdb"
    shutil.copy(made / "p.duckdb", db)
    r = subprocess.run([sys.executable, "-m", "convkgyarn", "generate", "--db", str(db),
                        "--out", str(tmp_path / "out"), "--all-configs", "--conversations",
                        "2"], capture_output=True, text=True, cwd=REPO)
    assert r.returncode == 0, r.stderr
    con = duckdb.connect(str(db), read_only=True)
    runs = [row[0] for row in con.execute(
        "SELECT run_id FROM generation_runs WHERE current").fetchall()]
    con.close()
    longest = max(runs, key=len)
    assert len(longest) >= 40 and longest in r.stdout, r.stdout


def test_a_read_only_database_is_one_line(made, tmp_path):
    db = tmp_path / "ro.duckdb"
    shutil.copy(made / "p.duckdb", db)
    if subprocess.run(["chattr", "+i", str(db)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here (needs root and a supporting filesystem)")
    try:
        r = cli("generate", "--db", db, "--out", tmp_path / "o")
        assert r.exit_code == 2 and "Traceback" not in r.output, r.output
        assert cli("stats", "--db", db).exit_code == 0  # reading still works
    finally:
        subprocess.run(["chattr", "-i", str(db)])


def test_a_missing_config_file_is_an_error(tmp_path):
    one_line_error(cli("generate", "--config", tmp_path / "no.toml"), 2,
                   "no.toml: no such config file")


def test_a_database_path_with_an_apostrophe_works_in_refresh(made, tmp_path, sample_path):
    db = tmp_path / "it's.duckdb"
    shutil.copy(made / "p.duckdb", db)
    r = cli("refresh", sample_path, "--db", db)
    assert r.exit_code in (0, 10), r.output


def test_kg_text_is_printed_as_written(made):
    r = cli("templates", "show", "Q5", "--db", made / "p.duckdb", "--interaction", "voice")
    assert r.exit_code == 0 and "[person]" in r.output


def test_version_and_verbose_work_anywhere_on_the_line(made):
    r = cli("--version")
    assert r.exit_code == 0 and r.output.strip() == convkgyarn.__version__
    r = cli("stats", "--db", made / "p.duckdb", "-v")
    assert r.exit_code == 0
    r = cli("kg", "stats", "-v", "--db", made / "p.duckdb", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["entities"] > 0


def test_messages_keep_their_brackets(tmp_path):
    from convkgyarn.cli.common import console, say

    with console.capture() as captured:
        say("[llm] selected 3 predicates for [person]")
    assert captured.get().strip() == "[llm] selected 3 predicates for [person]"


def test_the_console_script_runs(made):
    r = subprocess.run([sys.executable, "-m", "convkgyarn", "stats", "--db",
                        str(made / "p.duckdb"), "--json"], capture_output=True, text=True,
                       cwd=REPO)
    assert r.returncode == 0 and json.loads(r.stdout)["conversations"] == 8


@pytest.mark.parametrize("args,needle", [
    (["kg", "rejects", "--limit", "-1"], "Invalid value for '--limit'"),
    (["annotations", "export", "--sample", "0"], "Invalid value for '--sample'"),
    (["predicates", "extract", "--min-entities", "0"], "Invalid value for '--min-entities'"),
    (["evaluate", "--limit", "-5"], "Invalid value for '--limit'"),
    (["related", "show", "--limit", "0"], "Invalid value for '--limit'"),
    (["generate", "--nope"], "No such option: --nope"),
    (["nosuch"], "No such command 'nosuch'"),
])
def test_usage_errors_are_one_line_too(tmp_path, args, needle):
    one_line_error(cli(*args, "--db", tmp_path / "p.duckdb") if args[0] != "nosuch"
                   else cli(*args), 2, needle)
    assert not (tmp_path / "p.duckdb").exists()


def test_a_suggested_command_reaches_the_same_project(tmp_path, monkeypatch):
    """Found by a newcomer: after `kg load --db err/c.duckdb` the hint said `convkgyarn kg
    rejects`, which reads the default project. Every command a line suggests carries the
    --db (and --config) this one was given."""
    monkeypatch.chdir(tmp_path)
    dump = tmp_path / "d.ndjson"
    dump.write_text('{"id": "Q1", "type": "item"}\nnot json\n[1]\n')
    r = cli("kg", "load", dump, "--db", "err/c.duckdb")
    one_line_error(r, 2, "see `convkgyarn kg rejects --db err/c.duckdb`")
    r = cli("kg", "load", dump)  # the default project: the hint as it was
    one_line_error(r, 2, "see `convkgyarn kg rejects`")
