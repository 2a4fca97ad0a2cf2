"""The definitions bench's gold (names that start exactly one demo title) and the SciFact best-sentence list."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from bench.bench_definitions import cases
from bench.scifact_feedback import best_sentences


def test_a_name_that_starts_two_titles_is_no_case(tmp_path: Path) -> None:
    records = [
        {"id": "1", "title": "Search-R1: Training LLMs to Reason"},
        {"id": "2", "title": "ReMA: Learning to Meta-think"},
        {"id": "3", "title": "ReMA: Another paper with the same name"},
        {"id": "4", "title": "Agents: a plain word is not a name"},
        {"id": "5", "title": "A survey of agentic RL"},
    ]
    path = tmp_path / "records.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("".join(json.dumps(r) + "\n" for r in records))
    assert [(c.name, c.gold) for c in cases(path)] == [("Search-R1", "1")]


def test_each_chunk_scores_its_best_stored_sentence() -> None:
    stored = {("a#0", 0): np.array([1.0, 0.0]), ("a#0", 9): np.array([0.0, 2.0]), ("b#0", 0): np.array([1.0, 1.0])}
    store = SimpleNamespace(sentence_vectors=SimpleNamespace(get=lambda ids: stored))
    queries = np.array([[1.0, 0.0], [0.0, 1.0]])
    out = best_sentences(store, queries, ["a#0", "b#0", "c#0"])  # type: ignore[arg-type]
    assert out is not None
    np.testing.assert_allclose(out, [[1.0, 2**-0.5, 0.0], [1.0, 2**-0.5, 0.0]], rtol=1e-6)
