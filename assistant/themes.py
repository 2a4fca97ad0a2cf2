"""Themes of a topic: its papers clustered on their embeddings, named by their distinctive terms.

Papers are clustered with k-means on their unit-length vectors (the mean of each paper's chunk vectors),
k chosen by the cosine silhouette over a small range. k-means rather than HDBSCAN: on the demo topic's
vectors HDBSCAN finds two to five clusters, one of them holding half the papers, and leaves a sixth to all
of them as noise; a paper in no theme is a paper no overview covers (docs/benchmarks.md, "Topic
overviews"). Each theme is named by class-based TF-IDF over its papers' titles and abstracts (terms
frequent in the theme, rare in the others) and represented by its most central papers, those closest
to its centre.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.cluster import KMeans
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, CountVectorizer
from sklearn.metrics import silhouette_score
from threadpoolctl import threadpool_limits

K_RANGE = range(4, 13)  # candidate numbers of themes for a large topic
MIN_PER_THEME = 8  # a small topic gets at most n // 8 themes
N_INIT = 2  # k-means restarts per k
SILHOUETTE_SAMPLE = 1500  # papers the silhouette is computed on (all of them below this)
LABEL_TERMS = 3
TOPIC_WIDE = 0.15  # a term in more of the topic's papers than this (or the largest theme's share) names no theme
KEPT_TERMS = 8
# Words that say nothing about what a paper studies: paper boilerplate, on top of English stop words.
_BOILERPLATE = """paper papers propose proposed proposes approach approaches method methods novel new based using use
    used uses show shows shown results result work works framework frameworks study studies present presents
    introduce introduces introduced achieve achieves achieving demonstrate demonstrates performance existing
    various different significantly significant effective effectively extensive experiments experimental
    code available et al state art address addresses via including remains key challenge challenges
    furthermore moreover specifically respectively leverages leveraging leverage enables enable"""
BOILERPLATE = frozenset(_BOILERPLATE.split())
STOP_WORDS = sorted(ENGLISH_STOP_WORDS | BOILERPLATE)
TOKEN_PATTERN = r"(?u)\b[A-Za-z][A-Za-z0-9\-]+\b"


def unit(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a single vector too)."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return np.asarray(vectors / np.maximum(norms, 1e-12), dtype=np.float32)


@dataclass
class Theme:
    """A cluster of a topic's papers: members most central first, with their cosine to the centre."""

    theme_id: int
    terms: list[str]
    paper_ids: list[str]
    scores: list[float]
    centre: np.ndarray  # mean of the members' unit vectors (not unit length: it updates by counts)

    @property
    def label(self) -> str:
        return ", ".join(self.terms[:LABEL_TERMS]) or f"theme {self.theme_id}"

    @property
    def size(self) -> int:
        return len(self.paper_ids)

    def central(self, n: int) -> list[str]:
        return self.paper_ids[:n]

    def to_dict(self, with_centre: bool = True) -> dict[str, Any]:
        data: dict[str, Any] = {
            "theme_id": self.theme_id,
            "label": self.label,
            "terms": self.terms,
            "size": self.size,
            "paper_ids": self.paper_ids,
            "scores": [round(s, 4) for s in self.scores],
        }
        if with_centre:
            data["centre"] = [round(float(x), 6) for x in self.centre]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Theme:
        return cls(
            theme_id=int(data["theme_id"]),
            terms=list(data["terms"]),
            paper_ids=list(data["paper_ids"]),
            scores=[float(s) for s in data["scores"]],
            centre=np.asarray(data["centre"], dtype=np.float32),
        )


@dataclass
class Clustering:
    """How the themes were found: the k tried, their silhouettes, the k kept."""

    k: int
    silhouettes: dict[int, float] = field(default_factory=dict)


def k_candidates(n: int) -> list[int]:
    top = min(max(K_RANGE), n // MIN_PER_THEME)
    return [k for k in K_RANGE if k <= top] or ([top] if top >= 2 else [])


def choose_clusters(vectors: np.ndarray, seed: int = 0) -> tuple[np.ndarray, Clustering]:
    """k-means labels for each row, with k chosen by the cosine silhouette (one theme for a tiny topic)."""
    candidates = k_candidates(len(vectors))
    if not candidates:
        return np.zeros(len(vectors), dtype=np.int64), Clustering(k=1)
    best: tuple[float, int, np.ndarray] | None = None
    found = Clustering(k=candidates[0])
    sample = min(SILHOUETTE_SAMPLE, len(vectors))
    # One thread: on a busy machine OpenMP threads fight over the cores (6x the CPU time measured with two).
    with threadpool_limits(1):
        for k in candidates:
            labels = KMeans(n_clusters=k, n_init=N_INIT, random_state=seed).fit_predict(vectors)
            score = float(silhouette_score(vectors, labels, metric="cosine", sample_size=sample, random_state=seed))
            found.silhouettes[k] = round(score, 4)
            if best is None or score > best[0]:
                best = (score, k, labels)
    assert best is not None
    found.k = best[1]
    return best[2], found


def distinctive_terms(texts: Sequence[str], labels: Sequence[int], n_classes: int) -> list[list[str]]:
    """Class-based TF-IDF: for each class, the terms (words and bigrams) that set its texts apart.

    Terms found in most of the topic's papers ("agents", "reinforcement learning" in an RL-for-agents topic)
    describe the topic, not a theme, and are left out before weighting.
    """
    largest = max(np.bincount(np.asarray(labels, dtype=np.int64)).max() / max(len(labels), 1), TOPIC_WIDE)
    vectorizer = CountVectorizer(
        stop_words=STOP_WORDS, ngram_range=(1, 2), min_df=2, max_df=float(largest), token_pattern=TOKEN_PATTERN
    )
    try:
        counts = vectorizer.fit_transform(texts)
    except ValueError:  # no term occurs twice: nothing to name the themes by
        return [[] for _ in range(n_classes)]
    member = sparse.csr_matrix((np.ones(len(labels)), (np.asarray(labels), np.arange(len(labels)))))
    per_class = np.asarray((member @ counts).todense(), dtype=np.float64)
    tf = per_class / np.maximum(per_class.sum(axis=1, keepdims=True), 1.0)
    mean_words = per_class.sum() / max(n_classes, 1)
    idf = np.log(1.0 + mean_words / np.maximum(per_class.sum(axis=0), 1.0))
    weights = tf * idf
    vocab = vectorizer.get_feature_names_out()
    return [_top_terms(weights[c], vocab) for c in range(n_classes)]


def _top_terms(weights: np.ndarray, vocab: np.ndarray) -> list[str]:
    """The best-weighted terms; a bigram takes the place of a chosen word it contains ("credit" ->
    "credit assignment"), and a word inside a chosen bigram is skipped."""
    chosen: list[str] = []
    for idx in np.argsort(-weights)[: 4 * KEPT_TERMS]:
        if weights[idx] <= 0 or len(chosen) >= KEPT_TERMS:
            break
        term = str(vocab[idx])
        words = set(term.split())
        inside = [i for i, c in enumerate(chosen) if set(c.split()) < words]
        if inside:
            chosen[inside[0]] = term
            chosen = [c for i, c in enumerate(chosen) if i not in inside[1:]]
        elif not any(words <= set(c.split()) or _plural_pair(term, c) for c in chosen):
            chosen.append(term)
    return chosen


def _plural_pair(a: str, b: str) -> bool:
    return a + "s" == b or b + "s" == a


def make_themes(paper_ids: Sequence[str], vectors: np.ndarray, labels: np.ndarray, texts: Sequence[str]) -> list[Theme]:
    """Themes from cluster labels, largest first, members ordered by closeness to their theme's centre."""
    n_classes = int(labels.max()) + 1 if len(labels) else 0
    names = distinctive_terms(texts, labels.tolist(), n_classes) if n_classes > 1 else [[] for _ in range(n_classes)]
    groups = sorted(range(n_classes), key=lambda c: -int((labels == c).sum()))
    themes = []
    for theme_id, c in enumerate(groups, start=1):
        idx = np.flatnonzero(labels == c)
        centre = vectors[idx].mean(axis=0)
        scores = vectors[idx] @ unit(centre)
        order = np.argsort(-scores)
        themes.append(
            Theme(theme_id, names[c], [paper_ids[i] for i in idx[order]], [float(s) for s in scores[order]], centre)
        )
    return themes


def assign(themes: list[Theme], paper_ids: Sequence[str], vectors: np.ndarray) -> dict[int, list[str]]:
    """Add papers to their nearest theme (centres and member order updated); the ids added to each theme."""
    added: dict[int, list[str]] = {}
    if not themes or not len(paper_ids):
        return added
    centres = unit(np.vstack([t.centre for t in themes]))
    nearest = np.argmax(vectors @ centres.T, axis=1)
    for j, theme in enumerate(themes):
        idx = np.flatnonzero(nearest == j)
        if not len(idx):
            continue
        theme.centre = (theme.centre * theme.size + vectors[idx].sum(axis=0)) / (theme.size + len(idx))
        scores = vectors[idx] @ unit(theme.centre)
        ids = [paper_ids[int(i)] for i in idx]
        _merge_members(theme, ids, [float(s) for s in scores])
        added[theme.theme_id] = ids
    return added


def _merge_members(theme: Theme, ids: list[str], scores: list[float]) -> None:
    pairs = sorted(zip(theme.scores + scores, theme.paper_ids + ids, strict=True), key=lambda p: -p[0])
    theme.scores = [s for s, _ in pairs]
    theme.paper_ids = [pid for _, pid in pairs]


def drop_papers(themes: list[Theme], gone: set[str]) -> None:
    """Remove papers that left the topic (the centres keep their old value: a few papers barely move them)."""
    for theme in themes:
        keep = [i for i, pid in enumerate(theme.paper_ids) if pid not in gone]
        theme.paper_ids = [theme.paper_ids[i] for i in keep]
        theme.scores = [theme.scores[i] for i in keep]


def match_themes(old: Sequence[Theme], new: Sequence[Theme]) -> dict[int, int]:
    """new theme id -> the old theme it continues: the one it shares most papers with, when at least half
    of the smaller of the two is shared. An old theme that split continues in its larger share only."""
    claims: list[tuple[int, int, int]] = []
    for theme in new:
        members = set(theme.paper_ids)
        for before in old:
            shared = len(members & set(before.paper_ids))
            if shared and shared >= 0.5 * min(len(members), before.size):
                claims.append((shared, theme.theme_id, before.theme_id))
    matched: dict[int, int] = {}
    for _, new_id, old_id in sorted(claims, reverse=True):
        if new_id not in matched and old_id not in matched.values():
            matched[new_id] = old_id
    return matched
