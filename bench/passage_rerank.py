"""Tried, not used by the service: passages of one paper reordered by the sentences they hold, so that a
passage with a sentence that answers the question comes before one that only shares its words.

Given `RERANK_POOL` x top_k passages of one paper, each is scored by its best sentence under the learned
scorer's cheap features (`assistant.selection`), mixed with its retrieval rank, and the best top_k are kept.
Measured in docs/benchmarks.md (bench_qasper): it found less of the evidence in the top 5 than retrieval order
on both question sets, so the service does not use it; the benchmark keeps it as a measured alternative.
"""

from __future__ import annotations

from collections.abc import Sequence

from assistant.extractive import usable
from assistant.selection import candidates
from assistant.types import Passage

RERANK_POOL = 2  # passages retrieved per passage kept
RANK_WEIGHT = 0.3  # share of the retrieval rank (1 / (1 + rank)) in a passage's score


def rerank(question: str, passages: Sequence[Passage], keep: int) -> list[Passage]:
    """The `keep` best of `passages` (best retrieved first), best first."""
    if len(passages) <= 1:
        return list(passages[:keep])
    _, found = candidates(question, passages, usable)
    best: dict[int, float] = {}
    for cand in found:  # best first: a passage's first sentence here is its best
        best.setdefault(cand.source, cand.score)
    low, high = min(best.values(), default=0.0), max(best.values(), default=0.0)
    spread = (high - low) or 1.0
    scored = [
        ((1 - RANK_WEIGHT) * (best[i] - low) / spread if i in best else 0.0) + RANK_WEIGHT / (1 + i)
        for i in range(len(passages))
    ]
    order = sorted(range(len(passages)), key=lambda i: -scored[i])[:keep]
    return [passages[i] for i in order]
