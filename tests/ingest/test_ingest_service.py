"""The ingest service both front doors call: ingest, then topics assigned to the papers the run added or changed;
and the demo load built on it, where the topic assigner (not a hand tag) decides each paper's topics."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest import demo
from ingest.arxiv_metadata import record_to_paper
from ingest.service import ingest_papers
from ingest.sources import arxiv_papers
from papertalk.demo import DEMO_TOPIC, DEMO_VERSION
from storage.store import Store
from storage.topics import slugify
from tests.conftest import S2ORC_PDF, demo_records
from tests.helpers.topics import demo_records_by_id

RAG = ["2604.09666", "2501.15228"]  # retrieval-augmented generation papers of the demo corpus
GUI = ["2504.10458"]  # a GUI agent paper
DEMO_SLUG = slugify(DEMO_TOPIC)


def assigned(store: Store, slug: str) -> set[str]:
    """Papers whose stored score puts them in `slug` (what the assigner decided)."""
    rows = store.catalog.query("SELECT paper_id FROM topic_scores WHERE slug = ? AND assigned = 1", (slug,))
    return {r[0] for r in rows}


def hand_tags(store: Store) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in store.catalog.query("SELECT slug, paper_id FROM paper_topics")]


def test_ingest_assigns_topics_to_the_papers_it_added_and_only_those(store: Store) -> None:
    papers = [record_to_paper(r) for r in demo_records_by_id(set(RAG + GUI))]
    done = ingest_papers(store, papers)
    assert not done.failed and done.report.added == 3
    assert done.topics.papers == 3 and done.topics.topics >= 13 and done.topics.assignments >= 3
    assert assigned(store, "retrieval-augmented-generation") == set(RAG)
    assert assigned(store, "web-and-gui-agents") == set(GUI)
    assert hand_tags(store) == []
    again = ingest_papers(store, papers)  # unchanged papers are not scored again
    assert again.report.unchanged == 3 and again.topics.papers == 0


def test_a_topic_given_at_ingest_tags_every_paper_of_the_run(store: Store) -> None:
    papers = [record_to_paper(r) for r in demo_records(3)]
    done = ingest_papers(store, papers, topic="My Reading")
    assert sorted(pid for slug, pid in hand_tags(store) if slug == "my-reading") == sorted(done.report.paper_ids)
    assert done.topics.papers == 3  # and scored against the registry like any ingest
    skipped = ingest_papers(store, [record_to_paper(r) for r in demo_records(5)[3:]], topics=False)
    assert skipped.topics.papers == 0 and store.topics.count_unscored() == 2


@pytest.fixture
def small_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo loader pointed at a small real part of the demo corpus: RAG and GUI papers, 20 more records,
    and one of the bundled PDFs."""
    records = [*demo_records_by_id(set(RAG + GUI)), *demo_records(20)]
    path = tmp_path / "demo.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in {r["id"]: r for r in records}.values()))
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    (pdfs / S2ORC_PDF.name).write_bytes(S2ORC_PDF.read_bytes())
    monkeypatch.setattr(demo, "DEMO_METADATA", path)
    monkeypatch.setattr(demo, "DEMO_PDFS", pdfs)
    return path


def test_demo_load_lets_the_assigner_decide_the_topics(store: Store, small_demo: Path) -> None:
    said: list[str] = []
    load = demo.load_demo_corpus(store, say=said.append)
    assert load is not None and not load.failed
    assert said == [] and "chunk vectors loaded from the shipped file" in load.vectors  # nothing to embed
    assert "embedded here" not in load.vectors  # no sentence either
    stored = store.catalog.query("SELECT COUNT(*) AS n FROM sentence_vectors")[0]["n"]
    assert stored > 100  # every quotable sentence's vector, from the shipped file: answers embed none
    assert [name for name, _ in load.reports] == ["demo papers", "demo PDFs"]
    ids = [pid for _, report in load.reports for pid in report.paper_ids]
    assert len(ids) == 24 and load.topics.papers == 24 and store.topics.count_unscored() == 0
    assert hand_tags(store) == []  # nobody tagged by hand
    members = set(store.topics.paper_ids(DEMO_SLUG))
    assert members == assigned(store, DEMO_SLUG) and 0 < len(members) < 24  # the assigner's choice, not all
    assert set(store.topics.paper_ids("retrieval-augmented-generation")) >= set(RAG)  # neighbours get theirs
    assert store.catalog.get_meta(demo.DEMO_META) == DEMO_VERSION and demo.demo_loaded(store)
    assert demo.load_demo_corpus(store) is None  # loaded once


def test_a_store_loaded_by_an_older_demo_version_gets_the_shipped_sentence_vectors(
    store: Store, small_demo: Path
) -> None:
    """A demo loaded before its sentence vectors shipped: loading the new version keeps every paper as it is
    (nothing embedded) and stores the sentence vectors of the papers it kept, from the shipped file."""
    first = demo.load_demo_corpus(store)
    assert first is not None and not first.failed and first.sentences_kept == 0  # a fresh load stored them all
    count = "SELECT COUNT(*) AS n FROM sentence_vectors"
    full = store.catalog.query(count)[0]["n"]
    store.catalog.transaction([("DELETE FROM sentence_vectors", ())])  # as the older version left the store
    store.catalog.set_meta(demo.DEMO_META, "2")
    again = demo.load_demo_corpus(store)
    assert again is not None and not again.failed
    assert [report.unchanged for _, report in again.reports] == [23, 1]  # nothing ingested again
    assert again.sentences_kept == full == store.catalog.query(count)[0]["n"]
    assert store.embedder.sentence_misses() == 0  # type: ignore[attr-defined]  # all served by the shipped file
    assert demo.demo_loaded(store) and demo.load_demo_corpus(store) is None


def test_a_store_loaded_with_hand_tags_gets_the_assigners_topics(store: Store, small_demo: Path) -> None:
    """A demo loaded by the version that tagged every record with the demo topic: loading again removes those
    tags (nothing is ingested or scored again), so the topic holds what the assigner put there."""
    report = ingest_papers(store, arxiv_papers(small_demo)).report
    store.topics.assign(store.topics.ensure(DEMO_TOPIC), report.paper_ids)
    store.catalog.set_meta(demo.DEMO_META, demo.HAND_TAGGED)
    assert len(store.topics.paper_ids(DEMO_SLUG)) == 23
    load = demo.load_demo_corpus(store)
    assert load is not None and load.reports[0][1].unchanged == 23
    assert hand_tags(store) == [] and set(store.topics.paper_ids(DEMO_SLUG)) == assigned(store, DEMO_SLUG)
    assert len(store.topics.paper_ids(DEMO_SLUG)) < 23
