"""Request body limits, checked before a route reads the body (uploads and other routes have their own), and
per-client rate limits on chat and uploads."""

from __future__ import annotations

import logging
import math

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import problem_response
from papertalk.errors import StoreUnavailable
from papertalk.settings import ApiSettings
from storage.rate_limits import SharedRates

log = logging.getLogger(__name__)

UPLOAD_PATH = "/api/uploads"
MB = 1_000_000
NOUNS = {"chat": "chat requests", "uploads": "uploads"}


class BodyTooLarge(HTTPException):
    """The body went past its limit while being read (an HTTP error, so body parsing lets it through)."""

    def __init__(self, detail: str) -> None:
        super().__init__(413, detail)


def too_large(path: str, limit: int) -> str:
    if path.rstrip("/") == UPLOAD_PATH:
        return f"the file is larger than the upload limit ({limit // MB} MB, setting PAPERTALK_API__MAX_UPLOAD_MB)"
    return f"the request body is larger than this route accepts ({limit:,} bytes)"


def body_limit(settings: ApiSettings, path: str) -> int:
    if path.rstrip("/") == UPLOAD_PATH:
        return int(settings.max_upload_mb * MB) + 64 * 1024  # room for the multipart framing
    return settings.max_body_kb * 1024


class BodyLimit:
    """413 as a problem when `Content-Length` (or the bytes actually sent) exceed the route's limit."""

    def __init__(self, app: ASGIApp, settings: ApiSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = body_limit(self.settings, scope["path"])
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(scope, receive, send, limit)
            return
        seen = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BodyTooLarge(too_large(scope["path"], limit))
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, limited_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._refuse(scope, receive, send, limit)

    @staticmethod
    async def _refuse(scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        await problem_response(413, too_large(scope["path"], limit))(scope, receive, send)


def limited_route(method: str, path: str) -> str | None:
    """Which rate limit a request counts against: "chat", "uploads", or none."""
    if method != "POST":
        return None
    path = path.rstrip("/")
    if path == "/api/chat" or path.startswith("/api/chat/"):
        return "chat"
    return "uploads" if path == UPLOAD_PATH else None


class RateLimit:
    """429 as a problem, with `Retry-After`, for a client past its share of chat or upload requests.

    A client is its address. The allowances live in the catalog (storage/rate_limits.py), so all the
    workers of a server, and all servers on one catalog, count a client's requests together.
    """

    def __init__(self, app: ASGIApp, settings: ApiSettings) -> None:
        self.app = app
        self.per_minute = {
            name: per_minute
            for name, per_minute in (("chat", settings.chat_per_minute), ("uploads", settings.uploads_per_minute))
            if per_minute > 0
        }
        self._rates: SharedRates | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = limited_route(scope.get("method", ""), scope.get("path", "")) if scope["type"] == "http" else ""
        per_minute = self.per_minute.get(route or "")
        wait = await run_in_threadpool(self._take, scope, str(route), per_minute) if per_minute else 0.0
        if not per_minute or wait <= 0:
            await self.app(scope, receive, send)
            return
        retry = max(1, math.ceil(wait))
        detail = (
            f"too many {NOUNS[str(route)]} from this client: at most {per_minute} a minute "
            f"(setting PAPERTALK_API__{str(route).upper()}_PER_MINUTE); try again in {retry} s"
        )
        await problem_response(429, detail, {"Retry-After": str(retry)})(scope, receive, send)

    def _take(self, scope: Scope, route: str, per_minute: int) -> float:
        """The wait before this request may go on (0: go on); a catalog that cannot be reached lets it
        through, so the route itself answers (with its own 503 when it needs the catalog too)."""
        if self._rates is None:
            self._rates = SharedRates(scope["app"].state.papertalk.store.catalog)
        try:
            return self._rates.take(route, client_of(scope), per_minute)
        except StoreUnavailable:
            log.warning("rate limit not checked: the catalog is unreachable")
            return 0.0


def client_of(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"
