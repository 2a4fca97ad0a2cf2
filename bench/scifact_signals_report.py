"""The report of bench_scifact --signals: each ranking alone, each set of rankings fused with weights chosen on
train, and the set that wins on train against the two rankings papertalk fuses today (bench/scifact_signals.py)."""

from __future__ import annotations

import time

import numpy as np

from bench.common import markdown_table
from bench.fusion_eval import paired_mean
from bench.keyword_runs import LocalBM25
from bench.latency_probes import stored_vectors
from bench.scifact_data import Beir, chunk_index
from bench.scifact_signals import (
    BASELINE,
    ChunkMatrix,
    Claims,
    Matrix,
    Tried,
    alone,
    claims_of,
    dense_signals,
    keyword_signals,
    per_claim_ndcg,
    signal_sets,
    tune_sets,
)
from storage.store import Store

SHOWN = 15  # signal sets in the table (best on train first), the two-ranking baseline always


def collect(store: Store, beir: Beir) -> tuple[Claims, Matrix, list[str]]:
    """Every signal for every train and test claim, and how the feedback settings were chosen."""
    qids = [q for q in dict.fromkeys([*beir.qrels["train"], *beir.qrels["test"]]) if q in beir.queries]
    papers = list(beir.corpus)
    train = beir.qrels["train"]
    claims = claims_of(qids, papers, {**train, **beir.qrels["test"]})
    ids, vectors = stored_vectors(store.vectors.collection)
    chunks = ChunkMatrix.of(papers, ids, vectors)
    queries = np.array([store.embedder.get_query_embedding(beir.queries[q]) for q in qids], dtype=np.float32)
    dense, rocchio = dense_signals(chunks, queries, claims, train)
    whole = LocalBM25(papers, [f"{t}\\n{a}" for t, a in beir.corpus.values()])
    texts = [beir.queries[q] for q in qids]
    keyword, rm3 = keyword_signals(chunk_index(store), chunks, whole, texts, claims, train)
    return claims, dense | keyword, [f"dense feedback: {rocchio}", f"BM25 whole + RM3: {rm3}"]


def signals_body(store: Store, beir: Beir) -> str:
    start = time.perf_counter()
    claims, signals, chosen = collect(store, beir)
    train, test = claims.rows(beir.qrels["train"]), claims.rows(beir.qrels["test"])
    print(f"signals ready in {time.perf_counter() - start:.0f} s", flush=True)
    tried = tune_sets(signals, claims, train, test, lambda line: print(line, flush=True))
    print(f"tuned in {time.perf_counter() - start:.0f} s", flush=True)
    single_train, single_test = alone(signals, claims, train), alone(signals, claims, test)
    singles = markdown_table(
        ["ranking alone", "train nDCG@10", "test nDCG@10", "test R@100"],
        [[n, single_train[n].ndcg10, single_test[n].ndcg10, single_test[n].recall100] for n in signals],
        digits=3,
    )
    base = next(t for t in tried if t.combo.signals == BASELINE)
    shown = [t for t in tried[:SHOWN]] + ([base] if base not in tried[:SHOWN] else [])
    table = markdown_table(
        [
            "rankings fused (weights)",
            "normalisation, candidates",
            "train nDCG@10",
            "train R@100",
            "test nDCG@10",
            "test R@100",
        ],
        [
            [
                _weights(t),
                f"{t.combo.norm}, {t.combo.candidates}",
                t.train.ndcg10,
                t.train.recall100,
                t.test.ndcg10,
                t.test.recall100,
            ]
            for t in shown
        ],
        digits=3,
    )
    return "\n\n".join([_intro(beir, claims, chosen, len(signal_sets())), singles, table,
                        _verdict(tried[0], base, signals, claims, train, test)])  # fmt: skip


def _weights(t: Tried) -> str:
    return ", ".join(f"{s} {w:.2f}" for s, w in zip(t.combo.signals, t.combo.weights, strict=True))


def _gain(new: Tried, old: Tried, signals: Matrix, claims: Claims, rows: np.ndarray) -> tuple[float, float]:
    return paired_mean(
        per_claim_ndcg(signals, new.combo, claims, rows), per_claim_ndcg(signals, old.combo, claims, rows)
    )


def _verdict(best: Tried, base: Tried, signals: Matrix, claims: Claims, train: np.ndarray, test: np.ndarray) -> str:
    on_train, on_test = _gain(best, base, signals, claims, train), _gain(best, base, signals, claims, test)
    reached = "reaches" if best.test.ndcg10 >= 0.75 else "does not reach"
    return (
        f"Best on train: {best.combo.describe()}: train nDCG@10 {best.train.ndcg10:.3f}, **test nDCG@10 "
        f"{best.test.ndcg10:.3f}** (R@100 {best.test.recall100:.3f}), which {reached} the 0.75 target. Against "
        f"the two rankings papertalk fuses (dense max + BM25 chunk, tuned the same way, test {base.test.ndcg10:.3f}): "
        f"{on_train[0]:+.3f} ± {on_train[1]:.3f} on train, {on_test[0]:+.3f} ± {on_test[1]:.3f} on test (mean "
        "per-claim nDCG@10 gain ± standard error)."
    )


def _intro(beir: Beir, claims: Claims, chosen: list[str], sets: int) -> str:
    return (
        f"The same store as the section above ({len(claims.papers):,} abstracts, papertalk's chunks and vectors), "
        f"{len(beir.qrels['train'])} train and {len(beir.qrels['test'])} test claims. Each ranking below scores "
        "every paper exactly (numpy over every stored chunk vector, bm25s over every document; no approximate "
        "search): *dense max* the paper's best chunk (as `HybridRetriever`), *dense first* its first chunk only "
        "(title + the abstract's start), *dense mean* its mean chunk vector, *dense feedback* dense max for the "
        "claim's vector moved towards its top papers (Rocchio), *BM25 chunk* the paper's best chunk in "
        "papertalk's keyword texts, *BM25 whole* title + whole abstract as one document, *BM25 whole + RM3* the "
        "same with pseudo-relevance feedback. Feedback settings chosen on train by the ranking's own nDCG@10 ("
        + "; ".join(chosen)
        + f"). Fusions: {sets} sets of 2-4 rankings (at least one dense, one keyword); for each, each ranking's "
        "top 100 papers normalised (min-max or z-score; a paper missing from a list at that list's lowest), "
        "weights on a grid summing to 1 (steps of 0.05; 0.1 for four rankings), chosen on train; the three best sets "
        "on train, and the two-ranking "
        "baseline, tuned again with 1,000 candidates per ranking too. Test shown for reference; the set to "
        "report is the best on train."
    )
