"""The scale benchmark's dumps are those of the shared tool that defines a scaled KG."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

from tests.conftest import REPO


def test_scaled_dump_writes_the_shared_tools_bytes(tmp_path, shared_data):
    """``bench_scale.scaled_dump`` splices copies instead of serialising each one; its dump
    must be byte for byte what ``make_scaled_kg.py`` writes (ids, suffixed English labels,
    entities without an English label, the second pass over the sources)."""
    spec = importlib.util.spec_from_file_location("bench_scale",
                                                  REPO / "benchmarks" / "bench_scale.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    tool = shared_data.parent / "tools" / "make_scaled_kg.py"
    n = 1400  # more than the ~1,300 source entities: copies 1 and 2
    subprocess.run([sys.executable, str(tool), str(n), str(tmp_path / "tool.json"),
                    *map(str, bench.SOURCES)], check=True)
    bench.scaled_dump(n, tmp_path / "bench.json")
    ours, theirs = (tmp_path / "bench.json").read_bytes(), (tmp_path / "tool.json").read_bytes()
    assert ours.count(b"\n") == n + 2
    assert ours == theirs
