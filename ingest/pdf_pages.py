"""A PDF's pages → text, within the text limit, and in plain words why a page (or a file) yields none.

pypdf raises on some broken pages and, on others (a content stream that does not inflate, say), logs a
warning and reads on with what it has. Both count here: a page that yields no text is "unreadable" when
pypdf raised or complained while reading it, or when it draws text (a `BT` text object) that could not
be extracted. Only a file whose pages draw no text at all has "no text layer".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ingest.text import clean_text, one_line
from papertalk.errors import SourceError
from papertalk.settings import PdfSettings

MB = 1 << 20
_TEXT_OBJECT = re.compile(rb"(?:^|\s)BT(?:\s|$)")  # the operator that begins drawing text
UNEXTRACTABLE = "it draws text that could not be extracted"


def over_limit(limit: str, setting: str, detail: str = "") -> str:
    """The one line for a PDF over its budget: which limit, and the setting that raises it."""
    return f"over the {limit} limit{f' ({detail})' if detail else ''}: raise PAPERTALK_PDF__{setting.upper()}"


def why_failed(exc: BaseException) -> str:
    """What pypdf said, on one short line (naming the cause when pypdf wraps one)."""
    cause = exc.__cause__ or exc.__context__
    if isinstance(exc, RecursionError) or isinstance(cause, RecursionError):
        return "objects nested too deep (RecursionError)"
    said = one_line(str(exc))[:200] or "no message"
    if type(exc).__name__ == "LimitReachedError":
        return f"a stream or object over the parser's safety limit ({said})"
    return f"{said} ({type(exc).__name__})"


class _Complaints(logging.Handler):
    """The first warnings pypdf logs while one page is read."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if len(self.messages) < 3:
            self.messages.append(record.getMessage())


@contextmanager
def _pypdf_complaints() -> Iterator[_Complaints]:
    """Collect pypdf's warnings (and keep them out of the log) while the block runs."""
    logger, handler = logging.getLogger("pypdf"), _Complaints()
    saved = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.WARNING)
    logger.propagate = False
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]


def _drawn_bytes(page: Any) -> bytes:
    """The decoded content streams of a page and of the form XObjects it draws."""
    from pypdf.generic import ArrayObject

    contents = page.get("/Contents")
    contents = contents.get_object() if contents is not None else None
    streams = list(contents) if isinstance(contents, ArrayObject) else [contents] if contents is not None else []
    resources = page.get("/Resources")
    xobjects = resources.get_object().get("/XObject") if resources is not None else None
    for ref in (xobjects.get_object() if xobjects is not None else {}).values():
        if ref.get_object().get("/Subtype") == "/Form":
            streams.append(ref)
    return b"\n".join(s.get_object().get_data() for s in streams)


def _empty_page_problem(page: Any, complaints: _Complaints) -> str | None:
    """Why a page that yielded no text could not be read, or None when it simply draws no text."""
    try:
        drawn = _drawn_bytes(page)
    except MemoryError:
        raise
    except Exception as exc:
        return why_failed(exc)
    if _TEXT_OBJECT.search(drawn):
        return UNEXTRACTABLE
    if complaints.messages:
        return f"{one_line(complaints.messages[0])[:200]} (pypdf)"
    return None


def _page_text(page: Any, complaints: _Complaints) -> tuple[str, str | None]:
    """A page's cleaned text, and why it could not be read (None when it could)."""
    complaints.messages.clear()
    try:
        text = clean_text(page.extract_text() or "")
    except MemoryError:
        raise
    except Exception as exc:  # one bad page must not lose the others
        return "", why_failed(exc)
    return text, None if text else _empty_page_problem(page, complaints)


def page_ranges(numbers: list[int]) -> str:
    """[1, 2, 3, 7, 9, 10] -> "1-3, 7, 9-10"."""
    spans: list[list[int]] = []
    for n in sorted(numbers):
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(f"{a}-{b}" if b > a else str(a) for a, b in spans)


@dataclass
class Pages:
    """Each page's text (empty when it had none), and why each unreadable page could not be read."""

    texts: list[str] = field(default_factory=list)
    unreadable: dict[int, str] = field(default_factory=dict)  # page number (from 1) -> why

    @property
    def chars(self) -> int:
        return sum(len(t) for t in self.texts)

    def unreadable_line(self) -> str:
        """ "pages 2, 4-9 of 15 could not be read: <why the first one could not>"."""
        numbers = list(self.unreadable)
        label = "page" if len(numbers) == 1 else "pages"
        return f"{label} {page_ranges(numbers)} of {len(self.texts)} could not be read: {self.unreadable[numbers[0]]}"


def extract_pages(reader: Any, path: Path, limits: PdfSettings) -> Pages:
    """Every page's text, stopping as soon as the file yields more than its text limit."""
    pages, total = Pages(), 0
    n_pages = len(reader.pages)
    with _pypdf_complaints() as complaints:
        for number, page in enumerate(reader.pages, start=1):
            text, problem = _page_text(page, complaints)
            pages.texts.append(text)
            if problem:
                pages.unreadable[number] = problem
            total += len(text)
            if total > limits.max_text_chars:
                where = f"reached at page {number:,} of {n_pages:,}"
                limit = f"{limits.max_text_chars:,} character text"
                raise SourceError(str(path), over_limit(limit, "max_text_chars", where))
    return pages


def no_text_reason(pages: Pages) -> str:
    """Why a file with (almost) no text is refused, as exactly as its pages tell."""
    n = len(pages.texts)
    if pages.unreadable:
        first = next(iter(pages.unreadable.values()))
        if first == UNEXTRACTABLE:
            return f"{pages.unreadable_line()} (fonts without a Unicode map?): run OCR on it first, e.g. ocrmypdf"
        return ("" if "safety limit" in first else "damaged PDF: ") + pages.unreadable_line()
    if pages.chars == 0:
        return f"no text layer on its {n} page(s) (a scan?): run OCR on it first, e.g. ocrmypdf"
    return f"only {pages.chars} characters of text on its {n} page(s) (a scan?): run OCR on it first, e.g. ocrmypdf"
