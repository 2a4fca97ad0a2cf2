"""Read-only catalog queries the CLI and the HTTP API share: paper search and the store's counts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from papertalk.demo import DEMO_PDFS
from papertalk.errors import NotFound
from storage.catalog import PaperRow
from storage.topics import MEMBERS

if TYPE_CHECKING:
    from storage.store import Store


@dataclass(frozen=True)
class PaperQuery:
    """Which papers: words in the title or abstract, a topic slug, a first-listed date range; one page of them."""

    text: str = ""
    topic: str | None = None
    since: date | None = None
    until: date | None = None
    limit: int = 20
    offset: int = 0


def _where(query: PaperQuery) -> tuple[str, list[Any]]:
    clauses, params = ["1 = 1"], list[Any]()
    for word in query.text.split():
        pattern = "%" + word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        clauses.append("(title LIKE ? ESCAPE '\\' OR abstract LIKE ? ESCAPE '\\')")
        params += [pattern, pattern]
    if query.topic:
        # tagged or assigned
        clauses.append(f"paper_id IN (SELECT paper_id FROM ({MEMBERS}) AS members WHERE slug = ?)")
        params.append(query.topic)
    if query.since:
        clauses.append("published >= ?")
        params.append(query.since.isoformat())
    if query.until:
        clauses.append("published <= ?")
        params.append(query.until.isoformat())
    return " AND ".join(clauses), params


def search_papers(store: Store, query: PaperQuery) -> tuple[list[PaperRow], int]:
    """One page of the matching papers, newest first, and how many match in all."""
    where, params = _where(query)
    total = int(store.catalog.query(f"SELECT COUNT(*) FROM papers WHERE {where}", params)[0][0])
    sql = f"SELECT paper_id FROM papers WHERE {where} ORDER BY published DESC, paper_id LIMIT ? OFFSET ?"
    ids = [r[0] for r in store.catalog.query(sql, [*params, query.limit, query.offset])]
    rows = store.catalog.get_many(ids)
    return [rows[i] for i in ids if i in rows], total


def store_stats(store: Store, vectors: bool = True) -> dict[str, Any]:
    """Counts of papers, chunks (and vectors, which opens the vector store) and where they are kept."""
    data: dict[str, Any] = {
        "data_dir": str(store.settings.data_dir),
        "papers": store.catalog.count_papers(),
        "papers_indexed": store.catalog.count_papers("indexed"),
        "papers_pending": store.catalog.count_papers("pending"),
        "chunks": store.catalog.count_chunks(),
    }
    if vectors:
        data |= {
            "vectors": store.vectors.count(),
            "embedding_model": store.vectors.model_name,
            "chroma": store.settings.chroma.effective_mode,
        }
    return data


def get_paper(store: Store, paper_id: str) -> PaperRow:
    """One paper by id (`arxiv:` prefix allowed); `NotFound` saying where to look otherwise."""
    row = store.catalog.get(paper_id.removeprefix("arxiv:"))
    if row is None:
        raise NotFound(f"no paper {paper_id!r} in the catalog: see `papertalk papers list`")
    return row


def stored_pdf(store: Store, row: PaperRow) -> Path | None:
    """The paper's PDF file when papertalk keeps it (under the data directory, or bundled); None otherwise.

    Only paths the catalog recorded are considered, and only inside those two folders.
    """
    if not row.path:
        return None
    path = Path(row.path).resolve()
    roots = (store.settings.data_dir.resolve(), DEMO_PDFS.resolve())
    if path.suffix.lower() != ".pdf" or not any(path.is_relative_to(root) for root in roots):
        return None
    return path if path.is_file() else None
