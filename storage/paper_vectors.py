"""Paper vectors: the mean of a paper's chunk vectors, read back from the vector store in batches.

Nothing is embedded again: the chunk vectors that ingest stored are fetched by id (the catalog knows each
paper's chunk ids) and averaged per paper, then scaled to unit length so that a dot product is a cosine.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from storage.catalog import Catalog
from storage.vectors import VectorIndex

FETCH_BATCH = 1000  # chunk ids per Chroma `get`; 500-2000 measured the same on the demo corpus
SQL_BATCH = 500  # ids per SQL `IN (...)`, under SQLite's variable limit


def chunk_ids_of(catalog: Catalog, paper_ids: Sequence[str]) -> dict[str, list[str]]:
    """The chunk ids of each paper (papers without chunks are left out)."""
    out: dict[str, list[str]] = {}
    for start in range(0, len(paper_ids), SQL_BATCH):
        part = list(paper_ids[start : start + SQL_BATCH])
        marks = ",".join("?" * len(part))
        rows = catalog.query(f"SELECT paper_id, chunk_id FROM chunks WHERE paper_id IN ({marks})", part)
        for row in rows:
            out.setdefault(row["paper_id"], []).append(row["chunk_id"])
    return out


def chunk_vectors(index: VectorIndex, chunk_ids: Sequence[str]) -> dict[str, np.ndarray]:
    """Stored vectors by chunk id; ids the store does not hold are missing from the result."""
    out: dict[str, np.ndarray] = {}
    for start in range(0, len(chunk_ids), FETCH_BATCH):
        part = list(chunk_ids[start : start + FETCH_BATCH])
        with index._reachable():  # a Chroma server that stops answering: StoreUnavailable, not a traceback
            got = index.collection.get(ids=part, include=["embeddings"])
        for cid, vec in zip(got["ids"], got["embeddings"], strict=True):
            out[cid] = np.asarray(vec, dtype=np.float32)
    return out


def paper_vectors(catalog: Catalog, index: VectorIndex, paper_ids: Sequence[str]) -> tuple[list[str], np.ndarray]:
    """(the papers that have vectors, in the order given; their unit-length mean chunk vectors)."""
    chunks = chunk_ids_of(catalog, paper_ids)
    vectors = chunk_vectors(index, [cid for pid in paper_ids for cid in chunks.get(pid, [])])
    kept: list[str] = []
    rows: list[np.ndarray] = []
    for pid in paper_ids:
        found = [vectors[cid] for cid in chunks.get(pid, []) if cid in vectors]
        if found:
            kept.append(pid)
            rows.append(np.mean(found, axis=0))
    if not rows:
        return [], np.zeros((0, index.dim), dtype=np.float32)
    matrix = np.vstack(rows).astype(np.float32)
    matrix /= np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    return kept, matrix
