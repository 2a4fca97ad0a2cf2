"""PDF files → papers, with pypdf: text per page, title, authors and arXiv id when they can be found."""

from __future__ import annotations

import hashlib
import html
import logging
import re
from collections.abc import Iterator
from pathlib import Path

from ingest.text import arxiv_id_from_filename, arxiv_id_from_text, clean_text, one_line
from papertalk.errors import SourceError
from storage.records import Paper, Problem

log = logging.getLogger(__name__)

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
            yield from sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() == ".pdf")
        elif path.is_file():
            yield path
        else:
            yield Problem(str(path), "no such file or folder")


def _check_header(path: Path) -> None:
    with path.open("rb") as fh:
        head = fh.read(1024)
    if not head:
        raise SourceError(str(path), "empty file (0 bytes)")
    if b"%PDF-" not in head:
        raise SourceError(str(path), f"not a PDF (it starts with {head[:16]!r}); remove or rename it")


def _open(path: Path):  # type: ignore[no-untyped-def]  # returns pypdf.PdfReader
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path), strict=False)
        if reader.is_encrypted and not reader.decrypt(""):
            raise SourceError(str(path), "encrypted PDF with a password: save a decrypted copy and ingest that")
        _ = len(reader.pages)
    except SourceError:
        raise
    except (PdfReadError, ValueError, KeyError, IndexError, TypeError, OSError, AssertionError) as exc:
        raise SourceError(str(path), f"corrupt or truncated PDF ({type(exc).__name__}: {exc})") from exc
    except Exception as exc:  # pypdf raises many kinds on broken files; the run must go on
        raise SourceError(str(path), f"unreadable PDF ({type(exc).__name__}: {exc})") from exc
    return reader


def _page_texts(reader, path: Path) -> list[str]:  # type: ignore[no-untyped-def]
    texts = []
    for number, page in enumerate(reader.pages, start=1):
        try:
            texts.append(clean_text(page.extract_text() or ""))
        except Exception as exc:  # one bad page must not lose the others
            log.warning("%s: page %d skipped (%s: %s)", path, number, type(exc).__name__, exc)
            texts.append("")
    return texts


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


def read_pdf(path: Path) -> Paper:
    """Parse one PDF; raises `SourceError` saying why it can't be used."""
    _check_header(path)
    reader = _open(path)
    pages = _page_texts(reader, path)
    if sum(len(p) for p in pages) < MIN_TEXT_CHARS:
        raise SourceError(
            str(path), f"no text layer on its {len(pages)} page(s) (a scan?): run OCR on it first, e.g. ocrmypdf"
        )
    arxiv_id = arxiv_id_from_filename(path.name) or arxiv_id_from_text("\n".join(pages[:2]))
    digest = file_digest(path)
    return Paper(
        paper_id=arxiv_id or f"pdf-{digest[:16]}",
        title=guess_title(_meta(reader, "/Title"), pages[0] if pages else ""),
        authors=guess_authors(_meta(reader, "/Author")),
        source="pdf",
        pages=pages,
        arxiv_id=arxiv_id,
        path=str(path),
    )
