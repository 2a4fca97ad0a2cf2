"""Ranking metrics and fusion variants for the retrieval benchmarks (pure Python: no store, no model).

Rankings are lists of ids, best first; a retriever's run is a list of (id, score) pairs. A chunk id starts
with its paper's id (`<paper id>#...`), so a chunk ranking becomes a paper ranking by each paper's best
chunk (`papers_of`). The metrics follow the BEIR definitions: nDCG@10 with graded relevance and log2
discounts, Recall@100 as the share of the relevant papers found in the first 100. The fusions themselves
are papertalk's (assistant/fusion.py); this module cuts, aggregates and scores them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TypeVar

from assistant.fusion import Normalization, Ranked, by_paper, convex_fuse, rrf_fuse

Qrels = dict[str, dict[str, int]]  # query id -> paper id -> relevance (> 0: relevant)
Runs = Mapping[str, tuple[Ranked, Ranked]]  # query id -> (dense run, keyword run)


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


def paper_run(ranked: Ranked) -> list[tuple[str, float]]:
    """A chunk run as a paper run: each paper once, at its best chunk's score."""
    seen: dict[str, float] = {}
    for item, score in ranked:
        seen.setdefault(paper_of(item), score)
    return list(seen.items())


def ids(ranked: Ranked) -> list[str]:
    return [item for item, _ in ranked]


# --- fusion --------------------------------------------------------------------------------------
Level = Literal["chunk", "chunk-sum", "paper"]
KeywordLevel = Literal["chunk", "paper-max", "paper-sum"]
M = TypeVar("M", bound="Method")
T = TypeVar("T")


class Method(Protocol):
    """A way to turn one query's dense and keyword runs into a paper ranking."""

    @property
    def candidates(self) -> int: ...

    def describe(self) -> str: ...

    def rank(self, dense: Ranked, keyword: Ranked) -> list[str]: ...


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

    def rank(self, dense: Ranked, keyword: Ranked) -> list[str]:
        """Papers, best first."""
        d, k = ids(dense[: self.candidates]), ids(keyword[: self.candidates])
        if self.level == "paper":
            d, k = papers_of(d), papers_of(k)
        fused = rrf_fuse([(self.dense_weight, d), (self.keyword_weight, k)], self.rrf_k)
        if self.level != "chunk-sum":
            return papers_of(item for item, _ in fused)
        totals: dict[str, float] = {}
        for item, score in fused:
            totals[paper_of(item)] = totals.get(paper_of(item), 0.0) + score
        return sorted(totals, key=lambda paper: -totals[paper])


@dataclass(frozen=True)
class Convex:
    """`dense_weight` x normalised dense score + the rest x normalised keyword score (`convex_fuse`), each run
    cut at `candidates`. `keyword`: chunk scores as they are, or each chunk given its paper's best (`paper-max`)
    or summed (`paper-sum`) keyword score. `level`: `chunk` ranks papers by their best fused chunk; `paper`
    turns both runs into paper runs (best chunk) before fusing."""

    candidates: int
    dense_weight: float
    norm: Normalization = "minmax"
    keyword: KeywordLevel = "chunk"
    level: Literal["chunk", "paper"] = "chunk"

    def describe(self) -> str:
        keyword = "" if self.keyword == "chunk" else f", keyword scores {self.keyword}"
        return (
            f"{self.level}-level convex ({self.norm}), candidates={self.candidates}, "
            f"dense_weight={self.dense_weight:g}{keyword}"
        )

    def rank(self, dense: Ranked, keyword: Ranked) -> list[str]:
        d, k = dense[: self.candidates], keyword[: self.candidates]
        if self.keyword != "chunk":
            k = by_paper(k, "max" if self.keyword == "paper-max" else "sum")
        if self.level == "paper":
            d, k = paper_run(d), paper_run(k)
        return papers_of(ids(convex_fuse(d, k, self.dense_weight, self.norm)))


def fuse_all(fusion: Method, runs: Runs) -> dict[str, list[str]]:
    return {q: fusion.rank(dense, keyword) for q, (dense, keyword) in runs.items()}


def grid(
    levels: Sequence[Level], candidates: Sequence[int], rrf_ks: Sequence[int], dense_weights: Sequence[float]
) -> list[Fusion]:
    """Every combination (the keyword weight stays 1: only the ratio of the weights matters)."""
    combos = itertools.product(levels, candidates, rrf_ks, dense_weights)
    return [Fusion(level, n, k, w) for level, n, k, w in combos]


def convex_grid(
    candidates: Sequence[int],
    weights: Sequence[float],
    norms: Sequence[Normalization],
    keywords: Sequence[KeywordLevel],
    level: Literal["chunk", "paper"] = "chunk",
) -> list[Convex]:
    combos = itertools.product(candidates, weights, norms, keywords)
    return [Convex(n, w, norm, kw, level) for n, w, norm, kw in combos]


def tune(fusions: Iterable[M], runs: Runs, qrels: Qrels) -> list[tuple[M, Scores]]:
    """Each fusion's scores on `runs`, best first: by nDCG@10, then Recall@100 (both to 3 decimals: closer is a
    tie), then fewer candidates (cheaper)."""
    scored = [(f, evaluate(fuse_all(f, runs), qrels)) for f in fusions]
    return sorted(scored, key=lambda fs: (-round(fs[1].ndcg10, 3), -round(fs[1].recall100, 3), fs[0].candidates))


def paired_gain(
    new: Mapping[str, Sequence[str]], old: Mapping[str, Sequence[str]], qrels: Qrels
) -> tuple[float, float]:
    """Mean per-query nDCG@10 gain of `new` over `old`, and its standard error."""
    pairs = [(ndcg(new.get(q, []), rels), ndcg(old.get(q, []), rels)) for q, rels in qrels.items()]
    return paired_mean([a for a, _ in pairs], [b for _, b in pairs])


# --- tuning by family ----------------------------------------------------------------------------
def near(values: Sequence[T], value: T) -> list[T]:
    """`value` and its neighbours in `values`."""
    i = list(values).index(value)
    return list(values[max(i - 1, 0) : i + 2])


def tune_rrf(
    level: Level, runs: Runs, qrels: Qrels, candidates: Sequence[int], rrf_ks: Sequence[int], weights: Sequence[float]
) -> tuple[Fusion, Scores]:
    """rrf_k x dense weight at 100 candidates, then every candidates value around the best rrf_k and weight."""
    first = tune(grid([level], [100], rrf_ks, weights), runs, qrels)[0][0]
    around = grid([level], candidates, near(rrf_ks, first.rrf_k), near(weights, first.dense_weight))
    return tune(around, runs, qrels)[0]


def tune_convex(
    level: Literal["chunk", "paper"],
    keywords: Sequence[KeywordLevel],
    runs: Runs,
    qrels: Qrels,
    candidates: Sequence[int],
    weights: Sequence[float],
    norms: Sequence[Normalization] = ("minmax", "zscore"),
) -> tuple[Convex, Scores]:
    """Normalisation x keyword level x dense weight at 100 candidates, then candidates around the best weight."""
    first = tune(convex_grid([100], weights, norms, keywords, level), runs, qrels)[0][0]
    around = convex_grid(candidates, near(weights, first.dense_weight), [first.norm], [first.keyword], level)
    return tune(around, runs, qrels)[0]


def paired_mean(new: Sequence[float], old: Sequence[float]) -> tuple[float, float]:
    """Mean of the per-item differences `new - old`, and its standard error."""
    diffs = [a - b for a, b in zip(new, old, strict=True)]
    if len(diffs) < 2:
        return (diffs[0] if diffs else 0.0), 0.0
    mean = sum(diffs) / len(diffs)
    variance = sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1)
    return mean, math.sqrt(variance / len(diffs))
