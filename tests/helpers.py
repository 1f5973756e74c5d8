"""Small helpers the tests share: typed config, stage contexts, projects, the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from convkgyarn.config import ProjectConfig, load_project_config
from convkgyarn.llm import new_meter
from convkgyarn.project import Project
from convkgyarn.stage import Context


def config(db: Path | str | None = None, **overrides: Any) -> ProjectConfig:
    """A project config with dotted overrides (``{"llm.base_url": ...}``), no environment."""
    return load_project_config(None, {"db": db, **overrides}, environ={})


def context(con, work_dir: Path | None = None, **overrides: Any) -> Context:
    cfg = config(**overrides)
    return Context(con=con, config=cfg, meter=new_meter(cfg.llm),
                   work_dir=work_dir or Path("outputs"))


def project(db: Path | str, write: bool = True, **overrides: Any) -> Project:
    """An opened project (close it, or use it in a ``with`` block)."""
    return Project(config(db, **overrides), write=write).open()


def llm(server, **extra: Any) -> dict[str, Any]:
    """Overrides that point the LLM stages at a scripted server."""
    return {"llm.base_url": server.base_url, "llm.api_key": "k", "llm.backoff_max": 0.1,
            **{f"llm.{k}": v for k, v in extra.items()}}


def cli(*args: str, env: dict | None = None):
    from convkgyarn.cli import app

    return CliRunner(env=env or {}).invoke(app, list(map(str, args)))


def volume_config(folder: Path) -> Path:
    """A config file (in ``folder``) that makes every conversation asked even of a small KG,
    its subjects repeating their facts (``new_fact_share = 0``): for tests that need a run
    long enough to interrupt or to fill a disk."""
    path = Path(folder) / "volume.toml"
    path.write_text("[generate]\nnew_fact_share = 0\n")
    return path


def generated_records(out_dir: Path | str) -> list[dict]:
    """The records of the configurations the last ``generate`` made, from its
    ``conversations.jsonl`` (which holds every current configuration's) and ``summary.json``
    (``generated``: what that command made)."""
    import json

    out_dir = Path(out_dir)
    made = set(json.loads((out_dir / "summary.json").read_text())["generated"])
    records = (json.loads(line) for line in
               (out_dir / "conversations.jsonl").read_text().splitlines())
    return [r for r in records if r["config"]["name"] in made]
