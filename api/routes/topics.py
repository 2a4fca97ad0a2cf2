"""Topics: the list, one topic's page (momentum, weekly counts, latest papers, related topics, overview), its
papers page by page, its cited overview, follow, and what is new in the followed topics."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from api.deps import StoreDep, TopicsDep, WriteAccess
from api.routes.papers import Limit, Offset
from api.schemas import FollowOut, ListingOut, OverviewBuiltOut, TopicOut, TopicPageOut, WhatsNewOut
from assistant.overview import OverviewService
from assistant.topics import TopicPage
from storage.topics import Topic

router = APIRouter(tags=["topics"])
AsOf = Annotated[
    date | None,
    Query(
        description="Measure momentum as of this day (default: today, or the newest "
        "paper's date for a historical corpus)."
    ),
]


def topic_json(topic: Topic) -> dict[str, Any]:
    return {"slug": topic.slug, "name": topic.name, "description": topic.description, "papers": topic.papers}


@router.get("/topics", response_model=list[TopicOut])
def list_topics(topics: TopicsDep) -> Any:
    """Every topic with its number of papers, by name."""
    return [topic_json(t) for t in topics.all()]


@router.get("/topics/{slug}", response_model=TopicPageOut)
def get_topic(slug: str, topics: TopicsDep, as_of: AsOf = None, limit: Limit = 10, offset: Offset = 0) -> Any:
    """One topic's page: name and abbreviations, momentum with weekly counts, latest papers with their tags,
    related topics with their strength, whether it is followed, and its stored cited overview (null until
    one is built)."""
    body = topics.page_as(_page_json, "json", slug, as_of=as_of, limit=limit, offset=offset)
    return Response(body, media_type="application/json")


def _page_json(page: TopicPage) -> bytes:
    """The page as this route answers it (checked against its model once, then kept with the page)."""
    return TopicPageOut.model_validate(page.to_dict()).model_dump_json().encode()


@router.get("/topics/{slug}/papers", response_model=ListingOut)
def topic_papers(slug: str, topics: TopicsDep, limit: Limit = 20, offset: Offset = 0) -> Any:
    """A topic's papers, newest first, a page at a time, each with its top two topics; `total` is the topic's."""
    return topics.latest(topics.get(slug), limit, offset).to_dict()


@router.post("/topics/{slug}/overview", response_model=OverviewBuiltOut, dependencies=[WriteAccess])
def build_overview(slug: str, store: StoreDep) -> Any:
    """Build the topic's cited overview, or bring the stored one up to date and say what changed."""
    overview, changes = OverviewService(store).refresh(slug)
    return {**overview.to_dict(), "changes": changes.to_dict()}


@router.post("/topics/{slug}/follow", response_model=FollowOut, dependencies=[WriteAccess])
def follow(slug: str, topics: TopicsDep) -> Any:
    """Follow a topic: its new papers show in `GET /api/whatsnew`."""
    topic, changed = topics.follow(slug)
    return {**topic_json(topic), "followed": True, "changed": changed}


@router.delete("/topics/{slug}/follow", response_model=FollowOut, dependencies=[WriteAccess])
def unfollow(slug: str, topics: TopicsDep) -> Any:
    """Stop following a topic."""
    topic, changed = topics.unfollow(slug)
    return {**topic_json(topic), "followed": False, "changed": changed}


@router.get("/whatsnew", response_model=list[WhatsNewOut])
def whatsnew(topics: TopicsDep) -> Any:
    """New papers in each followed topic since its last look (the look stays: `POST /api/whatsnew/seen`)."""
    return [w.to_dict() for w in topics.whatsnew(mark_seen=False)]


@router.post("/whatsnew/seen", response_model=list[WhatsNewOut], dependencies=[WriteAccess])
def whatsnew_seen(topics: TopicsDep) -> Any:
    """What is new in each followed topic, then each topic's last look moves to now."""
    return [w.to_dict() for w in topics.whatsnew(mark_seen=True)]
