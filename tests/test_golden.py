"""Golden exports: the main job and --all-configs on the bundled sample, byte for byte.

Provenance that changes with every commit (run id, code version) is blanked; everything a
user reads is compared. When a change alters conversations on purpose, rewrite the files
with ``UPDATE_GOLDEN=1 python -m pytest tests/test_golden.py`` and say why in the commit.
"""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pytest

from convkgyarn.config import GenerateConfig, paper_configs
from tests.helpers import project

GOLDEN = Path(__file__).parent / "golden"
CASES = {
    "main-job": lambda: [GenerateConfig(interaction="voice", deixis=True)],
    "all-configs-seed3": lambda: paper_configs(GenerateConfig(seed=3)),
}


def normalised(path: Path) -> bytes:
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        record["provenance"]["run_id"] = record["provenance"]["code_version"] = None
        lines.append(json.dumps(record, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("case", CASES)
def test_exports_match_the_golden_files(case, tmp_path):
    with project(tmp_path / "g.duckdb") as p:
        result = p.generate(CASES[case]())
        p.write_outputs(result.runs, tmp_path / "out")
    got = normalised(tmp_path / "out" / "conversations.jsonl")
    golden = GOLDEN / f"{case}.jsonl.gz"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_bytes(gzip.compress(got, mtime=0))
    expected = gzip.decompress(golden.read_bytes())
    if got != expected:
        (tmp_path / "expected.jsonl").write_bytes(expected)
        (tmp_path / "got.jsonl").write_bytes(got)
        pytest.fail(f"{case}: the export differs from {golden.name} (compare "
                    f"{tmp_path}/expected.jsonl and got.jsonl)")
