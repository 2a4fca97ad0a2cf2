"""Topic pages through the real app: the page (momentum, latest papers, related topics, overview), paging,
follow and what is new across an ingest, the reading list, cited overviews of a topic and of one paper."""

from __future__ import annotations

import shutil
from datetime import date, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from papertalk.settings import Settings
from storage.store import Store
from storage.topics import slugify
from tests.api.conftest import TOPIC, assert_problem, client_for
from tests.assistant.test_overview import ingest_new

SLUG = slugify(TOPIC)


@pytest.fixture
def own_dir(corpus_dir: Path, tmp_path: Path) -> Path:
    """A private copy of the session corpus, for tests that write (follows, overviews, new papers)."""
    data = tmp_path / "own"
    shutil.copytree(corpus_dir, data)
    return data


def all_papers(client: TestClient) -> list[dict]:
    page = client.get(f"/api/topics/{SLUG}/papers", params={"limit": 200}).json()
    assert page["total"] == len(page["items"])
    return list(page["items"])


def test_topics_are_listed_by_name_with_their_counts(client: TestClient) -> None:
    topics = client.get("/api/topics").json()
    counts = {t["name"]: t["papers"] for t in topics}
    assert counts[TOPIC] == 30 and len(topics) > 10  # the bundled topics are there too, not scored yet
    assert [t["name"] for t in topics] == sorted(t["name"] for t in topics)


def test_topic_page_momentum_is_measured_at_the_newest_paper_of_a_historical_corpus(client: TestClient) -> None:
    page = client.get(f"/api/topics/{SLUG}").json()
    assert page["name"] == TOPIC and page["papers"] == 30
    assert page["abbreviations"] == {"RL": "Reinforcement Learning", "LLM": "Large Language Model"}
    momentum = page["momentum"]
    listed = client.get("/api/papers", params={"limit": 200}).json()["papers"]
    newest = max(p["published"] for p in listed if p["published"])
    assert momentum["historical"] and momentum["as_of"] == newest
    assert "historical corpus" in momentum["note"] and newest in momentum["note"]
    assert len(momentum["weeks"]) == 13 and momentum["weeks"][-1]["start"] == str(
        date.fromisoformat(newest) - timedelta(days=6)
    )
    assert sum(w["count"] for w in momentum["weeks"][-4:]) == momentum["recent"]
    assert momentum["sentence"].startswith(f"{momentum['recent']} paper")
    assert page["overview"] is None and page["followed"] is False


def test_momentum_as_of_a_day_counts_the_two_windows(client: TestClient) -> None:
    days = [date.fromisoformat(p["published"]) for p in all_papers(client)]
    as_of = sorted(days)[len(days) // 2]
    momentum = client.get(f"/api/topics/{SLUG}", params={"as_of": str(as_of)}).json()["momentum"]
    recent = sum(as_of - timedelta(days=27) <= d <= as_of for d in days)
    previous = sum(as_of - timedelta(days=55) <= d <= as_of - timedelta(days=28) for d in days)
    assert (momentum["recent"], momentum["previous"], momentum["historical"]) == (recent, previous, False)
    corpus = [
        date.fromisoformat(p["published"])
        for p in client.get("/api/papers", params={"limit": 200}).json()["papers"]
        if p["published"]
    ]
    assert momentum["corpus_recent"] == sum(as_of - timedelta(days=27) <= d <= as_of for d in corpus)
    if previous:
        assert momentum["change_pct"] == pytest.approx(100 * (recent - previous) / previous)
    assert_problem(client.get(f"/api/topics/{SLUG}", params={"as_of": "last week"}), 422, "as_of")


def test_latest_papers_newest_first_with_authors_and_top_two_tags(client: TestClient) -> None:
    latest = client.get(f"/api/topics/{SLUG}", params={"limit": 5}).json()["latest"]
    assert latest["total"] == 30 and len(latest["items"]) == 5
    dates = [p["published"] for p in latest["items"]]
    assert dates == sorted(dates, reverse=True)
    for paper in latest["items"]:
        assert paper["authors"] and paper["authors_short"].startswith(paper["authors"][0])
        assert 1 <= len(paper["tags"]) <= 2 and TOPIC in [t["name"] for t in paper["tags"]]
    many = next((p for p in all_papers(client) if len(p["authors"]) > 3), None)
    if many is not None:
        assert many["authors_short"].endswith(f"+{len(many['authors']) - 3}")


def test_topic_papers_page_by_page(client: TestClient) -> None:
    first = client.get(f"/api/topics/{SLUG}/papers", params={"limit": 7}).json()
    last = client.get(f"/api/topics/{SLUG}/papers", params={"limit": 7, "offset": 28}).json()
    assert (first["total"], len(first["items"]), len(last["items"]), last["offset"]) == (30, 7, 2, 28)
    assert not {p["paper_id"] for p in first["items"]} & {p["paper_id"] for p in last["items"]}
    assert_problem(client.get(f"/api/topics/{SLUG}/papers", params={"limit": 0}), 422, "limit")


def test_unknown_topic_or_paper_is_a_404_problem_on_every_route(client: TestClient) -> None:
    for method, path in [
        ("GET", "/api/topics/no-such-topic"),
        ("GET", "/api/topics/no-such-topic/papers"),
        ("POST", "/api/topics/no-such-topic/follow"),
        ("DELETE", "/api/topics/no-such-topic/follow"),
        ("POST", "/api/topics/no-such-topic/overview"),
    ]:
        assert_problem(client.request(method, path), 404, "no topic 'no-such-topic'")
    assert_problem(client.get("/api/papers/0000.00000/overview"), 404, "no indexed paper")
    assert_problem(client.post("/api/papers/0000.00000/save"), 404, "no paper")


def test_related_topics_share_papers_and_say_how_strongly(own_dir: Path) -> None:
    store = Store(Settings(data_dir=own_dir))
    ids = store.topics.paper_ids(SLUG)
    store.topics.assign(store.topics.ensure("Agent Benchmarks"), ids[:6])
    store.close()
    with client_for(own_dir) as client:
        related = client.get(f"/api/topics/{SLUG}").json()["related"]
        bench = next(r for r in related if r["name"] == "Agent Benchmarks")
        assert bench["shared"] == 6 and bench["overlap"] == 1.0 and bench["jaccard"] == pytest.approx(6 / 30)
        assert bench["strength"] == pytest.approx(0.5)  # overlap 1, no centres scored yet
        back = client.get("/api/topics/agent-benchmarks").json()["related"]
        assert [r["slug"] for r in back][:1] == [SLUG]


def test_follow_then_whatsnew_shows_exactly_the_papers_ingested_since(own_dir: Path, tmp_path: Path) -> None:
    with client_for(own_dir) as client:
        followed = client.post(f"/api/topics/{SLUG}/follow").json()
        assert (followed["followed"], followed["changed"], followed["papers"]) == (True, True, 30)
        assert client.post(f"/api/topics/{SLUG}/follow").json()["changed"] is False
        assert client.get(f"/api/topics/{SLUG}").json()["followed"] is True
        assert [(n["slug"], n["papers"]) for n in client.get("/api/whatsnew").json()] == [(SLUG, [])]
    store = Store(Settings(data_dir=own_dir))
    new = ingest_new(store, 30, 3, tmp_path)
    store.close()
    with client_for(own_dir) as client:
        (news,) = client.get("/api/whatsnew").json()
        assert sorted(p["paper_id"] for p in news["papers"]) == sorted(new)
        assert client.get("/api/whatsnew").json()[0]["papers"]  # reading it does not move the last look
        assert len(client.post("/api/whatsnew/seen").json()[0]["papers"]) == 3
        assert client.get("/api/whatsnew").json()[0]["papers"] == []
        gone = client.delete(f"/api/topics/{SLUG}/follow").json()
        assert (gone["followed"], gone["changed"]) == (False, True)
        assert client.get("/api/whatsnew").json() == []


def test_write_routes_need_the_key_when_one_is_set(own_dir: Path) -> None:
    paper = "2510.00001"
    with client_for(own_dir, key="s3cret") as client:
        paper = all_papers(client)[0]["paper_id"]
        for method, path in [
            ("POST", f"/api/topics/{SLUG}/follow"),
            ("DELETE", f"/api/topics/{SLUG}/follow"),
            ("POST", f"/api/topics/{SLUG}/overview"),
            ("POST", "/api/whatsnew/seen"),
            ("POST", f"/api/papers/{paper}/save"),
            ("DELETE", f"/api/papers/{paper}/save"),
        ]:
            assert_problem(client.request(method, path), 401, "api key")
            assert_problem(client.request(method, path, headers={"X-API-Key": "wrong"}), 401, "api key")
        assert client.get(f"/api/topics/{SLUG}").json()["followed"] is False  # nothing was written
        ok = client.post(f"/api/topics/{SLUG}/follow", headers={"Authorization": "Bearer s3cret"})
        assert ok.status_code == 200 and ok.json()["followed"] is True
        assert client.get("/api/whatsnew").status_code == 200  # reading needs no key


def test_reading_list_saves_and_removes_papers(own_dir: Path) -> None:
    with client_for(own_dir) as client:
        first, second = (p["paper_id"] for p in all_papers(client)[:2])
        assert client.post(f"/api/papers/{first}/save").json()["changed"] is True
        saved = client.post(f"/api/papers/arxiv:{second}/save").json()
        assert (saved["paper"]["paper_id"], saved["saved"]) == (second, True)
        assert client.post(f"/api/papers/{first}/save").json()["changed"] is False
        assert [p["paper_id"] for p in client.get("/api/saved").json()] == [second, first]
        assert client.delete(f"/api/papers/{first}/save").json()["changed"] is True
        assert [p["paper_id"] for p in client.get("/api/saved").json()] == [second]


def test_topic_overview_is_built_stored_and_shown_on_the_page_with_its_citations(own_dir: Path) -> None:
    with client_for(own_dir) as client:
        built = client.post(f"/api/topics/{SLUG}/overview").json()
        assert built["changes"]["previous_built_at"] is None and built["papers"] == 30
        topic_ids = {p["paper_id"] for p in all_papers(client)}
        page = client.get(f"/api/topics/{SLUG}").json()
        overview = page["overview"]
        assert overview["answer"]["text"] == built["answer"]["text"] and overview["new_since_built"] == []
        sources = {s["number"]: s for s in overview["answer"]["sources"]}
        cited = [c for s in overview["answer"]["sentences"] for c in s["citations"]]
        assert cited and all(sources[c["number"]]["paper_id"] == c["paper_id"] in topic_ids for c in cited)
        assert all(f"[{c['number']}]" in overview["answer"]["text"] for c in cited)
        assert overview["themes"] and overview["sections"][0]["kind"] == "framing"
        again = client.post(f"/api/topics/{SLUG}/overview").json()
        assert again["changes"]["new_papers"] == [] and again["changes"]["previous_built_at"] == built["built_at"]


def test_one_paper_overview_cites_its_pages(client: TestClient) -> None:
    pdf = next(p for p in client.get("/api/papers", params={"limit": 100}).json()["papers"] if p["source"] == "pdf")
    summary = client.get(f"/api/papers/{pdf['paper_id']}/overview").json()
    assert (summary["kind"], summary["key"], summary["subject"]) == ("paper", pdf["paper_id"], pdf["title"])
    sentences = summary["answer"]["sentences"]
    assert len(sentences) >= 4
    for sentence in sentences:
        (citation,) = sentence["citations"]
        assert citation["paper_id"] == pdf["paper_id"] and 1 <= citation["page_start"] <= pdf["pages"]
    assert all(s["pages"].startswith("p") for s in summary["answer"]["sources"])
