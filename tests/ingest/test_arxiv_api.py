"""`fetch_papers` and `papertalk add` against a real HTTP server on 127.0.0.1 that answers like arXiv."""

from __future__ import annotations

import itertools
import os
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

import ingest.arxiv_api as arxiv_api
from ingest.arxiv_api import fetch_papers, parse_feed
from papertalk.settings import ArxivSettings, Settings
from storage.catalog import Catalog
from storage.records import Paper, Problem
from tests.conftest import S2ORC_PDF

FIXTURES = Path(__file__).parents[1] / "fixtures" / "arxiv"
KNOWN = "1911.02782"  # the committed S2ORC PDF; its feed names the fifth author "Daniel S. Weld", the PDF "Daniel Weld"
BLANK = "2501.00001"  # answered with an entry that has an id but no title
REJECTED = "2501.00400"  # answered with HTTP 400 and an arXiv error entry
UNKNOWN = "2501.99999"  # answered with a feed without entries
SLOW_S = 8.0  # far beyond the timeout: a loaded CI machine must not blur the two
TIMEOUT_S = 2.0
TRICKLE_BYTES, TRICKLE_PAUSE_S = 1024, 0.2  # a whole PDF would take minutes; no single wait nears the timeout
DEADLINE_S = 3.0


@dataclass
class Request:
    at: float
    path: str
    query: dict[str, list[str]]
    user_agent: str


@dataclass
class ArxivServer:
    base: str
    requests: list[Request] = field(default_factory=list)

    def settings(self, api: str = "api", pdf: str = "pdf", timeout_s: float = 5.0) -> ArxivSettings:
        return ArxivSettings(
            api_url=f"{self.base}/{api}/query", pdf_url=f"{self.base}/{pdf}/{{id}}", timeout_s=timeout_s
        )

    def env(self, api: str = "api", pdf: str = "pdf", timeout_s: float = 5.0) -> dict[str, str]:
        s = self.settings(api, pdf, timeout_s)
        return {
            "PAPERTALK_ARXIV__API_URL": s.api_url,
            "PAPERTALK_ARXIV__PDF_URL": s.pdf_url,
            "PAPERTALK_ARXIV__TIMEOUT_S": str(timeout_s),
        }

    def api_calls(self) -> list[Request]:
        return [r for r in self.requests if r.path.endswith("/query")]


def _entry(fixture: str) -> str:
    found = re.search(r" *<entry>.*</entry>\n", (FIXTURES / fixture).read_text(), re.DOTALL)
    assert found
    return found.group(0)


def _feed(ids: list[str]) -> bytes:
    """What arXiv answers for `id_list`: the recorded feed for one known id, else a feed built of entries."""
    if ids == [KNOWN]:
        return (FIXTURES / f"{KNOWN}.xml").read_bytes()
    entries = {KNOWN: _entry(f"{KNOWN}.xml"), BLANK: _entry("blank_entry.xml")}
    body = "".join(entries.get(i, "") for i in ids)
    feed = (FIXTURES / "no_entry.xml").read_text()
    return feed.replace("</feed>", body + "</feed>").encode()


class _Handler(BaseHTTPRequestHandler):
    """Routes by the first path segment: api, pdf (200 for KNOWN, else 404), missing, down, slow, html."""

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = parse_qs(url.query)
        self.server.log.append(Request(time.monotonic(), url.path, query, self.headers.get("User-Agent", "")))  # type: ignore[attr-defined]
        route, _, rest = url.path.lstrip("/").partition("/")
        if route == "api":
            ids = query["id_list"][0].split(",")
            if REJECTED in ids:
                self._send(400, (FIXTURES / "error.xml").read_bytes(), "application/atom+xml")
            else:
                self._send(200, _feed(ids), "application/atom+xml")
        elif route == "pdf" and rest == KNOWN:
            self._send(200, S2ORC_PDF.read_bytes(), "application/pdf")
        elif route == "down":
            self._send(503, b"Service Unavailable", "text/plain")
        elif route == "slow":
            time.sleep(SLOW_S)
            self._send(200, _feed([KNOWN]), "application/atom+xml")
        elif route == "trickle":  # the PDF a little at a time, each piece well within the timeout
            self._trickle(S2ORC_PDF.read_bytes())
        elif route == "html":
            self._send(200, b"<html><body>Please sign in to the network</body></html>", "text/html")
        else:
            self._send(404, b"Not Found", "text/plain")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _trickle(self, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/pdf")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        for start in range(0, len(body), TRICKLE_BYTES):
            self.wfile.write(body[start : start + TRICKLE_BYTES])
            self.wfile.flush()
            time.sleep(TRICKLE_PAUSE_S)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (the timeout tests) leaves a broken pipe behind


@pytest.fixture
def arxiv_server() -> Iterator[ArxivServer]:
    server = _Server(("127.0.0.1", 0), _Handler)
    record = ArxivServer(f"http://127.0.0.1:{server.server_address[1]}")
    server.log = record.requests  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield record
    server.shutdown()
    server.server_close()


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _split(items: list[Paper | Problem]) -> tuple[list[Paper], list[Problem]]:
    return [i for i in items if isinstance(i, Paper)], [i for i in items if isinstance(i, Problem)]


def test_fetch_gives_atom_metadata_and_pdf_pages(arxiv_server: ArxivServer, tmp_path: Path) -> None:
    items = list(fetch_papers([f"arxiv:{KNOWN}v2"], arxiv_server.settings(), pdf_dir=tmp_path / "pdfs"))
    assert len(items) == 1 and isinstance(items[0], Paper)
    paper = items[0]
    assert paper.paper_id == paper.arxiv_id == KNOWN
    assert paper.title == "S2ORC: The Semantic Scholar Open Research Corpus"
    assert paper.authors == ["Kyle Lo", "Lucy Lu Wang", "Mark Neumann", "Rodney Kinney", "Daniel S. Weld"]
    assert paper.abstract.startswith("A corpus of scholarly papers in English") and "\n" not in paper.abstract
    assert paper.categories == ["cs.CL", "cs.DL"]
    assert paper.published == date(2019, 11, 7)
    assert paper.source == "arxiv-api"
    assert len(paper.pages) == 15 and "S2ORC" in paper.pages[0]
    assert paper.path == str(tmp_path / "pdfs" / f"{KNOWN}.pdf")
    assert Path(paper.path).read_bytes() == S2ORC_PDF.read_bytes()
    assert list((tmp_path / "pdfs").iterdir()) == [Path(paper.path)]  # no partial download left behind
    api, pdf = arxiv_server.requests
    assert api.query["id_list"] == [KNOWN] and pdf.path == f"/pdf/{KNOWN}"
    assert api.user_agent.startswith("papertalk/") and pdf.user_agent.startswith("papertalk/")


def test_old_style_ids_and_entry_fields_parse() -> None:
    feed = (FIXTURES / f"{KNOWN}.xml").read_bytes().replace(f"abs/{KNOWN}v3".encode(), b"abs/hep-th/9901001v2")
    papers, errors = parse_feed(feed)
    assert errors == [] and list(papers) == ["hep-th/9901001"]
    assert papers["hep-th/9901001"].title == "S2ORC: The Semantic Scholar Open Research Corpus"  # lines joined
    assert parse_feed((FIXTURES / "error.xml").read_bytes()) == ({}, [f"incorrect id format for {REJECTED}"])


def test_ids_are_batched_and_each_gets_an_answer(arxiv_server: ArxivServer) -> None:
    raw = [f"https://arxiv.org/abs/{KNOWN}v3", UNKNOWN, "not-an-id", KNOWN, BLANK]
    items = list(fetch_papers(raw, arxiv_server.settings(pdf="missing")))
    papers, problems = _split(items)
    assert [p.paper_id for p in papers] == [KNOWN]
    assert papers[0].pages == [] and papers[0].path is None and papers[0].title.startswith("S2ORC")
    fatal = {p.where: p.why for p in problems if p.fatal}
    assert fatal.keys() == {"not-an-id", f"arxiv:{UNKNOWN}", f"arxiv:{BLANK}"}
    assert "not an arXiv id" in fatal["not-an-id"]
    assert fatal[f"arxiv:{UNKNOWN}"].startswith(f"no arXiv paper with id {UNKNOWN}")
    assert fatal[f"arxiv:{BLANK}"].startswith(f"no arXiv paper with id {BLANK}")
    calls = arxiv_server.api_calls()
    assert len(calls) == 1 and calls[0].query["id_list"] == [f"{KNOWN},{UNKNOWN},{BLANK}"]


def test_missing_pdf_leaves_abstract_paper_and_warning(arxiv_server: ArxivServer) -> None:
    papers, problems = _split(list(fetch_papers([KNOWN], arxiv_server.settings(pdf="missing"))))
    assert len(papers) == 1 and not papers[0].has_full_text and papers[0].abstract
    [warning] = problems
    assert not warning.fatal and warning.where == f"arxiv:{KNOWN}"
    assert "full text missing" in warning.why and "HTTP 404" in warning.why and "papertalk ingest" in warning.why


def test_a_rejected_id_does_not_spoil_its_batch(arxiv_server: ArxivServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arxiv_api, "API_PAUSE_S", 0.2)
    papers, problems = _split(list(fetch_papers([KNOWN, REJECTED], arxiv_server.settings(pdf="missing"))))
    assert [p.paper_id for p in papers] == [KNOWN]
    assert next(p.why for p in problems if p.fatal).startswith(f"no arXiv paper with id {REJECTED}")
    calls = arxiv_server.api_calls()
    assert [c.query["id_list"] for c in calls] == [[f"{KNOWN},{REJECTED}"], [KNOWN], [REJECTED]]
    gaps = [b.at - a.at for a, b in itertools.pairwise(calls)]
    assert min(gaps) >= 0.19  # arXiv asks for a pause between API calls


@pytest.mark.parametrize(
    ("api", "reason"),
    [
        ("down", "answered HTTP 503"),
        ("refused", "cannot connect to 127.0.0.1"),
        ("slow", f"no answer from 127.0.0.1:PORT within {TIMEOUT_S:g} s"),
        ("html", "not an Atom feed"),
    ],
)
def test_unreachable_arxiv_is_a_clear_problem_per_id(
    arxiv_server: ArxivServer, closed_port: int, api: str, reason: str
) -> None:
    settings = arxiv_server.settings(api, timeout_s=TIMEOUT_S)
    if api == "refused":
        settings = ArxivSettings(api_url=f"http://127.0.0.1:{closed_port}/api/query", timeout_s=TIMEOUT_S)
    started = time.monotonic()
    items = list(fetch_papers([KNOWN, "arxiv:2501.10120"], settings))
    assert time.monotonic() - started < SLOW_S  # the timeout is honoured, not the server's delay
    assert all(isinstance(i, Problem) and i.fatal for i in items)
    assert [i.where for i in items] == [f"arxiv:{KNOWN}", "arxiv:2501.10120"]  # type: ignore[union-attr]
    why = items[0].why  # type: ignore[union-attr]
    assert reason.replace("PORT", arxiv_server.base.rsplit(":", 1)[1]) in why
    assert "retry" in why and "papertalk ingest" in why


def test_a_pdf_trickling_in_is_cut_off_at_the_download_deadline(arxiv_server: ArxivServer) -> None:
    settings = arxiv_server.settings(pdf="trickle", timeout_s=TIMEOUT_S).model_copy(
        update={"download_deadline_s": DEADLINE_S}
    )
    started = time.monotonic()
    items = list(fetch_papers([KNOWN], settings))
    took = time.monotonic() - started
    assert DEADLINE_S <= took < DEADLINE_S + 30, took  # the whole PDF would take 7 minutes (2 MB, 1 kB a 0.2 s)
    papers, problems = _split(items)
    assert len(papers) == 1 and not papers[0].has_full_text  # kept from its abstract
    assert len(problems) == 1 and not problems[0].fatal
    assert "deadline passed" in problems[0].why and "PAPERTALK_ARXIV__DOWNLOAD_DEADLINE_S" in problems[0].why


def _papertalk(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from cli.main import main; main()", *args],
        env={**os.environ, "COLUMNS": "300", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _catalog_row(settings: Settings, paper_id: str):  # type: ignore[no-untyped-def]
    catalog = Catalog(settings.catalog_path)
    try:
        return catalog.get(paper_id)
    finally:
        catalog.close()


@pytest.mark.slow
def test_cli_add_ingests_metadata_and_full_text(arxiv_server: ArxivServer, settings: Settings) -> None:
    done = _papertalk("add", f"arxiv:{KNOWN}", env=arxiv_server.env())
    assert done.returncode == 0, done.stderr
    assert "1 added" in done.stdout and "0 failed" in done.stdout
    row = _catalog_row(settings, KNOWN)
    assert row is not None and row.status == "indexed"
    assert row.title == "S2ORC: The Semantic Scholar Open Research Corpus"
    assert row.authors[-1] == "Daniel S. Weld" and row.categories == ["cs.CL", "cs.DL"]
    assert row.n_pages == 15 and row.n_chunks > 15 and row.source == "arxiv-api"
    assert row.published == date(2019, 11, 7)


@pytest.mark.slow
def test_cli_add_reports_unknown_id_and_missing_pdf(arxiv_server: ArxivServer, settings: Settings) -> None:
    done = _papertalk("add", KNOWN, f"arxiv:{UNKNOWN}", env=arxiv_server.env(pdf="missing"))
    assert done.returncode == 1  # the unknown id failed
    assert f"no arXiv paper with id {UNKNOWN}" in done.stderr and "Traceback" not in done.stderr
    assert "full text missing" in done.stderr
    assert "1 added" in done.stdout and "1 failed" in done.stdout and "1 warnings" in done.stdout
    assert _catalog_row(settings, UNKNOWN) is None
    row = _catalog_row(settings, KNOWN)  # kept from its abstract
    assert row is not None and row.n_pages == 0 and row.n_chunks >= 1 and row.abstract.startswith("A corpus")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("api", "reason"), [("down", "HTTP 503"), ("refused", "cannot connect"), ("slow", "no answer")]
)
def test_cli_add_without_arxiv_fails_clearly(
    arxiv_server: ArxivServer, closed_port: int, api: str, reason: str
) -> None:
    env = arxiv_server.env(api, timeout_s=TIMEOUT_S)
    if api == "refused":
        env["PAPERTALK_ARXIV__API_URL"] = f"http://127.0.0.1:{closed_port}/api/query"
    done = _papertalk("add", KNOWN, env=env)
    assert done.returncode == 1
    assert "could not reach arXiv" in done.stderr and reason in done.stderr
    assert "papertalk ingest" in done.stderr and "Traceback" not in done.stderr
