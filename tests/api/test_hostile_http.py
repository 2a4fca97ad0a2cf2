"""Hostile input over HTTP: generated requests from the OpenAPI schema (schemathesis), the PDF fuzz corpus
posted concurrently to a live server, path-like file names, and very long questions. Never a 5xx.
"""

from __future__ import annotations

import asyncio
import collections
import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings

from api.app import create_app
from papertalk.settings import Settings
from tests.api.conftest import assert_problem, client_for, with_api
from tests.api.test_serve import serving
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF
from tests.helpers import hostile_pdfs as hostile
from tests.helpers.cli import cli_env
from tests.helpers.mutate_pdfs import mutants, page_cuts
from tests.helpers.openai_server import serve
from tests.helpers.pdfs import text_pdf

UNLIMITED = {"chat_per_minute": 0, "uploads_per_minute": 0}


EXAMPLES = 12  # generated requests per operation, at most
BUDGET_S = 45.0  # for sending them all: each operation gets an equal share (a loaded machine sends fewer)


@pytest.fixture(scope="module")
def schema_app(corpus_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The app over a copy of the answer corpus (generated writes must not change the shared one), started."""
    data = shutil.copytree(corpus_dir, tmp_path_factory.mktemp("schema") / "data")
    app = create_app(with_api(Settings(data_dir=data), **UNLIMITED))
    with TestClient(app) as client:  # runs the lifespan: the store stays open while the requests run
        assert client.post("/api/chat", json={"question": "What is S2ORC?"}).status_code == 200  # models loaded
        yield app


def server_errors(operation: Any, share_s: float) -> tuple[list[str], int]:
    """Requests generated for `operation` (schemathesis + hypothesis) that got a 5xx, and how many were
    sent: up to EXAMPLES, the first always, the others while the operation's `share_s` seconds last."""
    found: list[str] = []
    sent = 0
    until = time.monotonic() + share_s

    @given(case=operation.as_strategy())
    @settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def call(case: Any) -> None:
        nonlocal sent
        if sent and time.monotonic() > until:
            return  # generated, not sent: the share is spent
        sent += 1
        response = case.call(timeout=120)  # a busy machine is slow, not broken: only the status counts
        if response.status_code >= 500:
            what = f"{case.method} {case.formatted_path} query={case.query} body={case.body!r}"[:300]
            found.append(f"{response.status_code} {what}: {response.text[:300]}")

    call()
    return found, sent


def test_generated_requests_never_get_a_server_error(schema_app: Any) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", schema_app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 12, [op.label for op in operations]
    started = time.monotonic()
    results = [server_errors(op, BUDGET_S / len(operations)) for op in operations]
    errors = [error for found, _ in results for error in found]
    assert errors == [], errors[:5]
    assert all(sent >= 1 for _, sent in results)  # every operation was tried
    print(
        f"schemathesis: {sum(n for _, n in results)} requests over {len(operations)} operations in "
        f"{time.monotonic() - started:.0f} s"
    )


PATH_NAMES = [
    "../../etc/passwd.pdf",
    "..\\..\\windows\\win.ini.pdf",
    "/etc/shadow",
    "a/b/../../../c.pdf",
    "%2e%2e%2fescape.pdf",
    "nul\x00byte.pdf",
    "x" * 4000 + ".pdf",
    "CON.pdf",
    "~/.ssh/id_rsa.pdf",
    "",
]


@pytest.mark.parametrize("name", PATH_NAMES, ids=range(len(PATH_NAMES)))
def test_file_names_are_never_used_as_paths(tmp_path: Path, name: str) -> None:
    pdf = text_pdf(tmp_path / "p.pdf", [["Grey herons nest in alder trees along the river bank."]]).read_bytes()
    data_dir = tmp_path / "data"
    with client_for(data_dir, **UNLIMITED) as client:
        sent = client.post("/api/uploads", files={"file": (name, pdf, "application/pdf")})
        assert sent.status_code in (202, 422), sent.text  # 422: a name the multipart parser will not take
        if sent.status_code == 202:
            assert sent.json()["upload_id"] and "passwd" not in sent.text and "etc" not in sent.text
            kept = sorted(p.name for p in (data_dir / "uploads").iterdir())
            assert kept == [f"{sent.json()['upload_id']}.pdf"]
    outside = {p.name for p in tmp_path.iterdir()}
    assert outside <= {"p.pdf", "data"}, outside  # nothing written beside the data directory


def test_very_long_questions_and_queries_are_refused_plainly(tmp_path: Path) -> None:
    with client_for(tmp_path / "data", **UNLIMITED) as client:
        body = assert_problem(client.post("/api/chat", json={"question": "why? " * 450}), 422, "keep it under")
        assert "2,000" in str(body["detail"])
        assert_problem(client.post("/api/chat", json={"question": "why? " * 40_000}), 413, "larger than")
        assert_problem(client.post("/api/chat/stream", json={"question": "x" * 70_000}), 413)
        long_q = client.get("/api/papers", params={"q": "attention " * 5_000})
        assert long_q.status_code < 500, long_q.text
        huge_url = client.get("/api/papers/" + "a" * 20_000)
        assert huge_url.status_code < 500


def fuzz_corpus(folder: Path) -> list[Path]:
    """The hostile PDFs (bombs, deep nesting, padding) and 40 mutants of the bundled PDFs' page cuts."""
    folder.mkdir()
    files = [
        hostile.page_tree_bomb(folder / "tree-bomb.pdf", copies=20_000),
        hostile.flate_bomb(folder / "flate-bomb.pdf", inflated_mb=50),
        hostile.deep_nesting(folder / "deep.pdf", depth=20_000),
        hostile.shared_stream_pdf(folder / "shared.pdf", n_pages=10, stream_mb=2),
        hostile.zero_padded(folder / "padded.pdf", 3_000_000),
        hostile.small_text_pdf(folder / "fine.pdf"),
    ]
    seeds = [cut for pdf in (S2ORC_PDF, LONGEVAL_PDF) for cut in page_cuts(pdf, [0, 6])]
    return files + [path for path, _ in mutants(seeds, 40, folder / "mutants")]


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[str]:
    """`papertalk serve` over an empty store, PDFs budgeted, embeddings from the local test server."""
    with serve() as embeddings:
        env = cli_env(
            PAPERTALK_DATA_DIR=str(tmp_path / "served"),
            PAPERTALK_EMBEDDING__BACKEND="openai",
            OPENAI_BASE_URL=embeddings.url,
            OPENAI_API_KEY="test",
            PAPERTALK_API__UPLOADS_PER_MINUTE="0",
            PAPERTALK_API__MAX_UPLOAD_MB="2",
            PAPERTALK_PDF__TIMEOUT_S="30",  # a busy machine starts the parse worker slowly
            PAPERTALK_PDF__MAX_MEMORY_MB="512",
            PAPERTALK_PDF__MAX_PAGES="100",
        )
        with serving([], env) as base:
            yield base


async def post_all(base: str, files: list[Path], concurrency: int) -> list[httpx.Response]:
    """Each file posted on a connection of its own, as from many clients, `concurrency` at a time.

    No connection is reused: a kept-alive connection that the server closes after its idle timeout just as
    the client sends on it fails in the client (a race of keep-alive, not an answer of the server). Every
    file that gets no HTTP answer is named in the failure.
    """
    gate = asyncio.Semaphore(concurrency)
    unanswered: list[str] = []
    fresh = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=fresh) as http:

        async def post(path: Path) -> httpx.Response | None:
            async with gate:
                name = os.fsencode(path.name).decode("latin-1")  # the raw bytes of odd names, as a client may send
                files = {"file": (name, path.read_bytes(), "application/pdf")}
                try:
                    return await http.post("/api/uploads", files=files)
                except httpx.TransportError as exc:
                    unanswered.append(f"{path.name} ({path.stat().st_size:,} bytes): {type(exc).__name__} {exc}")
                    return None

        responses = await asyncio.gather(*(post(p) for p in files))
    assert not unanswered, unanswered
    return [r for r in responses if r is not None]


def settle(base: str, upload_ids: set[str], timeout: float = 600) -> dict[str, dict[str, Any]]:
    """Each upload's final state (ready or failed), polled until none is queued or parsing."""
    deadline = time.monotonic() + timeout
    states: dict[str, dict[str, Any]] = {}
    while time.monotonic() < deadline:
        states = {u: httpx.get(f"{base}/api/uploads/{u}", timeout=30).json() for u in upload_ids}
        if all(s["status"] in ("ready", "failed") for s in states.values()):
            return states
        time.sleep(1)
    raise AssertionError(
        f"uploads still pending: {[u for u, s in states.items() if s['status'] not in ('ready', 'failed')]}"
    )


@pytest.mark.slow
def test_the_fuzz_corpus_posted_concurrently_gets_no_server_error(live_server: str, tmp_path: Path) -> None:
    files = fuzz_corpus(tmp_path / "fuzz")
    responses = asyncio.run(post_all(live_server, files, concurrency=8))
    codes = [r.status_code for r in responses]
    assert all(code in (202, 413, 415) for code in codes), codes
    assert all(
        r.headers["content-type"].startswith("application/problem+json") for r in responses if r.status_code != 202
    )
    accepted = {r.json()["upload_id"] for r in responses if r.status_code == 202}
    states = settle(live_server, accepted)
    failed = [s["reason"] for s in states.values() if s["status"] == "failed"]
    assert all(reason and "\n" not in reason and "Traceback" not in reason for reason in failed), failed
    ready = {s["paper_id"] for s in states.values() if s["status"] == "ready"}
    assert ready and len(failed) > 3, collections.Counter(failed)  # some parsed, the bombs were refused
    health = httpx.get(f"{live_server}/api/ready", timeout=30).json()
    assert health["status"] == "ready" and health["papers_indexed"] == len(ready)
    assert health["chunks"] == health["vectors"]
    print(f"\n{len(files)} files: {codes.count(202)} accepted, {len(ready)} papers, {len(failed)} failed")


def test_an_offset_past_what_sqlite_holds_is_422_not_500(tmp_path: Path) -> None:
    """Found by the generated requests: offset=2**63 overflowed SQLite's integer (a 500)."""
    with client_for(tmp_path / "data", **UNLIMITED) as client:
        assert_problem(client.get("/api/papers", params={"offset": 2**63}), 422, "offset")
        assert_problem(client.get("/api/topics/rl-for-llm-agents/papers", params={"offset": 2**63}), 422, "offset")
        assert client.get("/api/papers", params={"offset": 2**62}).status_code == 200
