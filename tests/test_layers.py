"""The layers as a checked contract (#31 item 6): `lint-imports` keeps the import direction
of pyproject.toml's layers, and no layer is skipped by a leaf importing upwards."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "convkgyarn"


def test_the_layers_contract_is_kept():
    exe = Path(sys.executable).with_name("lint-imports")
    command = [str(exe)] if exe.exists() else [shutil.which("lint-imports") or "lint-imports"]
    r = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "1 kept, 0 broken" in r.stdout


def test_the_leaf_modules_import_nothing_of_the_package_but_its_version():
    for leaf in ("runtime.py", "progress.py", "errors.py"):
        tree = ast.parse((PACKAGE / leaf).read_text())
        names = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)] + [
            a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        inner = [n for n in names if n and n.startswith("convkgyarn")]
        assert inner in ([], ["convkgyarn"]), (leaf, inner)


def test_every_exception_a_user_can_see_is_defined_in_errors():
    import importlib
    import inspect
    import pkgutil

    import convkgyarn
    from convkgyarn.errors import ConvKGYarnError

    elsewhere = set()
    for info in pkgutil.walk_packages(convkgyarn.__path__, "convkgyarn."):
        if info.name.endswith("__main__") or info.name.startswith((
                "convkgyarn.prompts", "convkgyarn.wikidata", "convkgyarn.inspect_task")):
            continue  # scripts (inspect_task is the task.py of an Inspect export)
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if inspect.isclass(obj) and issubclass(obj, ConvKGYarnError) and \
                    obj.__module__ != "convkgyarn.errors":
                elsewhere.add(f"{obj.__module__}.{name}")
    assert elsewhere == set()
