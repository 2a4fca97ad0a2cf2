"""SciFact with more than two rankings fused per paper, weights chosen on train (bench_scifact --signals).

Every signal is a score for every paper, per claim, computed exactly (numpy over every stored chunk vector, bm25s
over every document), so no approximate search shapes the comparison:

- `dense max`: the paper's best chunk cosine (what `HybridRetriever` ranks papers by);
- `dense first`: the cosine of the paper's first chunk only (title + the abstract's start);
- `dense mean`: the cosine with the paper's mean chunk vector (`storage.paper_vectors`);
- `dense feedback`: `dense max` for the claim's vector moved towards its first-pass top papers (Rocchio:
  q + beta x mean of the top `docs` papers' mean vectors, then unit length; docs and beta chosen on train by
  this signal's own nDCG@10);
- `BM25 chunk`: the paper's best chunk BM25 score in papertalk's keyword texts (title + chunk);
- `BM25 whole`: BM25 over title + whole abstract, one document per paper;
- `BM25 whole + RM3`: the same with RM3 feedback (bench/keyword_runs.py), settings chosen on train.

A fusion takes each signal's top `candidates` papers, normalises their scores (min-max: the list's best 1 and
its worst 0; z-score), gives a paper missing from a list that list's lowest value, and ranks by the weighted
sum, weights on a grid summing to 1 (steps of 0.05, 0.1 for four rankings): papertalk's convex fusion
(assistant/fusion.py) at paper level with more than two lists. Each set of signals is tuned on the train
claims; the set that wins on train is the one to report on test.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from bench.fusion_eval import Qrels, Scores
from bench.keyword_runs import FEEDBACK_GRID, Feedback, LocalBM25

Matrix = dict[str, np.ndarray]  # signal -> (claims x papers) scores
DENSE = ("dense max", "dense first", "dense mean", "dense feedback")
KEYWORD = ("BM25 chunk", "BM25 whole", "BM25 whole + RM3")
ROCCHIO = [(d, b) for d in (3, 5, 10) for b in (0.25, 0.5, 1.0, 2.0)]
STEP = 0.05
COARSE = 0.1  # the grid step for four rankings (84 weight vectors instead of 1,771)
RETUNED = 3  # sets tuned again with 1,000 candidates


@dataclass
class Claims:
    qids: list[str]
    papers: list[str]  # column order of every signal
    relevant: list[dict[int, int]]  # per claim: paper column -> relevance

    def rows(self, qrels: Qrels) -> np.ndarray:
        wanted = set(qrels)
        return np.array([i for i, q in enumerate(self.qids) if q in wanted], dtype=np.int64)


def claims_of(qids: Sequence[str], papers: Sequence[str], qrels: Qrels) -> Claims:
    column = {p: i for i, p in enumerate(papers)}
    relevant = [{column[p]: r for p, r in qrels.get(q, {}).items() if r > 0 and p in column} for q in qids]
    return Claims(list(qids), list(papers), relevant)


# --- signals -------------------------------------------------------------------------------------
def unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def per_paper_max(chunk_scores: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(claims x chunks) scores, chunks grouped by paper from `starts`, as (claims x papers) maxima."""
    return np.maximum.reduceat(chunk_scores, starts, axis=1)


@dataclass
class ChunkMatrix:
    """Every stored chunk vector (unit length), grouped by paper in `papers` order."""

    ids: list[str]
    vectors: np.ndarray
    starts: np.ndarray  # first row of each paper
    means: np.ndarray  # unit-length mean chunk vector per paper

    def paper_max(self, ids: Sequence[str], scores: np.ndarray) -> np.ndarray:
        """Per-chunk `scores` given in `ids` order, as each paper's best."""
        position = {c: i for i, c in enumerate(ids)}
        return per_paper_max(scores[:, [position[c] for c in self.ids]], self.starts)

    @classmethod
    def of(cls, papers: Sequence[str], chunk_ids: Sequence[str], vectors: np.ndarray) -> ChunkMatrix:
        column = {p: i for i, p in enumerate(papers)}
        cols = np.array([column[c.split("#", 1)[0]] for c in chunk_ids])
        order = np.lexsort((np.array(list(chunk_ids)), cols))  # by paper, then chunk id (ordinal)
        cols, vectors = cols[order], unit(vectors[order].astype(np.float32))
        ids = [chunk_ids[i] for i in order]
        if not np.array_equal(np.unique(cols), np.arange(len(papers))):
            raise ValueError("every paper needs at least one stored chunk")
        starts = np.flatnonzero(np.r_[True, cols[1:] != cols[:-1]])
        sums = np.add.reduceat(vectors, starts, axis=0)
        return cls(ids, vectors, starts, unit(sums))


def dense_signals(chunks: ChunkMatrix, queries: np.ndarray, claims: Claims, train: Qrels) -> tuple[Matrix, str]:
    queries = unit(queries.astype(np.float32))
    best = per_paper_max(queries @ chunks.vectors.T, chunks.starts)
    out = {
        "dense max": best,
        "dense first": queries @ chunks.vectors[chunks.starts].T,
        "dense mean": queries @ chunks.means.T,
    }
    rows = claims.rows(train)

    def rocchio(setting: tuple[int, float], which: np.ndarray) -> np.ndarray:
        docs, beta = setting
        top = np.argsort(-best[which], axis=1)[:, :docs]
        moved = unit(queries[which] + beta * chunks.means[top].mean(axis=1))
        return per_paper_max(moved @ chunks.vectors.T, chunks.starts)

    setting, out["dense feedback"] = choose(ROCCHIO, rocchio, claims, rows)
    return out, f"Rocchio, {setting[0]} feedback papers, beta {setting[1]:g}"


def keyword_signals(
    chunk_index: LocalBM25, chunks: ChunkMatrix, whole: LocalBM25, texts: Sequence[str], claims: Claims, train: Qrels
) -> tuple[Matrix, str]:
    """BM25 per paper from the chunk index (best chunk) and from whole documents, with and without RM3."""
    by_chunk = np.vstack([_scores(chunk_index, chunk_index.terms(t)) for t in texts])
    out = {
        "BM25 chunk": chunks.paper_max(chunk_index.ids, by_chunk),
        "BM25 whole": np.vstack([_scores(whole, whole.terms(t)) for t in texts]),
    }
    if whole.ids != claims.papers:
        raise ValueError("the whole-document index must list the papers in the signals' order")

    def rm3(fb: Feedback, which: np.ndarray) -> np.ndarray:
        return np.vstack([whole.rm3_scores(texts[i], fb) for i in which])

    fb, out["BM25 whole + RM3"] = choose(FEEDBACK_GRID, rm3, claims, claims.rows(train))
    return out, fb.describe()


def _scores(index: LocalBM25, terms: list[str]) -> np.ndarray:
    return index.bm25.get_scores(terms) if terms else np.zeros(len(index.ids), dtype=np.float32)


S = TypeVar("S")


def choose(settings: Sequence[S], make: Callable[[S, np.ndarray], np.ndarray], claims: Claims, rows: np.ndarray
           ) -> tuple[S, np.ndarray]:  # fmt: skip
    """The setting whose signal alone ranks the `rows` claims best (nDCG@10), and that signal for every claim."""
    scored = []
    for setting in settings:
        matrix = make(setting, rows)
        scored.append(
            (float(np.mean([_ndcg_of(m, claims.relevant[r]) for m, r in zip(matrix, rows, strict=True)])), setting)
        )
    best = max(scored, key=lambda st: st[0])[1]
    return best, make(best, np.arange(len(claims.qids)))


def _ndcg_of(scores: np.ndarray, relevant: dict[int, int]) -> float:
    ranks = {c: int((scores > scores[c]).sum()) for c in relevant}
    return _ndcg(ranks, relevant)


def _ndcg(ranks: dict[int, int], relevant: dict[int, int], k: int = 10) -> float:
    dcg = sum(relevant[c] / math.log2(r + 2) for c, r in ranks.items() if r < k)
    ideal = sorted(relevant.values(), reverse=True)[:k]
    best = sum(r / math.log2(i + 2) for i, r in enumerate(ideal))
    return dcg / best if best else 0.0


# --- fusion --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Combo:
    signals: tuple[str, ...]
    weights: tuple[float, ...]
    norm: str
    candidates: int

    def describe(self) -> str:
        parts = ", ".join(f"{s} {w:g}" for s, w in zip(self.signals, self.weights, strict=True) if w > 0)
        return f"{parts} ({self.norm}, {self.candidates} candidates each)"


def normalised(scores: np.ndarray, how: str, candidates: int, positive_only: bool) -> np.ndarray:
    """One claim's scores over every paper: its top `candidates` normalised, every other paper at the floor."""
    candidates = min(candidates, len(scores))
    top = np.argpartition(-scores, candidates - 1)[:candidates]
    if positive_only:
        top = top[scores[top] > 0]
    out = np.full(len(scores), np.nan, dtype=np.float32)
    if len(top) == 0:
        return out
    values = scores[top].astype(np.float64)
    if how == "minmax":
        low, high = values.min(), values.max()
        values = (values - low) / (high - low) if high > low else np.ones_like(values)
    else:
        std = values.std()
        values = (values - values.mean()) / std if std > 0 else np.zeros_like(values)
    out[top] = values
    return out


def weight_grid(n: int, step: float = STEP) -> np.ndarray:
    """Every weight vector of `n` positive multiples of `step` summing to 1, as (n x combos)."""
    units = round(1 / step)
    combos = [c for c in itertools.product(range(1, units), repeat=n - 1) if sum(c) < units]
    return np.array([[*c, units - sum(c)] for c in combos], dtype=np.float32).T / units


def fused_ranks(stack: np.ndarray, weights: np.ndarray, relevant: dict[int, int]) -> tuple[dict[int, np.ndarray], int]:
    """For one claim: each relevant paper's rank under every weight vector (candidates: papers in any list)."""
    present = ~np.isnan(stack)
    pool = np.flatnonzero(present.any(axis=1))
    floors = np.min(stack, axis=0, initial=np.inf, where=present)
    floors[np.isinf(floors)] = 0.0  # an empty list: nothing to fill
    filled = np.where(present[pool], stack[pool], floors)
    fused = filled @ weights  # pool x combos
    ranks = {}
    position = {int(c): i for i, c in enumerate(pool)}
    for column in relevant:
        i = position.get(column)
        ranks[column] = (fused > fused[i]).sum(axis=0) if i is not None else np.full(weights.shape[1], 10**9)
    return ranks, len(pool)


def score_grid(
    stacks: list[np.ndarray], weights: np.ndarray, relevant: list[dict[int, int]]
) -> tuple[np.ndarray, np.ndarray]:
    """Mean nDCG@10 and Recall@100 of every weight vector over the claims."""
    ndcg = np.zeros(weights.shape[1])
    recall = np.zeros(weights.shape[1])
    discount = 1 / np.log2(np.arange(10) + 2)
    for stack, rel in zip(stacks, relevant, strict=True):
        if not rel:
            continue
        ranks, _ = fused_ranks(stack, weights, rel)
        ideal = sum(r * discount[i] for i, r in enumerate(sorted(rel.values(), reverse=True)[:10]))
        gain = sum(rel[c] * np.where(r < 10, discount[np.minimum(r, 9)], 0.0) for c, r in ranks.items())
        ndcg += gain / ideal
        recall += sum((r < 100).astype(float) for r in ranks.values()) / len(rel)
    n = len(stacks)
    return ndcg / n, recall / n


def stacks_for(signals: Matrix, names: Sequence[str], rows: np.ndarray, how: str, candidates: int) -> list[np.ndarray]:
    return [np.stack([normalised(signals[s][r], how, candidates, s in KEYWORD) for s in names], axis=1) for r in rows]


def tune_set(
    signals: Matrix, names: tuple[str, ...], claims: Claims, rows: np.ndarray, settings: Sequence[tuple[str, int]]
) -> tuple[Combo, Scores]:
    """The best weights (on the grid) for this set of signals on `rows`, over the given normalisations."""
    weights = weight_grid(len(names), STEP if len(names) < 4 else COARSE)
    best: tuple[Combo, Scores] | None = None
    for how, candidates in settings:
        stacks = stacks_for(signals, names, rows, how, candidates)
        ndcg, recall = score_grid(stacks, weights, [claims.relevant[r] for r in rows])
        i = int(np.lexsort((-np.round(recall, 3), -np.round(ndcg, 3)))[0])
        found = (Combo(names, tuple(float(w) for w in weights[:, i]), how, candidates),
                 Scores(float(ndcg[i]), float(recall[i]), len(rows)))  # fmt: skip
        if best is None or round(found[1].ndcg10, 3) > round(best[1].ndcg10, 3):
            best = found
    assert best is not None
    return best


def evaluate_combo(signals: Matrix, combo: Combo, claims: Claims, rows: np.ndarray) -> Scores:
    weights = np.array(combo.weights, dtype=np.float32)[:, None]
    stacks = stacks_for(signals, combo.signals, rows, combo.norm, combo.candidates)
    ndcg, recall = score_grid(stacks, weights, [claims.relevant[r] for r in rows])
    return Scores(float(ndcg[0]), float(recall[0]), len(rows))


def signal_sets(max_size: int = 4) -> list[tuple[str, ...]]:
    """Every set of 2 to `max_size` signals with at least one dense and one keyword signal."""
    names = DENSE + KEYWORD
    out = []
    for size in range(2, max_size + 1):
        for combo in itertools.combinations(names, size):
            if set(combo) & set(DENSE) and set(combo) & set(KEYWORD):
                out.append(combo)
    return out


# --- the run -------------------------------------------------------------------------------------
SETTINGS = (("minmax", 100), ("zscore", 100))
WIDE = (("minmax", 100), ("zscore", 100), ("minmax", 1000), ("zscore", 1000))
BASELINE = ("dense max", "BM25 chunk")  # the two rankings papertalk fuses, here at paper level


@dataclass
class Tried:
    combo: Combo
    train: Scores
    test: Scores


def tune_sets(signals: Matrix, claims: Claims, train: np.ndarray, test: np.ndarray, log: Callable[[str], None]
              ) -> list[Tried]:  # fmt: skip
    """Every signal set tuned on train at 100 candidates; the `RETUNED` best on train again with 1,000 candidates
    too; best on train first."""
    tried = []
    for names in signal_sets():
        combo, on_train = tune_set(signals, names, claims, train, SETTINGS)
        tried.append(Tried(combo, on_train, evaluate_combo(signals, combo, claims, test)))
        log(f"  {combo.describe()}: train {on_train.ndcg10:.3f}")
    tried.sort(key=lambda t: -t.train.ndcg10)
    wider = {t.combo.signals for t in tried[:RETUNED]} | {BASELINE}
    for i, t in enumerate(tried):
        if t.combo.signals in wider:
            combo, on_train = tune_set(signals, t.combo.signals, claims, train, WIDE)
            tried[i] = Tried(combo, on_train, evaluate_combo(signals, combo, claims, test))
    return sorted(tried, key=lambda t: (-round(t.train.ndcg10, 3), -round(t.train.recall100, 3)))


def alone(signals: Matrix, claims: Claims, rows: np.ndarray) -> dict[str, Scores]:
    out = {}
    for name, matrix in signals.items():
        ranks = [{c: int((matrix[r] > matrix[r][c]).sum()) for c in claims.relevant[r]} for r in rows]
        ndcg = [_ndcg(rk, claims.relevant[r]) for rk, r in zip(ranks, rows, strict=True)]
        recall = [sum(v < 100 for v in rk.values()) / len(rk) if rk else 0.0 for rk in ranks]
        out[name] = Scores(float(np.mean(ndcg)), float(np.mean(recall)), len(rows))
    return out


def per_claim_ndcg(signals: Matrix, combo: Combo, claims: Claims, rows: np.ndarray) -> list[float]:
    return [evaluate_combo(signals, combo, claims, np.array([r])).ndcg10 for r in rows]
