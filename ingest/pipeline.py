"""The ingest run: papers in, chunks embedded and stored, a report out.

Order of writes per batch (what makes a killed run safe to rerun):
1. catalog: papers recorded as `pending`;
2. Chroma: the papers' old chunks deleted, new chunks added (ids are deterministic);
3. catalog: chunk rows replaced and papers marked `indexed`, in one transaction.
A rerun redoes every paper that is still pending; an indexed paper with the same content hash is skipped
without embedding anything.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from ingest.chunking import Chunker
from storage.catalog import PaperRow
from storage.embeddings import embed_texts
from storage.records import Chunk, Paper, Problem
from storage.store import Store

log = logging.getLogger(__name__)

ProgressFn = Callable[[int], None]


@dataclass
class IngestReport:
    """What a run did; `failed` says whether any input could not be ingested."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    chunks: int = 0
    problems: list[Problem] = field(default_factory=list)
    paper_ids: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return any(p.fatal for p in self.problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.fatal]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if not p.fatal]

    def summary(self) -> str:
        return (
            f"{self.added} added, {self.updated} updated, {self.unchanged} unchanged, "
            f"{self.chunks} chunks embedded, {len(self.errors)} failed, {len(self.warnings)} warnings"
        )


def _yyyymmdd(paper: Paper) -> int:
    return int(paper.published.strftime("%Y%m%d")) if paper.published else 0


def merge_with_existing(paper: Paper, existing: PaperRow | None) -> Paper:
    """A PDF of a paper known from metadata keeps the metadata's bibliographic fields (and vice versa)."""
    if existing is None:
        return paper
    if paper.has_full_text and not existing.has_full_text and existing.source != "pdf":
        return replace(
            paper,
            title=existing.title,
            authors=existing.authors,
            abstract=existing.abstract,
            categories=existing.categories,
            published=existing.published,
            source=f"{existing.source}+pdf",
        )
    return paper


class Ingestor:
    """Runs papers through chunking, embedding and storage in batches of about `batch_chunks` chunks."""

    def __init__(self, store: Store, batch_chunks: int = 256) -> None:
        self.store = store
        self.batch_chunks = batch_chunks
        self.chunker = Chunker(store.settings.chunking)
        self._queue: dict[str, tuple[Paper, str, list[Chunk], str | None]] = {}  # status before this run
        self._queued_chunks = 0

    def run(self, items: Iterable[Paper | Problem], progress: ProgressFn | None = None) -> IngestReport:
        _ = self.store.vectors  # opened first: an unreachable Chroma server fails the run before any work
        report = IngestReport()
        for item in items:
            if isinstance(item, Problem):
                report.problems.append(item)  # the caller shows the report; the log only traces the run
                log.info("%s %s", "failed" if item.fatal else "warning", item)
            else:
                self._take_guarded(item, report)
            if self._queued_chunks >= self.batch_chunks:
                self._flush(report)
            if progress and not (isinstance(item, Problem) and not item.fatal):
                progress(1)
        self._flush(report)
        self.store.keywords.refresh()
        return report

    def _take_guarded(self, paper: Paper, report: IngestReport) -> None:
        """One paper whose text trips chunking (a parser surprise) is reported; the run goes on."""
        try:
            self._take(paper, report)
        except (ValueError, TypeError, UnicodeError, IndexError, KeyError, TimeoutError) as exc:
            # TimeoutError: the sentence splitter's regular expressions give up on pathological text
            where, said = paper.path or paper.paper_id, " ".join(str(exc).split())[:200]
            report.problems.append(Problem(where, f"could not be chunked ({type(exc).__name__}: {said})"))
            log.info("failed %s: %s", where, exc)

    def _take(self, paper: Paper, report: IngestReport) -> None:
        existing = self.store.catalog.get(paper.paper_id)
        report.paper_ids.append(paper.paper_id)
        if existing and existing.has_full_text and not paper.has_full_text and existing.status == "indexed":
            # Metadata for a paper we already hold in full text: refresh its fields, keep its chunks.
            self.store.catalog.update_metadata(replace(paper, pages=[]))
            report.unchanged += 1
            return
        paper = merge_with_existing(paper, existing)
        digest = paper.content_hash()
        if existing and existing.status == "indexed" and existing.content_hash == digest:
            report.unchanged += 1
            return
        chunks = self.chunker.chunk(paper, digest)
        previous = self._queue.pop(paper.paper_id, None)
        if previous:
            self._queued_chunks -= len(previous[2])
        self._queue[paper.paper_id] = (paper, digest, chunks, existing.status if existing else None)
        self._queued_chunks += len(chunks)

    def _flush(self, report: IngestReport) -> None:
        if not self._queue:
            return
        queued = list(self._queue.values())
        self._queue, self._queued_chunks = {}, 0
        papers = [p for p, _, _, _ in queued]
        chunks = [c for _, _, cs, _ in queued for c in cs]
        catalog, vectors = self.store.catalog, self.store.vectors
        catalog.mark_pending(papers, {p.paper_id: h for p, h, _, _ in queued})
        vectors.delete_papers([p.paper_id for p, _, _, status in queued if status is not None])
        embeddings = embed_texts(self.store.embedder, [c.embed_text for c in chunks])
        vectors.add(chunks, embeddings, {p.paper_id: _yyyymmdd(p) for p in papers})
        catalog.mark_indexed([p.paper_id for p in papers], chunks)
        report.chunks += len(chunks)
        for _, _, _, status in queued:
            if status == "indexed":
                report.updated += 1
            else:
                report.added += 1
