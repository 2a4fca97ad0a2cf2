"""Topics in the catalog: a named set of papers (e.g. "RL for LLM Agents") that questions can be scoped to.

A paper belongs to a topic when it was tagged with it at ingest (`--topic`) or when topic assignment
scored it at or above the threshold. A topic's definition (description, keywords, categories, example
papers) comes from the bundled registry or from the user (`papertalk topics add`). The tables are created
by `storage.migrations` (1: topics and tags; 2: definitions, scores and centres).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from papertalk.errors import NotFound
from storage.catalog import Catalog, PaperRow

# Every (topic, paper) membership: tags given at ingest, and assignments at or above the threshold.
MEMBERS = "SELECT slug, paper_id FROM paper_topics UNION SELECT slug, paper_id FROM topic_scores WHERE assigned = 1"
SCORED_WITH_META = "topics_scored_with"  # fingerprint of the definitions the stored scores were made with
SQL_BATCH = 500  # ids per `IN (...)`, under SQLite's variable limit


def slugify(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "topic"


@dataclass(frozen=True)
class Topic:
    slug: str
    name: str
    description: str
    papers: int


@dataclass(frozen=True)
class TopicDef:
    """What a topic is about, as assignment reads it."""

    slug: str
    name: str
    description: str = ""
    abbreviations: dict[str, str] = field(default_factory=dict)
    keywords: tuple[str, ...] = ()
    categories: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    origin: str = "user"
    threshold: float | None = None  # None: assignment's default threshold

    def fingerprint(self) -> str:
        data = json.dumps(asdict(self), sort_keys=True, default=list)
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in data.items()}


@dataclass(frozen=True)
class ScoreRow:
    slug: str
    paper_id: str
    score: float
    assigned: bool


@dataclass(frozen=True)
class Tag:
    slug: str
    name: str
    score: float | None  # None: tagged at ingest, never scored


def _batches(ids: Sequence[str]) -> Iterable[tuple[list[str], str]]:
    for start in range(0, len(ids), SQL_BATCH):
        part = list(ids[start : start + SQL_BATCH])
        yield part, ",".join("?" * len(part))


class Topics:
    """Create topics, tag and score papers, and read memberships back."""

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
        """Tag papers with a topic by hand (kept whatever assignment scores them)."""
        rows = [(slug, pid) for pid in dict.fromkeys(paper_ids)]
        if rows:
            self.catalog.transaction([("INSERT OR IGNORE INTO paper_topics(slug, paper_id) VALUES(?, ?)", rows)])

    def untag(self, slug: str, paper_ids: Sequence[str]) -> None:
        """Remove hand tags of a topic from papers (their assignment scores still count)."""
        self.catalog.transaction(
            [
                (f"DELETE FROM paper_topics WHERE slug = ? AND paper_id IN ({marks})", (slug, *part))
                for part, marks in _batches(paper_ids)
            ]
        )

    def _rows(self, where: str = "", params: tuple[Any, ...] = ()) -> list[Topic]:
        rows = self.catalog.query(
            "SELECT t.slug, t.name, t.description, "
            f"(SELECT COUNT(*) FROM ({MEMBERS}) m JOIN papers p ON p.paper_id = m.paper_id "
            " WHERE m.slug = t.slug AND p.status = 'indexed') AS n "
            f"FROM topics t {where} ORDER BY t.name",
            params,
        )
        return [Topic(r["slug"], r["name"], r["description"], r["n"]) for r in rows]

    def get(self, name_or_slug: str) -> Topic:
        found = self._rows("WHERE t.slug = ?", (slugify(name_or_slug),))
        if not found:
            known = ", ".join(t.name for t in self.all()) or "none yet"
            raise NotFound(
                f"no topic {name_or_slug!r} (known: {known}); add one with `papertalk topics add "
                f"{name_or_slug!r} --description …`, or tag papers at ingest with "
                f"`papertalk ingest-arxiv FILE --topic {name_or_slug!r}`"
            )
        return found[0]

    def all(self) -> list[Topic]:
        return self._rows()

    def paper_ids(self, slug: str) -> list[str]:
        """The topic's indexed papers. The memberships are read by the topic's slug from each table's primary
        key (not the union of every topic's, materialised first), then each paper looked up by id: 2-3x faster
        at 112k papers (docs/benchmarks.md)."""
        rows = self.catalog.query(
            "SELECT paper_id FROM papers WHERE +status = 'indexed' AND paper_id IN (SELECT paper_id FROM "
            "paper_topics WHERE slug = ? UNION SELECT paper_id FROM topic_scores WHERE slug = ? AND assigned = 1) "
            "ORDER BY paper_id",
            (slug, slug),
        )
        return [r[0] for r in rows]

    def topics_of(self, paper_id: str) -> list[str]:
        return [t.name for t in self.tags_of([paper_id], limit=100).get(paper_id, [])]

    # --- definitions ------------------------------------------------------------------------------
    def define(self, defs: Sequence[TopicDef]) -> None:
        """Create or update topics with their definitions."""
        topic_sql = (
            "INSERT INTO topics(slug, name, description) VALUES(?, ?, ?) "
            "ON CONFLICT(slug) DO UPDATE SET name = excluded.name, description = excluded.description"
        )
        def_sql = (
            "INSERT OR REPLACE INTO topic_defs(slug, abbreviations, keywords, categories, examples, origin, threshold) "
            "VALUES(?, ?, ?, ?, ?, ?, ?)"
        )
        self.catalog.transaction(
            [
                (topic_sql, [(d.slug, d.name, d.description) for d in defs]),
                (
                    def_sql,
                    [
                        (
                            d.slug,
                            json.dumps(d.abbreviations),
                            json.dumps(list(d.keywords)),
                            json.dumps(list(d.categories)),
                            json.dumps(list(d.examples)),
                            d.origin,
                            d.threshold,
                        )
                        for d in defs
                    ],
                ),
            ]
        )

    def definitions(self) -> list[TopicDef]:
        """Topics that have a definition (topics made only by `--topic` tags have none), by name."""
        rows = self.catalog.query(
            "SELECT t.slug, t.name, t.description, d.* FROM topics t JOIN topic_defs d ON d.slug = t.slug "
            "ORDER BY t.name"
        )
        return [_def_from_row(r) for r in rows]

    def definition(self, slug: str) -> TopicDef | None:
        return next((d for d in self.definitions() if d.slug == slug), None)

    # --- scores -----------------------------------------------------------------------------------
    def unscored(self, paper_ids: Sequence[str]) -> list[str]:
        """Of `paper_ids`, the indexed papers whose current content has not been scored."""
        out: list[str] = []
        for part, marks in _batches(list(dict.fromkeys(paper_ids))):
            rows = self.catalog.query(
                f"SELECT p.paper_id FROM papers p LEFT JOIN topic_scored s ON s.paper_id = p.paper_id "
                f"WHERE p.paper_id IN ({marks}) AND p.status = 'indexed' "
                "AND (s.content_hash IS NULL OR s.content_hash != p.content_hash)",
                part,
            )
            out += [r[0] for r in rows]
        return out

    def fingerprint(self) -> str:
        """One hash of every definition: it changes whenever a topic is added or redefined."""
        parts = sorted(d.fingerprint() for d in self.definitions())
        return hashlib.sha256("".join(parts).encode()).hexdigest()[:16]

    def mark_scored_with_current(self) -> None:
        self.catalog.set_meta(SCORED_WITH_META, self.fingerprint())

    def stale(self) -> bool:
        """True when papers were scored with other topic definitions than the current ones."""
        scored = self.catalog.query("SELECT 1 FROM topic_scored LIMIT 1")
        return bool(scored) and self.catalog.get_meta(SCORED_WITH_META) != self.fingerprint()

    def count_unscored(self) -> int:
        """Indexed papers whose current content has not been scored against the topics."""
        rows = self.catalog.query(
            "SELECT COUNT(*) FROM papers p LEFT JOIN topic_scored s ON s.paper_id = p.paper_id "
            "WHERE p.status = 'indexed' AND (s.content_hash IS NULL OR s.content_hash != p.content_hash)"
        )
        return int(rows[0][0])

    def scored(self, paper_ids: Sequence[str]) -> set[str]:
        """Of `paper_ids`, those scored before (at any content)."""
        out: set[str] = set()
        for part, marks in _batches(list(paper_ids)):
            out |= {
                r[0] for r in self.catalog.query(f"SELECT paper_id FROM topic_scored WHERE paper_id IN ({marks})", part)
            }
        return out

    def save_scores(self, paper_ids: Sequence[str], rows: Sequence[ScoreRow]) -> None:
        """Replace the scores of `paper_ids` and record them as scored at their current content."""
        statements: list[tuple[str, Any]] = []
        for part, marks in _batches(paper_ids):
            statements += [
                (f"DELETE FROM topic_scores WHERE paper_id IN ({marks})", tuple(part)),
                (
                    "INSERT OR REPLACE INTO topic_scored(paper_id, content_hash) "
                    f"SELECT paper_id, content_hash FROM papers WHERE paper_id IN ({marks})",
                    tuple(part),
                ),
            ]
        insert = "INSERT INTO topic_scores(slug, paper_id, score, assigned) VALUES(?, ?, ?, ?)"
        statements.append((insert, [(r.slug, r.paper_id, r.score, int(r.assigned)) for r in rows]))
        self.catalog.transaction(statements)

    def clear_scores(self) -> None:
        """Forget every score (before assigning all papers again)."""
        self.catalog.transaction(
            [("DELETE FROM topic_scores", ()), ("DELETE FROM topic_scored", ()), ("DELETE FROM topic_centroids", ())]
        )

    def tags_of(self, paper_ids: Sequence[str], limit: int = 2) -> dict[str, list[Tag]]:
        """Each paper's topics, best score first (ingest tags without a score last), at most `limit`."""
        out: dict[str, list[Tag]] = {}
        for part, marks in _batches(list(dict.fromkeys(paper_ids))):
            rows = self.catalog.query(
                "SELECT m.paper_id, m.slug, t.name, s.score FROM "
                f"(SELECT slug, paper_id FROM ({MEMBERS}) AS members WHERE paper_id IN ({marks})) m "
                "JOIN topics t ON t.slug = m.slug "
                "LEFT JOIN topic_scores s ON s.slug = m.slug AND s.paper_id = m.paper_id "
                "ORDER BY m.paper_id, s.score IS NULL, s.score DESC, t.name",
                part,
            )
            for r in rows:
                tags = out.setdefault(r["paper_id"], [])
                if len(tags) < limit:
                    tags.append(Tag(r["slug"], r["name"], r["score"]))
        return out

    def scores_of(self, paper_id: str) -> list[ScoreRow]:
        rows = self.catalog.query(
            "SELECT slug, paper_id, score, assigned FROM topic_scores WHERE paper_id = ? ORDER BY score DESC",
            (paper_id,),
        )
        return [ScoreRow(r["slug"], r["paper_id"], r["score"], bool(r["assigned"])) for r in rows]

    # --- centres ----------------------------------------------------------------------------------
    def add_to_centroids(self, sums: dict[str, tuple[np.ndarray, int]]) -> None:
        """Add member vectors (sum, count per topic) to the running topic centres."""
        current = self.centroid_sums()
        rows = []
        for slug, (total, n) in sums.items():
            old_total, old_n = current.get(slug, (np.zeros_like(total), 0))
            rows.append((slug, (old_total + total).astype(np.float32).tobytes(), old_n + n))
        if rows:
            self.catalog.transaction([("INSERT OR REPLACE INTO topic_centroids(slug, total, n) VALUES(?, ?, ?)", rows)])

    def centroid_sums(self) -> dict[str, tuple[np.ndarray, int]]:
        rows = self.catalog.query("SELECT slug, total, n FROM topic_centroids")
        return {r["slug"]: (np.frombuffer(r["total"], dtype=np.float32).copy(), int(r["n"])) for r in rows}

    # --- listings ---------------------------------------------------------------------------------
    def latest(self, slug: str, limit: int, offset: int = 0) -> list[PaperRow]:
        """The topic's indexed papers, newest first."""
        rows = self.catalog.query(
            f"SELECT p.paper_id FROM ({MEMBERS}) m JOIN papers p ON p.paper_id = m.paper_id "
            "WHERE m.slug = ? AND p.status = 'indexed' ORDER BY p.published DESC, p.paper_id LIMIT ? OFFSET ?",
            (slug, limit, offset),
        )
        ids = [r[0] for r in rows]
        papers = self.catalog.get_many(ids)
        return [papers[pid] for pid in ids if pid in papers]

    def published_counts(self, slug: str | None, since: str, until: str) -> dict[str, int]:
        """Indexed papers per first-listed day (ISO dates) in [since, until]: the topic's, or all (`None`)."""
        if slug is None:
            sql = "SELECT published AS d, COUNT(*) AS n FROM papers WHERE +status = 'indexed' AND published >= ? "
            sql += "AND published <= ? GROUP BY published"
            rows = self.catalog.query(sql, (since, until))
        else:
            rows = self.catalog.query(
                f"SELECT p.published AS d, COUNT(*) AS n FROM ({MEMBERS}) m JOIN papers p ON p.paper_id = m.paper_id "
                "WHERE m.slug = ? AND p.status = 'indexed' AND p.published >= ? AND p.published <= ? "
                "GROUP BY p.published",
                (slug, since, until),
            )
        return {r["d"]: int(r["n"]) for r in rows}

    def newest_published(self) -> str | None:
        rows = self.catalog.query("SELECT MAX(published) FROM papers WHERE +status = 'indexed'")
        return rows[0][0] if rows else None

    def overlaps(self, slug: str) -> dict[str, int]:
        """Papers that `slug` shares with each other topic (only topics sharing at least one)."""
        rows = self.catalog.query(
            f"WITH m AS ({MEMBERS}) SELECT b.slug, COUNT(*) AS n FROM m a JOIN m b ON a.paper_id = b.paper_id "
            "JOIN papers p ON p.paper_id = a.paper_id "
            "WHERE a.slug = ? AND b.slug != a.slug AND p.status = 'indexed' GROUP BY b.slug",
            (slug,),
        )
        return {r["slug"]: int(r["n"]) for r in rows}


def _def_from_row(r: Any) -> TopicDef:
    return TopicDef(
        slug=r["slug"],
        name=r["name"],
        description=r["description"],
        abbreviations=json.loads(r["abbreviations"]),
        keywords=tuple(json.loads(r["keywords"])),
        categories=tuple(json.loads(r["categories"])),
        examples=tuple(json.loads(r["examples"])),
        origin=r["origin"],
        threshold=r["threshold"],
    )
