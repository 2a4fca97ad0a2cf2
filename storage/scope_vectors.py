"""Exact dense search within a scope of a few thousand papers, over their chunk vectors held in memory.

Chroma's metadata filter (`paper_id $in [...]`) costs 0.2-0.4 s per search at 112k papers, whatever the scope,
and an unfiltered search finds too few in-scope chunks to stand for it when the scope is a few percent of
the store (docs/benchmarks.md). The chunk vectors of a scope's papers are instead read from the vector store
once (by chunk id, the catalog knowing each paper's chunks) and kept, least recently used first out, up to
`MAX_CHUNKS`; a search is then a dot product over them, exact, in a few ms. Anything that changes chunks moves
the catalog's `chunks_version` (in whichever process writes), and a change empties the memory. A scope named by a
key (the retriever's resolution of it) also keeps its papers' vectors stacked into one unit-length matrix, so its
next searches are one matrix product (stacking and normalising 14k vectors per search cost 10-30 ms).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence

import numpy as np

from storage.catalog import Catalog
from storage.paper_vectors import chunk_ids_of, chunk_vectors
from storage.vectors import VectorHit, VectorIndex

MAX_CHUNKS = 60_000  # chunk vectors held (384-d float32: ~90 MiB); a scope with more is not searched here
STACKED = 4  # scopes whose stacked matrix is also kept (at most MAX_CHUNKS rows in all, beyond the newest)


class ScopeVectors:
    """The chunk vectors of recently searched papers; `search` is exact cosine top-k within given papers."""

    def __init__(self, catalog: Catalog, index: VectorIndex, max_chunks: int = MAX_CHUNKS) -> None:
        self.catalog = catalog
        self.index = index
        self.max_chunks = max_chunks
        self._papers: OrderedDict[str, tuple[list[str], np.ndarray]] = OrderedDict()
        self._held = 0
        self._version = -1
        self._lock = threading.Lock()
        self._stacked: OrderedDict[Hashable, tuple[list[str], np.ndarray]] = OrderedDict()

    def search(
        self, vector: Sequence[float], k: int, paper_ids: Sequence[str], key: Hashable | None = None
    ) -> list[VectorHit] | None:
        """The `k` chunks of `paper_ids` nearest to `vector`, best first; None when the scope's chunks do not
        fit in memory or the vector store does not hold all of them yet (the caller then lets Chroma filter).
        `key`, if given, names `paper_ids` (the same key always the same ids): their stacked matrix is kept."""
        if len(paper_ids) > self.max_chunks:  # a paper has a chunk or more: too many to hold
            return None
        query = np.asarray(vector, dtype=np.float32)
        with self._lock:
            version = self.catalog.chunks_version
            if version != self._version:
                self._papers.clear()
                self._stacked.clear()
                self._held, self._version = 0, version
            if key is not None and key in self._stacked:
                self._stacked.move_to_end(key)
                return _best(*self._stacked[key], query, k)
            wanted = list(dict.fromkeys(paper_ids))
            if not self._load([p for p in wanted if p not in self._papers], wanted):
                return None
            if self.catalog.chunks_version != version:  # changed while reading: what was read may be stale
                return None
            held = [self._papers[p] for p in wanted]
            for p in wanted:
                self._papers.move_to_end(p)
            stacked = _stack(held)
            if key is not None:
                self._keep(key, stacked)
        return _best(*stacked, query, k)

    def _keep(self, key: Hashable, stacked: tuple[list[str], np.ndarray]) -> None:
        """Keep a scope's stacked matrix: at most STACKED of them, and `max_chunks` rows in all but the newest."""
        self._stacked[key] = stacked
        while len(self._stacked) > 1 and (
            len(self._stacked) > STACKED or sum(len(ids) for ids, _ in self._stacked.values()) > self.max_chunks
        ):
            self._stacked.popitem(last=False)

    def _load(self, paper_ids: list[str], wanted: list[str]) -> bool:
        """Read the chunk vectors of `paper_ids` (those of `wanted` not held yet); False if `wanted` cannot all
        be held at once."""
        if not paper_ids:
            return True
        chunks = chunk_ids_of(self.catalog, paper_ids)
        count = sum(map(len, chunks.values()))
        if count + sum(len(self._papers[p][0]) for p in wanted if p in self._papers) > self.max_chunks:
            return False
        vectors = chunk_vectors(self.index, [c for ids in chunks.values() for c in ids])
        if len(vectors) < count:  # chunks the catalog has but the vector store not yet (an ingest under way)
            return False
        for paper_id in paper_ids:
            ids = chunks.get(paper_id, [])
            matrix = np.vstack([vectors[c] for c in ids]) if ids else np.zeros((0, self.index.dim), np.float32)
            self._papers[paper_id] = (ids, matrix)
            self._held += len(ids)
        self._evict(set(wanted))
        return True

    def _evict(self, keep: set[str]) -> None:
        while self._held > self.max_chunks:
            oldest = next((p for p in self._papers if p not in keep), None)
            if oldest is None:
                return
            self._held -= len(self._papers.pop(oldest)[0])


def _stack(held: list[tuple[list[str], np.ndarray]]) -> tuple[list[str], np.ndarray]:
    """The chunk ids of the held papers and their vectors, one matrix, each row scaled to unit length."""
    ids = [c for chunk_ids, _ in held for c in chunk_ids]
    if not ids:
        return [], np.zeros((0, 0), np.float32)
    matrix = np.vstack([m for _, m in held if len(m)])
    return ids, matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)


def _best(ids: list[str], matrix: np.ndarray, query: np.ndarray, k: int) -> list[VectorHit]:
    """Cosine top-k of the unit-length rows, ties in row order."""
    if not ids:
        return []
    scores = (matrix @ query) / max(float(np.linalg.norm(query)), 1e-12)
    top = np.argsort(-scores, kind="stable")[:k]
    return [VectorHit(ids[i], ids[i].split("#", 1)[0], float(scores[i])) for i in top]
