"""PDF files → papers, with pypdf: text per page, title, authors and arXiv id when they can be found.

`parse_pdf` applies the size, page and text limits of `PdfSettings` in this process; the time and
memory limits need a process boundary and are enforced by `ingest.parse_worker.PdfParser`.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
from collections.abc import Iterator
from pathlib import Path

from ingest.pdf_pages import MB, Pages, extract_pages, no_text_reason, over_limit, why_failed
from ingest.text import arxiv_id_from_filename, arxiv_id_from_text, one_line
from papertalk.errors import SourceError
from papertalk.settings import PdfSettings
from storage.records import Paper, Problem

MIN_TEXT_CHARS = 200  # below this over the whole file, the PDF is treated as having no text layer
_BAD_TITLE = re.compile(
    r"^(microsoft word|untitled|arxiv|preprint|proceedings|doi|http|content from this work|published)"
    r"|©|\d{4}\s*association|creative commons|licen[cs]ed? under|under (the )?licen[cs]e|all rights reserved"
    r"|conference series",
    re.IGNORECASE,
)


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def iter_pdf_paths(paths: list[Path]) -> Iterator[Path | Problem]:
    """Every PDF named, or found under the folders named, in a stable order."""
    for path in paths:
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() == ".pdf")
            yield from (_usable_name(p) for p in found)
        elif path.is_file():
            yield _usable_name(path)
        else:
            yield Problem(printable(path), "no such file or folder")


def printable(path: Path) -> str:
    """The path as text that can be printed and stored: bytes that are not UTF-8 shown as \\xNN escapes."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def _usable_name(path: Path) -> Path | Problem:
    """A file whose name is not UTF-8 cannot be recorded in the catalog (nor named back to the user as is)."""
    if printable(path) != str(path):
        return Problem(printable(path), "its name is not valid UTF-8: rename the file")
    return path


def _check_header(path: Path) -> None:
    with path.open("rb") as fh:
        head = fh.read(1024)
    if not head:
        raise SourceError(str(path), "empty file (0 bytes)")
    if b"%PDF-" not in head:
        raise SourceError(str(path), f"not a PDF (it starts with {head[:16]!r}); remove or rename it")


def check_size(path: Path, limits: PdfSettings) -> None:
    """Refuse a file over the size limit before anything reads it."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SourceError(str(path), f"cannot be read ({type(exc).__name__}: {exc.strerror or exc})") from exc
    if size > limits.max_file_mb * MB:
        raise SourceError(
            str(path),
            over_limit(f"{limits.max_file_mb:,g} MB file size", "max_file_mb", f"it is {size / MB:,.1f} MB"),
        )


def _open(path: Path, limits: PdfSettings):  # type: ignore[no-untyped-def]  # returns pypdf.PdfReader
    from pypdf import PdfReader

    try:
        reader = PdfReader(str(path), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise SourceError(str(path), "encrypted PDF with a password: save a decrypted copy and ingest that")
        _check_pages(path, _declared_pages(reader), limits, "declares")  # before pypdf walks the page tree
        n_pages = len(reader.pages)
    except (SourceError, MemoryError):
        raise
    except Exception as exc:  # pypdf raises many kinds on broken files; the run must go on
        raise SourceError(str(path), f"damaged PDF: {why_failed(exc)}") from exc
    _check_pages(path, n_pages, limits, "has")
    return reader


def _declared_pages(reader) -> int:  # type: ignore[no-untyped-def]
    """The page count the page tree's root claims (0 if it claims none); a file may lie, so it is checked again."""
    try:
        count = reader.trailer["/Root"]["/Pages"]["/Count"]
    except Exception:
        return 0
    return int(count) if isinstance(count, int) else 0


def _check_pages(path: Path, n_pages: int, limits: PdfSettings, verb: str) -> None:
    if n_pages > limits.max_pages:
        detail = f"it {verb} {n_pages:,} pages"
        raise SourceError(str(path), over_limit(f"{limits.max_pages:,} page", "max_pages", detail))


def _meta(reader, key: str) -> str:  # type: ignore[no-untyped-def]
    try:
        value = (reader.metadata or {}).get(key)
    except Exception:
        return ""
    return one_line(html.unescape(str(value))) if value else ""


def _could_start_title(line: str) -> bool:
    """Not the tail of a sentence (a lowercase start) nor a short label such as a venue or a publisher."""
    return not line[0].islower() and len(line.split()) >= 3


def guess_title(meta_title: str, first_page: str) -> str:
    """The PDF's /Title if it looks like one, else the first substantial line(s) of page 1."""
    if len(meta_title.split()) >= 3 and not _BAD_TITLE.search(meta_title) and not meta_title.endswith((".dvi", ".tex")):
        return meta_title
    lines = [one_line(x) for x in first_page.splitlines()]
    picked: list[str] = []
    for line in lines:
        if not line or _BAD_TITLE.search(line) or len(line) < 8:
            if picked:
                break
            continue
        if not picked and not _could_start_title(line):
            continue
        picked.append(line)
        if len(" ".join(picked)) > 60 or len(picked) == 2:
            break
    return " ".join(picked)[:300] or "Untitled"


def guess_authors(meta_author: str) -> list[str]:
    if not meta_author or len(meta_author) > 400:
        return []
    parts = re.split(r";|,| and ", meta_author)
    return [p.strip() for p in parts if len(p.strip().split()) >= 2][:50]


def parse_pdf(path: Path, limits: PdfSettings | None = None) -> tuple[Paper, list[Problem]]:
    """Parse one PDF in this process under the size, page and text limits of `limits`.

    Returns the paper and warnings (pages that could not be read); raises `SourceError` saying why the
    file can't be used. Time and memory limits need a process boundary: `ingest.parse_worker`.
    """
    limits = limits or PdfSettings()
    check_size(path, limits)
    _check_header(path)
    pages, meta_title, meta_author = _read(path, limits)
    if pages.chars < MIN_TEXT_CHARS:
        raise SourceError(str(path), no_text_reason(pages))
    arxiv_id = arxiv_id_from_filename(path.name) or arxiv_id_from_text("\n".join(pages.texts[:2]))
    digest = file_digest(path)
    paper = Paper(
        paper_id=arxiv_id or f"pdf-{digest[:16]}",
        title=guess_title(meta_title, pages.texts[0] if pages.texts else ""),
        authors=guess_authors(meta_author),
        source="pdf",
        pages=pages.texts,
        arxiv_id=arxiv_id,
        path=str(path),
        skipped_pages=sorted(pages.unreadable),
    )
    warnings = []
    if pages.unreadable:
        warnings.append(Problem(str(path), f"{pages.unreadable_line()}; the other pages were ingested", fatal=False))
    return paper, warnings


def _read(path: Path, limits: PdfSettings) -> tuple[Pages, str, str]:
    """The pages' text and the /Title and /Author, with the parser `limits.parser` names."""
    if limits.parser == "pypdfium2":
        from ingest import pdf_pdfium

        doc = pdf_pdfium.open_document(path, limits)
        try:
            return (pdf_pdfium.extract_pages(doc, path, limits), *pdf_pdfium.metadata(doc))
        finally:
            doc.close()
    reader = _open(path, limits)
    return extract_pages(reader, path, limits), _meta(reader, "/Title"), _meta(reader, "/Author")


def read_pdf(path: Path, limits: PdfSettings | None = None) -> Paper:
    """`parse_pdf` without its warnings."""
    return parse_pdf(path, limits)[0]
