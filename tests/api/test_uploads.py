"""Ask PDF over HTTP: upload, watch the state, ask the paper; limits, content checks, names from clients."""

from __future__ import annotations

import textwrap
from pathlib import Path

from fastapi.testclient import TestClient

from tests.api.conftest import assert_problem, client_for
from tests.helpers.cli import catalog_rows, invoke_cli
from tests.helpers.pdfs import text_pdf
from tests.helpers.topics import demo_records_by_id

LINES = [
    "The Lantern protocol trains zebrafish larvae to follow a moving light in a shallow tank.",
    "Larvae trained with the Lantern protocol reached the light in 14 seconds on average.",
    "Untrained larvae needed 52 seconds to reach the same light, almost four times as long.",
    "The protocol needs one LED strip, a camera and a tank of about twenty centimetres.",
] * 3


def lantern_pdf(tmp_path: Path) -> bytes:
    path = text_pdf(tmp_path / "lantern.pdf", [LINES, LINES[::-1]], title="The Lantern protocol for zebrafish larvae")
    return path.read_bytes()


RAG_PAPER = "2604.09666"  # a retrieval-augmented generation paper of the demo corpus
SCORES = "SELECT paper_id, slug, round(score, 5), assigned FROM topic_scores ORDER BY paper_id, slug"


def rag_pdf(tmp_path: Path) -> Path:
    """A PDF of that paper's title and abstract (a paper on the subject of the bundled RAG topic)."""
    record = demo_records_by_id({RAG_PAPER})[0]
    lines = textwrap.wrap(" ".join(f"{record['title']}. {record['abstract']}".split()), 90)
    return text_pdf(tmp_path / "rag.pdf", [lines], title=record["title"])


def upload(client: TestClient, data: bytes, name: str = "paper.pdf", **headers: str):  # type: ignore[no-untyped-def]
    return client.post("/api/uploads", files={"file": (name, data, "application/pdf")}, headers=headers)


def test_upload_then_state_then_ask_the_uploaded_paper(empty_client: TestClient, tmp_path: Path) -> None:
    data = lantern_pdf(tmp_path)
    sent = upload(empty_client, data)
    assert sent.status_code == 202 and sent.json()["known"] is False
    state = empty_client.get(f"/api/uploads/{sent.json()['upload_id']}").json()
    assert state["status"] == "ready" and state["paper_id"].startswith("pdf-"), state
    answer = empty_client.post(
        "/api/chat",
        json={
            "question": "How long did trained larvae take to reach the light?",
            "scope": {"paper_id": state["paper_id"]},
        },
    ).json()
    assert "14 seconds" in answer["text"] and {s["paper_id"] for s in answer["sources"]} == {state["paper_id"]}
    pdf = empty_client.get(f"/api/papers/{state['paper_id']}/pdf")
    assert pdf.status_code == 200 and pdf.content == data


def test_the_same_pdf_twice_is_recognised_and_not_parsed_again(empty_client: TestClient, tmp_path: Path) -> None:
    data = lantern_pdf(tmp_path)
    first = upload(empty_client, data, "a.pdf").json()
    again = upload(empty_client, data, "b.pdf").json()
    assert again["known"] is True and again["upload_id"] == first["upload_id"]
    assert (
        again["status"] == "ready"
        and again["paper_id"] == empty_client.get(f"/api/uploads/{first['upload_id']}").json()["paper_id"]
    )
    assert empty_client.get("/api/health").json()["papers"] == 1


def test_a_file_that_is_not_a_pdf_is_415_with_a_clear_message(empty_client: TestClient) -> None:
    body = assert_problem(upload(empty_client, b"<html>hello</html>", "page.pdf"), 415, "not a pdf")
    assert "upload a pdf" in str(body["detail"]).lower()
    assert_problem(upload(empty_client, b"", "empty.pdf"), 415, "empty")


def test_a_pdf_over_the_limit_is_413(tmp_path: Path) -> None:
    with client_for(tmp_path / "data", max_upload_mb=0.01) as small:
        body = assert_problem(upload(small, lantern_pdf(tmp_path) + b"\n%" + b"x" * 20_000), 413, "upload limit")
        assert "PAPERTALK_API__MAX_UPLOAD_MB" in str(body["detail"])


def test_an_upload_without_a_file_is_422(empty_client: TestClient) -> None:
    assert_problem(empty_client.post("/api/uploads", data={"x": "1"}), 422, "file")


def test_path_like_file_names_are_harmless(empty_client: TestClient, tmp_path: Path) -> None:
    data = lantern_pdf(tmp_path)
    sent = upload(empty_client, data, "../../etc/passwd.pdf")
    assert sent.status_code == 202 and "passwd" not in sent.text
    data_dir = Path(empty_client.app.state.papertalk.settings.data_dir)  # type: ignore[attr-defined]
    kept = list((data_dir / "uploads").iterdir())
    assert [p.name for p in kept] == [f"{sent.json()['upload_id']}.pdf"] and kept[0].read_bytes() == data
    assert not (data_dir.parent / "etc").exists() and not (data_dir / "etc").exists()


def test_a_pdf_without_text_fails_with_its_reason(empty_client: TestClient, tmp_path: Path) -> None:
    from tests.helpers.pdfs import blank_pdf

    sent = upload(empty_client, blank_pdf(tmp_path / "blank.pdf").read_bytes())
    state = empty_client.get(f"/api/uploads/{sent.json()['upload_id']}").json()
    assert state["status"] == "failed" and "no text layer" in state["reason"]


def test_unknown_upload_is_404(empty_client: TestClient) -> None:
    assert_problem(empty_client.get("/api/uploads/123"), 404, "no upload")


def test_a_pdf_ingested_before_from_the_cli_is_recognised(client: TestClient) -> None:
    from tests.conftest import S2ORC_PDF

    sent = upload(client, S2ORC_PDF.read_bytes(), "s2orc.pdf")
    assert sent.status_code == 202, sent.text
    body = sent.json()
    assert body["known"] is True and body["status"] == "ready"
    assert client.get(f"/api/papers/{body['paper_id']}").json()["source"] == "pdf"


def uploaded_paper(client: TestClient, data: bytes) -> dict[str, object]:
    """Upload `data`, then the JSON of the paper it became."""
    sent = upload(client, data)
    state = client.get(f"/api/uploads/{sent.json()['upload_id']}").json()
    assert state["status"] == "ready", state
    paper: dict[str, object] = client.get(f"/api/papers/{state['paper_id']}").json()
    return paper


def test_an_uploaded_pdf_is_tagged_with_the_topic_it_is_about(empty_client: TestClient, tmp_path: Path) -> None:
    rag = uploaded_paper(empty_client, rag_pdf(tmp_path).read_bytes())
    assert rag["topics"][0] == "Retrieval-Augmented Generation", rag["topics"]  # best score first
    listed = empty_client.get("/api/topics/retrieval-augmented-generation/papers").json()
    assert listed["total"] == 1 and listed["items"][0]["paper_id"] == rag["paper_id"]
    lantern = uploaded_paper(empty_client, lantern_pdf(tmp_path))  # zebrafish larvae: no topic of the registry
    assert lantern["topics"] == []


def test_the_cli_and_the_api_tag_a_pdf_alike(
    empty_client: TestClient, tmp_path: Path, _isolated_data_dir: Path
) -> None:
    """`papertalk ingest` and an upload run the same ingest service: the same paper, the same topic scores."""
    pdf = rag_pdf(tmp_path)
    ingested = invoke_cli("ingest", pdf)
    assert ingested.returncode == 0 and "topics: 1 papers scored" in ingested.stderr, ingested.stderr
    uploaded_paper(empty_client, pdf.read_bytes())
    api_dir = Path(empty_client.app.state.papertalk.settings.data_dir)  # type: ignore[attr-defined]
    from_cli, from_api = catalog_rows(_isolated_data_dir, SCORES), catalog_rows(api_dir, SCORES)
    assert from_cli == from_api and len(from_api) >= 2  # each paper keeps at least its two best scores
    assert "retrieval-augmented-generation" in [row[1] for row in from_api if row[3]]
