"""The shapes that ingest produces and storage keeps: a paper, its page texts, its chunks, and a problem report."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import date


@dataclass
class Paper:
    """One paper: metadata, and for full text the cleaned text of each page (page 1 first)."""

    paper_id: str
    title: str
    authors: list[str] = field(default_factory=list)
    abstract: str = ""
    categories: list[str] = field(default_factory=list)
    published: date | None = None
    source: str = "arxiv-metadata"
    pages: list[str] = field(default_factory=list)
    arxiv_id: str | None = None
    path: str | None = None
    skipped_pages: list[int] = field(default_factory=list)  # PDF pages that could not be read (1-based)

    @property
    def has_full_text(self) -> bool:
        return any(p.strip() for p in self.pages)

    def content_hash(self) -> str:
        """Hash of what is indexed: a changed hash means the paper's chunks are replaced."""
        h = hashlib.sha256()
        for part in (self.title, self.abstract, *self.pages):
            h.update(part.encode("utf-8", "replace"))
            h.update(b"\x00")
        return h.hexdigest()


@dataclass(frozen=True)
class Chunk:
    """A passage of a paper: `text` is shown and cited; `embed_text` (title + text) is embedded."""

    chunk_id: str
    paper_id: str
    ordinal: int
    text: str
    embed_text: str
    page_start: int | None
    page_end: int | None


@dataclass(frozen=True)
class Problem:
    """One input that could not be ingested: where (file, line, id) and why, in plain words."""

    where: str
    why: str
    fatal: bool = True  # False: a warning (e.g. no abstract); the item was still ingested

    def __str__(self) -> str:
        return f"{self.where}: {self.why}"
