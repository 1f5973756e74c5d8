"""A real Oxigraph SPARQL server on 127.0.0.1 over an N-Triples file, for the tests."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def binary() -> str:
    beside = Path(sys.executable).parent / "oxigraph"  # the venv's bin may not be on PATH
    found = str(beside) if beside.exists() else shutil.which("oxigraph")
    if found is None:
        pytest.fail("the oxigraph server binary (pip install oxigraph) is missing")
    return found


@contextmanager
def serve(nt: Path, work: Path) -> Iterator[str]:
    """Load ``nt`` into a store under ``work`` and serve it read-only; yields the query URL."""
    store = work / "store"
    subprocess.run([binary(), "load", "--location", str(store), "--file", str(nt)],
                   check=True, capture_output=True)
    port = _port()
    proc = subprocess.Popen([binary(), "serve-read-only", "--location", str(store), "--bind",
                             f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/query"
    try:
        for _ in range(100):
            try:
                httpx.get(url, params={"query": "ASK {}"}, timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)
