"""Topic pages as the CLI and the HTTP API use them: list, page (momentum, latest papers, related topics),
add, follow and what's new, and the reading list."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from assistant.topic_stats import (
    AsOf,
    Momentum,
    Related,
    centred,
    days_needed,
    momentum,
    related_topics,
    resolve_as_of,
)
from assistant.versioned_cache import VersionedCache
from ingest.topic_registry import parse_entry, sync_bundled
from papertalk.errors import ConfigurationError, NotFound
from storage.catalog import PaperRow
from storage.library import Follow
from storage.store import Store
from storage.topics import Tag, Topic, TopicDef

if TYPE_CHECKING:
    from assistant.overview_types import Overview

AUTHORS_SHOWN = 3
T = TypeVar("T")


def short_authors(authors: Sequence[str], shown: int = AUTHORS_SHOWN) -> str:
    """ "A, B, C +6": the first authors, then how many more."""
    head = ", ".join(authors[:shown])
    return f"{head} +{len(authors) - shown}" if len(authors) > shown else head


@dataclass(frozen=True)
class PaperItem:
    """A paper as a listing shows it: date, title, first authors and its top two topics."""

    paper_id: str
    title: str
    authors: list[str]
    published: date | None
    link: str | None
    tags: list[Tag]

    @property
    def authors_short(self) -> str:
        return short_authors(self.authors)

    def to_dict(self) -> dict[str, Any]:
        return {
            "paper_id": self.paper_id,
            "title": self.title,
            "authors": self.authors,
            "authors_short": self.authors_short,
            "published": self.published.isoformat() if self.published else None,
            "link": self.link,
            "tags": [{"slug": t.slug, "name": t.name, "score": t.score} for t in self.tags],
        }


@dataclass(frozen=True)
class Listing:
    total: int
    offset: int
    items: list[PaperItem]

    def to_dict(self) -> dict[str, Any]:
        return {"total": self.total, "offset": self.offset, "items": [p.to_dict() for p in self.items]}


@dataclass(frozen=True)
class TopicPage:
    topic: Topic
    definition: TopicDef | None
    momentum: Momentum
    latest: Listing
    related: list[Related]
    followed: bool
    unscored: int  # indexed papers not scored yet (`papertalk topics assign` scores them)
    stale: bool  # topics changed since papers were scored
    overview: Overview | None = None  # the stored cited overview (`papertalk overview` builds it)
    new_since_overview: list[str] = field(default_factory=list)  # the topic's papers it was not built from

    def abbreviations_text(self) -> str:
        abbreviations = self.definition.abbreviations if self.definition else {}
        return " · ".join(f"{short}: {long}" for short, long in abbreviations.items())

    def to_dict(self) -> dict[str, Any]:
        return {
            "slug": self.topic.slug,
            "name": self.topic.name,
            "description": self.topic.description,
            "abbreviations": self.definition.abbreviations if self.definition else {},
            "definition": self.definition.to_dict() if self.definition else None,
            "papers": self.topic.papers,
            "momentum": self.momentum.to_dict(),
            "latest": self.latest.to_dict(),
            "related": [r.to_dict() for r in self.related],
            "followed": self.followed,
            "unscored": self.unscored,
            "stale": self.stale,
            "overview": self._overview_dict(),
        }

    def _overview_dict(self) -> dict[str, Any] | None:
        if self.overview is None:
            return None
        return {**self.overview.to_dict(), "new_since_built": self.new_since_overview}


@dataclass(frozen=True)
class WhatsNew:
    topic: Topic
    since: str
    papers: list[PaperItem] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "slug": self.topic.slug,
            "name": self.topic.name,
            "since": self.since,
            "papers": [p.to_dict() for p in self.papers],
        }


class TopicService:
    """Everything a topic page needs, from the catalog; the bundled topics are synced on first use."""

    def __init__(self, store: Store, page_cache: int | None = None) -> None:
        self.store = store
        self.topics = store.topics
        sync_bundled(self.topics)
        size = store.settings.api.topic_page_cache if page_cache is None else page_cache
        self._pages: VersionedCache[Any] = VersionedCache(size)

    def all(self) -> list[Topic]:
        return self.topics.all()

    def get(self, name_or_slug: str) -> Topic:
        return self.topics.get(name_or_slug)

    def items(self, paper_ids: Sequence[str]) -> list[PaperItem]:
        """Papers in the order given (unknown ids left out), each with its top two topics."""
        rows = self.store.catalog.get_many(paper_ids)
        tags = self.topics.tags_of([pid for pid in paper_ids if pid in rows])
        return [_item(rows[pid], tags.get(pid, [])) for pid in paper_ids if pid in rows]

    def as_of(self, requested: date | None = None, today: date | None = None) -> AsOf:
        newest = self.topics.newest_published()
        return resolve_as_of(date.fromisoformat(newest) if newest else None, requested, today)

    def momentum(self, slug: str, as_of: AsOf) -> Momentum:
        first = as_of.day - timedelta(days=days_needed() - 1)
        daily = self.topics.published_counts(slug, first.isoformat(), as_of.day.isoformat())
        window = (as_of.day - timedelta(days=27)).isoformat()
        corpus = sum(self.topics.published_counts(None, window, as_of.day.isoformat()).values())
        return momentum({date.fromisoformat(d): n for d, n in daily.items()}, corpus, as_of)

    def latest(self, topic: Topic, limit: int = 10, offset: int = 0) -> Listing:
        rows = self.topics.latest(topic.slug, limit, offset)
        return Listing(topic.papers, offset, self.items([r.paper_id for r in rows]))

    def related(self, slug: str, limit: int = 5) -> list[Related]:
        topics = self.topics.all()
        centres = {s: total / n for s, (total, n) in self.topics.centroid_sums().items() if n}
        return related_topics(
            slug,
            {t.slug: t.papers for t in topics},
            {t.slug: t.name for t in topics},
            self.topics.overlaps(slug),
            centred({s: np.asarray(v) for s, v in centres.items()}),
            limit,
        )

    def page(
        self, name_or_slug: str, as_of: date | None = None, limit: int = 10, offset: int = 0, today: date | None = None
    ) -> TopicPage:
        """The whole topic page; kept (up to `api.topic_page_cache` pages) until the catalog changes."""
        return self.page_as(lambda page: page, "page", name_or_slug, as_of, limit, offset, today)

    def page_as(
        self,
        render: Callable[[TopicPage], T],
        form: str,
        name_or_slug: str,
        as_of: date | None = None,
        limit: int = 10,
        offset: int = 0,
        today: date | None = None,
    ) -> T:
        """`render(page)` (a door's form of the page, named `form`: the HTTP API's JSON bytes), kept as the
        page is: until the catalog changes."""
        today = today or date.today()
        version = self.store.catalog.changes_version  # read before building: see VersionedCache
        key = (name_or_slug, as_of, limit, offset, today)
        value: T = self._pages.get_or_build((form, *key), version, lambda: render(self._build_page(*key)))
        return value

    def _build_page(self, name_or_slug: str, as_of: date | None, limit: int, offset: int, today: date) -> TopicPage:
        from assistant.overview import OverviewService

        topic = self.get(name_or_slug)
        overviews = OverviewService(self.store)
        overview = overviews.stored_of(topic)
        return TopicPage(
            topic=topic,
            definition=self.topics.definition(topic.slug),
            momentum=self.momentum(topic.slug, self.as_of(as_of, today)),
            latest=self.latest(topic, limit, offset),
            related=self.related(topic.slug),
            followed=any(f.slug == topic.slug for f in self.store.library.follows()),
            unscored=self.topics.count_unscored(),
            stale=self.topics.stale(),
            overview=overview,
            new_since_overview=overviews.new_since(overview) if overview else [],
        )

    # --- user topics ------------------------------------------------------------------------------
    def add(
        self,
        name: str,
        description: str = "",
        keywords: Sequence[str] = (),
        examples: Sequence[str] = (),
        abbreviations: dict[str, str] | None = None,
        categories: Sequence[str] = (),
        threshold: float | None = None,
    ) -> TopicDef:
        """Define a topic by a description and/or example papers (which must be in the catalog)."""
        if not description.strip() and not examples:
            raise ConfigurationError(f"topic {name!r} needs a --description or at least one --example-paper")
        ids = [e.strip().removeprefix("arxiv:") for e in examples]
        missing = [pid for pid in ids if pid not in self.store.catalog.get_many(ids)]
        if missing:
            raise NotFound(f"example paper {missing[0]!r} is not in the catalog: ingest it first (`papertalk add …`)")
        entry: dict[str, Any] = {"name": name, "description": description.strip(), "keywords": list(keywords)}
        entry.update(categories=list(categories), abbreviations=abbreviations or {}, threshold=threshold)
        definition = parse_entry(entry, "papertalk topics add", 0, origin="user", examples_given=bool(ids))
        definition = replace(definition, examples=tuple(ids))
        self.topics.define([definition])
        return definition

    # --- follow and what's new --------------------------------------------------------------------
    def follow(self, name_or_slug: str) -> tuple[Topic, bool]:
        topic = self.get(name_or_slug)
        return topic, self.store.library.follow(topic.slug)

    def unfollow(self, name_or_slug: str) -> tuple[Topic, bool]:
        topic = self.get(name_or_slug)
        return topic, self.store.library.unfollow(topic.slug)

    def whatsnew(self, mark_seen: bool = True) -> list[WhatsNew]:
        """New papers in each followed topic since its last look; the look then moves on (unless told not to)."""
        library = self.store.library
        follows: list[Follow] = library.follows()
        out = [WhatsNew(self.get(f.slug), f.seen_at, self.items(library.new_since_seen(f))) for f in follows]
        if mark_seen and follows:
            library.mark_seen([f.slug for f in follows])
        return out

    # --- reading list -----------------------------------------------------------------------------
    def save(self, paper_id: str) -> tuple[PaperItem, bool]:
        item = self._paper(paper_id)
        return item, self.store.library.save(item.paper_id)

    def unsave(self, paper_id: str) -> tuple[PaperItem, bool]:
        item = self._paper(paper_id)
        return item, self.store.library.unsave(item.paper_id)

    def saved(self) -> list[PaperItem]:
        return self.items([s.paper_id for s in self.store.library.saved()])

    def _paper(self, paper_id: str) -> PaperItem:
        found = self.items([paper_id.strip().removeprefix("arxiv:")])
        if not found:
            raise NotFound(f"no paper {paper_id!r} in the catalog: see `papertalk papers list`")
        return found[0]


def _item(row: PaperRow, tags: list[Tag]) -> PaperItem:
    return PaperItem(row.paper_id, row.title, row.authors, row.published, row.link, tags)
