"""`create_app(settings)`: the FastAPI app, built on demand (nothing happens at import time)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request, Response
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from api.deps import AppState
from api.errors import install_error_handlers
from api.limits import BodyLimit, RateLimit
from api.routes import chat, conversations, health, library, papers, topics, uploads
from papertalk.settings import Settings

API_PREFIX = "/api"
WEB_DIR = Path(__file__).parent / "web"  # the web page: plain HTML, CSS and JavaScript, no build step


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app over the store of `settings` (read from the environment when not given).

    One store per app, opened when the app starts and closed when it stops. Routes reach the settings
    through the `get_settings` dependency, so tests may override it.
    """
    resolved = settings if settings is not None else Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        state = AppState(resolved)
        app.state.papertalk = state
        try:
            yield
        finally:
            state.close()

    app = FastAPI(
        title="papertalk",
        summary="Cited answers, chat, topics and Ask PDF over arXiv papers and PDFs.",
        version="0.1.0",
        lifespan=lifespan,
    )
    install_error_handlers(app)
    app.add_middleware(BodyLimit, settings=resolved.api)
    app.add_middleware(RateLimit, settings=resolved.api)  # runs before a body is read
    tag_worker(app)  # added last, runs first: the limits' refusals name their worker too
    for module in (chat, conversations, papers, library, uploads, topics, health):
        app.include_router(module.router, prefix=API_PREFIX)
    mount_web(app)
    return app


def tag_worker(app: FastAPI) -> None:
    """Every response names the worker process that made it (`X-Papertalk-Worker`), for logs and tests."""
    worker = str(os.getpid())

    @app.middleware("http")
    async def _tag(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        response = await call_next(request)
        response.headers["X-Papertalk-Worker"] = worker
        return response


def mount_web(app: FastAPI) -> None:
    """The web page at `/` and its files under `/static/`."""
    app.mount("/static", StaticFiles(directory=WEB_DIR), name="static")

    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(WEB_DIR / "index.html")
