"""The catalog's schema on PostgreSQL: the same migrations, numbered as SQLite's (storage/migrations.py).

Migration N here leaves the same tables and columns as SQLite's migration N, written in PostgreSQL's
types: `BIGSERIAL` for SQLite's row ids (papers and saved papers get an explicit `rowid` column, which
SQLite gives every table), `BYTEA` for blobs, `DOUBLE PRECISION` for `REAL`. The version lives in the
one-row table `papertalk_schema`. Opening a catalog applies the missing migrations in one transaction
under an advisory lock, so workers starting together migrate once; a newer schema is refused.

To change the schema, append a migration to both modules with the same number.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from storage.migrations import BULLET_TEST, SchemaTooNew, current_version

PgMigration = Callable[[Any], None]  # takes a psycopg connection inside a transaction
PG_MIGRATIONS: list[PgMigration] = []
MIGRATE_LOCK = 0x70617065  # advisory lock key held while migrating


def pg_migration(fn: PgMigration) -> PgMigration:
    PG_MIGRATIONS.append(fn)
    return fn


def pg_schema_version(conn: Any) -> int:
    conn.execute("CREATE TABLE IF NOT EXISTS papertalk_schema (version INTEGER NOT NULL)")
    row = conn.execute("SELECT version FROM papertalk_schema").fetchone()
    return int(row[0]) if row else 0


def pg_migrate(conn: Any, where: str) -> int:
    """Bring the database (a psycopg connection in autocommit mode) to the current schema."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATE_LOCK,))
        version = pg_schema_version(conn)
        if version > current_version():
            raise SchemaTooNew(
                f"the catalog at {where} has schema version {version}, newer than this papertalk knows "
                f"({current_version()}): upgrade papertalk (`pip install -U papertalk`) or use another database"
            )
        for fn in PG_MIGRATIONS[version:]:
            fn(conn)
        if version < current_version():
            conn.execute("DELETE FROM papertalk_schema")
            conn.execute("INSERT INTO papertalk_schema(version) VALUES(%s)", (current_version(),))
    return current_version() - version


def _run(conn: Any, script: str) -> None:
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement.strip())


@pg_migration
def m001_initial(conn: Any) -> None:
    _run(
        conn,
        """
CREATE TABLE papers (
    rowid BIGSERIAL UNIQUE,
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
CREATE INDEX papers_published ON papers(published);
CREATE INDEX papers_published_cover ON papers(published, status, paper_id);
CREATE INDEX papers_status ON papers(status);
CREATE TABLE chunks (
    rowid BIGSERIAL PRIMARY KEY,
    chunk_id TEXT NOT NULL UNIQUE,
    paper_id TEXT NOT NULL REFERENCES papers(paper_id),
    ordinal INTEGER NOT NULL,
    text TEXT NOT NULL,
    page_start INTEGER,
    page_end INTEGER
);
CREATE INDEX chunks_paper ON chunks(paper_id);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE topics (slug TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL DEFAULT '');
CREATE TABLE paper_topics (
    slug TEXT NOT NULL REFERENCES topics(slug),
    paper_id TEXT NOT NULL,
    PRIMARY KEY (slug, paper_id)
);
CREATE INDEX paper_topics_paper ON paper_topics(paper_id);
CREATE TABLE chats (
    chat_id TEXT PRIMARY KEY,
    scope TEXT NOT NULL DEFAULT '{}',
    title TEXT NOT NULL DEFAULT '',
    created_at TEXT NOT NULL
);
CREATE TABLE chat_turns (
    turn_id BIGSERIAL PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats(chat_id),
    question TEXT NOT NULL,
    standalone TEXT NOT NULL,
    answer_text TEXT NOT NULL,
    answer_json TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX chat_turns_chat ON chat_turns(chat_id)
""",
    )


@pg_migration
def m002_chunking(conn: Any) -> None:
    conn.execute("ALTER TABLE papers ADD COLUMN chunking TEXT")


@pg_migration
def m003_paper_files(conn: Any) -> None:
    _run(
        conn,
        """
CREATE TABLE paper_files (sha256 TEXT PRIMARY KEY, paper_id TEXT NOT NULL, added_at TEXT NOT NULL);
CREATE INDEX paper_files_paper ON paper_files(paper_id)
""",
    )


@pg_migration
def m004_identity(conn: Any) -> None:
    from storage.records import title_key

    _run(
        conn,
        """
ALTER TABLE papers ADD COLUMN doi TEXT;
ALTER TABLE papers ADD COLUMN text_hash TEXT;
ALTER TABLE papers ADD COLUMN title_key TEXT
""",
    )
    rows = conn.execute("SELECT paper_id, title, authors FROM papers").fetchall()
    keys = [(title_key(title, json.loads(authors)), pid) for pid, title, authors in rows]
    if keys:
        with conn.cursor() as cur:
            cur.executemany("UPDATE papers SET title_key = %s WHERE paper_id = %s", keys)
    _run(
        conn,
        """
CREATE INDEX papers_arxiv_id ON papers(arxiv_id) WHERE arxiv_id IS NOT NULL;
CREATE INDEX papers_doi ON papers(doi) WHERE doi IS NOT NULL;
CREATE INDEX papers_text_hash ON papers(text_hash) WHERE text_hash IS NOT NULL;
CREATE INDEX papers_title_key ON papers(title_key) WHERE title_key IS NOT NULL
""",
    )


@pg_migration
def m005_text_size(conn: Any) -> None:
    _run(
        conn,
        """
ALTER TABLE papers ADD COLUMN text_pages INTEGER;
ALTER TABLE papers ADD COLUMN text_chars INTEGER;
UPDATE papers SET text_pages = (
    SELECT COUNT(*) FROM (
        SELECT page_start FROM chunks WHERE chunks.paper_id = papers.paper_id AND page_start IS NOT NULL
        UNION SELECT page_end FROM chunks WHERE chunks.paper_id = papers.paper_id AND page_end IS NOT NULL
    ) AS pages
) WHERE n_pages > 0
""",
    )


@pg_migration
def m006_chunk_changes(conn: Any) -> None:
    _run(
        conn,
        """
CREATE TABLE chunk_changes (version BIGINT NOT NULL, paper_id TEXT NOT NULL);
CREATE INDEX chunk_changes_version ON chunk_changes(version)
""",
    )


@pg_migration
def m007_overviews(conn: Any) -> None:
    _run(
        conn,
        """
CREATE TABLE overviews (
    slug TEXT PRIMARY KEY,
    topic TEXT NOT NULL,
    backend TEXT NOT NULL,
    built_at TEXT NOT NULL,
    paper_ids TEXT NOT NULL,
    themes TEXT NOT NULL,
    content TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE sentence_vectors (
    chunk_id TEXT NOT NULL,
    span_start INTEGER NOT NULL,
    model TEXT NOT NULL,
    vector BYTEA NOT NULL,
    PRIMARY KEY (chunk_id, span_start, model)
)
""",
    )


@pg_migration
def m008_topic_pages(conn: Any) -> None:
    _run(
        conn,
        """
CREATE TABLE topic_defs (
    slug TEXT PRIMARY KEY REFERENCES topics(slug),
    abbreviations TEXT NOT NULL DEFAULT '{}',
    keywords TEXT NOT NULL DEFAULT '[]',
    categories TEXT NOT NULL DEFAULT '[]',
    examples TEXT NOT NULL DEFAULT '[]',
    origin TEXT NOT NULL CHECK (origin IN ('bundled', 'user')),
    threshold DOUBLE PRECISION
);
CREATE TABLE topic_scores (
    slug TEXT NOT NULL REFERENCES topics(slug),
    paper_id TEXT NOT NULL,
    score DOUBLE PRECISION NOT NULL,
    assigned INTEGER NOT NULL,
    PRIMARY KEY (slug, paper_id)
);
CREATE INDEX topic_scores_paper ON topic_scores(paper_id, score);
CREATE TABLE topic_scored (paper_id TEXT PRIMARY KEY, content_hash TEXT NOT NULL);
CREATE TABLE topic_centroids (slug TEXT PRIMARY KEY REFERENCES topics(slug), total BYTEA NOT NULL, n INTEGER NOT NULL);
CREATE TABLE topic_follows (
    slug TEXT PRIMARY KEY REFERENCES topics(slug),
    followed_at TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    seen_row BIGINT NOT NULL
);
CREATE TABLE saved_papers (rowid BIGSERIAL UNIQUE, paper_id TEXT PRIMARY KEY, saved_at TEXT NOT NULL)
""",
    )


@pg_migration
def m009_chunk_sections(conn: Any) -> None:
    _run(
        conn,
        """
ALTER TABLE chunks ADD COLUMN section TEXT NOT NULL DEFAULT '';
ALTER TABLE chunks ADD COLUMN caption INTEGER NOT NULL DEFAULT 0
""",
    )


@pg_migration
def m010_rate_limits(conn: Any) -> None:
    conn.execute(
        "CREATE TABLE rate_limits (route TEXT NOT NULL, client TEXT NOT NULL, tat DOUBLE PRECISION NOT NULL, "
        "PRIMARY KEY (route, client))"
    )


@pg_migration
def m011_bullet_sentences(conn: Any) -> None:
    conn.execute(f"DELETE FROM sentence_vectors WHERE chunk_id IN (SELECT chunk_id FROM chunks WHERE {BULLET_TEST})")


@pg_migration
def m012_chunk_page_marks(conn: Any) -> None:
    conn.execute("ALTER TABLE chunks ADD COLUMN page_marks TEXT NOT NULL DEFAULT ''")
