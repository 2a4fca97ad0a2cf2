"""Every quotable sentence of a batch's chunks embedded once, as rows for `Catalog.mark_indexed`.

Sentences are split as the offline answer splits passages (ingest/sentences.py) and embedded as it would embed
them (their first 64 word pieces), so an answer finds each one's vector by (chunk id, sentence start) instead
of embedding it while the user waits. Neighbouring chunks overlap: a sentence they share is embedded once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from llama_index.core.base.embeddings.base import BaseEmbedding

from ingest.sentences import split_sentences, usable
from storage.catalog import ChunkRow
from storage.embeddings import embed_texts, embedding_identity
from storage.records import Chunk
from storage.sentence_vectors import pack
from storage.store import Store

Row = tuple[str, int, str, bytes]
ProgressFn = Callable[[int], None]
_MISSING = """SELECT c.chunk_id FROM chunks c WHERE NOT EXISTS
    (SELECT 1 FROM sentence_vectors s WHERE s.chunk_id = c.chunk_id AND s.model = ?) ORDER BY c.rowid"""
_ADD = """INSERT OR IGNORE INTO sentence_vectors(chunk_id, span_start, model, vector)
    SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE chunk_id = ?)"""


def sentence_rows(embedder: BaseEmbedding, model: str, chunks: Sequence[Chunk | ChunkRow]) -> list[Row]:
    """(chunk id, sentence start, model, vector) for each usable sentence of `chunks`."""
    keys: list[tuple[str, int, str]] = [
        (c.chunk_id, s.start, s.text) for c in chunks for s in split_sentences(c.text) if usable(s)
    ]
    texts = list(dict.fromkeys(text for _, _, text in keys))
    if not texts:
        return []
    vectors = embed_texts(embedder, texts, short=True)
    index = {text: i for i, text in enumerate(texts)}
    return [(cid, start, model, pack(vectors[index[text]])) for cid, start, text in keys]


def missing_chunks(store: Store) -> list[str]:
    """Ids of the stored chunks that have no sentence vector for the configured model (some hold no prose)."""
    model = embedding_identity(store.settings)[0]
    return [r[0] for r in store.catalog.query(_MISSING, (model,))]


def fill(store: Store, chunk_ids: Sequence[str], batch: int = 256, progress: ProgressFn | None = None) -> int:
    """Embed and store the sentences of these stored chunks (a store made before sentence vectors, or with
    `embedding.sentence_vectors` off); returns how many vectors were stored. A chunk replaced meanwhile gets
    none: rows are added only while their chunk exists."""
    model, added = embedding_identity(store.settings)[0], 0
    for start in range(0, len(chunk_ids), batch):
        part = store.catalog.chunks_by_id(chunk_ids[start : start + batch])
        rows = sentence_rows(store.embedder, model, list(part.values()))
        if rows:
            store.catalog.transaction([(_ADD, [(*row, row[0]) for row in rows])])
        added += len(rows)
        if progress:
            progress(len(part))
    return added
