"""Prompt files under ``prompts/``: their text, and the content hash that enters every cache key."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from string import Template

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"


@dataclass(frozen=True)
class Prompt:
    name: str
    text: str

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def render(self, **values: str) -> str:
        """Fill ``$name`` placeholders; a missing value is an error, not a silent blank."""
        return Template(self.text).substitute(values)


@cache
def load_prompt(name: str) -> Prompt:
    path = PROMPTS_DIR / name
    return Prompt(name, path.read_text(encoding="utf-8"))


def combined_hash(*prompts: Prompt) -> str:
    return hashlib.sha256("".join(p.hash for p in prompts).encode()).hexdigest()[:16]
