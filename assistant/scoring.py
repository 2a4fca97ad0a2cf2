"""Sentence scoring shared by the extractive answerer and the citation checker.

A score mixes embedding similarity (the bundled model) with IDF-weighted keyword overlap, so that both a
paraphrase and an exact technical term count.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from storage.embeddings import embed_texts
from storage.keyword import KeywordTokenizer

_tokenize = KeywordTokenizer()


def terms(texts: Sequence[str]) -> list[set[str]]:
    return [set(t) for t in _tokenize(list(texts))] if texts else []


def idf_weights(pool: Sequence[set[str]]) -> dict[str, float]:
    df: Counter[str] = Counter()
    for s in pool:
        df.update(s)
    n = len(pool)
    return {t: math.log(1 + n / (1 + c)) + 0.1 for t, c in df.items()}


def overlap(query: set[str], sentence: set[str], idf: dict[str, float], total: float | None = None) -> float:
    """Share of the query's (IDF-weighted) terms that appear in the sentence, 0..1 (`total`: the query's
    weight, when the caller scores many sentences against one query)."""
    if not query:
        return 0.0
    if total is None:
        total = query_weight(query, idf)
    return sum(idf.get(t, 1.0) for t in query & sentence) / total


def query_weight(query: set[str], idf: dict[str, float]) -> float:
    return sum(idf.get(t, 1.0) for t in query)


def similarities(model: BaseEmbedding, query: str, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """(cosine of each text to the query, the texts' unit vectors)."""
    q = np.asarray(model.get_query_embedding(query), dtype=np.float32)  # cached: retrieval embedded it already
    vectors = embed_texts(model, list(texts), short=True)
    return vectors @ q, vectors


def mix(semantic: np.ndarray | float, lexical: np.ndarray | float, semantic_weight: float) -> np.ndarray | float:
    return semantic_weight * semantic + (1 - semantic_weight) * lexical
