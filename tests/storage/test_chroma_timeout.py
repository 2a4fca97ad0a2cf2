"""The Chroma server is waited for at most `PAPERTALK_CHROMA__TIMEOUT_S` (the chromadb client has no timeout)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from papertalk.errors import StoreUnavailable
from papertalk.settings import ChromaSettings, Settings
from storage.embeddings import embedding_identity
from storage.store import Store
from tests.helpers.chroma_server import chroma_server


@pytest.fixture
def silent_server() -> Iterator[int]:
    """A port that accepts connections and never answers (a stuck or frozen server)."""
    held: list[socket.socket] = []
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in held:
            conn.close()
        listener.close()


def http_settings(tmp_path: Path, port: int, timeout_s: float) -> Settings:
    chroma = ChromaSettings(host="127.0.0.1", port=port, timeout_s=timeout_s, collection="t_timeout")
    return Settings(data_dir=tmp_path / "data").model_copy(update={"chroma": chroma})


def test_a_server_that_never_answers_is_a_clear_error_within_the_timeout(silent_server: int, tmp_path: Path) -> None:
    store = Store(http_settings(tmp_path, silent_server, 1.0))
    embedding_identity(store.settings)  # the model's identity first: only the wait for the server is timed
    started = time.monotonic()
    with pytest.raises(StoreUnavailable, match=r"did not answer within 1 s.*PAPERTALK_CHROMA__TIMEOUT_S"):
        _ = store.vectors
    assert time.monotonic() - started < 5
    store.close()


@pytest.mark.slow
def test_every_request_to_a_running_server_has_the_timeout(tmp_path: Path) -> None:
    with chroma_server(tmp_path / "chroma") as server:
        store = Store(http_settings(tmp_path, server.port, 7.5))
        try:
            assert store.vectors.count() == 0
            session = store.vectors._client._server._session  # the chromadb client's own httpx session
            assert session.timeout == httpx.Timeout(7.5)
        finally:
            store.close()
