"""Topics in the catalog: a named set of papers (e.g. "RL for LLM Agents") that questions can be scoped to."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from papertalk.errors import NotFound
from storage.catalog import Catalog


def slugify(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "topic"


@dataclass(frozen=True)
class Topic:
    slug: str
    name: str
    description: str
    papers: int


class Topics:
    """Create topics and tag papers with them."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def ensure(self, name: str, description: str = "") -> str:
        slug = slugify(name)
        self.catalog.transaction(
            [
                (
                    "INSERT INTO topics(slug, name, description) VALUES(?, ?, ?) ON CONFLICT(slug) DO NOTHING",
                    (slug, name.strip(), description),
                ),
            ]
        )
        return slug

    def assign(self, slug: str, paper_ids: Iterable[str]) -> None:
        rows = [(slug, pid) for pid in dict.fromkeys(paper_ids)]
        if rows:
            self.catalog.transaction([("INSERT OR IGNORE INTO paper_topics(slug, paper_id) VALUES(?, ?)", rows)])

    def get(self, name_or_slug: str) -> Topic:
        slug = slugify(name_or_slug)
        rows = self.catalog.query(
            "SELECT t.slug, t.name, t.description, COUNT(pt.paper_id) AS n FROM topics t "
            "LEFT JOIN paper_topics pt ON pt.slug = t.slug WHERE t.slug = ? GROUP BY t.slug",
            (slug,),
        )
        if not rows:
            known = ", ".join(t.name for t in self.all()) or "none yet"
            raise NotFound(
                f"no topic {name_or_slug!r} (known: {known}); create one with "
                f"`papertalk ingest-arxiv FILE --topic {name_or_slug!r}`"
            )
        r = rows[0]
        return Topic(r["slug"], r["name"], r["description"], r["n"])

    def all(self) -> list[Topic]:
        rows = self.catalog.query(
            "SELECT t.slug, t.name, t.description, COUNT(pt.paper_id) AS n FROM topics t "
            "LEFT JOIN paper_topics pt ON pt.slug = t.slug GROUP BY t.slug ORDER BY t.name"
        )
        return [Topic(r["slug"], r["name"], r["description"], r["n"]) for r in rows]

    def paper_ids(self, slug: str) -> list[str]:
        rows = self.catalog.query(
            "SELECT pt.paper_id FROM paper_topics pt JOIN papers p ON p.paper_id = pt.paper_id "
            "WHERE pt.slug = ? AND p.status = 'indexed'",
            (slug,),
        )
        return [r[0] for r in rows]

    def topics_of(self, paper_id: str) -> list[str]:
        rows = self.catalog.query(
            "SELECT t.name FROM paper_topics pt JOIN topics t ON t.slug = pt.slug WHERE pt.paper_id = ?", (paper_id,)
        )
        return [r[0] for r in rows]
