"""Keyword rankings the store's index does not give: BM25 over other texts, and pseudo-relevance feedback.

`LocalBM25` is bm25s with papertalk's keyword tokenizer over given texts (the same scoring as
`storage.keyword.KeywordIndex`). `rm3` is RM3-style pseudo-relevance feedback: a first BM25 query, the
`fb_docs` best documents taken as relevant, their term distributions (term count / document length)
averaged with the documents' normalised first-pass scores as weights, the `fb_terms` heaviest terms added
to the query. The second query scores sum of weight x the term's BM25 score, the query's own terms sharing
`original` of the weight and the expansion terms the rest (Lavrenko and Croft's relevance model, RM3 as
Anserini and Pyserini run it).
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from storage.bm25 import K1, B
from storage.keyword import KeywordTokenizer, _bm25s


@dataclass(frozen=True)
class Feedback:
    fb_docs: int
    fb_terms: int
    original: float  # share of the query's own terms in the expanded query

    def describe(self) -> str:
        return f"RM3, {self.fb_docs} feedback documents, {self.fb_terms} terms, original query weight {self.original:g}"


FEEDBACK_GRID = [Feedback(d, t, w) for d, t, w in itertools.product((3, 5, 10), (10, 20, 40), (0.3, 0.5, 0.7))]


class LocalBM25:
    """bm25s over `texts` with papertalk's keyword tokenizer; ids returned with their scores."""

    def __init__(self, ids: Sequence[str], texts: list[str]) -> None:
        self.ids = list(ids)
        self.tokenize = KeywordTokenizer()
        self.tokens = self.tokenize(texts)
        self.bm25 = _bm25s().BM25(k1=K1, b=B)
        self.bm25.index(self.tokens, show_progress=False)
        self.vocab = self.bm25.vocab_dict

    def terms(self, query: str) -> list[str]:
        return [t for t in self.tokenize([query])[0] if t in self.vocab]

    def weighted_scores(self, weights: dict[str, float]) -> np.ndarray:
        total = np.zeros(len(self.ids), dtype=np.float32)
        for term, weight in weights.items():
            total += weight * self.bm25.get_scores([term])
        return total

    def top(self, scores: np.ndarray, k: int) -> list[tuple[str, float]]:
        k = min(k, len(scores))
        best = np.argpartition(-scores, k - 1)[:k]
        best = best[np.argsort(-scores[best], kind="stable")]
        return [(self.ids[i], float(scores[i])) for i in best if scores[i] > 0]

    def search(self, query: str, k: int) -> list[tuple[str, float]]:
        terms = self.terms(query)
        return self.top(self.bm25.get_scores(terms), k) if terms else []

    def expansion(self, first: np.ndarray, fb: Feedback) -> dict[str, float]:
        """The relevance model's `fb_terms` heaviest terms, weights summing to 1."""
        docs = [i for i in np.argsort(-first, kind="stable")[: fb.fb_docs] if first[i] > 0]
        mass = float(sum(first[i] for i in docs))
        model: Counter[str] = Counter()
        for i in docs:
            tokens = self.tokens[i]
            for term, count in Counter(tokens).items():
                model[term] += (first[i] / mass) * count / len(tokens)
        heaviest = model.most_common(fb.fb_terms)
        norm = sum(w for _, w in heaviest) or 1.0
        return {t: w / norm for t, w in heaviest}

    def rm3_scores(self, query: str, fb: Feedback) -> np.ndarray:
        """Every document's score for the query expanded by RM3 (zeros when no query term is indexed)."""
        terms = self.terms(query)
        if not terms:
            return np.zeros(len(self.ids), dtype=np.float32)
        first = self.bm25.get_scores(terms)
        weights = {t: fb.original * n / len(terms) for t, n in Counter(terms).items()}
        for term, w in self.expansion(first, fb).items():
            weights[term] = weights.get(term, 0.0) + (1 - fb.original) * w
        return self.weighted_scores(weights)

    def rm3(self, query: str, k: int, fb: Feedback) -> list[tuple[str, float]]:
        return self.top(self.rm3_scores(query, fb), k) if self.terms(query) else []


def timed_queries(index: LocalBM25, queries: Sequence[str], fb: Feedback | None, k: int = 100) -> list[float]:
    """Milliseconds per query, plain BM25 (fb None) or with feedback."""
    out = []
    for q in queries:
        start = time.perf_counter()
        index.rm3(q, k, fb) if fb else index.search(q, k)
        out.append(1000 * (time.perf_counter() - start))
    return out
