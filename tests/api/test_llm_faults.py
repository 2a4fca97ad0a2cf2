"""A misbehaving LLM server behind the `openai` backend: slow, failing, garbage, an endless stream.

Each ends within a bounded time as a clear problem (or an `error` event once a stream has started), and the
app goes on answering afterwards.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from papertalk.settings import LLMSettings, Settings
from tests.api.conftest import assert_problem
from tests.helpers.openai_server import ChatServer, Reply, serve

QUESTION = {"question": "What is the S2ORC corpus?"}
TIMEOUT_S = 1.0
ANSWER_TIMEOUT_S = 3.0
BOUND_S = 8.0  # every fault must end within this (a 1 s timeout, and retrieval on a busy machine)


@pytest.fixture(scope="module")
def server() -> Iterator[ChatServer]:
    with serve() as running:
        yield running


@pytest.fixture
def llm(server: ChatServer, corpus_dir: Path) -> Iterator[tuple[ChatServer, TestClient]]:
    """The app over the answer corpus with the `openai` backend pointed at the test server."""
    server.reset()
    llm = LLMSettings(
        backend="openai",
        base_url=server.url,
        api_key="test",
        timeout_s=TIMEOUT_S,
        answer_timeout_s=ANSWER_TIMEOUT_S,
        max_retries=0,
        max_tokens=64,
    )
    settings = Settings(data_dir=corpus_dir).model_copy(update={"llm": llm})
    untimed = settings.model_copy(update={"llm": llm.model_copy(update={"answer_timeout_s": 120.0})})
    with TestClient(create_app(untimed), raise_server_exceptions=False) as client:
        still_answers(server, client)  # the first answer in this process (imports, model files) is not timed
    server.reset()
    with TestClient(create_app(settings), raise_server_exceptions=False) as client:
        still_answers(server, client)  # the models are loaded before anything is timed
        server.reset()
        yield server, client


def events(text: str) -> list[tuple[str, Any]]:
    frames = [f for f in text.split("\n\n") if f.strip()]
    out = []
    for frame in frames:
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        out.append((lines["event"], json.loads(lines["data"])))
    return out


def ask(client: TestClient, stream: bool) -> tuple[Any, float]:
    started = time.monotonic()
    response = client.post("/api/chat", json=QUESTION, params={"stream": stream})
    return response, time.monotonic() - started


def assert_clear_failure(response: Any, words: str) -> None:
    """A 503 problem naming the fault, or a stream whose last event is that problem (no answer, no done)."""
    if response.headers["content-type"].startswith("text/event-stream"):
        got = events(response.text)
        assert [name for name, _ in got][-1] == "error", got
        problem = got[-1][1]
        assert problem["status"] == 503 and words in problem["detail"], problem
        assert "answer" not in [name for name, _ in got]
    else:
        assert_problem(response, 503, words)
    assert "Traceback" not in response.text


def still_answers(server: ChatServer, client: TestClient) -> None:
    server.script.append(Reply("The S2ORC corpus holds 81.1 million papers [1]."))
    response = client.post("/api/chat", json=QUESTION)
    assert response.status_code == 200 and response.json()["backend"] == "openai"


FAULTS = {
    "slow": (Reply("too late", delay=30), "did not answer within 1 s"),
    "failing": (Reply(status=502, text="upstream crashed"), "HTTP 502"),
    "garbage JSON": (Reply(raw=b"<html>proxy error</html>"), "answered badly"),
    "garbage stream": (Reply(raw=b"data: {not json\n\ndata: [DONE]\n\n"), "answered badly"),
    "endless stream": (Reply(pieces=itertools.repeat(" more"), gap=0.002), "kept sending past 128 pieces"),
    "dripping stream": (Reply(pieces=itertools.repeat(" more"), gap=0.5), "kept sending"),  # the 3 s deadline
}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("fault", list(FAULTS))
def test_a_misbehaving_llm_server_is_a_bounded_clear_error(
    llm: tuple[ChatServer, TestClient], fault: str, stream: bool
) -> None:
    server, client = llm
    reply, words = FAULTS[fault]
    server.script.append(reply)
    response, took = ask(client, stream)
    assert took < BOUND_S, f"{fault}: {took:.1f} s"
    assert_clear_failure(response, words)
    still_answers(server, client)
