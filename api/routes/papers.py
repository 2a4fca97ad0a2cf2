"""Papers: search and list, one paper, its stored PDF."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import FileResponse

from api.deps import StoreDep
from api.schemas import OverviewOut, PaperOut, PaperPage
from assistant.overview import OverviewService
from papertalk.errors import NotFound
from storage.catalog import PaperRow
from storage.queries import PaperQuery, get_paper, search_papers, stored_pdf
from storage.store import Store
from storage.topics import slugify

router = APIRouter(prefix="/papers", tags=["papers"])
Limit = Annotated[int, Query(ge=1, le=200, description="Papers per page.")]
Offset = Annotated[int, Query(ge=0, le=2**62, description="Papers to skip.")]  # SQLite integers are 64-bit


def paper_json(store: Store, row: PaperRow, topics: bool = False) -> dict[str, Any]:
    data = row.to_dict()
    data["pdf_url"] = f"/api/papers/{row.paper_id}/pdf" if stored_pdf(store, row) else None
    if topics:
        data["topics"] = store.topics.topics_of(row.paper_id)
    return data


def paper_page(store: Store, query: PaperQuery) -> dict[str, Any]:
    rows, total = search_papers(store, query)
    papers = [paper_json(store, row) for row in rows]
    return {"total": total, "limit": query.limit, "offset": query.offset, "papers": papers}


@router.get("", response_model=PaperPage)
def list_papers(
    store: StoreDep,
    q: Annotated[str, Query(max_length=500, description="Words that must all be in the title or abstract.")] = "",
    topic: Annotated[str | None, Query(max_length=200, description="Topic name or slug.")] = None,
    since: Annotated[date | None, Query(description="First listed on or after this day.")] = None,
    until: Annotated[date | None, Query(description="First listed on or before this day.")] = None,
    limit: Limit = 20,
    offset: Offset = 0,
) -> Any:
    """Search and list papers, newest first: by words of the title or abstract, topic and date."""
    slug = store.topics.get(topic).slug if topic else None  # an unknown topic is a 404, not an empty page
    return paper_page(store, PaperQuery(q, slug, since, until, limit, offset))


@router.get("/{paper_id}", response_model=PaperOut)
def get_paper_route(paper_id: str, store: StoreDep) -> Any:
    """One paper's record, its topics, and where its PDF is when papertalk keeps it."""
    return paper_json(store, get_paper(store, paper_id), topics=True)


@router.get("/{paper_id}/pdf", response_class=FileResponse, responses={200: {"content": {"application/pdf": {}}}})
def get_paper_pdf(paper_id: str, store: StoreDep) -> FileResponse:
    """The paper's stored PDF (open it at `#page=N` to see a cited page); 404 when papertalk keeps none."""
    row = get_paper(store, paper_id)
    path = stored_pdf(store, row)
    if path is None:
        raise NotFound(f"papertalk keeps no PDF of {row.paper_id!r}: see its link instead ({row.link or 'none'})")
    return FileResponse(
        path, media_type="application/pdf", content_disposition_type="inline", filename=f"{slugify(row.paper_id)}.pdf"
    )


@router.get("/{paper_id}/overview", response_model=OverviewOut)
def get_paper_overview(paper_id: str, store: StoreDep) -> Any:
    """A cited one-paper overview: what it is about, its method, results and limitations, each sentence
    citing the passage it is quoted from with its pages."""
    return OverviewService(store).summarize(paper_id).to_dict()


__all__ = ["router"]
