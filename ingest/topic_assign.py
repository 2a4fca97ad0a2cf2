"""Topic assignment: each paper gets zero or more topics, with a score per (paper, topic).

A topic's vector is the embedding of its name and description, blended with the centre of its example
papers when it has any (a topic defined only by examples is their centre). A paper's vector is the mean
of its stored chunk vectors (read back from the vector store; nothing is embedded again). The score adds
keyword evidence (distinct keywords of the topic in the title or abstract) and category evidence (a shared
arXiv category) to the cosine similarity; a paper belongs to every topic it scores at or above the topic's
threshold (`THRESHOLD` unless the topic sets its own). Calibrated on the survey-labelled papers and a
hand-labelled sample (bench/bench_topics.py, docs/benchmarks.md).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ingest.topic_registry import sync_bundled
from storage.catalog import PaperRow
from storage.embeddings import embed_texts
from storage.paper_vectors import paper_vectors
from storage.store import Store
from storage.topics import ScoreRow, TopicDef

THRESHOLD = 0.55
KEYWORD_WEIGHT = 0.08  # per distinct keyword found, up to KEYWORD_CAP keywords
KEYWORD_CAP = 2
CATEGORY_WEIGHT = 0.03
EXAMPLE_SHARE = 0.5  # weight of the example papers' centre in the vector of a topic that has a description
KEPT_PER_PAPER = 2  # the best topics of every paper are stored even below the threshold (its closest tags)
BATCH = 2000

ProgressFn = Callable[[int], None]


@dataclass
class AssignReport:
    papers: int = 0
    assignments: int = 0
    topics: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        return (
            f"{self.papers} papers scored against {self.topics} topics: {self.assignments} assignments "
            f"in {self.seconds:.1f} s"
        )


def keyword_pattern(keyword: str) -> re.Pattern[str]:
    """A keyword as a whole word or phrase, plural allowed; an acronym (a capital after the first letter, e.g.
    "RL", "GraphRAG") matches case-sensitively, other keywords in any case."""
    flags = 0 if any(c.isupper() for c in keyword[1:]) else re.IGNORECASE
    return re.compile(r"(?<!\w)" + re.escape(keyword) + r"(?:s|es)?(?!\w)", flags)


class Evidence:
    """Keyword and category evidence of papers for a fixed list of topics."""

    def __init__(self, defs: Sequence[TopicDef]) -> None:
        self.keywords = [[(kw.lower(), keyword_pattern(kw)) for kw in d.keywords] for d in defs]
        self.categories = [set(d.categories) for d in defs]

    def keyword_hits(self, texts: Sequence[str]) -> np.ndarray:
        """(papers, topics): distinct keywords of each topic found in each text (a substring test first, so
        that the regular expressions run only where a keyword may be)."""
        out = np.zeros((len(texts), len(self.keywords)), dtype=np.float32)
        for i, text in enumerate(texts):
            lower = text.lower()
            for j, keywords in enumerate(self.keywords):
                found = {m.lower() for key, pattern in keywords if key in lower for m in pattern.findall(text)}
                out[i, j] = len(found)
        return out

    def category_match(self, categories: Sequence[Sequence[str]]) -> np.ndarray:
        out = np.zeros((len(categories), len(self.categories)), dtype=np.float32)
        for j, cats in enumerate(self.categories):
            for i, paper_cats in enumerate(categories):
                out[i, j] = bool(cats.intersection(paper_cats))
        return out


def combine(similarity: np.ndarray, keyword_hits: np.ndarray, category_match: np.ndarray) -> np.ndarray:
    """The score of each (paper, topic): cosine + keyword evidence + category evidence."""
    return similarity + KEYWORD_WEIGHT * np.minimum(keyword_hits, KEYWORD_CAP) + CATEGORY_WEIGHT * category_match


def paper_text(row: PaperRow) -> str:
    return f"{row.title}\n{row.abstract}"


def _unit(matrix: np.ndarray) -> np.ndarray:
    return (matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)).astype(np.float32)


def topic_vectors(store: Store, defs: Sequence[TopicDef]) -> np.ndarray:
    """(topics, dim) unit vectors: name and description embedded, blended with the example papers."""
    described = [j for j, d in enumerate(defs) if d.description]
    texts = [f"{defs[j].name}. {defs[j].description}" for j in described]
    embedded = embed_texts(store.embedder, texts) if texts else np.zeros((0, store.vectors.dim), np.float32)
    text_vecs = dict(zip(described, embedded, strict=True))
    out = np.zeros((len(defs), store.vectors.dim), dtype=np.float32)
    for j, d in enumerate(defs):
        out[j] = _blend(text_vecs.get(j), _examples_centre(store, d))
    return out


def _examples_centre(store: Store, d: TopicDef) -> np.ndarray | None:
    if not d.examples:
        return None
    _, vectors = paper_vectors(store.catalog, store.vectors, list(d.examples))
    return _unit(vectors.mean(axis=0)) if len(vectors) else None


def _blend(text_vec: np.ndarray | None, centre: np.ndarray | None) -> np.ndarray:
    if text_vec is None and centre is None:
        raise ValueError("a topic needs a description or example papers in the store")
    if text_vec is None or centre is None:
        return text_vec if centre is None else centre  # type: ignore[return-value]
    return _unit((1 - EXAMPLE_SHARE) * text_vec + EXAMPLE_SHARE * centre)


def score_rows(
    paper_ids: Sequence[str], slugs: Sequence[str], scores: np.ndarray, thresholds: np.ndarray
) -> list[ScoreRow]:
    """Rows to store: every assignment, and each paper's best `KEPT_PER_PAPER` topics whatever their score."""
    rows = []
    assigned = scores >= thresholds[None, :]
    best = np.argsort(-scores, axis=1)[:, :KEPT_PER_PAPER]
    for i, pid in enumerate(paper_ids):
        keep = {int(j) for j in np.flatnonzero(assigned[i])} | {int(j) for j in best[i]}
        rows += [ScoreRow(slugs[j], pid, float(scores[i, j]), bool(assigned[i, j])) for j in sorted(keep)]
    return rows


class TopicAssigner:
    """Scores papers against every defined topic and stores the scores; keeps the topic centres up to date."""

    def __init__(self, store: Store) -> None:
        self.store = store
        sync_bundled(store.topics)
        self.defs = [d for d in store.topics.definitions() if d.description or d.examples]
        self.slugs = [d.slug for d in self.defs]
        self.thresholds = np.array([THRESHOLD if d.threshold is None else d.threshold for d in self.defs])
        self.evidence_of = Evidence(self.defs)
        self._vectors: np.ndarray | None = None

    @property
    def vectors(self) -> np.ndarray:
        if self._vectors is None:
            self._vectors = topic_vectors(self.store, self.defs)
        return self._vectors

    def assign_all(self, progress: ProgressFn | None = None) -> AssignReport:
        """Score every indexed paper again (after topics changed); centres are rebuilt."""
        self.store.topics.clear_scores()
        ids = [r[0] for r in self.store.catalog.query("SELECT paper_id FROM papers WHERE status = 'indexed'")]
        report = self._assign(ids, progress)
        self.store.topics.mark_scored_with_current()
        return report

    def assign_new(self, paper_ids: Sequence[str]) -> AssignReport:
        """Score those of `paper_ids` not scored at their current content (the papers an ingest added)."""
        first = not self.store.topics.catalog.query("SELECT 1 FROM topic_scored LIMIT 1")
        report = self._assign(self.store.topics.unscored(paper_ids))
        if first:  # every score there is was made with the current definitions
            self.store.topics.mark_scored_with_current()
        return report

    def _assign(self, paper_ids: Sequence[str], progress: ProgressFn | None = None) -> AssignReport:
        started = time.perf_counter()
        report = AssignReport(topics=len(self.defs))
        if not self.defs or not paper_ids:
            return report
        for start in range(0, len(paper_ids), BATCH):
            part = paper_ids[start : start + BATCH]
            report.papers, report.assignments = (
                report.papers + len(part),
                report.assignments + self._assign_batch(part),
            )
            if progress:
                progress(len(part))
        report.seconds = time.perf_counter() - started
        return report

    def evidence(self, paper_ids: Sequence[str]) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(papers that have vectors, their vectors, and per topic: cosine, keyword hits, category match)."""
        kept, matrix = paper_vectors(self.store.catalog, self.store.vectors, paper_ids)
        rows = self.store.catalog.get_many(kept)
        hits = self.evidence_of.keyword_hits([paper_text(rows[pid]) for pid in kept])
        cats = self.evidence_of.category_match([rows[pid].categories for pid in kept])
        return kept, matrix, matrix @ self.vectors.T, hits, cats

    def scores(self, paper_ids: Sequence[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(papers that have vectors, their vectors, their scores against every topic)."""
        kept, matrix, similarity, hits, cats = self.evidence(paper_ids)
        return kept, matrix, combine(similarity, hits, cats)

    def _assign_batch(self, paper_ids: Sequence[str]) -> int:
        seen_before = self.store.topics.scored(paper_ids)
        kept, matrix, scores = self.scores(paper_ids)
        rows = score_rows(kept, self.slugs, scores, self.thresholds)
        self.store.topics.save_scores(kept, rows)
        fresh = np.array([pid not in seen_before for pid in kept], dtype=bool)
        member = (scores >= self.thresholds[None, :]) & fresh[:, None]
        sums = {
            slug: (matrix[member[:, j]].sum(axis=0), int(member[:, j].sum()))
            for j, slug in enumerate(self.slugs)
            if member[:, j].any()
        }
        self.store.topics.add_to_centroids(sums)
        return sum(r.assigned for r in rows)
