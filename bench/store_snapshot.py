"""Everything a data directory holds, read back as plain values to compare two stores exactly.

- the catalog: every row of the tables that hold papers, chunks, topics and files, without the columns
  that record when a row was written (timestamps, row numbers, the change log and its counters);
- the vectors: every Chroma id with its document, metadata and embedding (as stored, float32);
- the keyword index: after catching up with the catalog, each live chunk's paper, length and term
  frequencies, the collection statistics, and the scores of a few searches.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

# table -> columns left out (they say when or in which order a row was written, not what it holds)
TABLES: dict[str, set[str]] = {
    "papers": {"added_at", "updated_at"},
    "chunks": {"rowid"},
    "paper_files": {"added_at"},
    "topics": set(),
    "paper_topics": set(),
    "topic_defs": set(),
    "topic_scores": set(),
    "topic_scored": set(),
    "topic_centroids": set(),
}
META_KEPT = ("embed_model", "chunking")  # meta keys whose values describe content (the rest are counters)
QUERIES = ["reinforcement learning agents", "reward model", "tool use benchmark", "language model planning"]


def catalog_rows(data_dir: Path) -> dict[str, list[tuple[Any, ...]]]:
    """The catalog's content, table by table, each table's rows sorted."""
    con = sqlite3.connect(f"file:{data_dir / 'catalog.sqlite3'}?mode=ro", uri=True)
    try:
        out: dict[str, list[tuple[Any, ...]]] = {}
        for table, skipped in TABLES.items():
            columns = [r[1] for r in con.execute(f"PRAGMA table_info({table})") if r[1] not in skipped]
            rows = con.execute(f"SELECT {', '.join(columns)} FROM {table}").fetchall()
            out[table] = sorted(rows, key=repr)
        meta = con.execute("SELECT key, value FROM meta").fetchall()
        out["meta"] = sorted((k, v) for k, v in meta if any(k.startswith(p) for p in META_KEPT))
        return out
    finally:
        con.close()


def vector_rows(
    data_dir: Path, collection: str = "papertalk_chunks", paper_ids: list[str] | None = None
) -> dict[str, tuple[Any, ...]]:
    """Chroma's content (of `paper_ids` only, when given): id -> (document, metadata, embedding bytes)."""
    import chromadb
    import numpy as np
    from chromadb.config import Settings as ChromaSettings

    client = chromadb.PersistentClient(
        path=str(data_dir / "chroma"), settings=ChromaSettings(anonymized_telemetry=False)
    )
    where = {"paper_id": {"$in": paper_ids}} if paper_ids else None
    try:
        got = client.get_collection(collection).get(where=where, include=["documents", "metadatas", "embeddings"])
    finally:
        client.close()  # released, so the next read loads what other processes wrote since (not a stale copy)
    embeddings = got["embeddings"] if got["embeddings"] is not None else []
    rows = zip(got["ids"], got["documents"] or [], got["metadatas"] or [], embeddings, strict=True)
    return {
        i: (doc, tuple(sorted(meta.items())), np.asarray(vec, dtype=np.float32).tobytes()) for i, doc, meta, vec in rows
    }


def keyword_rows(data_dir: Path) -> dict[str, Any]:
    """The keyword index as a search sees it once caught up with the catalog."""
    from papertalk.settings import Settings
    from storage.store import Store

    store = Store(Settings(data_dir=data_dir))
    try:
        index = store.keywords
        index.refresh()
        state = index._state  # read-only inspection of what searches use
        chunks: dict[str, tuple[Any, ...]] = {}
        for segment in state.segments:
            terms = {row: term for term, row in segment.terms.items()}
            per_doc: dict[int, list[tuple[str, float]]] = {}
            for row, term in terms.items():
                lo, hi = int(segment.indptr[row]), int(segment.indptr[row + 1])
                for doc, tf in zip(segment.docs[lo:hi].tolist(), segment.tf[lo:hi].tolist(), strict=True):
                    per_doc.setdefault(doc, []).append((term, tf))
            for pos, chunk_id in enumerate(segment.chunk_ids):
                if segment.alive[pos]:
                    paper = state.papers[int(segment.doc_paper[pos])]
                    chunks[chunk_id] = (paper, int(segment.lengths[pos]), tuple(sorted(per_doc.get(pos, []))))
        searches = {q: index.search(q, 20) for q in QUERIES}
        return {"chunks": chunks, "stats": (state.stats.n_docs, state.stats.avgdl), "searches": searches}
    finally:
        store.close()


def snapshot(data_dir: Path) -> dict[str, Any]:
    return {"catalog": catalog_rows(data_dir), "vectors": vector_rows(data_dir), "keywords": keyword_rows(data_dir)}


def differences(a: dict[str, Any], b: dict[str, Any], limit: int = 5) -> list[str]:
    """What differs between two snapshots (at most `limit` lines per part); empty when identical."""
    out: list[str] = []
    for part in ("catalog", "vectors", "keywords"):
        x, y = a[part], b[part]
        for key in sorted(set(x) | set(y)):
            if x.get(key) != y.get(key):
                out.append(f"{part}/{key}: {_short(x.get(key))} != {_short(y.get(key))}")
                if len(out) >= limit * 3:
                    return out
    return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) < 160 else text[:160] + "…"


def sizes(snap: dict[str, Any]) -> dict[str, int]:
    """How much a snapshot holds: papers, chunks (catalog), vectors, keyword-indexed chunks."""
    return {
        "papers": len(snap["catalog"]["papers"]),
        "chunks": len(snap["catalog"]["chunks"]),
        "vectors": len(snap["vectors"]),
        "keyword_chunks": len(snap["keywords"]["chunks"]),
    }
