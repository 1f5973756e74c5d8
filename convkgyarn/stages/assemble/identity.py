"""What a generation run's id covers of the code: every module assembly imports.

A run's id hashes the code release with its inputs, so that a release that changes how
conversations are made makes a new run even when its version number did not change. The
code is the assembly package's import closure, computed by ``convkgyarn.runtime`` (the same
hash every stage's input key holds, see ``Stage.code_hash``).
"""

from __future__ import annotations

from pathlib import Path

from convkgyarn import runtime
from convkgyarn.runtime import hash_sources

PACKAGE = "convkgyarn.stages.assemble"

__all__ = ["PACKAGE", "assembly_code_hash", "code_hash", "hash_sources", "import_closure"]


def import_closure(package: str = PACKAGE, root: Path | None = None) -> dict[str, Path]:
    """Every ``convkgyarn`` module importing ``package`` loads: module name -> source file."""
    return runtime.import_closure(package, root)


def code_hash(package: str = PACKAGE, root: Path | None = None) -> str:
    """A hash of the source of every module in the package's import closure."""
    return runtime.code_hash(package, root)


# Modules assembly imports inside functions (each language's package, the labels per
# language), which an import closure of module-level imports does not reach: a change to a
# language's forms must make a new run too.
LAZY = ("convkgyarn.languages.de", "convkgyarn.languages.ja", "convkgyarn.languages.zh",
        "convkgyarn.languages.en", "convkgyarn.kg.languages")


def assembly_code_hash() -> str:
    """The assembly code of this process (read once): the package's import closure and the
    modules it imports lazily (``LAZY``)."""
    import hashlib

    parts = [runtime.module_code_hash(PACKAGE), *(runtime.module_code_hash(m) for m in LAZY)]
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]
