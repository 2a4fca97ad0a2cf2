"""The catalog's schema, as an ordered list of migrations applied when a catalog is opened.

The schema version is SQLite's `PRAGMA user_version`: the number of migrations applied. Opening a catalog
applies the missing ones in order, in one write transaction, so a store is either at its old version or
at the new one, never in between; two processes opening an old store at once migrate it once. A store
written by a newer papertalk (a higher version than this code knows) is refused rather than guessed at.

To change the schema, append a function decorated with `@migration`; never edit one that has shipped.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable

from papertalk.errors import PapertalkError

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = []
# A chunk whose text holds a list bullet (• ● ▪: ingest/sentences.py BULLETS), in SQL both catalogs run.
BULLET_TEST = "text LIKE '%\u2022%' OR text LIKE '%\u25cf%' OR text LIKE '%\u25aa%'"


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
def m002_chunking(db: sqlite3.Connection) -> None:
    """Per paper, the chunking settings and embedding model its chunks were made with (NULL: not recorded)."""
    db.execute("ALTER TABLE papers ADD COLUMN chunking TEXT")


@migration
def m003_paper_files(db: sqlite3.Connection) -> None:
    """The files (by SHA-256 of their bytes) known to hold a paper, so a known file is not parsed again."""
    _run(
        db,
        """
CREATE TABLE paper_files (sha256 TEXT PRIMARY KEY, paper_id TEXT NOT NULL, added_at TEXT NOT NULL);
CREATE INDEX paper_files_paper ON paper_files(paper_id)
""",
    )


@migration
def m004_identity(db: sqlite3.Connection) -> None:
    """What tells that a new file is a stored paper: DOI, a hash of the full text, normalised title + first
    author; each indexed, as is the arXiv id. Title keys of stored papers are filled in here."""
    from storage.records import title_key

    _run(
        db,
        """
ALTER TABLE papers ADD COLUMN doi TEXT;
ALTER TABLE papers ADD COLUMN text_hash TEXT;
ALTER TABLE papers ADD COLUMN title_key TEXT
""",
    )
    db.create_function("title_key", 2, lambda title, authors: title_key(title, json.loads(authors)), deterministic=True)
    db.execute("UPDATE papers SET title_key = title_key(title, authors)")
    _run(  # the indexes after the update, which then does not maintain them
        db,
        """
CREATE INDEX papers_arxiv_id ON papers(arxiv_id) WHERE arxiv_id IS NOT NULL;
CREATE INDEX papers_doi ON papers(doi) WHERE doi IS NOT NULL;
CREATE INDEX papers_text_hash ON papers(text_hash) WHERE text_hash IS NOT NULL;
CREATE INDEX papers_title_key ON papers(title_key) WHERE title_key IS NOT NULL
""",
    )


@migration
def m005_text_size(db: sqlite3.Connection) -> None:
    """How much text a paper's stored version has (pages with text, characters), so a file with less is
    not taken in its place unasked. Stored full-text papers get a lower bound of their pages: those where
    a chunk starts or ends (their characters are not known: chunks overlap)."""
    _run(
        db,
        """
ALTER TABLE papers ADD COLUMN text_pages INTEGER;
ALTER TABLE papers ADD COLUMN text_chars INTEGER;
UPDATE papers SET text_pages = (
    SELECT COUNT(*) FROM (
        SELECT page_start FROM chunks WHERE chunks.paper_id = papers.paper_id AND page_start IS NOT NULL
        UNION SELECT page_end FROM chunks WHERE chunks.paper_id = papers.paper_id AND page_end IS NOT NULL
    )
) WHERE n_pages > 0
""",
    )


@migration
def m006_chunk_changes(db: sqlite3.Connection) -> None:
    """Which papers' chunks changed at each `chunks_version`, so the keyword index catches up by delta."""
    _run(
        db,
        """
CREATE TABLE IF NOT EXISTS chunk_changes (version INTEGER NOT NULL, paper_id TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunk_changes_version ON chunk_changes(version)
""",
    )


@migration
def m007_overviews(db: sqlite3.Connection) -> None:
    """Stored topic overviews, and the vectors of the sentences they quote (storage/overviews.py)."""
    _run(
        db,
        """
CREATE TABLE IF NOT EXISTS overviews (
    slug TEXT PRIMARY KEY,
    topic TEXT NOT NULL,
    backend TEXT NOT NULL,
    built_at TEXT NOT NULL,
    paper_ids TEXT NOT NULL,
    themes TEXT NOT NULL,
    content TEXT NOT NULL,
    state TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS sentence_vectors (
    chunk_id TEXT NOT NULL,
    span_start INTEGER NOT NULL,
    model TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (chunk_id, span_start, model)
)
""",
    )


@migration
def m008_topic_pages(db: sqlite3.Connection) -> None:
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


@migration
def m009_chunk_sections(db: sqlite3.Connection) -> None:
    """Per chunk, the section it is from ('' when unknown) and whether it is a figure or table caption."""
    db.execute("ALTER TABLE chunks ADD COLUMN section TEXT NOT NULL DEFAULT ''")
    db.execute("ALTER TABLE chunks ADD COLUMN caption INTEGER NOT NULL DEFAULT 0")


@migration
def m010_rate_limits(db: sqlite3.Connection) -> None:
    """Per route and client, when its allowance is next whole (storage/rate_limits.py): shared by workers."""
    db.execute(
        "CREATE TABLE rate_limits (route TEXT NOT NULL, client TEXT NOT NULL, tat REAL NOT NULL, "
        "PRIMARY KEY (route, client))"
    )


@migration
def m011_bullet_sentences(db: sqlite3.Connection) -> None:
    """Sentences now end where a list item's bullet (• ● ▪) starts the next one (ingest/sentences.py): the
    sentence vectors stored for chunks that hold a bullet were keyed by the old starts, so they are dropped
    (`papertalk embed-sentences` embeds those chunks again; until then an answer embeds what it needs)."""
    db.execute(f"DELETE FROM sentence_vectors WHERE chunk_id IN (SELECT chunk_id FROM chunks WHERE {BULLET_TEST})")


@migration
def m012_chunk_page_marks(db: sqlite3.Connection) -> None:
    """Per chunk, where each page's text starts in it ("0:4;812:5"), so that a quote cites its own page rather
    than its chunk's page range ('' for chunks made before: they cite the range until their paper is re-chunked)."""
    db.execute("ALTER TABLE chunks ADD COLUMN page_marks TEXT NOT NULL DEFAULT ''")
