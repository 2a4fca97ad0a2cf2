"""Papers and health through the real app over the answer corpus (topics: test_topics.py)."""

from __future__ import annotations

from fastapi.testclient import TestClient

from papertalk.settings import Settings
from storage.catalog import Catalog
from tests.api.conftest import TOPIC, assert_problem


def test_papers_list_pages_newest_first(client: TestClient) -> None:
    first = client.get("/api/papers", params={"limit": 5}).json()
    second = client.get("/api/papers", params={"limit": 5, "offset": 5}).json()
    assert first["total"] == 32 and len(first["papers"]) == len(second["papers"]) == 5
    dates = [p["published"] for p in first["papers"] + second["papers"] if p["published"]]
    assert dates == sorted(dates, reverse=True)
    assert not {p["paper_id"] for p in first["papers"]} & {p["paper_id"] for p in second["papers"]}


def test_papers_search_by_words_topic_and_date(client: TestClient) -> None:
    found = client.get("/api/papers", params={"q": "S2ORC corpus"}).json()
    assert found["total"] >= 1 and all("s2orc" in (p["title"] + p["abstract"]).lower() for p in found["papers"])
    in_topic = client.get("/api/papers", params={"topic": TOPIC, "limit": 200}).json()
    assert in_topic["total"] == 30 and all(p["source"] != "pdf" for p in in_topic["papers"])
    day = in_topic["papers"][10]["published"]
    since = client.get("/api/papers", params={"topic": TOPIC, "since": day, "limit": 200}).json()
    assert 0 < since["total"] < 30 and all(p["published"] >= day for p in since["papers"])
    until = client.get("/api/papers", params={"until": day, "topic": TOPIC, "limit": 200}).json()
    assert all(p["published"] <= day for p in until["papers"])
    assert client.get("/api/papers", params={"q": "100%_"}).json()["total"] == 0  # LIKE wildcards are literal


def test_papers_with_an_unknown_topic_or_bad_paging_are_refused(client: TestClient) -> None:
    assert_problem(client.get("/api/papers", params={"topic": "nope"}), 404, "no topic")
    assert_problem(client.get("/api/papers", params={"limit": 0}), 422, "limit")
    assert_problem(client.get("/api/papers", params={"since": "May"}), 422, "since")


def test_one_paper_and_its_pdf_opened_at_a_page(client: TestClient) -> None:
    pdfs = [p for p in client.get("/api/papers", params={"limit": 100}).json()["papers"] if p["source"] == "pdf"]
    assert len(pdfs) == 2
    paper = client.get(f"/api/papers/{pdfs[0]['paper_id']}").json()
    assert paper["pdf_url"] == f"/api/papers/{paper['paper_id']}/pdf" and paper["pages"] > 1
    pdf = client.get(paper["pdf_url"])
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-") and pdf.headers["content-disposition"].startswith("inline")


def test_unknown_paper_and_a_paper_without_a_kept_pdf_are_404(client: TestClient) -> None:
    assert_problem(client.get("/api/papers/0000.00000"), 404, "no paper")
    assert_problem(client.get("/api/papers/0000.00000/pdf"), 404, "no paper")
    record = client.get("/api/papers", params={"topic": TOPIC, "limit": 1}).json()["papers"][0]
    assert record["pdf_url"] is None and TOPIC in client.get(f"/api/papers/{record['paper_id']}").json()["topics"]
    assert_problem(client.get(f"/api/papers/{record['paper_id']}/pdf"), 404, "keeps no pdf")


def test_a_catalog_path_outside_the_data_dir_is_never_served(empty_client: TestClient, tmp_path) -> None:
    outside = tmp_path / "secret.pdf"
    outside.write_bytes(b"%PDF-1.4 not for the web")
    settings: Settings = empty_client.app.state.papertalk.settings  # type: ignore[attr-defined]
    catalog = Catalog(settings.catalog_path)
    catalog.transaction(
        [
            (
                "INSERT INTO papers(paper_id, title, source, path, content_hash, status, added_at, updated_at) "
                "VALUES('pdf-x', 'x', 'pdf', ?, 'h', 'indexed', 'now', 'now')",
                (str(outside),),
            )
        ]
    )
    catalog.close()
    assert empty_client.get("/api/papers/pdf-x").json()["pdf_url"] is None
    assert_problem(empty_client.get("/api/papers/pdf-x/pdf"), 404, "keeps no pdf")


def test_health_and_readiness_count_the_store(client: TestClient, empty_client: TestClient) -> None:
    health = client.get("/api/health").json()
    assert health["status"] == "ok" and health["papers_indexed"] == 32 and health["chunks"] > 32
    ready = client.get("/api/ready").json()
    assert ready["status"] == "ready" and ready["vectors"] == health["chunks"]
    assert empty_client.get("/api/health").json()["papers"] == 0


def test_openapi_documents_every_route(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in [
        "/api/chat",
        "/api/chat/stream",
        "/api/conversations/{conversation_id}",
        "/api/papers/{paper_id}/pdf",
        "/api/uploads",
        "/api/uploads/{upload_id}",
        "/api/topics/{slug}",
        "/api/topics/{slug}/papers",
        "/api/topics/{slug}/follow",
        "/api/topics/{slug}/overview",
        "/api/whatsnew",
        "/api/saved",
        "/api/papers/{paper_id}/overview",
        "/api/health",
        "/api/ready",
    ]:
        assert path in paths
    assert "cited" in paths["/api/chat"]["post"]["description"]
    assert client.get("/docs").status_code == 200
