"""A list question through POST /api/chat: the named items come back in the JSON and in the SSE answer."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from papertalk.demo import DEMO_TOPIC
from tests.api.conftest import client_for
from tests.api.test_chat import parse_sse

QUESTION = "Which RL algorithms are used to train LLM agents for multi-turn tool use?"


@pytest.fixture
def tool_use_client(tool_use_dir: Path) -> Iterator[TestClient]:
    with client_for(tool_use_dir) as c:
        yield c


def test_a_list_answer_carries_its_items_with_citations_and_quotes(tool_use_client: TestClient) -> None:
    body = {"question": QUESTION, "scope": {"topic": DEMO_TOPIC}}
    answer = tool_use_client.post("/api/chat", json=body).json()
    items = answer["items"]
    assert items and len({i["name"] for i in items}) == len(items)
    for item in items:
        assert item["kind"] == "algorithm" and item["papers"] == len(item["citations"]) >= 1
        assert item["quote"] == item["citations"][0]["quote"] and item["name"] in item["quote"]
        source = answer["sources"][item["citations"][0]["number"] - 1]
        assert source["paper_id"] == item["citations"][0]["paper_id"]
    streamed = tool_use_client.post("/api/chat", json=body, headers={"Accept": "text/event-stream"})
    events = parse_sse(streamed.text)
    final = next(data for name, data in events if name == "answer")
    assert [i["name"] for i in final["items"]] == [i["name"] for i in items]
    deltas = "".join(data["text"] for name, data in events if name == "delta")
    assert deltas.count("\n") == len(items) - 1  # one item a line
