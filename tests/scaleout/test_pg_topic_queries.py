"""The topic queries that nest the members subquery, run on PostgreSQL: PostgreSQL before 16 refuses a
subquery in FROM without an alias, which made every topic page and topic-scoped paper listing a 500."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace
from typing import Any

import pytest

from storage.pg_catalog import PgCatalog
from storage.queries import PaperQuery, search_papers
from storage.records import Paper
from storage.topics import Topics
from tests.helpers.stack import PgServer

pytestmark = pytest.mark.scaleout


def test_tags_and_topic_listings_run_on_postgresql(pg: PgServer) -> None:
    catalog = PgCatalog(pg.create_database("topic_queries"))
    try:
        papers = [Paper(f"2501.0000{i}", f"Paper {i}", published=date(2025, 1, i)) for i in (1, 2)]
        catalog.mark_pending(papers, {p.paper_id: "h" for p in papers})
        topics = Topics(catalog)
        slug = topics.ensure("Agents")
        topics.assign(slug, ["2501.00001"])
        tags = topics.tags_of(["2501.00001", "2501.00002"])
        assert [t.slug for t in tags["2501.00001"]] == [slug] and "2501.00002" not in tags
        store: Any = SimpleNamespace(catalog=catalog)
        rows, total = search_papers(store, PaperQuery(topic=slug))
        assert total == 1 and [r.paper_id for r in rows] == ["2501.00001"]
    finally:
        catalog.close()
