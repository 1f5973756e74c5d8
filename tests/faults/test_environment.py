"""Problems of the machine, not bugs: an output path under a file, a read-only folder, a full
disk, a damaged database, a config file that is not text, a memory limit too small. Each is
exit 2 and one line naming the file and what to do, and leaves what was there whole.

We run as root here, which writes through file permissions: a read-only folder is made with a
read-only tmpfs mount where the system allows it, and otherwise the ``PermissionError`` a
normal user gets is injected at the write layer (said in each test). A full disk likewise:
a tiny tmpfs where mounting is allowed, and ``ENOSPC`` injected at the write layer always."""

from __future__ import annotations

import errno
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.cli.test_errors import one_line_error
from tests.helpers import cli, project, volume_config


def no_temporaries(folder: Path) -> bool:
    return not [p for p in folder.rglob("*") if re.search(r"\.convkgyarn-\d+-", p.name)]


@pytest.fixture
def tmpfs(tmp_path):
    """A small tmpfs of our own (root only); skipped with the reason where not allowed."""
    mounts: list[Path] = []

    def mount(size: str) -> Path:
        point = tmp_path / f"disk{len(mounts)}"
        point.mkdir()
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)],
                           capture_output=True, text=True)
        if r.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here ({r.stderr.strip() or 'not root'}); the "
                        "injected-error tests cover this case")
        mounts.append(point)
        return point

    yield mount
    for point in mounts:
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


@pytest.mark.parametrize("args", [
    ["export", "--out", "{file}/c.jsonl"], ["export", "--format", "hf", "--out", "{file}/hf"],
    ["kg", "rdf", "--out", "{file}/kg.nt"], ["generate", "--out", "{file}/out"],
    ["generate", "--out", "{file}"], ["report", "--out", "{file}/r"],
])
def test_an_output_path_under_a_file_is_one_line(db, tmp_path, args):
    file = tmp_path / "plain.txt"
    file.write_text("mine\n")
    r = cli(*[a.replace("{file}", str(file)) for a in args], "--db", db)
    one_line_error(r, 2, str(file))
    assert file.read_text() == "mine\n"


def test_a_read_only_folder_is_one_line_naming_the_file(db, tmp_path, monkeypatch):
    """Injected: root writes through permissions, so the PermissionError a user gets when
    the folder is not theirs is raised where the file is opened."""
    import convkgyarn.export as export

    out = tmp_path / "theirs"
    out.mkdir()

    def denied(recs, path):
        raise PermissionError(errno.EACCES, "Permission denied", str(path))

    monkeypatch.setattr(export, "_jsonl", denied)
    r = cli("export", "--db", db, "--out", out / "c.jsonl")
    one_line_error(r, 2, f"{out / 'c.jsonl'}: Permission denied; give a path you can write")
    assert list(out.iterdir()) == []


def test_a_read_only_disk_is_one_line(db, tmpfs):
    disk = tmpfs("4m")
    (disk / "old.jsonl").write_bytes(b"")
    subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True)
    for args, target in ((["export"], "c.jsonl"), (["export", "--format", "hf"], "hf"),
                         (["kg", "rdf"], "kg.nt"), (["generate"], "out")):
        r = cli(*args, "--db", db, "--out", disk / target)
        one_line_error(r, 2, f"{disk / target}: Read-only file system")
    assert sorted(p.name for p in disk.iterdir()) == ["old.jsonl"]


@pytest.mark.parametrize("fmt,name", [("jsonl", "c.jsonl"), ("parquet", "c.parquet"),
                                      ("hf", "hf")])
def test_a_full_disk_while_exporting_keeps_the_previous_export(db, tmp_path, monkeypatch, fmt,
                                                               name):
    """Injected ENOSPC at the write layer (the tmpfs test below fills a real disk)."""
    import convkgyarn.export as export

    target = tmp_path / name
    assert cli("export", "--db", db, "--format", fmt, "--out", target).exit_code == 0
    before = sorted(p.read_bytes() for p in ([target] if target.is_file()
                                              else target.rglob("*.*")))

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(export, "_jsonl", full)
    monkeypatch.setattr(export.pq, "ParquetWriter", full)
    monkeypatch.setattr(export, "_hf_data", full)
    r = cli("export", "--db", db, "--format", fmt, "--out", target)
    one_line_error(r, 2, f"{target}: no space left on the device")
    assert sorted(p.read_bytes() for p in ([target] if target.is_file()
                                            else target.rglob("*.*"))) == before
    assert no_temporaries(tmp_path)


def test_a_full_disk_under_the_database_is_one_line_and_the_project_still_opens(made, tmpfs,
                                                                                 tmp_path):
    disk = tmpfs("64m")
    db = disk / "p.duckdb"
    shutil.copy(made / "p.duckdb", db)
    volume = volume_config(tmp_path)  # the 300 asked of the small sample: facts repeat
    free = shutil.disk_usage(disk).free
    (disk / "filler").write_bytes(b"\0" * (free - 600_000))
    r = cli("generate", "--db", db, "--out", disk / "out", "--all-configs", "--conversations",
            "300", "--seed", "3", "--config", volume)
    one_line_error(r, 2, "no space left on the device; the database keeps what was committed")
    assert str(db) in r.output.replace("\n", "")
    (disk / "filler").unlink()
    with project(db, write=False) as p:  # what was committed before is all there
        runs = p.con.execute("SELECT count(*) FROM generation_runs WHERE seed = 3").fetchone()
        assert runs[0] in (0, 8)  # each run whole or not at all
    r = cli("generate", "--db", db, "--out", disk / "out", "--all-configs", "--conversations",
            "300", "--seed", "3", "--config", volume)
    assert r.exit_code == 0, r.output


@pytest.mark.parametrize("damage", ["truncated", "overwritten"])
@pytest.mark.parametrize("args", [["stats"], ["generate", "--out", "{tmp}/o"],
                                  ["export", "--out", "{tmp}/c.jsonl"], ["kg", "stats"]])
def test_a_damaged_database_is_one_line(db, tmp_path, damage, args):
    size = db.stat().st_size
    if damage == "truncated":
        with open(db, "r+b") as fh:
            fh.truncate(size // 2)
    else:  # a block in the middle overwritten: found only when the block is read
        with open(db, "r+b") as fh:
            for at in range(12_288 + 262_144 + 5_000, size, 262_144):
                fh.seek(at)
                fh.write(b"GARBAGE" * 64)
    r = cli(*[a.replace("{tmp}", str(tmp_path)) for a in args], "--db", db)
    one_line_error(r, 2, f"{db}: the database file is damaged")
    assert "a bug" not in r.output


def test_a_binary_config_file_is_one_line(db, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("convkgyarn.toml").write_bytes(b'db = "x"\n\xff\xfe\x00\x01' + bytes(range(256)))
    one_line_error(cli("stats", "--db", db), 2, "convkgyarn.toml: not a TOML text file")
    one_line_error(cli("stats", "--db", db, "--config", tmp_path / "convkgyarn.toml"), 2,
                   "not a TOML text file")
    Path("convkgyarn.toml").unlink()
    Path("convkgyarn.toml").mkdir()
    one_line_error(cli("stats", "--db", db), 2, "convkgyarn.toml: is a folder")


@pytest.mark.parametrize("limit", ["1KB", "1MB", "15MB"])
def test_a_memory_limit_too_small_to_open_anything_is_one_line(db, tmp_path, limit):
    (tmp_path / "c.toml").write_text(f'memory_limit = "{limit}"\n')
    one_line_error(cli("stats", "--db", db, "--config", tmp_path / "c.toml"), 2,
                   "memory_limit: must be at least 16MB")
    one_line_error(cli("kg", "load", "--db", db, "--memory-limit", limit, db), 2,
                   "memory_limit: must be at least 16MB")


def test_a_memory_limit_too_small_for_the_work_is_one_line(db, tmp_path):
    (tmp_path / "c.toml").write_text('memory_limit = "16MB"\n')
    r = cli("generate", "--db", db, "--out", tmp_path / "o", "--all-configs",
            "--conversations", "200", "--seed", "4", "--config", tmp_path / "c.toml")
    one_line_error(r, 2, "DuckDB ran out of memory under memory_limit 16MB")
    assert cli("stats", "--db", db).exit_code == 0
