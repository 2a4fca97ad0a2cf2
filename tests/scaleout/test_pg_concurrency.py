"""Writers in several processes on one PostgreSQL catalog: each chunk change gets its own version, and a
keyword index kept up by deltas ranks as one built afresh."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from ingest.chunking import Chunker
from papertalk.settings import Settings
from storage.keyword import KeywordIndex
from storage.pg_catalog import PgCatalog
from storage.pg_migrations import PG_MIGRATIONS
from storage.records import Paper
from tests.helpers.stack import PgServer, migrate_database, run_in_processes

pytestmark = pytest.mark.scaleout
WRITES = 20
PREFIXES = ("a", "bb", "ccc")
TOPICS = ["agents that plan with tools", "retrieval of passages for questions", "reward models for dialogue"]


def _writer(url: str, prefix: str) -> None:
    """One process marking papers indexed one at a time, as concurrent ingests do (some papers twice)."""
    catalog = PgCatalog(url)
    chunker = Chunker(Settings().chunking)
    for i in range(WRITES):
        topic = TOPICS[(i + len(prefix)) % len(TOPICS)]
        paper = Paper(paper_id=f"{prefix}{i % 15}", title=f"Paper {prefix} {i}", abstract=f"We study {topic}.")
        catalog.mark_pending([paper], {paper.paper_id: paper.content_hash()})
        catalog.mark_indexed([paper.paper_id], chunker.chunk(paper, paper.content_hash()))
    catalog.close()


def test_concurrent_writers_never_share_a_version_and_keyword_deltas_equal_a_rebuild(
    pg: PgServer, tmp_path: Path
) -> None:
    url = pg.create_database("concurrent")
    catalog = PgCatalog(url)
    follower = KeywordIndex(tmp_path / "follower", catalog)
    follower.search("agents", k=5)  # holds version 0 before the writers start
    exits: list[int | None] = []
    writers = threading.Thread(target=lambda: exits.extend(run_in_processes(_writer, [(url, p) for p in PREFIXES])))
    writers.start()
    for _ in range(5):  # catching up while the writers commit (a torn read would raise or rank differently)
        follower.search("retrieval passages", k=10)
    writers.join()
    assert exits == [0, 0, 0]
    assert catalog.chunks_version == 3 * WRITES
    versions = catalog.query("SELECT version, COUNT(*) FROM chunk_changes GROUP BY version ORDER BY version")
    assert [v for v, _ in versions] == list(range(1, 3 * WRITES + 1)) and {n for _, n in versions} == {1}
    assert catalog.count_papers("indexed") == 45 and catalog.count_papers("pending") == 0
    fresh = KeywordIndex(tmp_path / "fresh", PgCatalog(url))
    for query in ["agents tools", "retrieval passages questions", "reward dialogue", "paper bb 19"]:
        assert follower.search(query, k=20) == fresh.search(query, k=20), query
    catalog.close()


def test_workers_opening_a_new_database_at_once_migrate_it_once(pg: PgServer) -> None:
    url = pg.create_database("fresh")
    assert run_in_processes(migrate_database, [(url,)] * 4) == [0, 0, 0, 0]  # light children: stack.py
    catalog = PgCatalog(url)
    assert catalog.schema_version == len(PG_MIGRATIONS)
    assert catalog.query("SELECT COUNT(*) FROM papertalk_schema")[0][0] == 1
    catalog.close()
