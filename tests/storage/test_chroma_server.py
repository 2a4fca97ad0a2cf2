"""The client/server path: papertalk against a real `chroma run` server on 127.0.0.1."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.arxiv_metadata import RecordFilter
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers
from papertalk.errors import StoreUnavailable
from papertalk.settings import Settings
from storage.embeddings import MODEL_NAME
from storage.store import Store
from tests.conftest import demo_records
from tests.helpers.chroma_server import ChromaServer, chroma_server, free_port
from tests.helpers.cli import catalog_rows, run_cli


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    with chroma_server(tmp_path_factory.mktemp("chroma") / "db") as running:
        yield running


@pytest.fixture
def collection(server: ChromaServer, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point papertalk (and the CLI subprocesses) at the server, in a collection of this test's own."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    monkeypatch.setenv("PAPERTALK_CHROMA__HOST", server.host)
    monkeypatch.setenv("PAPERTALK_CHROMA__PORT", str(server.port))
    monkeypatch.setenv("PAPERTALK_CHROMA__COLLECTION", name)
    return name


@pytest.mark.slow
def test_cli_ingest_lands_in_the_server_and_rerun_changes_nothing(
    server: ChromaServer, collection: str, metadata_file: Path, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    first = run_cli("ingest-arxiv", metadata_file, "--limit", "12")
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("12 added, 0 updated, 0 unchanged")
    remote = server.client().get_collection(collection)
    got = remote.get(include=["metadatas"])
    catalog_ids = {str(r[0]) for r in catalog_rows(data_dir, "SELECT chunk_id FROM chunks")}
    assert len(catalog_ids) >= 12 and set(got["ids"]) == catalog_ids
    assert {m["paper_id"] for m in got["metadatas"] or []} == {r["id"] for r in demo_records(12)}
    assert (remote.metadata or {}).get("embed_model") == MODEL_NAME
    assert not (data_dir / "chroma").exists(), "http mode must not create a local Chroma store"

    again = run_cli("ingest-arxiv", metadata_file, "--limit", "12")
    assert again.returncode == 0 and again.stdout.startswith("0 added, 0 updated, 12 unchanged, 0 chunks embedded")
    assert remote.count() == len(catalog_ids)
    stats = run_cli("stats", "--json")
    assert json.loads(stats.stdout) | {"data_dir": None} == {
        "data_dir": None,
        "papers": 12,
        "papers_indexed": 12,
        "papers_pending": 0,
        "chunks": len(catalog_ids),
        "vectors": len(catalog_ids),
        "embedding_model": MODEL_NAME,
        "chroma": "http",
    }


@pytest.mark.slow
def test_search_through_the_server_finds_each_paper_by_its_title(collection: str, metadata_file: Path) -> None:
    store = Store(Settings())
    try:
        report = Ingestor(store).run(arxiv_papers(metadata_file, RecordFilter(limit=10)))
        assert report.added == 10 and store.settings.chroma.effective_mode == "http"
        records = demo_records(10)
        for record in records:
            query = store.embedder.get_query_embedding(" ".join(record["title"].split()))
            hits = store.vectors.search(query, k=5)
            assert hits[0].paper_id == record["id"], (record["title"], hits)
            assert hits[0].score > 0.5
        only = records[3]["id"]
        filtered = store.vectors.search(store.embedder.get_query_embedding(records[0]["title"]), k=5, paper_ids=[only])
        assert filtered and {h.paper_id for h in filtered} == {only}
    finally:
        store.close()


def _http_store(server: ChromaServer, monkeypatch: pytest.MonkeyPatch) -> Store:
    monkeypatch.setenv("PAPERTALK_CHROMA__HOST", server.host)
    monkeypatch.setenv("PAPERTALK_CHROMA__PORT", str(server.port))
    return Store(Settings())


@pytest.mark.slow
def test_server_lost_mid_run_then_restarted_on_its_path_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path, records = tmp_path / "server-db", _records(tmp_path, 6)
    with chroma_server(path) as first:
        store = _http_store(first, monkeypatch)
        before = Ingestor(store).run(arxiv_papers(records, RecordFilter(limit=3)))
        ids = set(store.vectors.collection.get(include=[])["ids"])
    assert before.added == 3 and len(ids) == before.chunks
    with pytest.raises(StoreUnavailable, match=rf"^lost the Chroma server at 127\.0\.0\.1:{first.port} \(ConnectError"):
        Ingestor(store).run(arxiv_papers(records))
    assert store.catalog.count_papers("pending") == 3 and store.catalog.count_papers("indexed") == 3
    store.close()

    with chroma_server(path) as second:  # a new port, the same storage
        remote = second.client().get_collection("papertalk_chunks")
        assert set(remote.get(include=[])["ids"]) == ids
        store = _http_store(second, monkeypatch)
        after = Ingestor(store).run(arxiv_papers(records))
        assert after.unchanged == 3 and after.added + after.updated == 3
        catalog_ids = {str(r["chunk_id"]) for r in store.catalog.query("SELECT chunk_id FROM chunks")}
        assert set(remote.get(include=[])["ids"]) == catalog_ids and ids < catalog_ids
        assert store.catalog.count_papers("indexed") == 6 and store.catalog.count_papers("pending") == 0
        store.close()


def _records(tmp_path: Path, n: int) -> Path:
    path = tmp_path / f"records-{n}.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in demo_records(n)))
    return path


def test_unreachable_server_is_a_clear_store_unavailable(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    port = free_port()  # nothing listens there
    monkeypatch.setenv("PAPERTALK_CHROMA__HOST", "127.0.0.1")
    monkeypatch.setenv("PAPERTALK_CHROMA__PORT", str(port))
    store = Store(Settings())
    try:
        with pytest.raises(StoreUnavailable) as caught:
            Ingestor(store).run(arxiv_papers(_records(tmp_path, 2)))
        message = str(caught.value)
        assert message.startswith(f"cannot reach the Chroma server at 127.0.0.1:{port}")
        assert f"chroma run --path DIR --port {port}" in message and "PAPERTALK_CHROMA__HOST" in message
        assert store.catalog.count_papers() == 0, "nothing may be recorded when the vector store is down"
    finally:
        store.close()


def test_cli_unreachable_server_is_one_line_and_exit_code_2(tmp_path: Path) -> None:
    port = str(free_port())
    result = run_cli(
        "ingest-arxiv", _records(tmp_path, 2), PAPERTALK_CHROMA__HOST="127.0.0.1", PAPERTALK_CHROMA__PORT=port
    )
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: cannot reach the Chroma server at 127.0.0.1:{port}")
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert catalog_rows(tmp_path / "data", "SELECT COUNT(*) FROM papers") in ([], [(0,)])
