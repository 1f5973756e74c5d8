"""What a generation run's id covers of the code: every module assembly imports.

A run's id hashes the code release with its inputs, so that a release that changes how
conversations are made makes a new run even when its version number did not change. The
code is the assembly package's import closure, computed from the imports themselves (never a
list kept by hand, which drifts): the package's modules, then every ``convkgyarn`` module
they import at module level, transitively, with the packages that hold them. That is
exactly the set of ``convkgyarn`` modules Python loads to import the package (a test holds
the two equal). An import inside a function is not followed: assembly imports at module
level.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
from functools import lru_cache
from pathlib import Path

ROOT = "convkgyarn"
PACKAGE = "convkgyarn.stages.assemble"


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


def import_closure(package: str = PACKAGE, root: Path | None = None) -> dict[str, Path]:
    """Every ``convkgyarn`` module importing ``package`` loads: module name -> source file."""
    root = root or Path(importlib.util.find_spec(ROOT).origin).parent.parent
    start = _source(package, root)
    todo = [package]
    if start is not None and start.name == "__init__.py":  # a package: all its modules
        todo += [f"{package}.{p.stem}" for p in sorted(start.parent.glob("*.py"))
                 if p.name != "__init__.py"]
    found: dict[str, Path] = {}
    while todo:
        module = todo.pop()
        if module in found or not (module == ROOT or module.startswith(ROOT + ".")):
            continue
        path = _source(module, root)
        if path is None:  # a name imported from a module, not a module
            continue
        found[module] = path
        parent = module.rpartition(".")[0]
        if parent:  # importing a module runs its packages first
            todo.append(parent)
        tree = ast.parse(path.read_bytes(), filename=str(path))
        todo += sorted(_module_level_imports(tree, module, path.name == "__init__.py"))
    return dict(sorted(found.items()))


def hash_sources(modules: dict[str, Path]) -> str:
    """A hash of the modules' names and source."""
    digest = hashlib.sha256()
    for module, path in sorted(modules.items()):
        digest.update(module.encode() + b"\x00" + path.read_bytes() + b"\x00")
    return digest.hexdigest()[:16]


def code_hash(package: str = PACKAGE, root: Path | None = None) -> str:
    """A hash of the source of every module in the package's import closure."""
    return hash_sources(import_closure(package, root))


@lru_cache(maxsize=1)
def assembly_code_hash() -> str:
    """The assembly code of this process (read once)."""
    return code_hash()
