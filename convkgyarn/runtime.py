"""The leaf every layer may import: clocks, run ids, the code version, and the hash of the
code a module runs (its import closure). It imports nothing of convkgyarn but the version.

The code hash is computed, never listed by hand (a hand-kept list drifts): a module's import
closure is the module (every module of it, for a package), then every ``convkgyarn`` module
they import at module level, transitively, with the packages that hold them. That is exactly
the set of ``convkgyarn`` modules Python loads to import it (a test holds the two equal). An
import inside a function is not followed: what a stage needs to decide its output it
imports at module level.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import subprocess
import uuid
from datetime import datetime, timezone
from functools import cache, lru_cache
from pathlib import Path

from convkgyarn import __version__

ROOT = "convkgyarn"


@cache
def code_version() -> str:
    """Package version plus the git commit when run from a checkout."""
    try:
        sha = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=Path(__file__).parent,
            capture_output=True, text=True, timeout=5, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        sha = ""
    return f"{__version__}+{sha}" if sha else __version__


def new_run_id() -> str:
    """A fresh run id, in time order (a stage whose output its inputs decide alone makes its
    own deterministic id instead)."""
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:6]


def utcnow() -> datetime:
    """Timestamps are stored as naive UTC."""
    return datetime.now(timezone.utc).replace(tzinfo=None)


# -- the code a module runs ----------------------------------------------------------------
def _source(module: str, root: Path) -> Path | None:
    """The file of a ``convkgyarn`` module under ``root`` (the folder holding the package),
    or None when there is no such module."""
    base = root.joinpath(*module.split("."))
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _module_level_imports(tree: ast.Module, module: str, is_package: bool) -> set[str]:
    """The modules a module's top-level statements (and the blocks under them that are not
    functions or classes' methods) name in ``import`` and ``from ... import``."""
    out: set[str] = set()
    package = module if is_package else module.rpartition(".")[0]

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                out.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[:len(parts) - node.level + 1])
                    base = f"{base}.{node.module}" if node.module else base
                else:
                    base = node.module or ""
                out.add(base)
                out.update(f"{base}.{alias.name}" for alias in node.names)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue  # runs when called, not at import
            elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)  # for type checkers only
            else:  # the blocks of if / try / with / class run at import
                for name in ("body", "orelse", "finalbody"):
                    visit(getattr(node, name, []))
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)

    visit(tree.body)
    return out


def package_root() -> Path:
    """The folder holding the ``convkgyarn`` package of this process."""
    return Path(importlib.util.find_spec(ROOT).origin).parent.parent


def import_closure(module: str, root: Path | None = None) -> dict[str, Path]:
    """Every ``convkgyarn`` module importing ``module`` loads (every module of it, for a
    package): module name -> source file."""
    root = root or package_root()
    start = _source(module, root)
    todo = [module]
    if start is not None and start.name == "__init__.py":  # a package: all its modules
        todo += [f"{module}.{p.stem}" for p in sorted(start.parent.glob("*.py"))
                 if p.name != "__init__.py"]
    found: dict[str, Path] = {}
    while todo:
        name = todo.pop()
        if name in found or not (name == ROOT or name.startswith(ROOT + ".")):
            continue
        path = _source(name, root)
        if path is None:  # a name imported from a module, not a module
            continue
        found[name] = path
        parent = name.rpartition(".")[0]
        if parent:  # importing a module runs its packages first
            todo.append(parent)
        todo += _imports_of(name, path, path.stat().st_mtime_ns)
    return dict(sorted(found.items()))


@lru_cache(maxsize=4096)
def _imports_of(module: str, path: Path, mtime_ns: int) -> list[str]:
    """A module's module-level imports, parsed once per version of its file (the stages'
    closures overlap: most of the package is parsed once per process, not once per stage)."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
    return sorted(_module_level_imports(tree, module, path.name == "__init__.py"))


def hash_sources(modules: dict[str, Path]) -> str:
    """A hash of the modules' names and source."""
    digest = hashlib.sha256()
    for module, path in sorted(modules.items()):
        digest.update(module.encode() + b"\x00" + path.read_bytes() + b"\x00")
    return digest.hexdigest()[:16]


def code_hash(module: str, root: Path | None = None) -> str:
    """A hash of the source of every module in ``module``'s import closure."""
    return hash_sources(import_closure(module, root))


@lru_cache(maxsize=None)
def module_code_hash(module: str) -> str:
    """The code hash of ``module`` in this process (read once per module)."""
    return code_hash(module)
