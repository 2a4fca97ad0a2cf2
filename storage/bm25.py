"""BM25 over segments of term frequencies, scored with statistics of the live documents at query time.

A `Segment` holds, for a set of chunks, each term's postings (chunk positions and term frequencies,
grouped by term) and each chunk's length in terms. Nothing in a segment depends on the rest of the
corpus, so adding chunks is adding a segment, and deleting chunks is clearing their `alive` flags. The
BM25 statistics (live chunk count, average length, each query term's document frequency) are summed over
the segments at query time, so scores over any split into segments equal those of one segment holding
every live chunk: the same numbers, operation for operation.

Scoring is bm25s's default ("lucene"): idf = ln(1 + (N - df + 0.5) / (df + 0.5)) and
tf / (tf + k1 * (1 - b + b * length / avgdl)), k1 = 1.5, b = 0.75 (k1 = 0.6, b = 0.5 score better on SciFact's
train claims but lower Ask PDF's evidence recall: docs/benchmarks.md, bench_scifact --feedback).
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

K1 = 1.5
B = 0.75
ARRAYS = ("indptr", "docs", "tf", "lengths", "doc_paper")


@dataclass
class Segment:
    """Chunks `chunk_ids` (paper numbers `doc_paper`) with their terms' postings, CSR by term."""

    terms: dict[str, int]  # term -> row of indptr
    indptr: np.ndarray  # int64, len(terms) + 1
    docs: np.ndarray  # int32 chunk positions, ascending within a term
    tf: np.ndarray  # float32 term frequencies, aligned with docs
    lengths: np.ndarray  # int32 terms per chunk
    chunk_ids: list[str]
    doc_paper: np.ndarray  # int32 paper number of each chunk (the index's paper table)
    alive: np.ndarray = field(init=False)  # bool: False once the chunk was replaced or deleted

    def __post_init__(self) -> None:
        self.alive = np.ones(len(self.chunk_ids), dtype=bool)

    def __len__(self) -> int:
        return len(self.chunk_ids)

    @property
    def all_alive(self) -> bool:
        return bool(self.alive.all())

    def postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """Live (positions, term frequencies) of `term`."""
        row = self.terms.get(term)
        if row is None:
            return _EMPTY_DOCS, _EMPTY_TF
        start, end = self.indptr[row], self.indptr[row + 1]
        docs, tf = self.docs[start:end], self.tf[start:end]
        if self.all_alive:
            return docs, tf
        keep = self.alive[docs]
        return docs[keep], tf[keep]

    def without_papers(self, gone: np.ndarray) -> Segment:
        """This segment with the chunks of papers `gone[number]` marked dead (a copy, if any was alive)."""
        hit = gone[self.doc_paper] & self.alive
        if not hit.any():
            return self
        seg = copy.copy(self)
        seg.alive = self.alive & ~hit
        return seg

    # --- persistence ------------------------------------------------------------------------------
    def save(self, folder: Path, papers: Sequence[str]) -> None:
        """Write this segment (every chunk alive, paper numbers over `papers`) into a new `folder`."""
        folder.mkdir(parents=True)
        for name in ARRAYS:
            np.save(folder / f"{name}.npy", getattr(self, name))
        _write_lines(folder / "terms.txt", sorted(self.terms, key=self.terms.__getitem__))
        _write_lines(folder / "chunk_ids.txt", self.chunk_ids)
        _write_lines(folder / "papers.txt", papers)

    @classmethod
    def load(cls, folder: Path) -> tuple[Segment, list[str]]:
        """A saved segment and the paper ids its `doc_paper` numbers refer to."""
        arrays = {name: np.load(folder / f"{name}.npy") for name in ARRAYS}
        terms = _read_lines(folder / "terms.txt")
        segment = cls(
            terms={t: i for i, t in enumerate(terms)},
            chunk_ids=_read_lines(folder / "chunk_ids.txt"),
            **arrays,
        )
        return segment, _read_lines(folder / "papers.txt")


_EMPTY_DOCS = np.zeros(0, dtype=np.int32)
_EMPTY_TF = np.zeros(0, dtype=np.float32)


def _write_lines(path: Path, lines: Sequence[str]) -> None:
    path.write_text("\n".join(lines), encoding="utf-8")


def _read_lines(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return text.split("\n") if text else []


def build(tokens: Sequence[Sequence[str]], chunk_ids: list[str], doc_paper: np.ndarray) -> Segment:
    """A segment over tokenized chunks (one token list per chunk id)."""
    terms: dict[str, int] = {}
    rows: list[int] = []
    docs: list[int] = []
    counts: list[int] = []
    for position, doc in enumerate(tokens):
        for term, count in Counter(doc).items():
            rows.append(terms.setdefault(term, len(terms)))
            docs.append(position)
            counts.append(count)
    lengths = np.array([len(doc) for doc in tokens], dtype=np.int32)
    return _from_coo(
        terms,
        np.array(rows, dtype=np.int64),
        np.array(docs, dtype=np.int32),
        np.array(counts, dtype=np.float32),
        lengths,
        chunk_ids,
        doc_paper,
    )


def _from_coo(
    terms: dict[str, int],
    rows: np.ndarray,
    docs: np.ndarray,
    tf: np.ndarray,
    lengths: np.ndarray,
    chunk_ids: list[str],
    doc_paper: np.ndarray,
) -> Segment:
    """Postings given as (term row, position, tf) triples with positions ascending: sorted by term (stably)."""
    order = np.argsort(rows, kind="stable")
    indptr = np.zeros(len(terms) + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=len(terms)), out=indptr[1:])
    return Segment(terms, indptr, docs[order], tf[order], lengths, chunk_ids, doc_paper.astype(np.int32))


def merge(segments: Sequence[Segment]) -> Segment:
    """One segment holding the live chunks of `segments`, in order (positions renumbered)."""
    terms: dict[str, int] = {}
    rows, docs, tfs, lengths, papers = [], [], [], [], []
    chunk_ids: list[str] = []
    offset = 0
    for seg in segments:
        live = np.flatnonzero(seg.alive)
        new_position = np.full(len(seg), -1, dtype=np.int64)
        new_position[live] = np.arange(offset, offset + len(live))
        remap = np.array(
            [terms.setdefault(t, len(terms)) for t in sorted(seg.terms, key=seg.terms.__getitem__)], dtype=np.int64
        )
        seg_rows = np.repeat(remap, np.diff(seg.indptr))
        keep = seg.alive[seg.docs]
        rows.append(seg_rows[keep])
        docs.append(new_position[seg.docs[keep]])
        tfs.append(seg.tf[keep])
        lengths.append(seg.lengths[live])
        papers.append(seg.doc_paper[live])
        chunk_ids += [seg.chunk_ids[i] for i in live]
        offset += len(live)
    cat = np.concatenate
    empty_i, empty_f = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    return _from_coo(
        terms,
        cat([empty_i, *rows]),
        cat([empty_i, *docs]).astype(np.int32),
        cat([empty_f, *tfs]),
        cat([np.zeros(0, dtype=np.int32), *lengths]),
        chunk_ids,
        cat([np.zeros(0, dtype=np.int32), *papers]),
    )


def compact(segments: Sequence[Segment], papers: Sequence[str]) -> tuple[Segment, list[str]]:
    """`merge(segments)`, its paper numbers renumbered over just the papers it holds (returned, in order)."""
    merged = merge(segments)
    used = np.unique(merged.doc_paper)
    merged.doc_paper = np.searchsorted(used, merged.doc_paper).astype(np.int32)
    return merged, [papers[i] for i in used]


@dataclass(frozen=True)
class Stats:
    """Corpus statistics over the live chunks of all segments."""

    n_docs: int
    avgdl: float

    @classmethod
    def of(cls, segments: Sequence[Segment]) -> Stats:
        n = sum(int(s.alive.sum()) for s in segments)
        total = sum(int(s.lengths[s.alive].sum(dtype=np.int64)) for s in segments)
        return cls(n, total / n if n else 0.0)

    def norms(self, segment: Segment) -> np.ndarray:
        """k1 * (1 - b + b * length / avgdl) of each chunk of `segment`."""
        return K1 * ((1 - B) + B * segment.lengths.astype(np.float64) / self.avgdl)

    def idf(self, df: int) -> float:
        return math.log(1 + (self.n_docs - df + 0.5) / (df + 0.5))


Contributions = list[tuple[np.ndarray, np.ndarray]]  # per segment: (positions, score contributions)
CACHE_MIN = 5000  # terms with at least this many live postings keep their contributions (see `scores`)


def contributions(
    segments: Sequence[Segment], norms: Sequence[np.ndarray], stats: Stats, term: str
) -> Contributions | None:
    """What `term` adds to the score of each chunk holding it, per segment; None if no live chunk holds it."""
    found = [seg.postings(term) for seg in segments]
    df = sum(len(docs) for docs, _ in found)
    if not df:
        return None
    idf = stats.idf(df)
    return [(docs, idf * (tf / (norm[docs] + tf))) for (docs, tf), norm in zip(found, norms, strict=True)]


def scores(
    segments: Sequence[Segment],
    norms: Sequence[np.ndarray],
    stats: Stats,
    terms: Sequence[str],
    cache: dict[str, Contributions | None] | None = None,
) -> list[np.ndarray]:
    """BM25 score of every chunk of each segment for the query `terms` (a term given twice counts twice).

    `cache`, valid for these segments and statistics only, keeps the contributions of common terms: they
    are most of the work, and questions share them ("method", "model", "result").
    """
    parts: list[tuple[list[np.ndarray], list[np.ndarray]]] = [([], []) for _ in segments]
    for term in terms:
        added = cache.get(term) if cache is not None else None
        if added is None:
            added = contributions(segments, norms, stats, term)
            if cache is not None and added and sum(len(docs) for docs, _ in added) >= CACHE_MIN:
                cache[term] = added
        if not added:
            continue
        for (docs, weights), (d_list, w_list) in zip(added, parts, strict=True):
            if len(docs):
                d_list.append(docs)
                w_list.append(weights)
    out: list[np.ndarray] = []
    for seg, (d_list, w_list) in zip(segments, parts, strict=True):
        if d_list:
            out.append(np.bincount(np.concatenate(d_list), np.concatenate(w_list), minlength=len(seg)))
        else:
            out.append(np.zeros(len(seg)))
    return out
