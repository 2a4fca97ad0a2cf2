"""The reader's own state: followed topics (with when they were last looked at) and saved papers.

"New since the last look" is counted in catalog rows, not clock time: a paper row's rowid only grows as
papers are added (an updated paper keeps its row), so a paper added in the same second as the look is
still told apart. The tables are created by `storage.migrations` (2).
"""

from __future__ import annotations

from dataclasses import dataclass

from storage.catalog import Catalog, _now
from storage.topics import MEMBERS


@dataclass(frozen=True)
class Follow:
    slug: str
    followed_at: str
    seen_at: str
    seen_row: int


@dataclass(frozen=True)
class Saved:
    paper_id: str
    saved_at: str


class Library:
    """Follow topics, see what is new in them, and keep a reading list."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def _last_row(self) -> int:
        return int(self.catalog.query("SELECT COALESCE(MAX(rowid), 0) FROM papers")[0][0])

    # --- follows ----------------------------------------------------------------------------------
    def follow(self, slug: str) -> bool:
        """Follow a topic from now on; False if it was already followed (its last look stays)."""
        if any(f.slug == slug for f in self.follows()):
            return False
        now = _now()
        self.catalog.transaction(
            [
                (
                    "INSERT INTO topic_follows(slug, followed_at, seen_at, seen_row) VALUES(?, ?, ?, ?)",
                    (slug, now, now, self._last_row()),
                )
            ]
        )
        return True

    def unfollow(self, slug: str) -> bool:
        followed = any(f.slug == slug for f in self.follows())
        self.catalog.transaction([("DELETE FROM topic_follows WHERE slug = ?", (slug,))])
        return followed

    def follows(self) -> list[Follow]:
        rows = self.catalog.query("SELECT * FROM topic_follows ORDER BY followed_at, slug")
        return [Follow(r["slug"], r["followed_at"], r["seen_at"], r["seen_row"]) for r in rows]

    def new_since_seen(self, follow: Follow) -> list[str]:
        """Ids of the topic's papers added after its last look, newest first."""
        rows = self.catalog.query(
            f"SELECT p.paper_id FROM ({MEMBERS}) m JOIN papers p ON p.paper_id = m.paper_id "
            "WHERE m.slug = ? AND p.rowid > ? AND p.status = 'indexed' ORDER BY p.published DESC, p.paper_id",
            (follow.slug, follow.seen_row),
        )
        return [r[0] for r in rows]

    def mark_seen(self, slugs: list[str]) -> None:
        """The followed topics' last look moves to now (and to every paper added so far)."""
        row, now = self._last_row(), _now()
        self.catalog.transaction(
            [("UPDATE topic_follows SET seen_at = ?, seen_row = ? WHERE slug = ?", [(now, row, s) for s in slugs])]
        )

    # --- reading list -----------------------------------------------------------------------------
    def save(self, paper_id: str) -> bool:
        """Add a paper to the reading list; False if it was already there."""
        before = self.is_saved(paper_id)
        self.catalog.transaction(
            [("INSERT OR IGNORE INTO saved_papers(paper_id, saved_at) VALUES(?, ?)", (paper_id, _now()))]
        )
        return not before

    def unsave(self, paper_id: str) -> bool:
        before = self.is_saved(paper_id)
        self.catalog.transaction([("DELETE FROM saved_papers WHERE paper_id = ?", (paper_id,))])
        return before

    def is_saved(self, paper_id: str) -> bool:
        return bool(self.catalog.query("SELECT 1 FROM saved_papers WHERE paper_id = ?", (paper_id,)))

    def saved(self) -> list[Saved]:
        """The reading list, most recently saved first."""
        rows = self.catalog.query("SELECT * FROM saved_papers ORDER BY saved_at DESC, rowid DESC")
        return [Saved(r["paper_id"], r["saved_at"]) for r in rows]
