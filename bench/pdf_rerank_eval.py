"""Reorderings of one paper's retrieved passages, measured on cached signals (used by bench_pdf_rerank).

Each question is retrieved once (`POOL` passages, retrieval order, as `HybridRetriever.retrieve` gives them for
`Scope(paper_id=...)`); the first `HEAD` are then reordered from signals computed once per passage:
- rank: the retrieval order (RRF of dense and BM25, furniture weighed down);
- sentence: the bundled MiniLM's best cosine between the question and one of the passage's usable sentences;
- coverage: the IDF-weighted share of the question's terms in the passage (IDF over the paper's chunks);
- keyword, dense: the passage's own BM25 and dense scores;
- neighbour: the better fused score of the passage's two adjacent chunks, when they were retrieved.
A reordering is a weighted RRF of signal ranks (k=60), or the fused score plus a share of the neighbour's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from assistant.extractive import usable
from assistant.scoring import idf_weights, similarities, terms
from assistant.types import Passage
from bench.qa_harness import Question, evidence_recall
from ingest.sentences import split_sentences
from storage.store import Store

POOL = 40  # passages retrieved per question
HEAD = 16  # passages reordered (and whose sentences are embedded)
RRF_K = 60


@dataclass
class Signals:
    question: Question
    pool: list[Passage]
    values: dict[str, np.ndarray]  # signal name -> one value per passage of the head, higher is better


Order = Callable[[Signals], list[int]]


def best_sentences(store: Store, question: str, head: Sequence[Passage]) -> np.ndarray:
    """Each passage's best sentence cosine to the question (0 when it has no usable sentence)."""
    sents = [(i, s.text) for i, p in enumerate(head) for s in split_sentences(p.text) if usable(s)]
    best = np.zeros(len(head))
    if sents:
        sims, _ = similarities(store.embedder, question, [t for _, t in sents])
        for (i, _), sim in zip(sents, sims, strict=True):
            best[i] = max(best[i], float(sim))
    return best


def coverage(question: str, head: Sequence[Passage], idf: dict[str, float]) -> np.ndarray:
    q_terms = terms([question])[0]
    total = sum(idf.get(t, 1.0) for t in q_terms) or 1.0
    return np.array([sum(idf.get(t, 1.0) for t in q_terms & t_p) / total for t_p in terms([p.text for p in head])])


def neighbours(head: Sequence[Passage], pool: Sequence[Passage]) -> np.ndarray:
    score = {_ordinal(p): p.score for p in pool}
    return np.array([max(score.get(_ordinal(p) - 1, 0.0), score.get(_ordinal(p) + 1, 0.0)) for p in head])


def _ordinal(p: Passage) -> int:
    return int(p.chunk_id.rsplit("#", 1)[1])


def signals(store: Store, question: Question, pool: list[Passage], idf: dict[str, float]) -> Signals:
    head = pool[:HEAD]
    values = {
        "rank": -np.arange(len(head), dtype=float),
        "sentence": best_sentences(store, question.text, head),
        "coverage": coverage(question.text, head, idf),
        "keyword": np.array([p.keyword_score or 0.0 for p in head]),
        "dense": np.array([p.dense_score or 0.0 for p in head]),
        "neighbour": neighbours(head, pool),
        "score": np.array([p.score for p in head]),
    }
    return Signals(question, pool, values)


def paper_idf(store: Store, paper_ids: set[str]) -> dict[str, dict[str, float]]:
    return {pid: idf_weights(terms([c.text for c in store.catalog.chunks_of(pid)])) for pid in paper_ids}


def _ranks(x: np.ndarray) -> np.ndarray:
    order = np.argsort(-x, kind="stable")
    out = np.empty(len(x))
    out[order] = np.arange(1, len(x) + 1)
    return out


def rrf(*weights: tuple[str, float]) -> Order:
    def order(s: Signals) -> list[int]:
        fused = sum(w / (RRF_K + _ranks(s.values[name])) for name, w in weights)
        return [int(i) for i in np.argsort(-np.asarray(fused), kind="stable")]

    return order


def with_neighbour(share: float) -> Order:
    def order(s: Signals) -> list[int]:
        return [int(i) for i in np.argsort(-(s.values["score"] + share * s.values["neighbour"]), kind="stable")]

    return order


def reordered(s: Signals, order: Order) -> list[Passage]:
    head = s.pool[:HEAD]
    return [head[i] for i in order(s)] + s.pool[HEAD:]


def retrieval_row(runs: Sequence[Signals], order: Order, top_k: int) -> tuple[float, int, int, int]:
    """(evidence recall@5, questions with evidence in the top_k, evidence first, questions with evidence)."""
    recalls, hits, first = [], 0, 0
    for s in runs:
        ranked = reordered(s, order)
        r5 = evidence_recall(s.question.references, ranked, 5)
        if r5 is None:
            continue
        recalls.append(r5)
        hits += (evidence_recall(s.question.references, ranked, top_k) or 0.0) > 0
        first += (evidence_recall(s.question.references, ranked, 1) or 0.0) > 0
    return (float(np.mean(recalls)) if recalls else 0.0), hits, first, len(recalls)


VARIANTS: list[tuple[str, Order]] = [
    ("retrieval order (defaults)", rrf(("rank", 1.0))),
    *[(f"+ best sentence (MiniLM), w={w:g}", rrf(("rank", 1.0), ("sentence", w))) for w in (0.5, 1.0, 2.0)],
    *[(f"+ question-term coverage, w={w:g}", rrf(("rank", 1.0), ("coverage", w))) for w in (0.5, 1.0)],
    *[(f"+ BM25 score again, w={w:g}", rrf(("rank", 1.0), ("keyword", w))) for w in (0.5, 1.0)],
    ("+ best sentence + coverage, w=0.5 each", rrf(("rank", 1.0), ("sentence", 0.5), ("coverage", 0.5))),
    *[(f"fused score + {b:g} x adjacent chunk's", with_neighbour(b)) for b in (0.2, 0.5)],
]
