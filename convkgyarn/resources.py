"""Files that ship inside the package: prompt files and the bundled Wikidata sample.

In the source tree they live in the top-level ``prompts/`` and ``wikidata/`` folders, which
the build maps to the packages ``convkgyarn.prompts`` and ``convkgyarn.wikidata``; read
through ``importlib.resources`` they are found the same way in a checkout, an editable
install and an installed wheel.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from string import Template

from convkgyarn.scoring import data_block  # noqa: F401  (KG text for prompts' data blocks)

SAMPLE_NAME = "sample-dump.json"


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
    return Prompt(name, resources.files("convkgyarn.prompts").joinpath(name)
                  .read_text(encoding="utf-8"))


def combined_hash(*prompts: Prompt) -> str:
    return hashlib.sha256("".join(p.hash for p in prompts).encode()).hexdigest()[:16]


def bundled_sample() -> Path:
    """The bundled sample dump (a real file: installed packages are unpacked)."""
    return Path(str(resources.files("convkgyarn.wikidata").joinpath(SAMPLE_NAME)))
