"""Ranking metrics and fusion variants for the retrieval benchmarks (pure Python: no store, no model).

Rankings are lists of ids, best first. A chunk id starts with its paper's id (`<paper id>#...`), so a
chunk ranking becomes a paper ranking by each paper's best chunk (`papers_of`). The metrics follow the
BEIR definitions: nDCG@10 with graded relevance and log2 discounts, Recall@100 as the share of the
relevant papers found in the first 100.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from assistant.retrieval import rrf_fuse

Qrels = dict[str, dict[str, int]]  # query id -> paper id -> relevance (> 0: relevant)
Runs = Mapping[str, tuple[Sequence[str], Sequence[str]]]  # query id -> (dense ids, keyword ids)


# --- metrics -------------------------------------------------------------------------------------
def ndcg(ranking: Sequence[str], rels: Mapping[str, int], k: int = 10) -> float:
    """Normalised discounted cumulative gain of the first `k` ids."""
    dcg = sum(rels.get(item, 0) / math.log2(i + 2) for i, item in enumerate(ranking[:k]))
    ideal = sorted((r for r in rels.values() if r > 0), reverse=True)[:k]
    best = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / best if best else 0.0


def recall(ranking: Sequence[str], rels: Mapping[str, int], k: int = 100) -> float:
    """Share of the relevant ids that are among the first `k`."""
    relevant = {item for item, r in rels.items() if r > 0}
    return len(relevant.intersection(ranking[:k])) / len(relevant) if relevant else 0.0


@dataclass(frozen=True)
class Scores:
    ndcg10: float
    recall100: float
    queries: int


def evaluate(rankings: Mapping[str, Sequence[str]], qrels: Qrels) -> Scores:
    """Mean nDCG@10 and Recall@100 over every query of `qrels` (a query without a ranking scores 0)."""
    if not qrels:
        return Scores(0.0, 0.0, 0)
    n = [ndcg(rankings.get(q, []), rels) for q, rels in qrels.items()]
    r = [recall(rankings.get(q, []), rels) for q, rels in qrels.items()]
    return Scores(sum(n) / len(n), sum(r) / len(r), len(n))


# --- chunks to papers ----------------------------------------------------------------------------
def paper_of(item_id: str) -> str:
    """The paper of a chunk id (a paper id is its own paper)."""
    return item_id.split("#", 1)[0]


def papers_of(ids: Iterable[str]) -> list[str]:
    """Papers in the order of their best-ranked chunk."""
    return list(dict.fromkeys(paper_of(i) for i in ids))


# --- fusion --------------------------------------------------------------------------------------
Level = Literal["chunk", "chunk-sum", "paper"]


@dataclass(frozen=True)
class Fusion:
    """Weighted RRF of a dense and a keyword ranking, each cut at `candidates`.

    `chunk`: fuse the chunk rankings, then rank papers by their best fused chunk (what
    `HybridRetriever` does). `chunk-sum`: fuse the chunk rankings, a paper scores the sum of its fused
    chunks. `paper`: first turn each ranking into a paper ranking (best chunk), then fuse.
    """

    level: Level
    candidates: int
    rrf_k: int
    dense_weight: float
    keyword_weight: float = 1.0

    def describe(self) -> str:
        return (
            f"{self.level}-level RRF, candidates={self.candidates}, rrf_k={self.rrf_k}, "
            f"dense_weight={self.dense_weight:g}, keyword_weight={self.keyword_weight:g}"
        )

    def rank(self, dense: Sequence[str], keyword: Sequence[str]) -> list[str]:
        """Papers, best first."""
        dense, keyword = dense[: self.candidates], keyword[: self.candidates]
        if self.level == "paper":
            dense, keyword = papers_of(dense), papers_of(keyword)
        fused = rrf_fuse([(self.dense_weight, dense), (self.keyword_weight, keyword)], self.rrf_k)
        if self.level != "chunk-sum":
            return papers_of(item for item, _ in fused)
        totals: dict[str, float] = {}
        for item, score in fused:
            totals[paper_of(item)] = totals.get(paper_of(item), 0.0) + score
        return sorted(totals, key=lambda paper: -totals[paper])


def fuse_all(fusion: Fusion, runs: Runs) -> dict[str, list[str]]:
    return {q: fusion.rank(dense, keyword) for q, (dense, keyword) in runs.items()}


def grid(
    levels: Sequence[Level], candidates: Sequence[int], rrf_ks: Sequence[int], dense_weights: Sequence[float]
) -> list[Fusion]:
    """Every combination (the keyword weight stays 1: only the ratio of the weights matters)."""
    combos = itertools.product(levels, candidates, rrf_ks, dense_weights)
    return [Fusion(level, n, k, w) for level, n, k, w in combos]


def tune(fusions: Iterable[Fusion], runs: Runs, qrels: Qrels) -> list[tuple[Fusion, Scores]]:
    """Each fusion's scores on `runs`, best first: by nDCG@10, then Recall@100 (both to 3 decimals: closer is a
    tie), then fewer candidates (cheaper)."""
    scored = [(f, evaluate(fuse_all(f, runs), qrels)) for f in fusions]
    return sorted(scored, key=lambda fs: (-round(fs[1].ndcg10, 3), -round(fs[1].recall100, 3), fs[0].candidates))


def paired_gain(
    new: Mapping[str, Sequence[str]], old: Mapping[str, Sequence[str]], qrels: Qrels
) -> tuple[float, float]:
    """Mean per-query nDCG@10 gain of `new` over `old`, and its standard error."""
    diffs = [ndcg(new.get(q, []), rels) - ndcg(old.get(q, []), rels) for q, rels in qrels.items()]
    if len(diffs) < 2:
        return (diffs[0] if diffs else 0.0), 0.0
    mean = sum(diffs) / len(diffs)
    variance = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return mean, math.sqrt(variance / len(diffs))
