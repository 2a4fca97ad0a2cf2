"""papertalk's domain errors as `application/problem+json` responses (RFC 9457), never a traceback."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from papertalk.errors import (
    ConfigurationError,
    EmbeddingModelMismatch,
    InvalidQuestion,
    NetworkError,
    NotFound,
    NothingIndexed,
    PapertalkError,
    SourceError,
    StoreUnavailable,
    disk_full_message,
    is_disk_full,
)

log = logging.getLogger(__name__)
PROBLEM = "application/problem+json"

# Most specific first: the first class an error is an instance of decides its status.
STATUS: list[tuple[type[Exception], int]] = [
    (NotFound, 404),
    (InvalidQuestion, 422),
    (SourceError, 422),
    (NothingIndexed, 409),
    (StoreUnavailable, 503),
    (NetworkError, 503),
    (EmbeddingModelMismatch, 409),
    (ConfigurationError, 400),
]
TITLES = {
    400: "Bad request",
    401: "Unauthorized",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Content too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    429: "Too many requests",
    500: "Internal server error",
    503: "Service unavailable",
    507: "Insufficient storage",
}


class HTTPProblem(PapertalkError):
    """An error raised by the HTTP layer itself, with its status."""

    status = 400


class Unauthorized(HTTPProblem):
    status = 401


class TooLarge(HTTPProblem):
    status = 413


class UnsupportedMedia(HTTPProblem):
    status = 415


def status_of(exc: Exception) -> int:
    if isinstance(exc, HTTPProblem):
        return exc.status
    return next((code for cls, code in STATUS if isinstance(exc, cls)), 400)


def problem(status: int, detail: str, **extra: Any) -> dict[str, Any]:
    """The problem document: type, title, status, detail (and any extra members).

    The type is `about:blank`: the status says what kind of problem it is, the detail what to do.
    """
    return {"type": "about:blank", "title": TITLES.get(status, "Error"), "status": status, "detail": detail, **extra}


def problem_response(status: int, detail: str, headers: dict[str, str] | None = None, **extra: Any) -> JSONResponse:
    return JSONResponse(problem(status, detail, **extra), status_code=status, media_type=PROBLEM, headers=headers)


def problem_of(exc: Exception) -> dict[str, Any]:
    """The problem document for any exception (a generic one, logged, for what papertalk did not expect)."""
    if isinstance(exc, PapertalkError):
        return problem(status_of(exc), str(exc))
    if is_disk_full(exc):
        log.error("disk full", exc_info=exc)
        return problem(507, disk_full_message("the server's data directory"))
    log.error("unexpected error", exc_info=exc)
    return problem(500, "papertalk failed unexpectedly; the server log has the details")


async def _domain(request: Request, exc: Exception) -> JSONResponse:
    body = problem_of(exc)
    headers = {"WWW-Authenticate": "Bearer"} if body["status"] == 401 else None
    return problem_response(body["status"], body["detail"], headers)


async def _http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    return problem_response(exc.status_code, str(exc.detail), dict(exc.headers or {}) or None)


async def _validation(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()]
    detail = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors)
    return problem_response(422, detail or "the request is malformed", errors=errors)


async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
    body = problem_of(exc)
    return problem_response(body["status"], body["detail"])


def install_error_handlers(app: FastAPI) -> None:
    app.add_exception_handler(PapertalkError, _domain)
    app.add_exception_handler(StarletteHTTPException, _http)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(Exception, _unexpected)
