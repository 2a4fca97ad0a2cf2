"""An answer's sources grouped by paper: each paper once in `papers`, with the numbered places cited in it;
the numbers are those of `sources` and of the [n] markers, in the JSON answer and in the streamed one."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.api.test_chat import parse_sse

QUESTION = "How many papers and full texts does S2ORC contain?"  # several passages of the S2ORC paper


def assert_grouped(answer: dict) -> None:
    papers = answer["papers"]
    assert [p["paper_id"] for p in papers] == list(dict.fromkeys(s["paper_id"] for s in answer["sources"]))
    numbers = [place["number"] for p in papers for place in p["places"]]
    assert sorted(numbers) == [s["number"] for s in answer["sources"]]
    paper_of = {place["number"]: p["paper_id"] for p in papers for place in p["places"]}
    for sentence in answer["sentences"]:
        for citation in sentence["citations"]:
            assert paper_of[citation["number"]] == citation["paper_id"]
    for p in papers:
        places = [place["place"] for place in p["places"]]
        assert len(places) == len(set(places)), places  # a reader tells the places of one paper apart


def test_sources_are_grouped_by_paper_in_json_and_stream(client: TestClient) -> None:
    plain = client.post("/api/chat", json={"question": QUESTION}).json()
    assert_grouped(plain)
    assert any(len(p["places"]) > 1 for p in plain["papers"]), plain["papers"]  # one paper, several passages
    assert len(plain["papers"]) < len(plain["sources"])
    streamed = parse_sse(client.post("/api/chat/stream", json={"question": QUESTION}).text)
    answer = next(data for name, data in streamed if name == "answer")
    assert answer["papers"] == plain["papers"]
