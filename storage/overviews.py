"""Stored overviews: one row per topic, with what it was built from, so a refresh can say what changed.

A row keeps the ids of the papers the overview was built from, its themes (members, centres, names),
its text with citations, the backend and the build time, and the state a refresh reuses (the topic's
centre and its most central papers). The catalog holds JSON; the assistant gives it meaning.

A refresh embeds only the sentences of papers it has not read before: their vectors are kept by
storage/sentence_vectors.py (and written at ingest). The tables are created by `storage.migrations`
(m007_overviews).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from storage.catalog import Catalog


@dataclass(frozen=True)
class StoredOverview:
    """An overview as the catalog holds it: ids, themes, content and state as plain JSON values."""

    slug: str
    topic: str
    backend: str
    built_at: datetime
    paper_ids: list[str]
    themes: list[dict[str, Any]]
    content: dict[str, Any]
    state: dict[str, Any]


class Overviews:
    """Save and read back the latest overview of each topic."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def save(self, overview: StoredOverview) -> None:
        row = (
            overview.slug,
            overview.topic,
            overview.backend,
            overview.built_at.isoformat(timespec="seconds"),
            json.dumps(overview.paper_ids),
            json.dumps(overview.themes),
            json.dumps(overview.content),
            json.dumps(overview.state),
        )
        sql = """INSERT INTO overviews(slug, topic, backend, built_at, paper_ids, themes, content, state)
                 VALUES(?, ?, ?, ?, ?, ?, ?, ?)
                 ON CONFLICT(slug) DO UPDATE SET topic = excluded.topic, backend = excluded.backend,
                     built_at = excluded.built_at, paper_ids = excluded.paper_ids, themes = excluded.themes,
                     content = excluded.content, state = excluded.state"""
        prune = "DELETE FROM sentence_vectors WHERE chunk_id NOT IN (SELECT chunk_id FROM chunks)"
        self.catalog.transaction([(sql, row), (prune, ())])

    def get(self, slug: str) -> StoredOverview | None:
        rows = self.catalog.query("SELECT * FROM overviews WHERE slug = ?", (slug,))
        if not rows:
            return None
        r = rows[0]
        return StoredOverview(
            slug=r["slug"],
            topic=r["topic"],
            backend=r["backend"],
            built_at=datetime.fromisoformat(r["built_at"]),
            paper_ids=json.loads(r["paper_ids"]),
            themes=json.loads(r["themes"]),
            content=json.loads(r["content"]),
            state=json.loads(r["state"]),
        )

    def delete(self, slug: str) -> None:
        self.catalog.transaction([("DELETE FROM overviews WHERE slug = ?", (slug,))])
