"""Topics: the list, one topic, its papers page by page."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from fastapi import APIRouter

from api.deps import StoreDep
from api.routes.papers import Limit, Offset, paper_page
from api.schemas import PaperPage
from storage.queries import PaperQuery
from storage.topics import Topic

router = APIRouter(prefix="/topics", tags=["topics"])


@router.get("", response_model=list[Topic])
def list_topics(store: StoreDep) -> Any:
    """Every topic with its number of papers."""
    return [asdict(t) for t in store.topics.all()]


@router.get("/{slug}", response_model=Topic)
def get_topic(slug: str, store: StoreDep) -> Any:
    """One topic (by slug or name)."""
    return asdict(store.topics.get(slug))


@router.get("/{slug}/papers", response_model=PaperPage)
def topic_papers(slug: str, store: StoreDep, limit: Limit = 20, offset: Offset = 0) -> Any:
    """A topic's papers, newest first, a page at a time."""
    topic = store.topics.get(slug)
    return paper_page(store, PaperQuery(topic=topic.slug, limit=limit, offset=offset))
