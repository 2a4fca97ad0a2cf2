"""POST /api/chat as JSON and as Server-Sent Events, and conversations, through the real app."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from tests.api.conftest import TOPIC, assert_problem

QUESTION = "How many papers and full texts does S2ORC contain?"


def parse_sse(text: str) -> list[tuple[str, dict]]:
    """(event, data) of each frame; every frame is `event:` then one `data:` line of JSON."""
    events = []
    for frame in text.strip().split("\n\n"):
        lines = frame.split("\n")
        assert lines[0].startswith("event: ") and lines[1].startswith("data: "), frame
        events.append((lines[0][7:], json.loads(lines[1][6:])))
    return events


def cited_numbers(answer: dict) -> list[int]:
    return [c["number"] for s in answer["sentences"] for c in s["citations"]]


def test_chat_returns_a_cited_answer_with_spans(client: TestClient) -> None:
    response = client.post("/api/chat", json={"question": QUESTION})
    assert response.status_code == 200
    answer = response.json()
    assert not answer["abstained"] and "S2ORC" in answer["text"]
    citation = answer["sentences"][0]["citations"][0]
    source = answer["sources"][citation["number"] - 1]
    assert source["text"][citation["span_start"] : citation["span_end"]] == citation["quote"]
    assert source["pages"].startswith("p") and source["page_start"] >= 1
    assert answer["conversation_id"] is None


def test_streamed_answer_is_deltas_then_the_same_cited_answer_then_done(client: TestClient) -> None:
    plain = client.post("/api/chat", json={"question": QUESTION}).json()
    response = client.post("/api/chat", json={"question": QUESTION}, headers={"Accept": "text/event-stream"})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    names = [name for name, _ in events]
    assert names[-2:] == ["answer", "done"] and set(names[:-2]) == {"delta"} and len(names) >= 3
    streamed = events[-2][1]
    assert streamed == plain
    assert "".join(data["text"] for name, data in events if name == "delta") == plain["text"]
    assert cited_numbers(streamed) and cited_numbers(streamed) == cited_numbers(plain)


def test_stream_query_flag_and_stream_route_give_the_same_frames(client: TestClient) -> None:
    by_flag = client.post("/api/chat?stream=true", json={"question": QUESTION})
    by_route = client.post("/api/chat/stream", json={"question": QUESTION})
    assert parse_sse(by_flag.text) == parse_sse(by_route.text)


def test_malformed_bodies_are_422_problems(client: TestClient) -> None:
    assert_problem(client.post("/api/chat", json={"q": "x"}), 422, "question")
    assert_problem(client.post("/api/chat", content=b"{not json", headers={"Content-Type": "application/json"}), 422)
    assert_problem(client.post("/api/chat", json={"question": "x", "scope": {"since": "yesterday"}}), 422, "since")
    assert_problem(client.post("/api/chat", json={"question": "   "}), 422, "empty")


def test_a_question_over_the_limit_is_422(client: TestClient) -> None:
    assert_problem(client.post("/api/chat", json={"question": "why " * 600}), 422, "under 2,000")


def test_unknown_topic_or_paper_in_the_scope_is_404_even_when_streaming(client: TestClient) -> None:
    assert_problem(client.post("/api/chat", json={"question": "x?", "scope": {"topic": "no such"}}), 404, "no topic")
    streamed = client.post("/api/chat/stream", json={"question": "x?", "scope": {"paper_id": "nope"}})
    assert_problem(streamed, 404, "not indexed")


def test_an_empty_store_says_how_to_add_papers(empty_client: TestClient) -> None:
    assert_problem(empty_client.post("/api/chat", json={"question": "What is S2ORC?"}), 409, "papertalk demo")


def test_topic_scope_answers_from_that_topic_only(client: TestClient) -> None:
    answer = client.post("/api/chat", json={"question": "reinforcement learning agents", "scope": {"topic": TOPIC}})
    assert answer.status_code == 200
    ids = {s["paper_id"] for s in answer.json()["sources"]}
    in_topic = {
        p["paper_id"] for p in client.get("/api/papers", params={"topic": TOPIC, "limit": 200}).json()["papers"]
    }
    assert ids and ids <= in_topic


def test_a_paper_named_outside_the_topic_is_pointed_to_in_json_and_in_the_stream(client: TestClient) -> None:
    body = {"question": QUESTION, "scope": {"topic": TOPIC}}  # S2ORC is in the library, not in the topic
    plain = client.post("/api/chat", json=body).json()
    assert plain["abstained"] and [r["name"] for r in plain["elsewhere"]] == ["S2ORC"]
    (ref,) = plain["elsewhere"]
    assert ref["title"].startswith("S2ORC") and ref["paper_id"] in plain["text"]
    paper = client.get(f"/api/papers/{ref['paper_id']}")
    assert paper.status_code == 200 and paper.json()["title"] == ref["title"]
    events = parse_sse(client.post("/api/chat/stream", json=body).text)
    assert events[-2][0] == "answer" and events[-2][1]["elsewhere"] == plain["elsewhere"]
    assert "".join(data["text"] for name, data in events if name == "delta") == plain["text"]


def test_conversation_lifecycle(client: TestClient) -> None:
    created = client.post("/api/conversations", json={"scope": {}, "title": "S2ORC"})
    assert created.status_code == 201
    cid = created.json()["conversation_id"]
    first = client.post("/api/chat", json={"question": "What is the S2ORC corpus?", "conversation_id": cid})
    follow = client.post("/api/chat", json={"question": "How many papers does it contain?", "conversation_id": cid})
    assert first.status_code == follow.status_code == 200
    assert "S2ORC" in follow.json()["standalone_question"] and follow.json()["conversation_id"] == cid
    assert cid in [c["conversation_id"] for c in client.get("/api/conversations").json()]
    turns = client.get(f"/api/conversations/{cid}").json()["turns"]
    assert [t["question"] for t in turns] == ["What is the S2ORC corpus?", "How many papers does it contain?"]
    assert turns[1]["answer"]["text"] == follow.json()["text"]
    assert client.delete(f"/api/conversations/{cid}").status_code == 204
    assert_problem(client.get(f"/api/conversations/{cid}"), 404, "no chat")
    assert_problem(client.delete(f"/api/conversations/{cid}"), 404)


def test_conversation_in_an_unknown_topic_is_refused(client: TestClient) -> None:
    assert_problem(client.post("/api/conversations", json={"scope": {"topic": "nope"}}), 404, "no topic")
