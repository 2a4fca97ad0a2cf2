"""Topic pages over a real store: momentum from catalog dates, latest papers, related topics, follow and
what's new across two ingests, the reading list."""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

import pytest

from assistant.topics import TopicService, short_authors
from ingest.arxiv_metadata import record_to_paper
from ingest.pipeline import Ingestor
from ingest.service import ingest_papers
from papertalk.errors import ConfigurationError, NotFound
from storage.records import Paper
from storage.store import Store
from tests.conftest import demo_records
from tests.helpers.topics import demo_records_by_id

AS_OF = date(2025, 9, 30)
RAG_FIRST = ["2604.09666", "2501.15228"]
GUI_FIRST = ["2504.10458"]
RAG_LATER = ["2604.09508"]
GUI_LATER = ["2601.09770", "2603.17441"]
OTHER_LATER = ["2412.12464"]  # recommendation: in neither followed topic


def _papers(ids: list[str]) -> list[Paper]:
    return [record_to_paper(r) for r in demo_records_by_id(set(ids))]


def _ingest(store: Store, papers: list[Paper]) -> list[str]:
    return ingest_papers(store, papers).report.paper_ids  # the ingest both the CLI and the API run


def test_short_authors() -> None:
    assert short_authors(["A", "B", "C", "D", "E"]) == "A, B, C +2"
    assert short_authors(["A", "B", "C"]) == "A, B, C"
    assert short_authors([]) == ""


def test_momentum_and_latest_from_catalog_dates(store: Store) -> None:
    records = [record_to_paper(r) for r in demo_records(6)]
    offsets = [0, 27, 28, 55, 56, 3]  # days before AS_OF
    papers = [replace(p, published=AS_OF - timedelta(days=k)) for p, k in zip(records, offsets, strict=True)]
    Ingestor(store).run(papers)
    slug = store.topics.ensure("Dated")
    store.topics.assign(slug, [p.paper_id for p in papers[:5]])  # the sixth is in the corpus only
    service = TopicService(store)
    page = service.page("Dated", limit=2, today=AS_OF + timedelta(days=400))
    m = page.momentum
    assert m.as_of.day == AS_OF and m.as_of.historical  # the corpus ended long before "today"
    assert (m.recent, m.previous, m.corpus_recent) == (2, 2, 3)
    assert m.change_pct == 0.0 and round(m.share_pct or 0, 1) == 66.7
    assert sum(w.count for w in m.weeks[-4:]) == 2
    assert page.latest.total == 5
    assert [p.paper_id for p in page.latest.items] == [papers[0].paper_id, papers[1].paper_id]
    second = service.latest(page.topic, limit=2, offset=2).items
    assert [p.paper_id for p in second] == [papers[2].paper_id, papers[3].paper_id]
    asked = service.page("dated", as_of=AS_OF - timedelta(days=28))
    assert (asked.momentum.recent, asked.momentum.previous) == (2, 1) and not asked.momentum.as_of.historical
    assert page.to_dict()["momentum"]["weeks"][-1]["start"] == (AS_OF - timedelta(days=6)).isoformat()


def test_follow_and_whatsnew_across_two_ingests(store: Store) -> None:
    service = TopicService(store)
    _ingest(store, _papers(RAG_FIRST + GUI_FIRST))
    rag, new = service.follow("Retrieval-Augmented Generation")
    assert new and service.follow("retrieval-augmented-generation")[1] is False
    service.follow("web-and-gui-agents")
    assert [(n.topic.slug, n.papers) for n in service.whatsnew()] == [
        ("retrieval-augmented-generation", []),
        ("web-and-gui-agents", []),
    ]
    _ingest(store, _papers(RAG_LATER + GUI_LATER + OTHER_LATER))
    peek = service.whatsnew(mark_seen=False)
    news = {n.topic.slug: {p.paper_id for p in n.papers} for n in service.whatsnew()}
    assert news == {"retrieval-augmented-generation": set(RAG_LATER), "web-and-gui-agents": set(GUI_LATER)}
    assert {n.topic.slug: {p.paper_id for p in n.papers} for n in peek} == news  # peeking did not move the look
    assert all(not n.papers for n in service.whatsnew())  # the look moved on
    Ingestor(store).run([replace(_papers(RAG_LATER)[0], abstract="Changed abstract about retrieval.")])
    assert all(not n.papers for n in service.whatsnew())  # an updated paper is not a new one
    assert service.unfollow(rag.slug)[1] is True
    assert [n.topic.slug for n in service.whatsnew()] == ["web-and-gui-agents"]


def test_related_topics_and_page_json(store: Store) -> None:
    _ingest(store, _papers(RAG_FIRST + RAG_LATER + GUI_FIRST + GUI_LATER))
    page = TopicService(store).page("web-and-gui-agents")
    assert page.topic.papers == 3 and page.abbreviations_text().startswith("GUI: Graphical User Interface")
    related = {r.slug: r for r in page.related}
    assert related and all(0 <= r.strength <= 1 for r in page.related)
    strengths = [r.strength for r in page.related]
    assert strengths == sorted(strengths, reverse=True)
    assert all(r.shared == 0 or r.overlap > 0 for r in page.related)
    data = page.to_dict()
    assert data["slug"] == "web-and-gui-agents" and data["latest"]["total"] == 3 and data["unscored"] == 0
    assert all(len(item["tags"]) <= 2 for item in data["latest"]["items"])


def test_reading_list(store: Store) -> None:
    service = TopicService(store)
    _ingest(store, _papers(RAG_FIRST))
    item, new = service.save(f"arxiv:{RAG_FIRST[0]}")
    assert new and item.paper_id == RAG_FIRST[0]
    assert service.save(RAG_FIRST[0])[1] is False
    service.save(RAG_FIRST[1])
    assert {p.paper_id for p in service.saved()} == set(RAG_FIRST)
    assert service.unsave(RAG_FIRST[0])[1] is True and [p.paper_id for p in service.saved()] == [RAG_FIRST[1]]
    with pytest.raises(NotFound, match="papertalk papers list"):
        service.save("9999.99999")


def test_adding_a_topic_needs_a_description_or_examples_in_the_catalog(store: Store) -> None:
    service = TopicService(store)
    with pytest.raises(ConfigurationError, match="--description or at least one --example-paper"):
        service.add("Empty")
    with pytest.raises(NotFound, match=r"'2501\.00001' is not in the catalog"):
        service.add("By example", examples=["2501.00001"])
    with pytest.raises(ConfigurationError, match="field 'categories' holds 'not a category'"):
        service.add("Bad", description="x", categories=["not a category"])
