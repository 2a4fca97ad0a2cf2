"""Request body limits, checked before a route reads the body: uploads and other routes have their own."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.errors import problem_response
from papertalk.settings import ApiSettings

UPLOAD_PATH = "/api/uploads"
MB = 1_000_000


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
