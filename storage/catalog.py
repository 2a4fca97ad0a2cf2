"""The SQLite catalog: papers, their chunks' text, and bookkeeping that keeps it in step with Chroma.

A paper is `pending` while its chunks are being replaced in the vector store and `indexed` once they
are all there; a rerun redoes every pending paper, so a killed ingest never leaves duplicates or gaps.
The schema (this module's tables, and the topics' and chats') is created and upgraded by
`storage.migrations` when a catalog is opened.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

from storage.migrations import migrate, schema_version
from storage.records import Chunk, PageMarks, Paper, decode_page_marks, encode_page_marks, title_key


def _bibliographic(p: Paper) -> tuple[Any, ...]:
    """title, authors, abstract, categories, published: as the catalog's columns hold them."""
    published = p.published.isoformat() if p.published else None
    return (p.title, json.dumps(p.authors), p.abstract, json.dumps(p.categories), published)


def _paper_values(p: Paper) -> tuple[Any, ...]:
    """paper_id, the bibliographic fields, source, arxiv_id, path, doi, title_key, text_hash."""
    identity = (p.doi, title_key(p.title, p.authors), p.text_hash())
    return (p.paper_id, *_bibliographic(p), p.source, p.arxiv_id, p.path, *identity)


_ADD_SENTENCES = "INSERT INTO sentence_vectors(chunk_id, span_start, model, vector) VALUES(?, ?, ?, ?)"
_RECORD_FILE = (
    "INSERT INTO paper_files(sha256, paper_id, added_at) VALUES(?, ?, ?) "
    "ON CONFLICT(sha256) DO UPDATE SET paper_id = excluded.paper_id"
)


CHANGES_META = "changes_version"
# Appended to every write transaction (SQLite and PostgreSQL alike): caches of what the catalog holds key on it.
BUMP_CHANGES = (
    f"INSERT INTO meta(key, value) VALUES('{CHANGES_META}', '1') "
    "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
    (),
)
SCOPES_META = "scopes_version"
# Appended too when a write touches what a question's scope is resolved from (papers: status, dates; topic
# memberships): resolved scopes are kept under it (assistant/retrieval.py), so that chat turns and other
# writes, which move `changes_version`, do not throw them away. Any statement naming one of these tables
# counts, so a new write path cannot forget it.
BUMP_SCOPES = (
    f"INSERT INTO meta(key, value) VALUES('{SCOPES_META}', '1') "
    "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
    (),
)
SCOPE_TABLES = re.compile(r"\b(papers|paper_topics|topic_scores|topics)\b", re.IGNORECASE)


def with_bumps(statements: Iterable[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """A write transaction's statements followed by the version bumps it needs."""
    work = list(statements)
    scoped = any(SCOPE_TABLES.search(sql) for sql, _ in work)
    return [*work, BUMP_CHANGES, *([BUMP_SCOPES] if scoped else [])]


# The papers whose chunks changed at each `chunks_version` (written in the same transaction as the change):
# the keyword index catches up by re-reading just these papers (storage/keyword.py). Rows at or below the
# meta key `chunk_changes_floor` are pruned once a keyword index folder holding that version is saved.
def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class PaperRow:
    """A paper as the catalog holds it."""

    paper_id: str
    title: str
    authors: list[str]
    abstract: str
    categories: list[str]
    published: date | None
    source: str
    arxiv_id: str | None
    path: str | None
    content_hash: str
    n_pages: int
    n_chunks: int
    status: str
    chunking: str | None = None  # chunking settings + embedding model of its chunks (None: before recorded)
    doi: str | None = None
    text_pages: int | None = None  # pages with text (None: not known)
    text_chars: int | None = None  # characters of text (None: not known)

    @property
    def year(self) -> int | None:
        return self.published.year if self.published else None

    @property
    def link(self) -> str | None:
        return f"https://arxiv.org/abs/{self.arxiv_id}" if self.arxiv_id else None

    @property
    def has_full_text(self) -> bool:
        return self.n_pages > 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "paper_id": self.paper_id,
            "title": self.title,
            "authors": self.authors,
            "abstract": self.abstract,
            "categories": self.categories,
            "published": self.published.isoformat() if self.published else None,
            "source": self.source,
            "arxiv_id": self.arxiv_id,
            "link": self.link,
            "pages": self.n_pages,
            "chunks": self.n_chunks,
            "status": self.status,
        }


@dataclass(frozen=True)
class ChunkRow:
    rowid: int
    chunk_id: str
    paper_id: str
    ordinal: int
    text: str
    page_start: int | None
    page_end: int | None
    section: str = ""  # the section the chunk is from ("" when unknown)
    caption: bool = False  # a figure or table caption
    page_marks: PageMarks = ()  # where each page's text starts in `text` (`storage.records.pages_of_span`)


def _chunk_from_row(row: sqlite3.Row) -> ChunkRow:
    values = dict(row)
    values["caption"] = bool(values.get("caption"))
    values["page_marks"] = decode_page_marks(values.get("page_marks"))
    return ChunkRow(**values)


def _paper_from_row(row: sqlite3.Row) -> PaperRow:
    return PaperRow(
        paper_id=row["paper_id"],
        title=row["title"],
        authors=json.loads(row["authors"]),
        abstract=row["abstract"],
        categories=json.loads(row["categories"]),
        published=date.fromisoformat(row["published"]) if row["published"] else None,
        source=row["source"],
        arxiv_id=row["arxiv_id"],
        path=row["path"],
        content_hash=row["content_hash"],
        n_pages=row["n_pages"],
        n_chunks=row["n_chunks"],
        status=row["status"],
        chunking=row["chunking"],
        doi=row["doi"],
        text_pages=row["text_pages"],
        text_chars=row["text_chars"],
    )


class Catalog:
    """Thread-safe access to the catalog database (WAL mode, so readers never wait for a writer)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        migrate(self._db, path)

    @property
    def schema_version(self) -> int:
        with self._lock:
            return schema_version(self._db)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def transaction(self, statements: Iterable[tuple[str, Any]]) -> None:
        """Run (sql, params) pairs in one write transaction; a list of params means executemany. Every write
        transaction also moves the catalog's `changes_version` on (and `scopes_version`, see BUMP_SCOPES)."""
        work = with_bumps(statements)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in work:
                    if params and isinstance(params, list):
                        self._db.executemany(sql, params)
                    else:
                        self._db.execute(sql, params or ())
                self._db.execute("COMMIT")
            except BaseException:
                if self._db.in_transaction:  # SQLite has rolled back already after some errors (disk full)
                    self._db.execute("ROLLBACK")
                raise

    def executescript(self, script: str) -> None:
        with self._lock:
            self._db.executescript(script)

    def query(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    # --- meta -------------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        rows = self.query("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0]["value"] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        self.transaction(
            [
                (
                    "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                    (key, value),
                )
            ]
        )

    @property
    def chunks_version(self) -> int:
        return int(self.get_meta("chunks_version") or 0)

    @property
    def changes_version(self) -> int:
        """A number every write transaction moves on (in whichever process writes): what was read at one
        version is still true while the version is the same."""
        return int(self.get_meta(CHANGES_META) or 0)

    @property
    def scopes_version(self) -> int:
        """A number every write to papers or topic memberships moves on: a scope resolved at one version
        (its papers, their dates and status) is still true while the version is the same."""
        return int(self.get_meta(SCOPES_META) or 0)

    # --- papers -----------------------------------------------------------------------------------
    def get(self, paper_id: str) -> PaperRow | None:
        rows = self.query("SELECT * FROM papers WHERE paper_id = ?", (paper_id,))
        return _paper_from_row(rows[0]) if rows else None

    def get_many(self, paper_ids: Iterable[str]) -> dict[str, PaperRow]:
        ids = list(dict.fromkeys(paper_ids))
        out: dict[str, PaperRow] = {}
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            for row in self.query(f"SELECT * FROM papers WHERE paper_id IN ({marks})", part):
                out[row["paper_id"]] = _paper_from_row(row)
        return out

    def indexed_of(self, paper_ids: Iterable[str]) -> set[str]:
        """Those of `paper_ids` that are indexed (ids only: reading whole rows cost ~30 ms for 1,000 papers)."""
        ids = list(dict.fromkeys(paper_ids))
        out: set[str] = set()
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            sql = f"SELECT paper_id FROM papers WHERE paper_id IN ({','.join('?' * len(part))}) AND +status = 'indexed'"
            out.update(r[0] for r in self.query(sql, part))
        return out

    def list_papers(self, limit: int = 50, offset: int = 0, status: str | None = None) -> list[PaperRow]:
        where, params = ("WHERE status = ?", [status]) if status else ("", [])
        sql = f"SELECT * FROM papers {where} ORDER BY published DESC, paper_id LIMIT ? OFFSET ?"
        return [_paper_from_row(r) for r in self.query(sql, [*params, limit, offset])]

    def count_papers(self, status: str | None = None) -> int:
        if status:
            return int(self.query("SELECT COUNT(*) FROM papers WHERE status = ?", (status,))[0][0])
        return int(self.query("SELECT COUNT(*) FROM papers")[0][0])

    def count_chunks(self) -> int:
        return int(self.query("SELECT COUNT(*) FROM chunks")[0][0])

    def paper_ids_between(self, since: date | None, until: date | None) -> list[str]:
        # `+status` keeps SQLite off the status index: the covering (published, status, paper_id) index
        # answers a date range without touching paper rows (16 ms instead of ~200 ms at 112k papers), and
        # one concatenated string is 4x cheaper to hand over than a row per paper.
        sql, params = "SELECT group_concat(paper_id, char(31)) FROM papers WHERE +status = 'indexed'", list[str]()
        if since:
            sql, params = sql + " AND published >= ?", [*params, since.isoformat()]
        if until:
            sql, params = sql + " AND published <= ?", [*params, until.isoformat()]
        joined = self.query(sql, params)[0][0]
        return joined.split("\x1f") if joined else []

    def mark_pending(self, papers: list[Paper], hashes: dict[str, str], chunking: str | None = None) -> None:
        """Record (or update) papers as pending before their chunks are touched in the vector store.

        `chunking` names the chunking settings and embedding model the new chunks are made with.
        """
        now = _now()
        rows = [
            (*_paper_values(p), hashes[p.paper_id], len(p.pages), p.text_pages, p.text_chars, chunking, now, now)
            for p in papers
        ]
        sql = """INSERT INTO papers(paper_id, title, authors, abstract, categories, published, source, arxiv_id,
                     path, doi, title_key, text_hash, content_hash, n_pages, text_pages, text_chars, chunking,
                     status, added_at, updated_at)
                 VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)
                 ON CONFLICT(paper_id) DO UPDATE SET title = excluded.title, authors = excluded.authors,
                     abstract = excluded.abstract, categories = excluded.categories,
                     published = excluded.published, source = excluded.source, arxiv_id = excluded.arxiv_id,
                     path = excluded.path, doi = COALESCE(excluded.doi, doi), title_key = excluded.title_key,
                     text_hash = excluded.text_hash, content_hash = excluded.content_hash,
                     n_pages = excluded.n_pages, text_pages = excluded.text_pages,
                     text_chars = excluded.text_chars, chunking = excluded.chunking, status = 'pending',
                     updated_at = excluded.updated_at"""
        files = [(p.file_hash, p.paper_id, now) for p in papers if p.file_hash]
        self.transaction([(sql, rows), (_RECORD_FILE, files)] if files else [(sql, rows)])

    def record_files(self, files: list[tuple[str, str]]) -> None:
        """Remember that the files (SHA-256, paper id) hold these papers."""
        if files:
            now = _now()
            self.transaction([(_RECORD_FILE, [(sha, pid, now) for sha, pid in files])])

    def paper_of_file(self, sha256: str) -> str | None:
        """The id of the indexed paper that a file with these bytes was ingested as, if any."""
        rows = self.query(
            "SELECT f.paper_id FROM paper_files f JOIN papers p ON p.paper_id = f.paper_id "
            "WHERE f.sha256 = ? AND p.status = 'indexed'",
            (sha256,),
        )
        return rows[0][0] if rows else None

    def mark_indexed(
        self, paper_ids: list[str], chunks: list[Chunk], sentences: Sequence[tuple[str, int, str, bytes]] = ()
    ) -> None:
        """Replace the papers' chunk rows (and their sentence vectors: (chunk id, start, model, vector) rows,
        storage/sentence_vectors.py) and mark them indexed, atomically, with the version bump and the papers'
        `chunk_changes` rows (inside the transaction: concurrent ingests never share a version)."""
        marks = ",".join("?" * len(paper_ids))
        counts: dict[str, int] = {pid: 0 for pid in paper_ids}
        for c in chunks:
            counts[c.paper_id] += 1
        old_sentences = (
            f"DELETE FROM sentence_vectors WHERE chunk_id IN (SELECT chunk_id FROM chunks WHERE paper_id IN ({marks}))"
        )
        self.transaction(
            [
                (old_sentences, tuple(paper_ids)),
                (f"DELETE FROM chunks WHERE paper_id IN ({marks})", tuple(paper_ids)),
                (
                    "INSERT INTO chunks(chunk_id, paper_id, ordinal, text, page_start, page_end, section, caption, "
                    "page_marks) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        (
                            c.chunk_id,
                            c.paper_id,
                            c.ordinal,
                            c.text,
                            c.page_start,
                            c.page_end,
                            c.section,
                            int(c.caption),
                            encode_page_marks(c.page_marks),
                        )
                        for c in chunks
                    ],
                ),
                (
                    "UPDATE papers SET status = 'indexed', n_chunks = ? WHERE paper_id = ?",
                    [(n, pid) for pid, n in counts.items()],
                ),
                (
                    "INSERT INTO meta(key, value) VALUES('chunks_version', '1') "
                    "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
                    (),
                ),
                (
                    "INSERT INTO chunk_changes(version, paper_id) SELECT CAST(m.value AS INTEGER), p.paper_id "
                    f"FROM meta m, papers p WHERE m.key = 'chunks_version' AND p.paper_id IN ({marks})",
                    tuple(paper_ids),
                ),
                *([(_ADD_SENTENCES, list(sentences))] if sentences else []),
            ]
        )

    def fill_missing(self, rows: list[tuple[str, str, str | None]]) -> None:
        """(paper id, chunking, DOI): record them where the paper's record has none (its chunks stay)."""
        if rows:
            sql = "UPDATE papers SET chunking = COALESCE(chunking, ?), doi = COALESCE(doi, ?) WHERE paper_id = ?"
            self.transaction([(sql, [(chunking, doi, pid) for pid, chunking, doi in rows])])

    def update_metadata(self, paper: Paper) -> None:
        """Refresh bibliographic fields only (the chunks stay): metadata arriving for a full-text paper."""
        key = title_key(paper.title, paper.authors)
        sql = """UPDATE papers SET title = ?, authors = ?, abstract = ?, categories = ?, published = ?,
                 arxiv_id = ?, doi = COALESCE(?, doi), title_key = ?, updated_at = ? WHERE paper_id = ?"""
        params = (*_bibliographic(paper), paper.arxiv_id, paper.doi, key, _now(), paper.paper_id)
        self.transaction([(sql, params)])

    def find_paper(self, paper: Paper) -> PaperRow | None:
        """The stored paper that `paper` (read from a file) is a copy of: the same file bytes, arXiv id, DOI,
        full text, or normalised title and first author, tried in that order."""
        lookups = [
            ("paper_id = (SELECT paper_id FROM paper_files WHERE sha256 = ?)", paper.file_hash),
            ("arxiv_id = ?", paper.arxiv_id),
            ("doi = ?", paper.doi),
            ("text_hash = ?", paper.text_hash()),
            ("title_key = ?", title_key(paper.title, paper.authors)),
        ]
        for where, value in lookups:
            rows = (
                self.query(f"SELECT * FROM papers WHERE {where} ORDER BY paper_id LIMIT 1", (value,)) if value else []
            )
            if rows:
                return _paper_from_row(rows[0])
        return None

    # --- chunks -----------------------------------------------------------------------------------
    def chunks_of(self, paper_id: str) -> list[ChunkRow]:
        rows = self.query("SELECT * FROM chunks WHERE paper_id = ? ORDER BY ordinal", (paper_id,))
        return [_chunk_from_row(r) for r in rows]

    def chunks_by_id(self, chunk_ids: Iterable[str]) -> dict[str, ChunkRow]:
        return {r["chunk_id"]: _chunk_from_row(r) for r in self._chunk_rows("*", list(chunk_ids))}

    def chunk_texts(self, chunk_ids: Iterable[str]) -> dict[str, str]:
        """Chunk id -> text, for those of `chunk_ids` stored: `chunks_by_id` without the rest of each row (about
        half the time for the 3,000 chunks a count reads, docs/benchmarks.md)."""
        return {r[0]: r[1] for r in self._chunk_rows("chunk_id, text", list(chunk_ids))}

    def _chunk_rows(self, columns: str, ids: list[str]) -> Iterator[sqlite3.Row]:
        """`columns` of the chunks `ids`, 500 ids a query."""
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            yield from self.query(f"SELECT {columns} FROM chunks WHERE chunk_id IN ({','.join('?' * len(part))})", part)

    def iter_chunk_texts(self, batch: int = 5000) -> Iterator[tuple[str, str]]:
        """(chunk_id, paper title + text) of every chunk in rowid order, read in batches (constant memory).

        The title is part of what keyword search matches, as it is part of what is embedded.
        """
        last = 0
        while True:
            rows = self.query(
                "SELECT c.rowid, c.chunk_id, p.title, c.text FROM chunks c JOIN papers p ON p.paper_id = c.paper_id "
                "WHERE c.rowid > ? ORDER BY c.rowid LIMIT ?",
                (last, batch),
            )
            if not rows:
                return
            for r in rows:
                yield r["chunk_id"], f"{r['title']}\n{r['text']}"
            last = rows[-1]["rowid"]

    # --- consistent reads -------------------------------------------------------------------------
    @contextmanager
    def snapshot(self) -> Iterator[None]:
        """Queries inside the block see one state of the database, whatever other processes commit meanwhile."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                yield
            finally:
                self._db.execute("COMMIT")
