"""The catalog's schema, as an ordered list of migrations applied when a catalog is opened.

The schema version is SQLite's `PRAGMA user_version`: the number of migrations applied. Opening a catalog
applies the missing ones in order, in one write transaction, so a store is either at its old version or
at the new one, never in between; two processes opening an old store at once migrate it once. A store
written by a newer papertalk (a higher version than this code knows) is refused rather than guessed at.

To change the schema, append a function decorated with `@migration`; never edit one that has shipped.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from papertalk.errors import PapertalkError

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = []


class SchemaTooNew(PapertalkError):
    """The catalog was written by a newer papertalk than the one running."""


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append(fn)
    return fn


def current_version() -> int:
    return len(MIGRATIONS)


def schema_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def migrate(db: sqlite3.Connection, path: object = "the catalog") -> int:
    """Bring `db` (in autocommit mode) to the current schema; returns the number of migrations applied."""
    if schema_version(db) == current_version():
        return 0
    db.execute("BEGIN IMMEDIATE")
    try:
        version = schema_version(db)  # again, under the write lock: another process may have migrated
        _refuse_newer(version, path)
        for fn in MIGRATIONS[version:]:
            fn(db)
        db.execute(f"PRAGMA user_version = {current_version()}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return current_version() - version


def _refuse_newer(version: int, path: object) -> None:
    if version > current_version():
        raise SchemaTooNew(
            f"{path} has schema version {version}, newer than this papertalk knows ({current_version()}): "
            "upgrade papertalk (`pip install -U papertalk`) or use another data directory"
        )


def _run(db: sqlite3.Connection, script: str) -> None:
    """Statements one by one (`executescript` would commit the migration's transaction half-way)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement.strip())


@migration
def m001_initial(db: sqlite3.Connection) -> None:
    """The schema as it was before versioning; `IF NOT EXISTS` lets stores made then adopt it as version 1."""
    _run(
        db,
        """
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
CREATE INDEX IF NOT EXISTS chat_turns_chat ON chat_turns(chat_id)
""",
    )


@migration
def m002_topic_pages(db: sqlite3.Connection) -> None:
    """Topic definitions, assignment scores and topic centres; followed topics and saved papers."""
    _run(
        db,
        """
CREATE TABLE topic_defs (
    slug TEXT PRIMARY KEY REFERENCES topics(slug),
    abbreviations TEXT NOT NULL DEFAULT '{}',
    keywords TEXT NOT NULL DEFAULT '[]',
    categories TEXT NOT NULL DEFAULT '[]',
    examples TEXT NOT NULL DEFAULT '[]',
    origin TEXT NOT NULL CHECK (origin IN ('bundled', 'user')),
    threshold REAL
);
CREATE TABLE topic_scores (
    slug TEXT NOT NULL REFERENCES topics(slug),
    paper_id TEXT NOT NULL,
    score REAL NOT NULL,
    assigned INTEGER NOT NULL,
    PRIMARY KEY (slug, paper_id)
);
CREATE INDEX topic_scores_paper ON topic_scores(paper_id, score);
CREATE TABLE topic_scored (
    paper_id TEXT PRIMARY KEY,
    content_hash TEXT NOT NULL
);
CREATE TABLE topic_centroids (
    slug TEXT PRIMARY KEY REFERENCES topics(slug),
    total BLOB NOT NULL,
    n INTEGER NOT NULL
);
CREATE TABLE topic_follows (
    slug TEXT PRIMARY KEY REFERENCES topics(slug),
    followed_at TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    seen_row INTEGER NOT NULL
);
CREATE TABLE saved_papers (
    paper_id TEXT PRIMARY KEY,
    saved_at TEXT NOT NULL
)
""",
    )
