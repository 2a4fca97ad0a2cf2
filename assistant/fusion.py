"""Fusion of the dense and keyword rankings into one: reciprocal rank fusion or a convex combination of scores.

Both take the retrievers' candidates, best first, as (chunk id, score) pairs and return (chunk id, fused
score) pairs, best first. RRF looks at ranks only; the convex combination at scores, each list normalised
first (min-max: the list's best is 1 and its worst 0; z-score: standard deviations from the list's mean),
an id missing from a list getting that list's lowest normalised score. Which one papertalk uses, and with
which weights, is `RetrievalSettings.fusion` (chosen on SciFact's train claims), and
`RetrievalSettings.single_paper_fusion` inside one paper (chosen on QASPER; docs/benchmarks.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from papertalk.settings import RetrievalSettings

Ranked = Sequence[tuple[str, float]]  # (id, score), best first
Normalization = Literal["minmax", "zscore"]


def rrf_fuse(rankings: Sequence[tuple[float, Sequence[str]]], k: int) -> list[tuple[str, float]]:
    """Weighted reciprocal rank fusion of ranked id lists: sum of weight / (k + rank), rank from 1."""
    scores: dict[str, float] = {}
    for weight, ids in rankings:
        if weight <= 0:
            continue
        for rank, item in enumerate(ids, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda kv: -kv[1])


def minmax(scores: Sequence[float]) -> list[float]:
    """Scores rescaled to [0, 1]; equal scores (one candidate, or ties only) all become 1."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high == low:
        return [1.0] * len(scores)
    return [(s - low) / (high - low) for s in scores]


def zscore(scores: Sequence[float]) -> list[float]:
    """Standard deviations from the mean; equal scores all become 0."""
    if not scores:
        return []
    mean = sum(scores) / len(scores)
    std = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
    if std == 0:
        return [0.0] * len(scores)
    return [(s - mean) / std for s in scores]


NORMALIZERS = {"minmax": minmax, "zscore": zscore}


def normalized(ranked: Ranked, how: Normalization) -> tuple[dict[str, float], float]:
    """Each id's normalised score, and the floor given to an id the list lacks (its lowest)."""
    values = NORMALIZERS[how]([s for _, s in ranked])
    return dict(zip((i for i, _ in ranked), values, strict=True)), min(values, default=0.0)


def convex_fuse(
    dense: Ranked, keyword: Ranked, dense_weight: float, how: Normalization = "minmax"
) -> list[tuple[str, float]]:
    """dense_weight x normalised dense score + (1 - dense_weight) x normalised keyword score, best first.

    An empty list contributes nothing (a query without keyword matches ranks by its dense scores alone).
    """
    fused = dict.fromkeys([item for item, _ in dense] + [item for item, _ in keyword], 0.0)
    for weight, ranked in ((dense_weight, dense), (1.0 - dense_weight, keyword)):
        if ranked and weight > 0:
            scores, floor = normalized(ranked, how)
            for item in fused:
                fused[item] += weight * scores.get(item, floor)
    return sorted(fused.items(), key=lambda kv: -kv[1])


def feedback_vector(query: Sequence[float], vectors: np.ndarray, weight: float) -> list[float]:
    """Dense pseudo-relevance feedback (Rocchio): the query vector plus `weight` x the mean of `vectors` (the
    first round's best chunks), at unit length; the query alone (unit length) when there are none."""
    moved = np.asarray(query, dtype=np.float64)
    if len(vectors) and weight > 0:
        moved = moved / max(float(np.linalg.norm(moved)), 1e-12) + weight * np.asarray(vectors).mean(axis=0)
    return [float(x) for x in moved / max(float(np.linalg.norm(moved)), 1e-12)]


def paper_of(chunk_id: str) -> str:
    """A chunk id is `<paper id>#...`."""
    return chunk_id.split("#", 1)[0]


def by_paper(ranked: Ranked, how: Literal["max", "sum"]) -> list[tuple[str, float]]:
    """Each chunk scored with its paper's best (`max`) or total (`sum`) score in `ranked`, best first.

    A paper whose matches are spread over several chunks then counts as a whole, as one document would.
    """
    totals: dict[str, float] = {}
    for item, score in ranked:
        paper = paper_of(item)
        totals[paper] = max(totals.get(paper, score), score) if how == "max" else totals.get(paper, 0.0) + score
    rescored = [(item, totals[paper_of(item)]) for item, _ in ranked]
    return sorted(rescored, key=lambda kv: -kv[1])


def fuse(
    dense: Ranked, keyword: Ranked, settings: RetrievalSettings, one_paper: bool = False
) -> list[tuple[str, float]]:
    """The retriever's fusion, as `settings` say: `single_paper_fusion` for a question about one paper, else
    `fusion`, with its weights and normalisation."""
    if (settings.single_paper_fusion if one_paper else settings.fusion) == "convex":
        return convex_fuse(dense, keyword, settings.convex_dense_weight, settings.normalization)
    weighted = [(settings.dense_weight, [c for c, _ in dense]), (settings.keyword_weight, [c for c, _ in keyword])]
    return rrf_fuse(weighted, settings.rrf_k)
