"""A project database with the bundled sample loaded and F(t) extracted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from convkgyarn.store import connect
from tests.helpers import project


@pytest.fixture(scope="session")
def _sample_db(tmp_path_factory, sample_path) -> Path:
    path = tmp_path_factory.mktemp("sample") / "sample.duckdb"
    with project(path) as p:
        p.load([sample_path], kind="sample")
        p.extract_predicates()
    return path


@pytest.fixture
def sample_db(_sample_db, tmp_path):
    """A fresh copy per test: tests may write to it."""
    path = tmp_path / "copy.duckdb"
    shutil.copy(_sample_db, path)
    con = connect(path)
    yield con
    con.close()
