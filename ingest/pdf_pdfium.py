"""A PDF's pages → text with pypdfium2 (`pdf.parser = "pypdfium2"`): PDFium's text layer, which keeps the
spaces between words that pypdf drops on some PDFs, at many times pypdf's speed (docs/benchmarks.md).

Same contract as the pypdf path in `ingest.pdf_pages`: every page's cleaned text, the pages that could not
be read and why, the page and text limits enforced, and a `SourceError` that says what to do.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ingest.pdf_pages import Pages, over_limit, why_failed
from ingest.text import clean_text, one_line
from papertalk.errors import SourceError
from papertalk.settings import PdfSettings


def _module() -> Any:
    try:
        import pypdfium2
    except ImportError as exc:
        raise SourceError(
            "pdf.parser", "pypdfium2 is not installed: `pip install pypdfium2`, or set PAPERTALK_PDF__PARSER=pypdf"
        ) from exc
    return pypdfium2


def open_document(path: Path, limits: PdfSettings) -> Any:
    """The PDFium document, refused when it needs a password or has too many pages."""
    pdfium = _module()
    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise SourceError(
                str(path), "encrypted PDF with a password: save a decrypted copy and ingest that"
            ) from exc
        raise SourceError(str(path), f"damaged PDF: {why_failed(exc)}") from exc
    n_pages = len(doc)
    if n_pages > limits.max_pages:
        doc.close()
        detail = f"it has {n_pages:,} pages"
        raise SourceError(str(path), over_limit(f"{limits.max_pages:,} page", "max_pages", detail))
    return doc


def _page_text(doc: Any, index: int) -> tuple[str, str | None]:
    try:
        page = doc[index]
        text = clean_text(page.get_textpage().get_text_range())
    except MemoryError:
        raise
    except Exception as exc:  # one bad page must not lose the others
        return "", why_failed(exc)
    return text, None


def extract_pages(doc: Any, path: Path, limits: PdfSettings) -> Pages:
    """Every page's text, stopping as soon as the file yields more than its text limit."""
    pages, total = Pages(), 0
    for index in range(len(doc)):
        text, problem = _page_text(doc, index)
        pages.texts.append(text)
        if problem:
            pages.unreadable[index + 1] = problem
        total += len(text)
        if total > limits.max_text_chars:
            where = f"reached at page {index + 1:,} of {len(doc):,}"
            raise SourceError(
                str(path), over_limit(f"{limits.max_text_chars:,} character text", "max_text_chars", where)
            )
    return pages


def metadata(doc: Any) -> tuple[str, str]:
    """The document's (title, author), "" where it has none."""
    try:
        info = doc.get_metadata_dict(skip_empty=True)
    except Exception:
        return "", ""
    return one_line(str(info.get("Title", ""))), one_line(str(info.get("Author", "")))
