"""The shapes that ingest produces and storage keeps: a paper, its page texts, its chunks, and a problem report."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date

_NAME_SUFFIXES = {"jr", "sr", "ii", "iii", "iv"}
_NOT_ALNUM = re.compile(r"[\W_]+")  # after NFKD this also drops accents (combining marks are not \w)


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
    file_hash: str | None = None  # SHA-256 of the file's bytes, for papers read from a file
    doi: str | None = None
    skipped_pages: list[int] = field(default_factory=list)  # PDF pages that could not be read (1-based)

    @property
    def has_full_text(self) -> bool:
        return any(p.strip() for p in self.pages)

    @property
    def text_pages(self) -> int:
        """Pages with text on them."""
        return sum(1 for p in self.pages if p.strip())

    @property
    def text_chars(self) -> int:
        return sum(len(p) for p in self.pages)

    def content_hash(self) -> str:
        """Hash of what is indexed: a changed hash means the paper's chunks are replaced."""
        h = hashlib.sha256()
        for part in (self.title, self.abstract, *self.pages):
            h.update(part.encode("utf-8", "replace"))
            h.update(b"\x00")
        return h.hexdigest()

    def text_hash(self) -> str | None:
        """Hash of the full text alone: the same text read from two files is the same paper."""
        if not self.has_full_text:
            return None
        return hashlib.sha256("\x00".join(self.pages).encode("utf-8", "replace")).hexdigest()


def fold(text: str) -> str:
    """Letters and digits only, case- and accent-folded: `S2ORC: The Semantic…` → `s2orcthesemantic…`."""
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKD", text.casefold()))


def surname(name: str) -> str:
    """`Kyle Lo` → `lo`, `Lo, Kyle` → `lo`, `Martin Luther King Jr.` → `king` (folded)."""
    for word in reversed(name.split(",")[0].split()):
        folded = fold(word)
        if folded and folded not in _NAME_SUFFIXES:
            return folded
    return ""


def title_key(title: str, authors: list[str]) -> str | None:
    """Normalised title and first author's surname, or None when either is missing or the title is too
    short to tell papers apart (e.g. `Untitled`, `Introduction`)."""
    folded = fold(title)
    first = surname(authors[0]) if authors else ""
    if len(folded) < 16 or not first:
        return None
    return f"{folded}|{first}"


PageMarks = tuple[tuple[int, int], ...]  # (offset in a chunk's text, page) where each page's text starts, in text order


def encode_page_marks(marks: PageMarks) -> str:
    """ "0:4;812:5": how the catalog keeps a chunk's page marks ("" when it has none)."""
    return ";".join(f"{offset}:{page}" for offset, page in marks)


def decode_page_marks(text: str | None) -> PageMarks:
    """The marks `encode_page_marks` wrote; () for none, or for text not in that form (the chunk's own page range
    is then what a citation shows)."""
    marks = []
    for item in (text or "").split(";"):
        offset, _, page = item.partition(":")
        if not (offset.isdigit() and page.isdigit()):
            return ()
        marks.append((int(offset), int(page)))
    return tuple(marks)


def pages_of_span(
    marks: PageMarks, start: int, end: int, fallback: tuple[int | None, int | None]
) -> tuple[int | None, int | None]:
    """The first and last page of the text at [start, end) of a chunk with `marks`: the pages a quote from it is
    on. `fallback` (the chunk's page range) when the chunk has no marks."""
    if not marks:
        return fallback
    spanned = [page for i, (offset, page) in enumerate(marks) if offset < max(end, start + 1)
               and (i + 1 == len(marks) or marks[i + 1][0] > start)]  # fmt: skip
    if not spanned:
        return fallback
    return min(spanned), max(spanned)


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
    section: str = ""  # the heading of the section it is from, e.g. "4.2 Reward design" ("" when unknown)
    caption: bool = False  # a figure or table caption, not body text
    page_marks: PageMarks = ()  # where each page's text starts in `text` (PDFs); () when there are no pages


@dataclass(frozen=True)
class Problem:
    """One input that could not be ingested: where (file, line, id) and why, in plain words."""

    where: str
    why: str
    fatal: bool = True  # False: a warning (e.g. no abstract); the item was still ingested

    def __str__(self) -> str:
        return f"{self.where}: {self.why}"
