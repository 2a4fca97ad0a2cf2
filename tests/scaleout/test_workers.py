"""`papertalk serve --workers 2` over real HTTP on PostgreSQL + a Chroma server: workers share chats and
ingests, and a store that stops answering is a 503 problem until it is back."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ingest.arxiv_metadata import RecordFilter
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers
from papertalk.settings import Settings
from storage.store import Store
from tests.conftest import demo_records
from tests.helpers.pdfs import text_pdf
from tests.helpers.stack import ChromaProcess, PgServer, serve_workers, stack_env
from tests.scaleout.conftest import write_records

pytestmark = [pytest.mark.scaleout, pytest.mark.slow]
WORKERS = 2
MARKER = "zorblaxite"  # a word no demo paper uses: only the uploaded PDF matches it by keyword
WORKER = "X-Papertalk-Worker"


@pytest.fixture(scope="module")
def served(pg: PgServer, chroma: ChromaProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Two workers over a database and collection holding 8 demo papers, ingested beforehand."""
    tmp = tmp_path_factory.mktemp("served")
    env = {
        **stack_env(pg.create_database("served"), chroma, "served"),
        "PAPERTALK_DATA_DIR": str(tmp / "data"),
        # these tests send chats until every worker has answered (up to 60 a call): the per-client limit, tested
        # elsewhere, would turn a 503 this module expects into a 429
        "PAPERTALK_API__CHAT_PER_MINUTE": "0",
    }
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        store = Store(Settings())
        try:
            Ingestor(store).run(arxiv_papers(write_records(tmp / "r.jsonl", demo_records(8)), RecordFilter()))
        finally:
            store.close()
        with serve_workers(env, workers=WORKERS) as url:
            yield url


def _each_worker(url: str, send: Callable[[httpx.Client], httpx.Response], tries: int = 60) -> dict[str, Any]:
    """`send` on new connections until every worker has answered: worker pid -> its responses."""
    seen: dict[str, list[httpx.Response]] = {}
    for _ in range(tries):
        with httpx.Client(base_url=url, timeout=120) as client:
            response = send(client)
        seen.setdefault(response.headers[WORKER], []).append(response)
        if len(seen) == WORKERS:
            return {worker: responses[-1] for worker, responses in seen.items()} | {
                "sent": sum(map(len, seen.values()))
            }
    raise AssertionError(f"only workers {sorted(seen)} answered in {tries} connections")


def _chat(question: str, conversation: str | None = None) -> Callable[[httpx.Client], httpx.Response]:
    return lambda c: c.post("/api/chat", json={"question": question, "conversation_id": conversation})


def test_a_chat_started_on_one_worker_goes_on_on_another(served: str) -> None:
    with httpx.Client(base_url=served, timeout=120) as client:
        started = client.post("/api/conversations", json={})
    assert started.status_code == 201, started.text
    chat_id, first_worker = started.json()["conversation_id"], started.headers[WORKER]
    answers = _each_worker(served, _chat("What do language model agents learn with reinforcement learning?", chat_id))
    sent = answers.pop("sent")
    assert first_worker in answers and len(answers) == WORKERS
    for response in answers.values():
        assert response.status_code == 200, response.text
        assert response.json()["conversation_id"] == chat_id and response.json()["sources"]
    turns = _each_worker(served, lambda c: c.get(f"/api/conversations/{chat_id}"))
    del turns["sent"]
    for response in turns.values():
        got = response.json()["turns"]
        assert len(got) == sent, "each worker sees every turn, whichever worker wrote it"
        assert {t["question"] for t in got} == {"What do language model agents learn with reinforcement learning?"}


def test_an_upload_through_one_worker_is_found_by_keyword_on_every_worker(served: str, tmp_path: Path) -> None:
    lines = [
        f"The {MARKER} lattice stores retrieval indexes in crystal memory.",
        f"Each {MARKER} cell holds one posting list of an inverted index, written by light pulses.",
        "Reading a cell back takes a few nanoseconds, so a search touches thousands of cells per query.",
        "The material is made up: no paper of the demo corpus mentions it, so only keywords can find it.",
    ]
    pdf = text_pdf(tmp_path / "marker.pdf", [lines], title=f"Crystal memory with {MARKER}")
    with httpx.Client(base_url=served, timeout=120) as client:
        upload = client.post("/api/uploads", files={"file": ("x.pdf", pdf.read_bytes(), "application/pdf")})
        assert upload.status_code == 202, upload.text
        state = upload.json()
        deadline = time.monotonic() + 240
        while state["status"] not in ("ready", "failed") and time.monotonic() < deadline:
            time.sleep(0.5)
            state = client.get(f"/api/uploads/{state['upload_id']}").json()
    assert state["status"] == "ready", state.get("reason")
    answers = _each_worker(served, _chat(f"What is stored in the {MARKER} lattice?"))
    del answers["sent"]
    for worker, response in answers.items():
        assert response.status_code == 200, response.text
        mine = [s for s in response.json()["sources"] if s["paper_id"] == state["paper_id"]]
        assert mine and mine[0]["keyword_score"], f"worker {worker} has not caught up with the upload: {response.text}"


def test_every_worker_gives_the_same_answer_at_one_catalog_version(served: str) -> None:
    """Each worker keeps its own keyword index and caches: at one catalog version they must all agree."""
    answers = _each_worker(served, _chat("Which benchmarks evaluate web agents?"))
    del answers["sent"]
    bodies = [response.json() for response in answers.values()]
    version = bodies[0]["changes_version"]
    assert {(b["changes_version"], b["changes_version_after"]) for b in bodies} == {(version, version)}
    assert {r.headers["Papertalk-Changes-Version"] for r in answers.values()} == {str(bodies[0]["changes_version"])}
    for body in bodies[1:]:
        assert body["text"] == bodies[0]["text"] and body["sources"] == bodies[0]["sources"]


def _problem(response: httpx.Response, status: int, says: str) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert says in response.json()["detail"], response.json()


def test_chroma_server_stopped_is_a_503_until_it_is_back(served: str, chroma: ChromaProcess) -> None:
    question = {"question": "Which benchmarks evaluate agents?"}
    with httpx.Client(base_url=served, timeout=120) as client:
        assert client.post("/api/chat", json=question).status_code == 200
        chroma.stop()
        try:
            for _ in range(2 * WORKERS):  # whichever worker answers
                _problem(client.post("/api/chat", json=question), 503, "Chroma server")
            _problem(client.get("/api/ready"), 503, "Chroma server")
        finally:
            chroma.start()
        assert client.post("/api/chat", json=question).status_code == 200
    recovered = _each_worker(served, lambda c: c.post("/api/chat", json=question))
    del recovered["sent"]
    assert {r.status_code for r in recovered.values()} == {200}


def test_postgres_restarted_is_a_503_while_down_then_every_worker_recovers(served: str, pg: PgServer) -> None:
    question = {"question": "Which benchmarks evaluate agents?"}
    with httpx.Client(base_url=served, timeout=120) as client:
        assert client.get("/api/conversations").status_code == 200
        pg.stop()
        try:
            for _ in range(2 * WORKERS):
                _problem(client.get("/api/conversations"), 503, "PostgreSQL catalog")
            _problem(client.post("/api/chat", json=question), 503, "PostgreSQL catalog")
        finally:
            pg.start()
    recovered = _each_worker(served, lambda c: c.post("/api/chat", json=question))
    del recovered["sent"]
    assert {r.status_code for r in recovered.values()} == {200}
    listed = _each_worker(served, lambda c: c.get("/api/conversations"))
    del listed["sent"]
    assert {r.status_code for r in listed.values()} == {200}
