"""The answer-embedding variants measured by bench_answer_embed: the static embedder and the swap of the answerer's
sentence embedding."""

from __future__ import annotations

import numpy as np

import assistant.extractive as extractive
from bench.answer_embed_variants import VOCAB, StaticEmbedder
from bench.bench_answer_embed import swapped
from storage.embeddings import MODEL_DIM


def _static() -> StaticEmbedder:
    rng = np.random.default_rng(0)
    return StaticEmbedder(rng.normal(size=(VOCAB, MODEL_DIM)).astype(np.float32), rng.integers(0, 1000, VOCAB))


def test_static_vectors_are_unit_length_and_share_what_sentences_share() -> None:
    embed = _static()
    vectors = embed(["reinforcement learning for agents", "reinforcement learning for robots", "tax law", ""])
    assert np.allclose(np.linalg.norm(vectors[:3], axis=1), 1.0, atol=1e-5)
    assert not vectors[3].any()  # no word pieces: no vector
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.3


def test_static_similarities_map_cosines_linearly() -> None:
    embed = _static()
    raw, _ = embed.similarities()(None, "learning agents", ["learning agents", "tax law"])
    mapped, _ = embed.similarities(2.0, -0.5)(None, "learning agents", ["learning agents", "tax law"])
    assert raw[0] > 0.99
    assert np.allclose(mapped, 2.0 * raw - 0.5, atol=1e-6)


def test_swapped_replaces_the_answerers_embedding_only_inside_and_times_each_call() -> None:
    original, prefilter = extractive.similarities, extractive.PREFILTER
    embed = _static()
    with swapped(embed.similarities(), 3) as spent:
        assert extractive.PREFILTER == 3
        extractive.similarities(None, "q", ["a b", "c d"])
        extractive.similarities(None, "q", ["e"])
    assert len(spent) == 2 and all(s >= 0 for s in spent)
    assert extractive.similarities is original
    assert prefilter == extractive.PREFILTER
