"""The exact fusion of bench/scifact_feedback.py, checked against papertalk's own (assistant/fusion.py), and its
BM25 against the keyword index's."""

import numpy as np
import pytest

from assistant.fusion import convex_fuse
from bench.fusion_eval import papers_of
from bench.scifact_feedback import CANDIDATES, Exact, _counts, fused_chunks, paper_ranking
from ingest.pipeline import Ingestor
from storage.keyword import KeywordTokenizer
from storage.records import Paper
from storage.store import Store


@pytest.mark.parametrize("weight", [0.2, 0.45, 0.8])
def test_fused_chunks_rank_papers_as_papertalks_convex_fusion(weight: float) -> None:
    rng = np.random.default_rng(11)
    chunks = 400  # more than the candidates, so the cut matters
    paper = rng.integers(0, 90, chunks)
    ids = [f"p{paper[i]}#{i:04d}" for i in range(chunks)]
    for _ in range(5):
        dense = rng.random(chunks).astype(np.float32)
        keyword = np.where(rng.random(chunks) < 0.4, rng.random(chunks) * 9, 0.0).astype(np.float32)
        columns, fused = fused_chunks([(dense, weight, False), (keyword, 1 - weight, True)])
        got = [f"p{p}" for p in paper_ranking(paper, columns, fused)]

        def run(scores: np.ndarray) -> list[tuple[str, float]]:
            order = np.argsort(-scores)[:CANDIDATES]
            return [(ids[i], float(scores[i])) for i in order if scores[i] > 0]

        want = papers_of(c for c, _ in convex_fuse(run(dense), run(keyword), weight, "minmax"))
        assert got == want


def test_a_share_of_the_second_chunk_lifts_a_paper_with_two_good_chunks() -> None:
    paper = np.array([0, 1, 1, 2])
    columns, fused = np.array([0, 1, 2, 3]), np.array([1.0, 0.9, 0.8, 0.1])
    assert list(paper_ranking(paper, columns, fused)) == [0, 1, 2]
    assert list(paper_ranking(paper, columns, fused, second=0.2)) == [1, 0, 2]  # 0.9 + 0.2 x 0.8 > 1.0


def test_exact_bm25_scores_as_the_keyword_index(store: Store) -> None:
    words = ["reward", "model", "agent", "policy", "tool", "search", "planning", "benchmark", "language", "retrieval"]
    rng = np.random.default_rng(3)
    papers = [
        Paper(paper_id=f"p{i}", title=" ".join(rng.choice(words, 2)), abstract=" ".join(rng.choice(words, 30 + i)))
        for i in range(12)
    ]
    Ingestor(store).run(papers)
    ids, texts = zip(*store.catalog.iter_chunk_texts(), strict=True)
    vocab: dict[str, int] = {}
    tokenize = KeywordTokenizer()
    tf = _counts(tokenize(list(texts)), vocab, grow=True)
    queries = ["reward model for agents", "search planning search"]
    qterms = _counts(tokenize(queries), vocab, grow=False)
    empty = np.zeros(0)
    exact = Exact([], empty, list(ids), empty, empty, tf, np.asarray(tf.sum(axis=1)).ravel(), qterms, [], empty, empty)
    scores = exact.bm25()
    for row, query in enumerate(queries):
        found = dict(store.keywords.search(query, len(ids)))
        assert found
        assert {c: float(scores[row][ids.index(c)]) for c in found} == pytest.approx(found, rel=1e-5)
