"""Cited sentences for extractive overviews: candidates from papers' chunks, greedy picks, the cited `Answer`.

Candidates are whole sentences of stored chunks (the abstract chunks of a topic's central papers, or every
chunk of one paper), embedded once per build. Picks are greedy by score and skip near-duplicates (cosine
above 0.9, or most of their terms shared) of anything already picked, so an overview never says the same
thing twice. Each picked sentence becomes an `AnswerSentence` citing the chunk it was quoted from.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from assistant.extractive import _usable
from assistant.overview_types import Section
from assistant.scoring import terms
from assistant.types import Answer, AnswerSentence, Citation, Passage
from ingest.sentences import Sentence, split_sentences
from storage.catalog import Catalog, ChunkRow, PaperRow
from storage.embeddings import embed_texts
from storage.sentence_vectors import SentenceVectors

NEAR_DUPLICATE_COSINE = 0.9
NEAR_DUPLICATE_TERMS = 0.6  # Jaccard overlap of content terms
MIN_WORDS, MAX_CHARS = 7, 420
# links, formulas, inline references, bullets, and footnote numbers glued to a word ("13Unpaywall")
_NOT_PROSE = re.compile(
    r"https?:|www\.|github|@|\$|\\|\[|\]|©|•|\b(?:arXiv|preprint)\b|(?-i:\d[A-Z][a-z]{2,})", re.IGNORECASE
)
_ENDS = (".", "!", "?")


@dataclass
class Candidate:
    """A sentence of a chunk, with where it sits in its paper and its unit embedding."""

    paper_id: str
    chunk: ChunkRow
    sentence: Sentence
    position: int  # index among the paper's candidate sentences (0: its first)
    vector: np.ndarray
    terms: set[str]

    @property
    def text(self) -> str:
        return " ".join(self.sentence.text.split())


def is_prose(sentence: Sentence) -> bool:
    """A whole sentence of running text: not a heading, a fragment, a formula, a link or a table row."""
    text = sentence.text
    if not _usable(sentence) or len(text) > MAX_CHARS or not text.endswith(_ENDS):
        return False
    if not text[0].isupper() or len(text.split()) < MIN_WORDS:
        return False
    return not _NOT_PROSE.search(text)


def chunks_for(catalog: Catalog, paper_ids: Iterable[str], abstract_chunks: int | None) -> list[ChunkRow]:
    """Chunks of each paper in order; `abstract_chunks`: only the first few of a full-text paper."""
    rows: list[ChunkRow] = []
    papers = catalog.get_many(paper_ids)
    for pid in papers:
        chunks = catalog.chunks_of(pid)
        if abstract_chunks is not None and papers[pid].has_full_text:
            chunks = chunks[:abstract_chunks]
        rows.extend(chunks)
    return rows


@dataclass
class SentenceEmbedder:
    """Sentence vectors: from the store's cache when a chunk's sentence was embedded before, else embedded
    (in one call) and cached."""

    model: BaseEmbedding
    cache: SentenceVectors | None = None

    def vectors(self, items: Sequence[tuple[ChunkRow, Sentence]]) -> np.ndarray:
        if not items:
            return np.zeros((0, 0), dtype=np.float32)
        keys = [(chunk.chunk_id, s.start) for chunk, s in items]
        known = self.cache.get([k[0] for k in keys]) if self.cache else {}
        missing = [i for i, key in enumerate(keys) if key not in known]
        fresh = embed_texts(self.model, [items[i][1].text for i in missing], short=True) if missing else None
        out = np.zeros((len(items), self.dim(known, fresh)), dtype=np.float32)
        for i, key in enumerate(keys):
            if key in known:
                out[i] = known[key]
        if fresh is not None:
            out[missing] = fresh
            if self.cache:
                self.cache.add({keys[i]: fresh[j] for j, i in enumerate(missing)})
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)

    @staticmethod
    def dim(known: dict[tuple[str, int], np.ndarray], fresh: np.ndarray | None) -> int:
        return fresh.shape[1] if fresh is not None else len(next(iter(known.values())))


def candidates(
    embedder: SentenceEmbedder, chunks: Sequence[ChunkRow], wanted: Callable[[str, int, str], bool] | None = None
) -> list[Candidate]:
    """The prose sentences of `chunks`, each once (neighbouring chunks overlap), with their vectors;
    `wanted(paper_id, position, text)` leaves out, before embedding, sentences no section could use."""
    found: list[tuple[ChunkRow, Sentence, int]] = []
    seen: set[tuple[str, str]] = set()
    positions: dict[str, int] = {}
    for chunk in chunks:
        for sentence in split_sentences(chunk.text):
            key = (chunk.paper_id, " ".join(sentence.text.split()))
            if key in seen or not is_prose(sentence):
                continue
            seen.add(key)
            position = positions.get(chunk.paper_id, 0)
            positions[chunk.paper_id] = position + 1
            if wanted is None or wanted(chunk.paper_id, position, sentence.text):
                found.append((chunk, sentence, position))
    if not found:
        return []
    texts = [s.text for _, s, _ in found]
    vectors = embedder.vectors([(c, s) for c, s, _ in found])
    words = terms(texts)
    return [Candidate(c.paper_id, c, s, pos, vec, w) for (c, s, pos), vec, w in zip(found, vectors, words, strict=True)]


def near_duplicate(a: Candidate, b: Candidate) -> bool:
    if float(a.vector @ b.vector) > NEAR_DUPLICATE_COSINE:
        return True
    union = a.terms | b.terms
    return bool(union) and len(a.terms & b.terms) / len(union) > NEAR_DUPLICATE_TERMS


@dataclass
class Picker:
    """Greedy picks across a whole overview: no near-duplicates, at most `per_paper` sentences per paper."""

    per_paper: int = 2
    picked: list[Candidate] = field(default_factory=list)

    def pick(
        self,
        pool: Sequence[Candidate],
        score: Callable[[Candidate], float],
        n: int,
        keep: Callable[[Candidate], bool],
        one_per_paper: bool = True,
    ) -> list[tuple[Candidate, float]]:
        """Up to `n` of `pool` that `keep` accepts, best `score` first (one per paper within this call)."""
        out: list[tuple[Candidate, float]] = []
        ranked = sorted(((score(c), c) for c in pool if keep(c)), key=lambda p: -p[0])
        for value, cand in ranked:
            if len(out) >= n:
                break
            same = one_per_paper and any(c.paper_id == cand.paper_id for c, _ in out)
            if same or self._count(cand.paper_id) >= self.per_paper:
                continue
            if any(near_duplicate(cand, p) for p in self.picked):
                continue
            out.append((cand, value))
            self.picked.append(cand)
        return out

    def _count(self, paper_id: str) -> int:
        return sum(c.paper_id == paper_id for c in self.picked)


@dataclass
class Block:
    """One section's picks, in reading order, with how its line starts in the text."""

    section: Section
    picks: list[tuple[Candidate, float]]
    prefix: str = ""
    heading: str = ""  # a line of its own before the block (e.g. "Main themes:")


def cited_answer(question: str, blocks: Sequence[Block], papers: dict[str, PaperRow], backend: str) -> Answer:
    """The picks as a cited `Answer`: one source per quoted chunk, numbered in order of first use."""
    sources: dict[str, Passage] = {}
    sentences: list[AnswerSentence] = []
    lines: list[str] = []
    for block in blocks:
        block.section.sentences = []
        parts = []
        for cand, value in block.picks:
            key = cand.chunk.chunk_id
            passage = sources.get(key) or passage_of(cand.chunk, papers[cand.paper_id], len(sources) + 1)
            sources[key] = passage
            block.section.sentences.append(len(sentences))
            sentences.append(_cite(cand, passage, value))
            parts.append(f"{cand.text} [{passage.number}]")
        if parts:
            lines += [block.heading] if block.heading else []
            lines.append(block.prefix + " ".join(parts))
    return Answer(question, question, "\n".join(lines), sentences, list(sources.values()), backend)


def passage_of(chunk: ChunkRow, paper: PaperRow, number: int) -> Passage:
    """The chunk as a numbered source (fields in `Passage` order: ids, bibliography, pages, text)."""
    c, p = chunk, paper
    return Passage(
        c.chunk_id, p.paper_id, p.title, p.authors, p.year, p.link, c.page_start, c.page_end, c.text, number=number,
        section=c.section, caption=c.caption, page_marks=c.page_marks,
    )  # fmt: skip


def _cite(cand: Candidate, passage: Passage, value: float) -> AnswerSentence:
    """A sentence citing the span it was quoted from (fields in `Citation` order: source, pages, span, quote)."""
    s, p = cand.sentence, passage
    citation = Citation(
        p.number, p.chunk_id, p.paper_id, *p.pages_of(s.start, s.end), s.start, s.end, s.text, round(value, 4),
        section=p.section,
    )  # fmt: skip
    return AnswerSentence(cand.text, [citation], round(value, 4))
