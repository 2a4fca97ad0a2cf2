"""Embeddings at scale: two workers on PostgreSQL + a Chroma server embed through an OpenAI-compatible
embeddings server (the `openai` backend; here a local one started by the test)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from ingest.arxiv_metadata import RecordFilter
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers
from papertalk.settings import Settings
from storage.store import Store
from tests.conftest import demo_records
from tests.helpers.openai_server import ChatServer, serve
from tests.helpers.stack import ChromaProcess, PgServer, serve_workers, stack_env
from tests.scaleout.conftest import write_records

pytestmark = [pytest.mark.scaleout, pytest.mark.slow]
BATCH = 16


@pytest.fixture
def embedder() -> Iterator[ChatServer]:
    with serve() as server:
        yield server


def test_workers_embed_through_an_openai_compatible_server(
    pg: PgServer, chroma: ChromaProcess, embedder: ChatServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = stack_env(pg.create_database("openai_embeddings"), chroma, "openai_embeddings") | {
        "PAPERTALK_EMBEDDING__BACKEND": "openai",
        "PAPERTALK_EMBEDDING__OPENAI_BATCH_SIZE": str(BATCH),
        "OPENAI_BASE_URL": embedder.url,
        "OPENAI_API_KEY": "test-key",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    records = demo_records(20)
    store = Store(Settings())
    try:
        report = Ingestor(store).run(arxiv_papers(write_records(tmp_path / "r.jsonl", records), RecordFilter()))
        assert report.added == 20 and store.vectors.count() == report.chunks
    finally:
        store.close()
    calls = [r for r in embedder.requests if r.path == "/v1/embeddings"]
    assert len(calls) == math.ceil(report.chunks / BATCH) and all(len(r.body["input"]) <= BATCH for r in calls)
    before = len(embedder.requests)
    with serve_workers(env, workers=2) as url:
        seen: dict[str, dict] = {}
        for _ in range(40):
            with httpx.Client(base_url=url, timeout=120) as client:
                reply = client.post("/api/chat", json={"question": records[3]["title"]})
            assert reply.status_code == 200, reply.text
            seen.setdefault(reply.headers["X-Papertalk-Worker"], reply.json())
            if len(seen) == 2:
                break
    assert len(seen) == 2, "both workers answered"
    for answer in seen.values():
        assert answer["sources"][0]["paper_id"] == records[3]["id"]
    assert len(embedder.requests) > before, "the workers embedded the questions through the server"
