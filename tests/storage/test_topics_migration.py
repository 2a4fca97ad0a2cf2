"""Migration 2 (topic pages) from a store at schema version 1: new tables, old tags kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage import migrations
from storage.catalog import Catalog
from storage.library import Library
from storage.topics import ScoreRow, Topics

NEW_TABLES = {"topic_defs", "topic_scores", "topic_scored", "topic_centroids", "topic_follows", "saved_papers"}


def _tables(catalog: Catalog) -> set[str]:
    return {r[0] for r in catalog.query("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_a_version_1_store_gets_the_topic_tables_and_keeps_its_tags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "catalog.sqlite3"
    with monkeypatch.context() as m:
        m.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:1])
        old = Catalog(path)
        assert old.schema_version == 1 and not _tables(old) & NEW_TABLES
        old.transaction(
            [
                (
                    "INSERT INTO papers(paper_id, title, content_hash, source, status, published, added_at, updated_at)"
                    " VALUES('2501.00001', 'Old', 'h1', 'arxiv-metadata', 'indexed', '2025-01-02', 't', 't')",
                    (),
                ),
                ("INSERT INTO topics(slug, name) VALUES('agents', 'Agents')", ()),
                ("INSERT INTO paper_topics(slug, paper_id) VALUES('agents', '2501.00001')", ()),
            ]
        )
        old.close()
    catalog = Catalog(path)
    assert catalog.schema_version == migrations.current_version() >= 2
    assert _tables(catalog) >= NEW_TABLES
    topics = Topics(catalog)
    assert topics.paper_ids("agents") == ["2501.00001"] and topics.get("Agents").papers == 1
    assert topics.unscored(["2501.00001"]) == ["2501.00001"]
    topics.save_scores(["2501.00001"], [ScoreRow("agents", "2501.00001", 0.7, True)])
    assert topics.unscored(["2501.00001"]) == [] and [
        t.score for t in topics.tags_of(["2501.00001"])["2501.00001"]
    ] == [0.7]
    library = Library(catalog)
    assert library.follow("agents") and library.save("2501.00001")
    catalog.close()
