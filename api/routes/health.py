"""Health (the process answers, with counts) and readiness (the catalog and the vector store answer)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import StoreDep
from api.schemas import HealthOut
from papertalk.errors import StoreUnavailable
from storage.queries import store_stats

router = APIRouter(tags=["health"])


@router.get("/health", response_model=HealthOut)
def health(store: StoreDep) -> Any:
    """The server is up: counts of papers and chunks from the catalog."""
    return {"status": "ok", **store_stats(store, vectors=False)}


@router.get("/ready", response_model=HealthOut, responses={503: {"description": "The store cannot be reached."}})
def ready(store: StoreDep) -> Any:
    """Ready to answer: the catalog and the vector store both answer (503 otherwise)."""
    try:
        stats = store_stats(store, vectors=True)
    except StoreUnavailable:
        raise
    except Exception as exc:  # whatever the vector store raised, the server is not ready
        raise StoreUnavailable(
            f"the store cannot be read ({type(exc).__name__}): check {store.settings.data_dir}"
        ) from exc
    return {"status": "ready", **stats}
