"""Papers → chunks with llama-index's sentence splitter, sized in the embedding model's word pieces.

A chunk's embedded text is `title + "\n" + body`. The body holds at most `chunk_tokens` pieces and the
title at most `title_tokens`, so with the two special pieces an embedded chunk never exceeds the model's
256-piece window and nothing is silently truncated (docs/benchmarks.md shows the measured lengths).
"""

from __future__ import annotations

import bisect
from functools import cached_property

from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import Document, TextNode

from papertalk.settings import ChunkSettings
from storage.embeddings import WordPieceCounter
from storage.records import Chunk, Paper


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
            pieces = self._split_pages(paper.pages)
        else:
            pieces = [(body, None, None) for body in self._split(paper.abstract or paper.title)]
        prefix = f"{paper.paper_id}#{content_hash[:10]}#"
        return [
            Chunk(
                chunk_id=f"{prefix}{i:04d}",
                paper_id=paper.paper_id,
                ordinal=i,
                text=body,
                embed_text=f"{title}\n{body}",
                page_start=start,
                page_end=end,
            )
            for i, (body, start, end) in enumerate(pieces)
        ]

    def _split(self, text: str) -> list[str]:
        return [t for t in self.splitter.split_text(text) if t.strip()] or [text]

    def _split_pages(self, pages: list[str]) -> list[tuple[str, int | None, int | None]]:
        """Split the whole text at once (chunks may cross pages) and map each chunk to its pages."""
        starts, parts, offset = [], [], 0
        for page in pages:
            starts.append(offset)
            parts.append(page)
            offset += len(page) + 2
        full = "\n\n".join(parts)
        nodes = self.splitter.get_nodes_from_documents([Document(text=full)])
        out: list[tuple[str, int | None, int | None]] = []
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
            first = bisect.bisect_right(starts, begin)
            last = bisect.bisect_right(starts, max(begin, end - 1))
            out.append((text, first, last))
        return out
