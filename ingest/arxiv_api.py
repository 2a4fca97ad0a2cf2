"""arXiv ids → papers: metadata from the arXiv Atom API, full text from the paper's PDF.

Ids are looked up in batches (one API call for up to `BATCH_SIZE` ids, at most one call every
`API_PAUSE_S` seconds, as arXiv asks). Each PDF is streamed to disk, never held in memory, and parsed
in a worker process within the PDF limits (`parse_isolated`). What goes wrong becomes a `Problem` that
says what to do: an unknown id or an unreachable arXiv is fatal for that id; a PDF that cannot be had
leaves an abstract-level paper and a warning.
"""

from __future__ import annotations

import logging
import os
import tempfile
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import replace
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from ingest.parse_worker import parse_isolated
from ingest.text import normalise_arxiv_id, one_line
from papertalk import __version__
from papertalk.errors import NetworkError, SourceError
from papertalk.settings import ArxivSettings
from storage.records import Paper, Problem

log = logging.getLogger(__name__)

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
BATCH_SIZE = 20
API_PAUSE_S = 3.0
MAX_PDF_BYTES = 200 * 1024 * 1024
USER_AGENT = f"papertalk/{__version__} (research assistant; fetches papers a user asked for by id)"
_ADVICE = "check the network and retry, or download the PDF yourself and ingest it with `papertalk ingest FILE.pdf`"


class _PdfMissing(Exception):
    """The PDF of a paper could not be had; the message says why, in a few words."""


def fetch_papers(ids: list[str], settings: ArxivSettings, pdf_dir: Path | None = None) -> Iterator[Paper | Problem]:
    """One `Paper` (or fatal `Problem`) per distinct id, in the order given.

    With `pdf_dir`, each downloaded PDF is kept there as `<id>.pdf` and the paper's `path` points to it;
    without, PDFs live in a temporary folder for as long as they are parsed.
    """
    wanted: list[str] = []
    for raw in ids:
        arxiv_id = normalise_arxiv_id(raw)
        if arxiv_id is None:
            yield Problem(raw, "not an arXiv id: use the form 2501.10120 (or arxiv:2501.10120, or an arxiv.org link)")
        elif arxiv_id not in wanted:
            wanted.append(arxiv_id)
    if not wanted:
        return
    with _ArxivClient(settings) as client, tempfile.TemporaryDirectory(prefix="papertalk-arxiv-") as tmp:
        for start in range(0, len(wanted), BATCH_SIZE):
            batch = wanted[start : start + BATCH_SIZE]
            yield from _fetch_batch(client, batch, pdf_dir or Path(tmp), keep=pdf_dir is not None)


def _fetch_batch(client: _ArxivClient, batch: list[str], folder: Path, keep: bool) -> Iterator[Paper | Problem]:
    try:
        found = client.lookup(batch)
    except NetworkError as exc:
        for arxiv_id in batch:
            yield Problem(f"arxiv:{arxiv_id}", str(exc))
        return
    for arxiv_id in batch:
        paper = found.get(arxiv_id)
        if paper is None:
            yield Problem(f"arxiv:{arxiv_id}", f"no arXiv paper with id {arxiv_id}: check the id (typo? too new?)")
        else:
            yield from _with_full_text(client, paper, folder, keep)


def _with_full_text(client: _ArxivClient, paper: Paper, folder: Path, keep: bool) -> Iterator[Paper | Problem]:
    target = folder / f"{paper.paper_id.replace('/', '_')}.pdf"
    try:
        client.download_pdf(paper.paper_id, target)
        pages = _read_pages(target)
    except _PdfMissing as exc:
        target.unlink(missing_ok=True)
        yield paper
        yield Problem(
            f"arxiv:{paper.paper_id}",
            f"full text missing ({exc}); added from the abstract only: retry `papertalk add {paper.paper_id}` "
            "later, or ingest a downloaded PDF with `papertalk ingest FILE.pdf`",
            fatal=False,
        )
        return
    if not keep:
        target.unlink()  # parsed: the temporary copy is no longer needed
    yield replace(paper, pages=pages, path=str(target) if keep else None)


def _read_pages(path: Path) -> list[str]:
    try:
        return parse_isolated(path).pages
    except SourceError as exc:
        raise _PdfMissing(f"the PDF could not be used: {exc.why}") from exc
    except Exception as exc:  # a parser bug on one PDF must not end the run
        raise _PdfMissing(f"the PDF could not be parsed ({type(exc).__name__}: {exc})") from exc


class _ArxivClient:
    """HTTP to arXiv: Atom lookups (paced) and PDF downloads, both with the configured timeout."""

    def __init__(self, settings: ArxivSettings) -> None:
        self.settings = settings
        self.http = httpx.Client(timeout=settings.timeout_s, follow_redirects=True, headers={"User-Agent": USER_AGENT})
        self._last_call: float | None = None

    def __enter__(self) -> _ArxivClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.http.close()

    def lookup(self, ids: list[str]) -> dict[str, Paper]:
        """Papers arXiv knows among `ids`, by id; raises `NetworkError` when arXiv cannot be asked."""
        papers, errors = parse_feed(self._query(ids))
        if errors and len(ids) > 1:  # one id arXiv rejects spoils a batched answer: ask one at a time
            log.info("arXiv rejected a batch (%s); asking for each id alone", "; ".join(errors))
            return {k: v for arxiv_id in ids for k, v in self.lookup([arxiv_id]).items()}
        for message in errors:
            log.info("arXiv: %s", message)
        return papers

    def _query(self, ids: list[str]) -> bytes:
        self._pause()
        url = self.settings.api_url
        log.info("asking arXiv about %s", ", ".join(ids))
        try:
            response = self.http.get(url, params={"id_list": ",".join(ids), "max_results": str(len(ids))})
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise NetworkError(f"could not reach arXiv ({self._reason(exc, url)}): {_ADVICE}") from exc
        finally:
            self._last_call = time.monotonic()  # the pause runs from the end of a call
        status = f"{_host(url)} answered HTTP {response.status_code}"
        if response.status_code >= 500 or response.status_code == 429:
            raise NetworkError(f"could not reach arXiv ({status}): {_ADVICE}")
        if response.status_code >= 400 and b"<feed" not in response.content[:1000]:
            raise NetworkError(f"arXiv refused the request ({status}): {_ADVICE}")
        return response.content  # a 400 carries an Atom feed with an error entry, handled by the caller

    def _pause(self) -> None:
        if self._last_call is not None:
            wait = API_PAUSE_S - (time.monotonic() - self._last_call)
            if wait > 0:
                time.sleep(wait)

    def download_pdf(self, arxiv_id: str, target: Path) -> None:
        """Stream the PDF of `arxiv_id` into `target` (complete or not at all); raises `_PdfMissing`."""
        url = self.settings.pdf_url.format(id=arxiv_id)
        part = target.with_name(target.name + ".part")
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with self.http.stream("GET", url) as response:
                if response.status_code != 200:
                    raise _PdfMissing(f"{_host(url)} answered HTTP {response.status_code} for {url}")
                _save(response, part, time.monotonic() + self.settings.download_deadline_s)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _PdfMissing(f"could not download {url}: {self._reason(exc, url)}") from exc
        os.replace(part, target)
        log.info("downloaded %s (%d bytes)", url, target.stat().st_size)

    def _reason(self, exc: Exception, url: str) -> str:
        if isinstance(exc, httpx.TimeoutException):
            return f"no answer from {_host(url)} within {self.settings.timeout_s:g} s"
        if isinstance(exc, httpx.ConnectError):
            return f"cannot connect to {_host(url)}: {exc or 'connection refused'}"
        return f"{type(exc).__name__}: {exc}"


def _save(response: httpx.Response, part: Path, deadline: float) -> None:
    """The body into `part`, unless it is too large or still arriving at `deadline` (a monotonic time): the
    client's timeout bounds each wait, so a server sending a little at a time would otherwise never end."""
    size = 0
    try:
        with part.open("wb") as fh:
            for block in response.iter_bytes():  # as they arrive (a block size would wait to fill it)
                size += len(block)
                if size > MAX_PDF_BYTES:
                    raise _PdfMissing(f"the PDF is larger than {MAX_PDF_BYTES >> 20} MiB")
                if time.monotonic() > deadline:
                    raise _PdfMissing(
                        f"the download was still going after {size:,} bytes when its deadline passed "
                        "(setting PAPERTALK_ARXIV__DOWNLOAD_DEADLINE_S)"
                    )
                fh.write(block)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def _host(url: str) -> str:
    return urlsplit(url).netloc or url


def parse_feed(xml: bytes) -> tuple[dict[str, Paper], list[str]]:
    """The papers of an arXiv Atom feed by normalised id, and the messages of its error entries."""
    try:
        root = ET.fromstring(xml)
    except ET.ParseError as exc:
        raise NetworkError(f"arXiv's answer is not an Atom feed ({exc}; a proxy in the way?): {_ADVICE}") from exc
    if root.tag != f"{ATOM}feed":
        raise NetworkError(f"arXiv's answer is not an Atom feed (it is <{root.tag}>): {_ADVICE}")
    papers: dict[str, Paper] = {}
    errors: list[str] = []
    for entry in root.iter(f"{ATOM}entry"):
        if "/api/errors" in _text(entry, f"{ATOM}id"):
            errors.append(_text(entry, f"{ATOM}summary") or "error")
            continue
        paper = entry_to_paper(entry)
        if paper is not None:
            papers[paper.paper_id] = paper
    return papers, errors


def entry_to_paper(entry: ET.Element) -> Paper | None:
    """One Atom `<entry>` → abstract-level `Paper`; None when it is not a real paper (no id or title)."""
    arxiv_id = normalise_arxiv_id(_text(entry, f"{ATOM}id"))
    title = _text(entry, f"{ATOM}title")
    if arxiv_id is None or not title:
        return None
    return Paper(
        paper_id=arxiv_id,
        title=title,
        authors=[one_line(n.text or "") for n in entry.iterfind(f"{ATOM}author/{ATOM}name") if (n.text or "").strip()],
        abstract=_text(entry, f"{ATOM}summary"),
        categories=_categories(entry),
        published=_date(_text(entry, f"{ATOM}published")),
        source="arxiv-api",
        arxiv_id=arxiv_id,
    )


def _categories(entry: ET.Element) -> list[str]:
    """The primary category first, then the others, each once."""
    primary = entry.find(f"{ARXIV}primary_category")
    terms = [primary.get("term", "")] if primary is not None else []
    terms += [c.get("term", "") for c in entry.iterfind(f"{ATOM}category")]
    return list(dict.fromkeys(t for t in terms if t))


def _text(element: ET.Element, tag: str) -> str:
    found = element.find(tag)
    return one_line(found.text or "") if found is not None else ""


def _date(value: str) -> date | None:
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None
