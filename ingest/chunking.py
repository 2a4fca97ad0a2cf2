"""Papers → chunks with llama-index's sentence splitter, sized in the embedding model's word pieces.

A chunk's embedded text is `title + "\n" + body`. The body holds at most `chunk_tokens` pieces and the
title at most `title_tokens`, so with the two special pieces an embedded chunk never exceeds the model's
256-piece window and nothing is silently truncated (docs/benchmarks.md shows the measured lengths).
"""

from __future__ import annotations

import bisect
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache, cached_property

from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import Document, TextNode

from ingest.cleanup import Block, clean_pages, continues, is_prose, plain_pages
from ingest.sections import is_back_matter
from papertalk.settings import ChunkSettings
from storage.embeddings import WordPieceCounter
from storage.records import Chunk, PageMarks, Paper

log = logging.getLogger(__name__)


@cache
def warm_up() -> threading.Thread:
    """Load the sentence splitter's tokenizer (nltk's punkt, through llama-index) in a background thread, once
    per process (the thread, started on the first call): the first PDF chunked in a process otherwise waits
    ~2.9 s for it (docs/benchmarks.md). Called while a PDF is being parsed in its worker process; a chunk made
    before it is done waits for the import."""
    thread = threading.Thread(target=_load_tokenizer, name="papertalk-chunker-warm-up")
    thread.start()
    return thread


def _load_tokenizer() -> None:
    try:
        from llama_index.core.utils import globals_helper

        _ = globals_helper.punkt_tokenizer
    except Exception as exc:  # chunking loads it again, and reports what is wrong
        log.debug("the sentence tokenizer could not be loaded ahead: %s", exc)


class Chunker:
    """Splits a paper's pages (or, for metadata-only papers, its abstract) into `Chunk`s."""

    def __init__(self, settings: ChunkSettings) -> None:
        self.settings = settings
        self.counter = WordPieceCounter()

    @cached_property
    def splitter(self) -> SentenceSplitter:
        return SentenceSplitter(
            chunk_size=self.settings.chunk_tokens,
            chunk_overlap=self.settings.overlap_tokens,
            tokenizer=self.counter.encode,
            include_metadata=False,
            include_prev_next_rel=False,
        )

    def chunk(self, paper: Paper, content_hash: str) -> list[Chunk]:
        title = self.counter.truncate(paper.title, self.settings.title_tokens)
        if paper.has_full_text:
            pieces = self._split_blocks(paper.pages)
        else:
            pieces = [_Piece(body, None, None) for body in self._split(paper.abstract or paper.title)]
        prefix = f"{paper.paper_id}#{content_hash[:10]}#"
        return [
            Chunk(
                chunk_id=f"{prefix}{i:04d}",
                paper_id=paper.paper_id,
                ordinal=i,
                text=p.text,
                embed_text=f"{title}\n{p.text}",
                page_start=p.page_start,
                page_end=p.page_end,
                section=p.section,
                caption=p.caption,
                page_marks=p.page_marks,
            )
            for i, p in enumerate(pieces)
        ]

    def _split(self, text: str) -> list[str]:
        return [t for t in self.splitter.split_text(text) if t.strip()] or [text]

    def _split_blocks(self, pages: list[str]) -> list[_Piece]:
        """The pages cleaned (unless turned off) and split run by run: a run is the consecutive blocks of
        one section that are all body text or all one caption, so no chunk spans two sections."""
        cleaned = clean_pages(pages) if self.settings.clean_text else []
        blocks = cleaned or plain_pages(pages)  # text that is all furniture is kept as it is: a paper has chunks
        out: list[_Piece] = []
        for run in _merge_small(_runs(blocks), self._min_run_pieces):
            out += [
                _Piece(text, first, last, run[0].section, run[0].caption, marks)
                for text, first, last, marks in self._split_pages([(b.page, b.text) for b in run], join=bool(cleaned))
            ]
        return out

    def _min_run_pieces(self, run: list[Block]) -> bool:
        """Whether a run is too short to be chunks of its own (under half a chunk)."""
        return self.counter.count(" ".join(b.text for b in run)) < self.settings.chunk_tokens // 2

    def _split_pages(
        self, pages: list[tuple[int, str]], join: bool = False
    ) -> list[tuple[str, int | None, int | None, PageMarks]]:
        """Split the pages' text at once (chunks may cross pages) and map each chunk to its pages. A blank line
        parts one text from the next (it ends a sentence); with `join` (cleaned text), a line break joins the
        next to a sentence it carries on from an earlier page or from before a figure (`continues`)."""
        starts, numbers, parts, offset = [], [], [], 0
        pages = reading_order(pages) if join else pages
        for i, (number, page) in enumerate(pages):
            if i:
                before, later = pages[i - 1][1], number >= pages[i - 1][0]  # a footnote's text comes from before
                parts.append("\n " if join and later and is_prose(before) and continues(before, page) else "\n\n")
                offset += 2
            starts.append(offset)
            numbers.append(number)
            parts.append(page)
            offset += len(page)
        full = "".join(parts)
        nodes = self.splitter.get_nodes_from_documents([Document(text=full)])
        out: list[tuple[str, int | None, int | None, PageMarks]] = []
        cursor = 0
        for node in nodes:
            assert isinstance(node, TextNode)
            text = node.get_content()
            if not text.strip():
                continue
            begin = node.start_char_idx if node.start_char_idx is not None else full.find(text[:40], cursor)
            begin = max(begin, 0)
            end = node.end_char_idx if node.end_char_idx is not None else begin + len(text)
            cursor = begin
            first = bisect.bisect_right(starts, begin) - 1
            last = bisect.bisect_right(starts, max(begin, end - 1)) - 1
            spanned = numbers[first : last + 1]  # footnotes after their section's text may step back a page
            marks = _page_marks(starts[first : last + 1], spanned, begin, text == full[begin:end])
            out.append((text, min(spanned), max(spanned), marks))
        return out


@dataclass(frozen=True)
class _Piece:
    text: str
    page_start: int | None
    page_end: int | None
    section: str = ""
    caption: bool = False
    page_marks: PageMarks = ()


def _page_marks(starts: list[int], numbers: list[int], begin: int, exact: bool) -> PageMarks:
    """Where each page's text starts in a chunk that begins at `begin` of the joined pages (its first page at 0),
    from the pages' start offsets `starts` and page `numbers` it spans; () when the chunk's text is not that slice
    of the joined pages as it is (its page range is then what a quote from it cites)."""
    if not exact:
        return ()
    marks: list[tuple[int, int]] = []
    for start, number in zip(starts, numbers, strict=True):
        offset = max(0, start - begin)
        if marks and marks[-1][0] == offset:
            marks.pop()
        if not marks or marks[-1][1] != number:
            marks.append((offset, number))
    return tuple(marks)


def reading_order(texts: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """(page, text) pairs with a text that carries on a sentence left open before a figure's text (axis labels,
    table cells: no line of prose) moved up to follow that sentence; the figure's text comes after it."""
    out = list(texts)
    for i in range(1, len(out)):
        j = i - 1
        while j >= 0 and not is_prose(out[j][1]):
            j -= 1
        if 0 <= j < i - 1 and out[i][0] >= out[j][0] and continues(out[j][1], out[i][1]):
            out.insert(j + 1, out.pop(i))
    return out


def _runs(blocks: list[Block]) -> list[list[Block]]:
    """The blocks grouped section by section: a section's body blocks in one run (a caption between two
    paragraphs does not cut the text around it), then its captions in one run of their own. The text before
    the first heading (title, authors) belongs to the first section, so the first chunk holds the title and
    the start of the abstract, as a reader sees them."""
    runs: list[list[Block]] = []
    sections = _sections(blocks)
    if len(sections) > 1 and not sections[0][0].section:  # the title and authors open the abstract's chunk
        sections[:2] = [[replace(b, section=sections[1][0].section) for b in sections[0] + sections[1]]]
    for section in sections:
        body = [b for b in section if not b.caption]
        captions = [b for b in section if b.caption]
        runs += [run for run in (body, captions) if run]
    return runs


def _sections(blocks: list[Block]) -> list[list[Block]]:
    """Consecutive blocks of one section."""
    out: list[list[Block]] = []
    for block in blocks:
        if out and out[-1][-1].section == block.section:
            out[-1].append(block)
        else:
            out.append([block])
    return out


def _merge_small(runs: list[list[Block]], small: Callable[[list[Block]], bool]) -> list[list[Block]]:
    """Runs too short to stand alone joined to the next run of their kind (body or caption, of the paper's
    main text or of its back matter), or to the previous one when another kind comes first or none follows.
    A chunk of a few words embeds as little more than the paper's title, which every chunk carries, so it
    would match any question about the paper better than the passage that answers it. A short conclusion is
    never folded into the references after it (retrieval weighs back matter down)."""
    out: list[list[Block]] = []
    pending: dict[tuple[bool, bool], list[Block]] = {}  # by kind: short runs waiting for the next of their kind
    for run in runs:
        kind = _kind(run[0])
        other = (kind[0], not kind[1])  # same caption flag, other matter: a run of it waits no longer
        if other in pending:
            _join_previous(out, pending.pop(other))
        run = [*pending.pop(kind, []), *run]
        if small(run):
            pending[kind] = run
        else:
            out.append(_labelled(run))
    for rest in pending.values():
        _join_previous(out, rest)
    return out


def _kind(block: Block) -> tuple[bool, bool]:
    return block.caption, is_back_matter(block.section)


def _join_previous(out: list[list[Block]], rest: list[Block]) -> None:
    """`rest` added to the last run of its kind in `out`, or as a run of its own when there is none."""
    at = next((i for i in reversed(range(len(out))) if _kind(out[i][0]) == _kind(rest[0])), None)
    if at is None:
        out.append(_labelled(rest))
    else:
        out[at] = _labelled(out[at] + rest)


def _labelled(run: list[Block]) -> list[Block]:
    """The run's blocks under one section: the one holding most of its text (the first of equals)."""
    size: dict[str, int] = {}
    for block in run:
        size[block.section] = size.get(block.section, 0) + len(block.text)
    section = max(size, key=lambda s: size[s])
    return [replace(b, section=section) for b in run]
