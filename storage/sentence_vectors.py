"""Stored sentence vectors: each chunk's sentences embedded once, found again by (chunk id, sentence start).

Ingest writes them with the chunk rows (`Catalog.mark_indexed`), so an offline answer scores every retrieved
sentence without embedding any at question time; topic overviews cache the sentences they quote here too.
Rows are keyed by the embedding model's name, and by chunk id, which changes with the chunk's content:
replacing a paper's chunks drops its old rows in the same transaction. New rows hold float16 (768 bytes
for the bundled 384-d model); rows written as float32 by earlier releases are read as they are.
The table is created by `storage.migrations` (m007_overviews) and its PostgreSQL twin.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from storage.catalog import Catalog

SQL_BATCH = 500
Key = tuple[str, int]  # (chunk id, start of the sentence in the chunk's text)
Stored = tuple[str, dict[int, np.ndarray]]  # a chunk's text, and its sentences' vectors by start
UPSERT = "INSERT OR REPLACE INTO sentence_vectors(chunk_id, span_start, model, vector) VALUES(?, ?, ?, ?)"


def pack(vector: np.ndarray) -> bytes:
    return np.asarray(vector, dtype=np.float16).tobytes()


def unpack(blob: bytes, dim: int) -> np.ndarray:
    """A stored `dim`-d vector as float32: float16 rows are half as long as float32 ones."""
    if len(blob) == 4 * dim:
        return np.frombuffer(blob, dtype=np.float32)
    return np.frombuffer(blob, dtype=np.float16).astype(np.float32)


def unpack_many(blobs: list[bytes], dim: int) -> np.ndarray:
    """Stored vectors as one float32 matrix, decoded in one go when all are float16 (as ingest writes them)."""
    if blobs and all(len(b) == 2 * dim for b in blobs):
        return np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(len(blobs), dim).astype(np.float32)
    return np.array([unpack(b, dim) for b in blobs], dtype=np.float32).reshape(len(blobs), dim)


def rows(model: str, vectors: Mapping[Key, np.ndarray]) -> list[tuple[str, int, str, bytes]]:
    return [(cid, start, model, pack(v)) for (cid, start), v in vectors.items()]


class SentenceVectors:
    """Read and add the stored vectors of chunks' sentences, for one embedding model."""

    def __init__(self, catalog: Catalog, model: str, dim: int) -> None:
        self.catalog = catalog
        self.model = model
        self.dim = dim

    def get(self, chunk_ids: list[str]) -> dict[Key, np.ndarray]:
        """Stored vectors of the sentences of these chunks, by (chunk id, sentence start)."""
        out: dict[Key, np.ndarray] = {}
        unique = list(dict.fromkeys(chunk_ids))
        for start in range(0, len(unique), SQL_BATCH):
            part = unique[start : start + SQL_BATCH]
            marks = ",".join("?" * len(part))
            sql = f"SELECT chunk_id, span_start, vector FROM sentence_vectors WHERE model = ? AND chunk_id IN ({marks})"
            for r in self.catalog.query(sql, [self.model, *part]):
                out[(r["chunk_id"], r["span_start"])] = unpack(r["vector"], self.dim)
        return out

    def of_chunks(self, chunk_ids: Sequence[str], paper_ids: Sequence[str] = ()) -> dict[str, Stored]:
        """{chunk id: (its text, {sentence start: vector})} for these chunks and every chunk of `paper_ids`:
        the reader splits the text again to know each start's sentence (an abstract's chunks may be read as
        one passage)."""
        clauses, params = [], [self.model]
        for column, ids in (("c.chunk_id", chunk_ids), ("c.paper_id", paper_ids)):
            if ids:
                unique = list(dict.fromkeys(ids))
                clauses.append(f"{column} IN ({','.join('?' * len(unique))})")
                params.extend(unique)
        if not clauses:
            return {}
        sql = (
            "SELECT c.chunk_id, c.text, s.span_start, s.vector FROM chunks c "
            f"JOIN sentence_vectors s ON s.chunk_id = c.chunk_id WHERE s.model = ? AND ({' OR '.join(clauses)})"
        )
        rows = self.catalog.query(sql, params)
        vectors = unpack_many([r["vector"] for r in rows], self.dim)
        out: dict[str, Stored] = {}
        for r, vector in zip(rows, vectors, strict=True):
            out.setdefault(r["chunk_id"], (r["text"], {}))[1][r["span_start"]] = vector
        return out

    def add(self, vectors: Mapping[Key, np.ndarray]) -> None:
        if vectors:
            self.catalog.transaction([(UPSERT, rows(self.model, vectors))])
