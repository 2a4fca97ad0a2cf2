"""Ingest SIGKILLed at random points and run again ends identical to an uninterrupted run: catalog rows,
Chroma ids + documents + metadata + embeddings, and the keyword index, compared exactly.

The default run lands 3 kills on a small input; `python -m bench.bench_kill_resume` lands 20 (docs/reliability.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.bench_kill_resume import kill_and_compare, write_records
from bench.store_snapshot import differences


@pytest.mark.slow
def test_random_kills_then_rerun_leave_the_store_identical_to_a_clean_run(tmp_path: Path) -> None:
    records = write_records(tmp_path / "records.jsonl", 12)
    result = kill_and_compare(records, tmp_path, kills=3, seed=5)
    sequences = result["sequences"]
    assert sum(len(s.kills) for s in sequences) == 3
    assert result["sizes"]["papers"] == 12 and result["sizes"]["chunks"] == result["sizes"]["vectors"] > 12
    assert result["sizes"]["keyword_chunks"] == result["sizes"]["chunks"]
    for seq in sequences:
        assert seq.differences == [], seq.differences
    check_the_comparison_sees_a_change(result["reference"])


def check_the_comparison_sees_a_change(reference: dict) -> None:
    """One changed value in each part of a snapshot is reported."""
    chunk_id, (doc, meta, vec) = next(iter(reference["vectors"].items()))
    changes = {
        "catalog": {**reference["catalog"], "chunks": reference["catalog"]["chunks"][1:]},
        "vectors": {**reference["vectors"], chunk_id: (doc, meta, vec[:-1] + bytes([vec[-1] ^ 1]))},
        "keywords": {**reference["keywords"], "stats": (0, 0.0)},
    }
    for part, changed in changes.items():
        found = differences(reference, {**reference, part: changed})
        assert len(found) == 1 and found[0].startswith(part), found
