"""A small OpenAI-compatible chat server for tests, on 127.0.0.1 and a free port.

It answers `POST /v1/chat/completions` from a script: each request takes the next `Reply` (or asks the
`responder` function, given the request body, when the script is empty). Replies can be plain JSON or SSE
streams, HTTP errors, or slow. Every request is recorded so tests can look at the prompt that was sent.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str = ""
    status: int = 200
    delay: float = 0.0  # seconds before the first byte
    pieces: Iterable[str] | None = None  # stream pieces (may be endless); default: the text cut into tokens
    gap: float = 0.0  # seconds between stream pieces
    raw: bytes | None = None  # sent as it is, status 200, instead of a well-formed reply (a broken server)


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    def content(self, role: str) -> str:
        return "\n".join(m["content"] for m in self.messages if m["role"] == role)


@dataclass
class ChatServer:
    """Scripted replies in, recorded requests out. `url` is the base URL for an OpenAI client."""

    host: str = "127.0.0.1"
    port: int = 0
    script: list[Reply] = field(default_factory=list)
    responder: Callable[[Request], Reply] | None = None
    requests: list[Request] = field(default_factory=list)
    embed_delay: float = 0.0  # seconds before each embeddings reply (a slow or stuck server)
    stop: threading.Event = field(default_factory=threading.Event)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def reset(self) -> None:
        self.script.clear()
        self.requests.clear()
        self.responder = None

    def next_reply(self, request: Request) -> Reply:
        self.requests.append(request)
        if self.script:
            return self.script.pop(0)
        if self.responder is not None:
            return self.responder(request)
        return Reply(status=500, text="no scripted reply left")


def tokens(text: str) -> list[str]:
    """Word-sized pieces that join back to `text`, like a tokenizer's output."""
    return re.findall(r"\s*\S+", text) or [text]


def _completion(model: str, text: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _chunk(model: str, delta: dict[str, str], finish: str | None = None) -> bytes:
    data = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return f"data: {json.dumps(data)}\n\n".encode()


EMBED_DIM = 1536


def _bag_of_words(text: str) -> list[float]:
    """A deterministic stand-in embedding: hashed word counts, unit length (shared words -> similar)."""
    import hashlib
    import math

    vec = [0.0] * EMBED_DIM
    for word in text.lower().split():
        vec[int(hashlib.md5(word.encode()).hexdigest(), 16) % EMBED_DIM] += 1.0
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


def _embeddings(body: dict[str, Any]) -> dict[str, Any]:
    inputs = body.get("input") or []
    texts = [inputs] if isinstance(inputs, str) else list(inputs)
    data = [{"object": "embedding", "index": i, "embedding": _bag_of_words(str(t))} for i, t in enumerate(texts)]
    return {
        "object": "list",
        "data": data,
        "model": body.get("model", ""),
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    }


def _handler(server: ChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            return

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            request = Request(self.path, dict(self.headers), json.loads(raw or b"{}"))
            if self.path == "/v1/embeddings":
                server.requests.append(request)
                if server.embed_delay and server.stop.wait(server.embed_delay):
                    return
                return self._json(200, _embeddings(request.body))
            if self.path != "/v1/chat/completions":
                return self._json(404, {"error": {"message": f"no route {self.path}"}})
            reply = server.next_reply(request)
            if reply.delay and server.stop.wait(reply.delay):
                return
            if reply.status != 200:
                return self._json(reply.status, {"error": {"message": reply.text or "scripted failure"}})
            if reply.raw is not None:
                return self._raw(reply.raw, bool(request.body.get("stream")))
            model = str(request.body.get("model", ""))
            if request.body.get("stream"):
                return self._stream(model, reply)
            return self._json(200, _completion(model, reply.text))

        def _json(self, status: int, data: dict[str, Any]) -> None:
            body = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self._write(body)

        def _stream(self, model: str, reply: Reply) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            pieces = reply.pieces if reply.pieces is not None else tokens(reply.text)
            self._write(_chunk(model, {"role": "assistant", "content": ""}))
            for piece in pieces:
                if reply.gap and server.stop.wait(reply.gap):
                    return
                if not self._write(_chunk(model, {"content": piece})):
                    return
            self._write(_chunk(model, {}, finish="stop") + b"data: [DONE]\n\n")
            self.close_connection = True

        def _raw(self, body: bytes, stream: bool) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream" if stream else "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self._write(body)

        def _write(self, data: bytes) -> bool:
            """False when the client has gone (it gave up: a timeout test)."""
            try:
                self.wfile.write(data)
                self.wfile.flush()
                return True
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True
                return False

    return Handler


@contextmanager
def serve() -> Iterator[ChatServer]:
    """A running `ChatServer`; stopped (slow replies cut short) on exit."""
    state = ChatServer()
    httpd = ThreadingHTTPServer((state.host, 0), _handler(state))
    httpd.daemon_threads = True
    state.port = httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever, name="openai-test-server", daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.stop.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
