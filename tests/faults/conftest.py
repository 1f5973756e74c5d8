"""Fixtures the fault tests share."""

from __future__ import annotations

import shutil

import pytest

from tests.helpers import cli


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A project with voice conversations and generate's outputs (one per test module)."""
    tmp = tmp_path_factory.mktemp("made")
    r = cli("generate", "--db", tmp / "p.duckdb", "--out", tmp / "out", "--conversations", "6")
    assert r.exit_code == 0, r.output
    return tmp


@pytest.fixture
def db(made, tmp_path):
    """A copy of that project's database, for a test to change."""
    shutil.copy(made / "p.duckdb", tmp_path / "p.duckdb")
    return tmp_path / "p.duckdb"
