"""A project database with the bundled sample loaded and F(t) extracted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from convkgyarn.config import LoadConfig, PredicatesConfig
from convkgyarn.kg.load import LoadStage
from convkgyarn.stages.predicates import ExtractPredicates
from convkgyarn.store import connect


@pytest.fixture(scope="session")
def _sample_db(tmp_path_factory, sample_path) -> Path:
    path = tmp_path_factory.mktemp("sample") / "sample.duckdb"
    con = connect(path)
    LoadStage(con, LoadConfig(paths=[sample_path])).run()
    ExtractPredicates(con, PredicatesConfig()).run()
    con.close()
    return path


@pytest.fixture
def sample_db(_sample_db, tmp_path):
    """A fresh copy per test: tests may write to it."""
    path = tmp_path / "copy.duckdb"
    shutil.copy(_sample_db, path)
    con = connect(path)
    yield con
    con.close()
