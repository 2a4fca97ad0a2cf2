"""The BM25 keyword index (bm25s), persisted next to the vector store.

It is rebuilt from the catalog's chunk texts when ingestion has changed them (the catalog's
`chunks_version` moves on each change), never at query time unless it is missing or stale.
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
from collections.abc import Iterable, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from storage.catalog import Catalog

log = logging.getLogger(__name__)


INDEX_FORMAT = 2  # 2: title + chunk text; an index in another format is rebuilt


def _bm25s() -> Any:
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets DEBUG on import
    return bm25s


class KeywordTokenizer:
    """Lower-case words of two or more characters, English stop words removed, Snowball-stemmed."""

    @cached_property
    def _stemmer(self) -> Any:
        import Stemmer

        return Stemmer.Stemmer("english")

    def __call__(self, texts: list[str]) -> list[list[str]]:
        out = _bm25s().tokenize(texts, stopwords="en", stemmer=self._stemmer, return_ids=False, show_progress=False)
        return out


def _positions_by_paper(chunk_ids: list[str]) -> dict[str, np.ndarray]:
    """Chunk ids are `paper_id#hash#ordinal`: group index positions by paper."""
    groups: dict[str, list[int]] = {}
    for position, chunk_id in enumerate(chunk_ids):
        groups.setdefault(chunk_id.split("#", 1)[0], []).append(position)
    return {pid: np.array(pos, dtype=np.int64) for pid, pos in groups.items()}


class KeywordIndex:
    """BM25 over every chunk; `search` can be limited to some papers."""

    def __init__(self, path: Path, catalog: Catalog) -> None:
        self.path = path
        self.catalog = catalog
        self.tokenize = KeywordTokenizer()
        self._lock = threading.Lock()
        self._bm25: Any = None
        self._chunk_ids: list[str] = []
        self._positions: dict[str, np.ndarray] = {}  # paper id -> positions of its chunks in the index
        self._version = -1

    # --- build / load -----------------------------------------------------------------------------
    def refresh(self) -> bool:
        """Make the index match the catalog; True when it had to be rebuilt."""
        with self._lock:
            wanted = self.catalog.chunks_version
            if self._bm25 is not None and self._version == wanted:
                return False
            if self._load(wanted):
                return False
            self._build(wanted)
            return True

    def _load(self, wanted: int) -> bool:
        meta_file = self.path / "papertalk.json"
        if not meta_file.exists():
            return False
        meta = json.loads(meta_file.read_text())
        if meta.get("version") != wanted or meta.get("format") != INDEX_FORMAT:
            return False
        self._bm25 = (
            _bm25s().BM25.load(str(self.path / "index"), mmap=False, show_progress=False) if meta["n"] else None
        )
        self._chunk_ids = meta["chunk_ids"]
        self._positions = _positions_by_paper(self._chunk_ids)
        self._version = wanted
        return True

    def _build(self, version: int) -> None:
        bm25s = _bm25s()
        ids: list[str] = []
        tokens: list[list[str]] = []
        batch_ids, batch_texts = [], []
        for chunk_id, text in self.catalog.iter_chunk_texts():
            batch_ids.append(chunk_id)
            batch_texts.append(text)
            if len(batch_texts) >= 5000:
                ids += batch_ids
                tokens += self.tokenize(batch_texts)
                batch_ids, batch_texts = [], []
        ids += batch_ids
        tokens += self.tokenize(batch_texts) if batch_texts else []
        tmp = self.path.with_name(self.path.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        bm25 = None
        if ids:
            bm25 = bm25s.BM25()
            bm25.index(tokens, show_progress=False)
            bm25.save(str(tmp / "index"), show_progress=False)
        (tmp / "papertalk.json").write_text(
            json.dumps({"version": version, "format": INDEX_FORMAT, "n": len(ids), "chunk_ids": ids})
        )
        shutil.rmtree(self.path, ignore_errors=True)
        tmp.rename(self.path)
        self._bm25, self._chunk_ids, self._version = bm25, ids, version
        self._positions = _positions_by_paper(ids)
        log.info("keyword index rebuilt: %d chunks", len(ids))

    # --- search -----------------------------------------------------------------------------------
    def mask_for(self, paper_ids: Iterable[str]) -> np.ndarray:
        mask = np.zeros(len(self._chunk_ids), dtype=np.float32)
        empty = np.zeros(0, dtype=np.int64)
        for pid in paper_ids:
            mask[self._positions.get(pid, empty)] = 1.0
        return mask

    def search(self, query: str, k: int, paper_ids: Sequence[str] | None = None) -> list[tuple[str, float]]:
        """(chunk_id, BM25 score) of the best `k` chunks with a positive score."""
        self.refresh()
        if self._bm25 is None:
            return []
        vocab = self._bm25.vocab_dict
        terms = [t for t in self.tokenize([query])[0] if t in vocab]
        if not terms:
            return []
        weights = None
        if paper_ids is not None:
            weights = self.mask_for(paper_ids)
            if not weights.any():
                return []
        scores = (
            self._bm25.get_scores(terms, weight_mask=weights) if weights is not None else self._bm25.get_scores(terms)
        )
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top])]
        return [(self._chunk_ids[i], float(scores[i])) for i in top if scores[i] > 0]
