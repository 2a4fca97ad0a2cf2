"""The catalog's `changes_version` on PostgreSQL: every write transaction moves it on by one, whichever
process writes, so caches keyed on it (the topic page) see writes from every server worker."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.sources import arxiv_papers
from storage.pg_catalog import PgCatalog
from storage.records import Chunk
from storage.topics import Topics
from tests.conftest import demo_records
from tests.helpers.stack import PgServer, run_in_processes

pytestmark = pytest.mark.scaleout
WRITES = 15


def _writer(url: str, prefix: str) -> None:
    catalog = PgCatalog(url)
    for i in range(WRITES):
        catalog.set_meta(f"{prefix}{i}", str(i))
    catalog.close()


def test_writes_from_several_processes_each_move_the_version_once(pg: PgServer) -> None:
    url = pg.create_database("changes")
    reader = PgCatalog(url)
    before = reader.changes_version
    assert run_in_processes(_writer, [(url, p) for p in ("a", "b", "c")]) == [0, 0, 0]
    assert reader.changes_version == before + 3 * WRITES  # no bump lost between concurrent writers
    reader.close()


def test_scopes_version_moves_on_paper_and_topic_writes_only(pg: PgServer, tmp_path: Path) -> None:
    """What a resolved scope is kept under (assistant/retrieval.py) on PostgreSQL too; and the id-only reads
    of a topic's and a hit list's indexed papers."""
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in demo_records(3)))
    papers = list(arxiv_papers(records))
    catalog = PgCatalog(pg.create_database("scopes"))
    topics = Topics(catalog)
    start = catalog.scopes_version
    catalog.set_meta("unrelated", "1")
    assert catalog.scopes_version == start
    catalog.mark_pending(papers, {p.paper_id: "h" for p in papers})
    chunks = [Chunk(f"{p.paper_id}#0", p.paper_id, 0, p.abstract, p.abstract, None, None) for p in papers[:2]]
    catalog.mark_indexed([p.paper_id for p in papers[:2]], chunks)
    slug = topics.ensure("A topic")
    topics.assign(slug, [p.paper_id for p in papers])
    assert catalog.scopes_version == start + 4
    assert topics.paper_ids(slug) == sorted(p.paper_id for p in papers[:2])  # the pending one left out
    assert catalog.indexed_of([p.paper_id for p in papers] + ["nope"]) == {p.paper_id for p in papers[:2]}
    catalog.close()
