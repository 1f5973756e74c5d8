"""Shared fixtures: the real Wikidata data in ../shared/data, fresh project databases, and
projects opened through the library entry point."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from convkgyarn.resources import bundled_sample
from convkgyarn.store import connect
from tests.helpers import context

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """../shared/data; skipped with a reason when absent, a failure in CI."""
    if not SHARED_DATA.is_dir():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"CI=true but {SHARED_DATA} is missing: CI must have ../shared beside the repo")
        pytest.skip(f"{SHARED_DATA} not found: real-Wikidata tests need ../shared/data beside the repo")
    return SHARED_DATA


@pytest.fixture
def db(tmp_path: Path):
    con = connect(tmp_path / "test.duckdb")
    yield con
    con.close()


@pytest.fixture
def ctx(db):
    """A stage context on a fresh database, rules path (no LLM)."""
    return context(db)


@pytest.fixture(scope="session")
def sample_path() -> Path:
    return bundled_sample()


@pytest.fixture(autouse=True)
def _no_real_endpoint(monkeypatch):
    """Tests never reach a real LLM service: a developer's OpenAI settings are ignored."""
    for var in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(REPO)  # no stray convkgyarn.toml from elsewhere
