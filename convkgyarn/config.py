"""Typed configuration: built once at the CLI from the config file and options, then passed down."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_DB = Path("outputs/convkgyarn.duckdb")
CONFIG_FILE = Path("convkgyarn.toml")
PACKAGE_ROOT = Path(__file__).resolve().parent.parent
BUNDLED_SAMPLE = PACKAGE_ROOT / "wikidata" / "sample-dump.json"
BUNDLED_LABELS = PACKAGE_ROOT / "wikidata" / "extra-labels.json"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LoadConfig(_Strict):
    paths: list[Path]
    workers: int = Field(1, ge=1, description="parser processes")
    force: bool = False
    labels: Path | None = Field(None, description="JSON {id: label} for values outside the dump")
    block_bytes: int = Field(4 << 20, ge=1024, description="bytes of dump text per parse task")
    flush_bytes: int = Field(64 << 20, ge=1024, description="dump bytes per database commit")


class PredicatesConfig(_Strict):
    min_type_entities: int = Field(1, ge=1, description="types with fewer entities are skipped")


class ProjectConfig(_Strict):
    db: Path = DEFAULT_DB
    predicates: PredicatesConfig = PredicatesConfig()


def load_project_config(path: Path | None = None, overrides: dict[str, Any] | None = None) -> ProjectConfig:
    """Read ``convkgyarn.toml`` (if present) and apply CLI overrides on top."""
    data: dict[str, Any] = {}
    path = path or CONFIG_FILE
    if path.is_file():
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    for key, value in (overrides or {}).items():
        if value is not None:
            data[key] = value
    return ProjectConfig.model_validate(data)
