"""The ingest run: papers in, chunks embedded and stored, a report out.

Order of writes per batch (what makes a killed run safe to rerun):
1. catalog: papers recorded as `pending`;
2. Chroma: the papers' old chunks deleted, new chunks added (ids are deterministic);
3. catalog: chunk rows (and the vectors of their sentences, ingest/sentence_vectors.py) replaced and papers
   marked `indexed`, in one transaction.
A rerun redoes every paper that is still pending; an indexed paper with the same content hash, chunked
with the same settings and embedding model (its `chunking` fingerprint), is skipped without embedding
anything. The same content chunked differently is re-chunked and re-embedded.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace

from ingest.chunking import Chunker
from ingest.cleanup import CLEANUP_VERSION
from ingest.identity import identity_keys, with_file_identity
from ingest.sentence_vectors import Row, sentence_rows
from papertalk.settings import Settings
from storage.catalog import PaperRow
from storage.embeddings import embed_texts, embedding_identity
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
    rechunked: int = 0  # same content, chunked before with other settings or another embedding model
    kept: int = 0  # stored papers not replaced by a file with less text (see the warnings)
    chunks: int = 0
    problems: list[Problem] = field(default_factory=list)
    paper_ids: list[str] = field(default_factory=list)
    files: list[tuple[str, str]] = field(default_factory=list)  # (file, paper id) of each paper read from a file

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
        counts = [f"{self.added} added", f"{self.updated} updated", f"{self.unchanged} unchanged"]
        if self.rechunked:
            counts.append(f"{self.rechunked} re-chunked (chunking settings changed)")
        if self.kept:
            counts.append(f"{self.kept} kept (the new file had less text)")
        counts += [f"{self.chunks} chunks embedded", f"{len(self.errors)} failed", f"{len(self.warnings)} warnings"]
        return ", ".join(counts)


def chunking_fingerprint(settings: Settings) -> str:
    """What a paper's chunks depend on besides its content: the chunk sizes, the text cleanup (its version,
    or `raw` when turned off) and the embedding model."""
    c = settings.chunking
    cleanup = f"x{CLEANUP_VERSION}" if c.clean_text else "raw"
    return f"{embedding_identity(settings)[0]} c{c.chunk_tokens}/o{c.overlap_tokens}/t{c.title_tokens}/{cleanup}"


def same_chunking(stored: str | None, current: str, full_text: bool) -> bool:
    """Whether chunks made under the fingerprint `stored` are what `current` makes (None: recorded before
    fingerprints were, taken as current). The text cleanup reads only a PDF's pages, so an abstract-only record
    keeps its chunks whatever the cleanup's version: a new cleanup re-chunks the PDFs, not 100k records."""
    if stored is None or stored == current:
        return True
    return not full_text and stored.rsplit("/", 1)[0] == current.rsplit("/", 1)[0]


@dataclass
class _Queued:
    """A paper waiting for its batch: its chunks, and its status before this run (None: new)."""

    paper: Paper
    digest: str
    chunks: list[Chunk]
    status: str | None
    rechunk: bool = False


def _yyyymmdd(paper: Paper) -> int:
    return int(paper.published.strftime("%Y%m%d")) if paper.published else 0


def merge_with_existing(paper: Paper, existing: PaperRow | None) -> Paper:
    """A PDF of a paper known from metadata keeps the metadata's bibliographic fields and source.

    A merged record (`arxiv-metadata+pdf`) is never downgraded by another PDF of it: title, authors,
    abstract, categories, dates and source stay; only the text is the new file's. A paper that never had
    metadata (source `pdf`) takes the new file's guesses, and full text that brings its own metadata (the
    arXiv API) replaces full text.
    """
    if existing is None or not paper.has_full_text or existing.source == "pdf":
        return paper
    if existing.has_full_text and paper.source != "pdf":
        return paper
    return replace(
        paper,
        title=existing.title,
        authors=existing.authors,
        abstract=existing.abstract,
        categories=existing.categories,
        published=existing.published,
        arxiv_id=existing.arxiv_id or paper.arxiv_id,
        doi=existing.doi or paper.doi,
        source=existing.source if existing.has_full_text else f"{existing.source}+pdf",
    )


MAX_TEXT_LOSS = 0.10  # a new file with this much less text than the stored version does not replace it unasked


def text_lost(paper: Paper, stored: PaperRow) -> str | None:
    """Why `paper`'s text is a downgrade of the stored version's (fewer pages with text, or more than
    `MAX_TEXT_LOSS` fewer characters), or None."""
    if stored.text_pages and paper.text_pages < stored.text_pages:
        return f"the new file has {paper.text_pages} of {stored.text_pages} pages with text"
    if stored.text_chars and paper.text_chars < (1 - MAX_TEXT_LOSS) * stored.text_chars:
        lost = 1 - paper.text_chars / stored.text_chars
        return f"the new file has {lost:.0%} less text ({paper.text_chars:,} of {stored.text_chars:,} characters)"
    return None


class Ingestor:
    """Runs papers through chunking, embedding and storage in batches of about `batch_chunks` chunks.

    A file whose text would replace a stored paper's is refused when it has less text (`text_lost`), unless
    `replace` is set.
    """

    def __init__(
        self, store: Store, batch_chunks: int = 256, replace: bool = False, sentence_vectors: bool | None = None
    ) -> None:
        self.store = store
        self.batch_chunks = batch_chunks
        self.replace = replace
        # embed every chunk's sentences too (ingest/sentence_vectors.py); None: as the settings say
        self.sentence_vectors = (
            store.settings.embedding.stores_sentences if sentence_vectors is None else sentence_vectors
        )
        self.chunker = Chunker(store.settings.chunking)
        self.fingerprint = chunking_fingerprint(store.settings)
        self._queue: dict[str, _Queued] = {}
        self._queued_chunks = 0
        self._queued_keys: set[tuple[str, str]] = set()  # identity keys of the queued papers read from files
        self._incomplete: list[tuple[str, str, str | None]] = []  # unchanged papers missing chunking or DOI
        self._known_files: list[tuple[str, str]] = []  # (SHA-256, paper id) of unchanged papers' files

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
        paper, existing = self._locate(paper, report)
        report.paper_ids.append(paper.paper_id)
        if paper.path:
            report.files.append((paper.path, paper.paper_id))
        if existing and existing.has_full_text and not paper.has_full_text and existing.status == "indexed":
            # Metadata for a paper we already hold in full text: refresh its fields, keep its chunks.
            self.store.catalog.update_metadata(replace(paper, pages=[]))
            report.unchanged += 1
            return
        paper = merge_with_existing(paper, existing)
        digest = paper.content_hash()
        same = existing is not None and existing.status == "indexed" and existing.content_hash == digest
        if same and existing and same_chunking(existing.chunking, self.fingerprint, paper.has_full_text):
            self._note_unchanged(paper, existing)
            report.unchanged += 1
            return
        if existing and not same and self._refused(paper, existing, report):
            return
        status = existing.status if existing else None
        self._enqueue(_Queued(paper, digest, self.chunker.chunk(paper, digest), status, rechunk=same))

    def _locate(self, paper: Paper, report: IngestReport) -> tuple[Paper, PaperRow | None]:
        """The paper (under the id of the stored paper it is a copy of, if any) and that stored paper.

        A paper read from a file is looked up by each of its identity keys; when a paper queued in this run
        shares one, the queue is written first, so that the second copy meets the first in the catalog.
        """
        existing = self.store.catalog.get(paper.paper_id)
        if not paper.has_full_text:
            return paper, existing
        paper = with_file_identity(paper)
        if not identity_keys(paper).isdisjoint(self._queued_keys):
            self._flush(report)
            existing = self.store.catalog.get(paper.paper_id)
        existing = existing or self.store.catalog.find_paper(paper)
        if existing and existing.paper_id != paper.paper_id:
            log.info("%s is a copy of %s", paper.path or paper.paper_id, existing.paper_id)
            paper = replace(paper, paper_id=existing.paper_id)
        return paper, existing

    def _refused(self, paper: Paper, existing: PaperRow, report: IngestReport) -> bool:
        """True (and a warning in the report) when `paper` would replace stored full text with less text."""
        if self.replace or existing.status != "indexed" or not (existing.has_full_text and paper.has_full_text):
            return False
        lost = text_lost(paper, existing)
        if lost is None:
            return False
        why = f"kept the stored version of {paper.paper_id}: {lost}; use --replace to replace it"
        report.problems.append(Problem(paper.path or paper.paper_id, why, fatal=False))
        report.kept += 1
        if paper.file_hash:  # Ask PDF with this file again uses the stored paper without parsing the file
            self._known_files.append((paper.file_hash, paper.paper_id))
        return True

    def _note_unchanged(self, paper: Paper, existing: PaperRow) -> None:
        """What an unchanged paper adds to its record, written with the next batch: the file it was read
        from, and the chunking and DOI when its record lacks them (papers stored by an older papertalk)."""
        if paper.file_hash:
            self._known_files.append((paper.file_hash, paper.paper_id))
        if existing.chunking is None or (paper.doi and not existing.doi):
            # chunks made before fingerprints were recorded are taken as made with the current settings
            self._incomplete.append((paper.paper_id, self.fingerprint, paper.doi))

    def _enqueue(self, item: _Queued) -> None:
        previous = self._queue.pop(item.paper.paper_id, None)
        if previous:
            self._queued_chunks -= len(previous.chunks)
        self._queue[item.paper.paper_id] = item
        self._queued_chunks += len(item.chunks)
        if item.paper.has_full_text:
            self._queued_keys |= identity_keys(item.paper)

    def _sentence_rows(self, chunks: list[Chunk]) -> list[Row]:
        if not self.sentence_vectors:
            return []
        return sentence_rows(self.store.embedder, embedding_identity(self.store.settings)[0], chunks)

    def _flush(self, report: IngestReport) -> None:
        self.store.catalog.fill_missing(self._incomplete)
        self.store.catalog.record_files(self._known_files)
        self._incomplete, self._known_files = [], []
        if not self._queue:
            return
        queued = list(self._queue.values())
        self._queue, self._queued_chunks, self._queued_keys = {}, 0, set()
        papers = [q.paper for q in queued]
        chunks = [c for q in queued for c in q.chunks]
        catalog, vectors = self.store.catalog, self.store.vectors
        catalog.mark_pending(papers, {q.paper.paper_id: q.digest for q in queued}, self.fingerprint)
        vectors.delete_papers([q.paper.paper_id for q in queued if q.status is not None])
        embeddings = embed_texts(self.store.embedder, [c.embed_text for c in chunks])
        sentences = self._sentence_rows(chunks)
        vectors.add(chunks, embeddings, {p.paper_id: _yyyymmdd(p) for p in papers})
        catalog.mark_indexed([p.paper_id for p in papers], chunks, sentences)
        report.chunks += len(chunks)
        for q in queued:
            if q.rechunk:
                report.rechunked += 1
            elif q.status == "indexed":
                report.updated += 1
            else:
                report.added += 1
