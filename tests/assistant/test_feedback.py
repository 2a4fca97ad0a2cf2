"""Dense pseudo-relevance feedback: the query vector moved towards the first round's best chunks, searched again."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.fusion import feedback_vector, fuse
from assistant.retrieval import HybridRetriever, ResolvedScope
from assistant.types import Scope
from storage.store import Store
from storage.vectors import VectorHit
from tests.assistant.conftest import TOPIC

QUESTION = "How many papers does the S2ORC corpus contain?"


def test_feedback_vector_moves_the_query_towards_the_chunks_at_unit_length() -> None:
    query = [2.0, 0.0, 0.0]
    chunks = np.array([[0.0, 1.0, 0.0], [0.0, 0.6, 0.8]])
    moved = np.array(feedback_vector(query, chunks, 1.0))
    expected = np.array([1.0, 0.8, 0.4]) / np.linalg.norm([1.0, 0.8, 0.4])  # unit query + mean of the chunks
    assert moved == pytest.approx(expected)
    assert np.linalg.norm(moved) == pytest.approx(1.0)
    assert feedback_vector(query, chunks, 0.0) == pytest.approx([1.0, 0.0, 0.0])
    assert feedback_vector(query, np.zeros((0, 3)), 1.0) == pytest.approx([1.0, 0.0, 0.0])


def test_vectors_of_returns_the_stored_vectors(corpus: Store) -> None:
    vector = corpus.embedder.get_query_embedding(QUESTION)
    ids = [h.chunk_id for h in corpus.vectors.search(vector, 3)]
    stored = corpus.vectors.vectors_of(ids)
    assert stored.shape == (3, len(vector))
    for row in stored:  # each stored vector finds its own chunk first, at cosine 1
        best = corpus.vectors.search(list(row), 1)[0]
        assert best.chunk_id in ids and best.score == pytest.approx(1.0, abs=1e-3)
    assert len(corpus.vectors.vectors_of([])) == 0


def spy_on_dense(retriever: HybridRetriever, monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[float], list[str]]]:
    """Each dense search of `retriever`: (its query vector, the chunk ids it found)."""
    calls: list[tuple[list[float], list[str]]] = []
    original = retriever._dense

    def spy(vector: list[float], n: int, scope: ResolvedScope) -> list[VectorHit]:
        hits = original(vector, n, scope)
        calls.append((list(vector), [h.chunk_id for h in hits]))
        return hits

    monkeypatch.setattr(retriever, "_dense", spy)
    return calls


def test_feedback_searches_again_with_the_vector_moved_towards_the_best_fused_chunks(
    corpus: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = corpus.settings.retrieval.model_copy(update={"feedback_chunks": 3, "feedback_weight": 0.5})
    retriever = HybridRetriever(corpus, settings)
    calls = spy_on_dense(retriever, monkeypatch)
    passages = retriever.retrieve(QUESTION, k=5)
    assert len(calls) == 2
    (first, found), (second, _) = calls
    keyword = corpus.keywords.search(QUESTION, settings.candidates)
    scored = dict(zip(found, (h.score for h in corpus.vectors.search(first, settings.candidates)), strict=True))
    best = [c for c, _ in fuse(list(scored.items()), keyword, settings)[:3]]
    assert second == pytest.approx(feedback_vector(first, corpus.vectors.vectors_of(best), 0.5), abs=1e-6)
    assert passages and passages[0].title.startswith("S2ORC")
    assert {p.chunk_id for p in passages} <= set(calls[1][1]) | {c for c, _ in keyword}


def test_no_feedback_in_a_scope_or_when_turned_off(corpus: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    on = HybridRetriever(corpus, corpus.settings.retrieval.model_copy(update={"feedback_chunks": 3}))
    pid = on.retrieve(QUESTION, k=1)[0].paper_id
    calls = spy_on_dense(on, monkeypatch)
    assert on.retrieve(QUESTION, Scope(paper_id=pid), k=5)
    assert on.retrieve("reinforcement learning agents", Scope(topic=TOPIC), k=5)
    assert len(calls) == 2  # one search per question
    off = HybridRetriever(corpus, corpus.settings.retrieval.model_copy(update={"feedback_chunks": 0}))
    calls = spy_on_dense(off, monkeypatch)
    assert off.retrieve(QUESTION, k=5)
    assert len(calls) == 1
