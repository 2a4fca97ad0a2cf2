"""The catalog schema is versioned: migrations run on open, from an empty store and from older ones."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from papertalk.errors import PapertalkError
from storage import migrations
from storage.catalog import Catalog
from storage.chats import Chats
from storage.migrations import current_version, migrate
from storage.records import Paper
from storage.topics import Topics
from tests.helpers.cli import run_cli

# The catalog as the release before schema versioning wrote it, verbatim: storage/catalog.py's SCHEMA,
# then the tables storage/topics.py and storage/chats.py created when first used.
RELEASED_SCHEMA = """
CREATE TABLE IF NOT EXISTS papers (
    paper_id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    authors TEXT NOT NULL DEFAULT '[]',
    abstract TEXT NOT NULL DEFAULT '',
    categories TEXT NOT NULL DEFAULT '[]',
    published TEXT,
    source TEXT NOT NULL,
    arxiv_id TEXT,
    path TEXT,
    content_hash TEXT NOT NULL,
    n_pages INTEGER NOT NULL DEFAULT 0,
    n_chunks INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('pending', 'indexed')),
    added_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS papers_published ON papers(published);
CREATE INDEX IF NOT EXISTS papers_published_cover ON papers(published, status, paper_id);
CREATE INDEX IF NOT EXISTS papers_status ON papers(status);
CREATE TABLE IF NOT EXISTS chunks (
    rowid INTEGER PRIMARY KEY,
    chunk_id TEXT NOT NULL UNIQUE,
    paper_id TEXT NOT NULL REFERENCES papers(paper_id),
    ordinal INTEGER NOT NULL,
    text TEXT NOT NULL,
    page_start INTEGER,
    page_end INTEGER
);
CREATE INDEX IF NOT EXISTS chunks_paper ON chunks(paper_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
RELEASED_TOPICS_AND_CHATS = """
CREATE TABLE IF NOT EXISTS topics (
    slug TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS paper_topics (
    slug TEXT NOT NULL REFERENCES topics(slug),
    paper_id TEXT NOT NULL,
    PRIMARY KEY (slug, paper_id)
);
CREATE INDEX IF NOT EXISTS paper_topics_paper ON paper_topics(paper_id);
CREATE TABLE IF NOT EXISTS chats (
    chat_id TEXT PRIMARY KEY,
    scope TEXT NOT NULL DEFAULT '{}',
    title TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS chat_turns (
    turn_id INTEGER PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(chat_id),
    question TEXT NOT NULL,
    standalone TEXT NOT NULL,
    answer_text TEXT NOT NULL,
    answer_json TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_turns_chat ON chat_turns(chat_id);
"""
TABLES = {"papers", "chunks", "meta", "topics", "paper_topics", "chats", "chat_turns"}


def _schema(path: Path) -> list[tuple[str, str, str]]:
    con = sqlite3.connect(path)
    try:
        return sorted(con.execute("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'"))
    finally:
        con.close()


def _released_store(path: Path, with_topics: bool) -> None:
    con = sqlite3.connect(path)
    con.executescript(RELEASED_SCHEMA + (RELEASED_TOPICS_AND_CHATS if with_topics else ""))
    con.execute(
        "INSERT INTO papers(paper_id, title, authors, categories, published, source, arxiv_id, content_hash, "
        "n_pages, n_chunks, status, added_at, updated_at) VALUES('2501.00001', 'An old paper on agents', "
        "'[\"Ada Lovelace\"]', '[\"cs.CL\"]', '2025-01-02', 'arxiv-metadata', '2501.00001', 'abc', 0, 1, "
        "'indexed', 't0', 't0')"
    )
    con.execute(
        "INSERT INTO chunks(chunk_id, paper_id, ordinal, text) VALUES('2501.00001#abc#0000', '2501.00001', 0, 'x')"
    )
    con.execute("INSERT INTO meta(key, value) VALUES('chunks_version', '7')")
    if with_topics:
        con.execute("INSERT INTO topics(slug, name) VALUES('agents', 'Agents')")
        con.execute("INSERT INTO paper_topics(slug, paper_id) VALUES('agents', '2501.00001')")
    con.commit()
    con.close()


def test_an_empty_store_gets_every_table_at_the_current_version(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    assert catalog.schema_version == current_version() >= 1
    names = {r[0] for r in catalog.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert names >= TABLES
    Topics(catalog).assign(Topics(catalog).ensure("Agents"), ["2501.00001"])
    chat = Chats(catalog).create({"topic": "agents"})
    assert Chats(catalog).get(chat.chat_id).scope == {"topic": "agents"}
    catalog.close()


def test_migration_1_is_exactly_the_released_schema(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    released = tmp_path / "released.sqlite3"
    con = sqlite3.connect(released)
    con.executescript(RELEASED_SCHEMA + RELEASED_TOPICS_AND_CHATS)
    con.close()
    monkeypatch.setattr(migrations, "MIGRATIONS", migrations.MIGRATIONS[:1])
    Catalog(tmp_path / "new.sqlite3").close()
    assert _schema(tmp_path / "new.sqlite3") == _schema(released)


@pytest.mark.parametrize("with_topics", [False, True], ids=["catalog-only", "with-topics-and-chats"])
def test_a_store_of_the_released_schema_is_migrated_and_keeps_its_rows(tmp_path: Path, with_topics: bool) -> None:
    path = tmp_path / "catalog.sqlite3"
    _released_store(path, with_topics)
    catalog = Catalog(path)
    assert catalog.schema_version == current_version()
    row = catalog.get("2501.00001")
    assert row is not None and (row.title, row.authors) == ("An old paper on agents", ["Ada Lovelace"])
    assert row.categories == ["cs.CL"]
    assert row.published is not None and row.published.isoformat() == "2025-01-02" and row.status == "indexed"
    assert [c.chunk_id for c in catalog.chunks_of("2501.00001")] == ["2501.00001#abc#0000"]
    assert catalog.chunks_version == 7
    copy = Paper(paper_id="pdf-0123", title="An Old Paper on Agents.", authors=["A. Lovelace"], pages=["Text."])
    found = catalog.find_paper(copy)  # by the title key that migration 4 computed for the stored row
    assert found is not None and found.paper_id == "2501.00001"
    topics = Topics(catalog)
    if not with_topics:
        topics.assign(topics.ensure("Agents"), ["2501.00001"])
    assert topics.paper_ids("agents") == ["2501.00001"]
    catalog.close()


def test_reopening_a_current_store_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    _released_store(path, with_topics=True)
    Catalog(path).close()
    before = _schema(path)
    con = sqlite3.connect(path, isolation_level=None)
    assert migrate(con) == 0
    con.close()
    Catalog(path).close()
    assert _schema(path) == before


def test_a_failed_migration_leaves_the_store_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "catalog.sqlite3"
    _released_store(path, with_topics=False)
    before = _schema(path)

    def broken(db: sqlite3.Connection) -> None:
        db.execute("CREATE TABLE half_done (x INTEGER)")
        raise sqlite3.OperationalError("disk on fire")

    monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS, broken])
    with pytest.raises(sqlite3.OperationalError, match="disk on fire"):
        Catalog(path)
    assert _schema(path) == before
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == 0
    con.close()


def _newer_store(path: Path) -> None:
    Catalog(path).close()
    con = sqlite3.connect(path)
    con.execute(f"PRAGMA user_version = {current_version() + 1}")
    con.close()


def test_a_store_from_a_newer_papertalk_is_refused_with_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "catalog.sqlite3"
    _newer_store(path)
    with pytest.raises(PapertalkError, match=r"newer than this papertalk knows .*upgrade papertalk"):
        Catalog(path)


def test_cli_on_a_newer_store_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    _newer_store(tmp_path / "data" / "catalog.sqlite3")
    result = run_cli("papers", "list")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "upgrade papertalk" in lines[0], result.stderr


def test_sentence_vectors_of_chunks_with_a_bullet_are_dropped_once(tmp_path: Path) -> None:
    """Migration 11: sentences now end at list bullets, so the vectors stored by the old starts go (and only
    those: a chunk without a bullet keeps its own); the bullets are those the sentence splitter reads."""
    from ingest.sentences import BULLETS

    assert {c for c in migrations.BULLET_TEST if ord(c) > 127} == set(BULLETS)
    path = tmp_path / "catalog.sqlite3"
    Catalog(path).close()
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("INSERT INTO papers(paper_id, title, source, content_hash, status, added_at, updated_at) "
                "VALUES ('p', 'P', 'pdf', 'h', 'indexed', 'now', 'now')")  # fmt: skip
    for cid, text in (("p#0", "Contributions: \u2022 We introduce X. \u2022 We build Y."), ("p#1", "Plain prose.")):
        con.execute("INSERT INTO chunks(chunk_id, paper_id, ordinal, text) VALUES (?, 'p', 0, ?)", (cid, text))
        con.execute("INSERT INTO sentence_vectors(chunk_id, span_start, model, vector) VALUES (?, 0, 'm', x'00')",
                    (cid,))  # fmt: skip
    con.execute("ALTER TABLE chunks DROP COLUMN page_marks")  # the store as migration 11 found it
    con.execute(f"PRAGMA user_version = {migrations.MIGRATIONS.index(migrations.m011_bullet_sentences)}")
    con.close()
    Catalog(path).close()  # opening migrates
    con = sqlite3.connect(path)
    assert [r[0] for r in con.execute("SELECT chunk_id FROM sentence_vectors")] == ["p#1"]
    assert con.execute("PRAGMA user_version").fetchone()[0] == current_version()
    con.close()


def test_chunks_stored_before_page_marks_read_back_without_them(tmp_path: Path) -> None:
    """Migration 12: chunks made before have no page marks ('' read as none), so their quotes cite the chunk's
    page range until their paper is re-chunked; chunks written after keep theirs."""
    path = tmp_path / "catalog.sqlite3"
    Catalog(path).close()
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("ALTER TABLE chunks DROP COLUMN page_marks")  # the store as version 11 left it
    con.execute("INSERT INTO chunks(chunk_id, paper_id, ordinal, text, page_start, page_end) "
                "VALUES ('p#0', 'p', 0, 'old text', 2, 3)")  # fmt: skip
    con.execute(f"PRAGMA user_version = {migrations.MIGRATIONS.index(migrations.m012_chunk_page_marks)}")
    con.close()
    catalog = Catalog(path)
    try:
        (row,) = catalog.chunks_of("p")
        assert (row.page_start, row.page_end, row.page_marks) == (2, 3, ())
        assert catalog.schema_version == current_version()
    finally:
        catalog.close()
