"""The latency benchmark's scopes (two date windows, two topics) and how scoped retrieval compares with an
exact filtered search over the same stored vectors."""

from __future__ import annotations

import json
from datetime import date, timedelta
from typing import Any

import numpy as np

from bench.common import shared_dir
from storage.vectors import VectorHit

WINDOWS = {"scoped": 180, "narrow": 14}  # days before the newest paper: a wide and a narrow date scope
TOPIC_SUBSET = "rl-for-llm-agents-keyword-subset.jsonl"  # the shared arXiv folder's topic sample
TOPICS = {"topic": "RL for LLM Agents", "topic_wide": "cs.IR"}  # the second: every paper listed in cs.IR


def ensure_topics(store: Any) -> None:
    """Tag the store's papers with the two topics (idempotent; outside any timing)."""
    subset = shared_dir() / "data" / "arxiv" / TOPIC_SUBSET
    members = [json.loads(line)["id"] for line in subset.read_text().splitlines() if line.strip()]
    store.topics.assign(store.topics.ensure(TOPICS["topic"]), [m for m in members if store.catalog.get(m)])
    listed = store.catalog.query("SELECT paper_id FROM papers WHERE categories LIKE '%\"cs.IR\"%'")
    store.topics.assign(store.topics.ensure(TOPICS["topic_wide"]), [r[0] for r in listed])


def scopes(store: Any, newest: date) -> dict[str, Any]:
    """Each measured scope by key: the date windows, then the topics."""
    from assistant.types import Scope

    ensure_topics(store)
    out = {key: Scope(since=newest - timedelta(days=days)) for key, days in WINDOWS.items()}
    return out | {key: Scope(topic=name) for key, name in TOPICS.items()}


class ExactDense:
    """Exact cosine top-n over every vector stored in Chroma, limited to a scope's papers."""

    def __init__(self, ids: list[str], matrix: np.ndarray) -> None:
        self.ids = ids
        self.papers = [i.split("#", 1)[0] for i in ids]
        self.matrix = matrix

    def search(self, vector: list[float], n: int, paper_ids: list[str]) -> list[VectorHit]:
        allowed = set(paper_ids)
        scores = self.matrix @ np.asarray(vector, dtype=np.float32)
        scores[~np.fromiter((p in allowed for p in self.papers), dtype=bool, count=len(self.papers))] = -np.inf
        top = np.argsort(-scores)[:n]
        return [VectorHit(self.ids[i], self.papers[i], float(scores[i])) for i in top if np.isfinite(scores[i])]


def exactness(retriever: Any, exact: ExactDense, questions: list[str], scope: Any) -> dict[str, float]:
    """How often the retriever's top passages in `scope` are those it returns when its dense search is exact."""
    resolved = retriever.resolve(scope)
    same, overlap = 0, []
    for question in questions:
        got = [p.chunk_id for p in retriever.retrieve(question, scope)]
        retriever._dense = lambda vector, n, _: exact.search(vector, n, resolved.paper_ids)
        try:
            want = [p.chunk_id for p in retriever.retrieve(question, scope)]
        finally:
            del retriever._dense
        same += got == want
        overlap.append(len(set(got) & set(want)) / max(1, len(want)))
    return {"same": same, "overlap": float(np.mean(overlap)), "n": len(questions), "papers": len(resolved.paper_ids)}
