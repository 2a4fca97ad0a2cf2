"""A Chroma server behind a token: papertalk sends `PAPERTALK_CHROMA__TOKEN` on every request."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import httpx
import pytest

from papertalk.errors import StoreUnavailable
from papertalk.settings import Settings
from storage.store import Store
from tests.helpers.stack import ChromaProcess

pytestmark = pytest.mark.scaleout
TOKEN = "s3cret-token"


class _Gate(BaseHTTPRequestHandler):
    """Forwards to the Chroma server requests that carry the token; 401 for the others."""

    upstream: ClassVar[str] = ""
    seen: ClassVar[list[str | None]] = []

    def _forward(self) -> None:
        auth = self.headers.get("Authorization")
        self.seen.append(auth)
        if auth != f"Bearer {TOKEN}":
            self.send_response(401)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": "AuthorizationError", "message": "Unauthorized"}')  # as Chroma answers
            return
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {"Content-Type": self.headers.get("Content-Type") or "application/json"}
        reply = httpx.request(self.command, self.upstream + self.path, content=body, headers=headers, timeout=60)
        self.send_response(reply.status_code)
        self.send_header("Content-Type", reply.headers.get("content-type", "application/json"))
        self.send_header("Content-Length", str(len(reply.content)))
        self.end_headers()
        self.wfile.write(reply.content)

    do_GET = do_POST = do_PUT = do_DELETE = _forward

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def gate(chroma: ChromaProcess) -> Iterator[int]:
    _Gate.upstream, _Gate.seen = chroma.url, []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Gate)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()


def _store(port: int, monkeypatch: pytest.MonkeyPatch, token: str | None) -> Store:
    monkeypatch.setenv("PAPERTALK_CHROMA__HOST", "127.0.0.1")
    monkeypatch.setenv("PAPERTALK_CHROMA__PORT", str(port))
    monkeypatch.setenv("PAPERTALK_CHROMA__COLLECTION", "token_test")
    if token:
        monkeypatch.setenv("PAPERTALK_CHROMA__TOKEN", token)
    return Store(Settings())


def test_the_token_goes_with_every_request(gate: int, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(gate, monkeypatch, TOKEN)
    try:
        assert store.vectors.count() == 0
    finally:
        store.close()
    assert _Gate.seen and set(_Gate.seen) == {f"Bearer {TOKEN}"}


def test_without_the_token_the_server_refusing_is_one_clear_error(gate: int, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(gate, monkeypatch, None)
    try:
        with pytest.raises(StoreUnavailable) as caught:
            store.vectors.count()
    finally:
        store.close()
    assert str(caught.value) == (
        f"the Chroma server at 127.0.0.1:{gate} refused papertalk (Unauthorized): set PAPERTALK_CHROMA__TOKEN "
        "to the server's token"
    )
