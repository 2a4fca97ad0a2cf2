"""Concurrent writers: every chunk change gets its own version, and the keyword index sees every paper."""

from __future__ import annotations

import json
import multiprocessing
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.chunking import Chunker
from papertalk.settings import Settings
from storage.catalog import Catalog
from storage.records import Paper
from storage.store import Store
from tests.conftest import demo_records
from tests.helpers.chroma_server import ChromaServer, chroma_server
from tests.helpers.cli import PAPERTALK, cli_env
from tests.storage.test_keyword import QUERIES, assert_ranks_as_rebuild

WRITES = 25


def _writer(path: str, prefix: str) -> None:
    """One process marking papers indexed one at a time, as concurrent ingests do."""
    catalog = Catalog(Path(path))
    chunker = Chunker(Settings().chunking)
    for i in range(WRITES):
        paper = Paper(paper_id=f"{prefix}{i}", title=f"Paper {prefix} {i}", abstract="Agents that plan with tools.")
        catalog.mark_pending([paper], {paper.paper_id: paper.content_hash()})
        catalog.mark_indexed([paper.paper_id], chunker.chunk(paper, paper.content_hash()))
    catalog.close()


def test_concurrent_writers_never_share_a_chunks_version(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    Catalog(path).close()
    spawn = multiprocessing.get_context("spawn")
    writers = [spawn.Process(target=_writer, args=(str(path), prefix)) for prefix in ("a", "b")]
    for w in writers:
        w.start()
    for w in writers:
        w.join(120)
        assert w.exitcode == 0
    catalog = Catalog(path)
    assert catalog.chunks_version == 2 * WRITES
    versions = catalog.query("SELECT version, COUNT(*) FROM chunk_changes GROUP BY version")
    assert sorted(v for v, n in versions) == list(range(1, 2 * WRITES + 1))
    assert all(n == 1 for _, n in versions)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    with chroma_server(tmp_path_factory.mktemp("chroma") / "db") as running:
        yield running


@pytest.mark.slow
def test_two_concurrent_ingests_then_search_sees_every_papers_chunks(
    server: ChromaServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Chroma server: papertalk's embedded Chroma is not for several writing processes at once.
    env = {
        "PAPERTALK_CHROMA__HOST": server.host,
        "PAPERTALK_CHROMA__PORT": str(server.port),
        "PAPERTALK_CHROMA__COLLECTION": f"t_{uuid.uuid4().hex[:12]}",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    records = demo_records(40)
    files = []
    for half in (0, 1):
        files.append(tmp_path / f"half{half}.jsonl")
        files[-1].write_text("".join(json.dumps(r) + "\n" for r in records[half::2]))
    reader = Store(Settings())  # open and searching before the ingests start, like an API worker
    assert reader.keywords.search(QUERIES[0], 5) == []
    procs = [
        subprocess.Popen([str(PAPERTALK), "ingest-arxiv", str(f)], env=cli_env(), text=True, stderr=subprocess.PIPE)
        for f in files
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-2000:]
    fresh = Store(Settings())
    papers = fresh.catalog.list_papers(limit=100)
    assert len(papers) == 40
    for store in (reader, fresh):
        for paper in papers:
            chunks = [c.chunk_id for c in store.catalog.chunks_of(paper.paper_id)]
            found = sorted(c for c, _ in store.keywords.search(paper.title, 100, [paper.paper_id]))
            assert chunks and found == sorted(chunks), paper.paper_id
    assert_ranks_as_rebuild(reader.keywords, reader.catalog, tmp_path, "after")
    assert fresh.vectors.count() == fresh.catalog.count_chunks()
