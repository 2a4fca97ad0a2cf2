"""The reading list: save papers, remove them, list them."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import TopicsDep, WriteAccess
from api.schemas import PaperItemOut, SavedOut

router = APIRouter(tags=["reading list"])


@router.get("/saved", response_model=list[PaperItemOut])
def saved(topics: TopicsDep) -> Any:
    """The reading list, most recently saved first."""
    return [p.to_dict() for p in topics.saved()]


@router.post("/papers/{paper_id}/save", response_model=SavedOut, dependencies=[WriteAccess])
def save(paper_id: str, topics: TopicsDep) -> Any:
    """Add a paper to the reading list."""
    item, changed = topics.save(paper_id)
    return {"paper": item.to_dict(), "saved": True, "changed": changed}


@router.delete("/papers/{paper_id}/save", response_model=SavedOut, dependencies=[WriteAccess])
def unsave(paper_id: str, topics: TopicsDep) -> Any:
    """Remove a paper from the reading list."""
    item, changed = topics.unsave(paper_id)
    return {"paper": item.to_dict(), "saved": False, "changed": changed}
