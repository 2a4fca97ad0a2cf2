"""Topic overviews on a real corpus: cited sentences of the topic's papers, no near-duplicates, stored with
what they were built from, and refreshed after new papers arrive with exactly those papers reported."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import assistant.overview as overview_module
from assistant.overview import OverviewService
from assistant.overview_types import Overview
from assistant.scoring import terms
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers
from papertalk.errors import NotFound
from papertalk.settings import Settings
from storage.embeddings import MODEL_DIM, embed_texts
from storage.sentence_vectors import unpack
from storage.store import Store
from tests.assistant.conftest import TOPIC
from tests.conftest import demo_records


@pytest.fixture
def own_corpus(corpus_dir: Path, tmp_path: Path) -> Iterator[Store]:
    """A private copy of the session corpus: these tests store overviews and ingest papers."""
    data = tmp_path / "own"
    shutil.copytree(corpus_dir, data)
    store = Store(Settings(data_dir=data))
    yield store
    store.close()


def ingest_new(store: Store, first: int, count: int, tmp_path: Path) -> list[str]:
    """Ingest demo records first..first+count (not in the corpus yet), tagged with the topic."""
    import json

    records = tmp_path / f"new-{first}.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in demo_records(first + count)[first:]))
    report = Ingestor(store).run(arxiv_papers(records))
    assert report.added == count
    store.topics.assign(store.topics.ensure(TOPIC), report.paper_ids)
    return report.paper_ids


def assert_cited_from_topic(overview: Overview, topic_ids: set[str]) -> None:
    answer = overview.answer
    assert answer.sentences and answer.sources
    by_number = {p.number: p for p in answer.sources}
    for sentence in answer.sentences:
        assert sentence.citations, f"uncited sentence: {sentence.text}"
        for c in sentence.citations:
            source = by_number[c.number]
            assert c.paper_id == source.paper_id and c.paper_id in topic_ids
            assert " ".join(source.text[c.span_start : c.span_end].split()) == sentence.text
            assert f"[{c.number}]" in answer.text


def test_every_citation_resolves_to_a_paper_of_the_topic(own_corpus: Store) -> None:
    overview = OverviewService(own_corpus).build(TOPIC)
    topic_ids = set(own_corpus.topics.paper_ids(overview.key))
    assert_cited_from_topic(overview, topic_ids)
    assert overview.cited_papers() <= topic_ids
    outside = {p.paper_id for p in own_corpus.catalog.list_papers(limit=100)} - topic_ids
    assert outside and not overview.cited_papers() & outside  # the two PDFs are in the store, not the topic
    kinds = [s.kind for s in overview.sections]
    assert kinds[0] == "framing" and "theme" in kinds
    assert kinds.index("theme") < (kinds.index("challenges") if "challenges" in kinds else len(kinds))
    assert sorted(i for s in overview.sections for i in s.sentences) == list(range(len(overview.answer.sentences)))


def test_no_two_sentences_are_near_duplicates(own_corpus: Store) -> None:
    overview = OverviewService(own_corpus).build(TOPIC)
    texts = [s.text for s in overview.answer.sentences]
    assert len(texts) >= 4
    vectors = embed_texts(own_corpus.embedder, texts)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    words = terms(texts)
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            assert float(vectors[i] @ vectors[j]) < 0.92, (texts[i], texts[j])
            assert len(words[i] & words[j]) / len(words[i] | words[j]) <= 0.6, (texts[i], texts[j])


def test_the_overview_is_stored_with_what_it_was_built_from(own_corpus: Store) -> None:
    service = OverviewService(own_corpus)
    assert service.stored(TOPIC) is None
    built = service.build(TOPIC)
    again = OverviewService(Store(Settings(data_dir=own_corpus.settings.data_dir))).stored(TOPIC)
    assert again is not None
    assert again.answer.text == built.answer.text
    assert again.paper_ids == built.paper_ids == own_corpus.topics.paper_ids(built.key)
    assert [t.paper_ids for t in again.themes] == [t.paper_ids for t in built.themes]
    assert again.built_at == built.built_at and again.backend == "extractive"
    assert [s.sentences for s in again.sections] == [s.sentences for s in built.sections]


@pytest.mark.parametrize("recluster", [False, True], ids=["new-papers-join-themes", "clustered-again"])
def test_refresh_reports_exactly_the_new_papers(
    own_corpus: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recluster: bool
) -> None:
    threshold = 0.0 if recluster else 10.0
    monkeypatch.setattr(overview_module, "RECLUSTER_CHANGED", threshold)
    monkeypatch.setattr(overview_module, "RECLUSTER_GROWTH", threshold)
    service = OverviewService(own_corpus)
    before = service.build(TOPIC)
    new = ingest_new(own_corpus, 30, 4, tmp_path)
    assert service.new_since(before) == new
    after, changes = service.refresh(TOPIC)
    assert changes.new_papers == new and not changes.removed_papers
    assert changes.reclustered is recluster
    assert changes.previous_built_at == before.built_at
    assert sorted(after.paper_ids) == sorted(before.paper_ids + new)
    assert sorted(pid for t in after.themes for pid in t.paper_ids) == sorted(after.paper_ids)
    reported = [pid for t in changes.new_themes + changes.grown_themes for pid in t.added]
    assert sorted(reported) == sorted(new)  # each new paper is in exactly one new or grown theme
    old_text = {s.text for s in before.answer.sentences}
    new_text = {s.text for s in after.answer.sentences}
    assert set(changes.sentences_added) == new_text - old_text
    assert set(changes.sentences_removed) == old_text - new_text
    assert_cited_from_topic(after, set(after.paper_ids))
    if not recluster:
        assert [t.theme_id for t in after.themes] == [t.theme_id for t in before.themes]
        assert not changes.new_themes
    again, nothing = service.refresh(TOPIC)
    assert nothing.nothing and again.answer.text == after.answer.text


def test_refresh_without_a_stored_overview_builds_one(own_corpus: Store) -> None:
    overview, changes = OverviewService(own_corpus).refresh(TOPIC)
    assert changes.previous_built_at is None and overview.answer.sentences


def test_unknown_topic_and_empty_topic_say_what_to_do(own_corpus: Store) -> None:
    service = OverviewService(own_corpus)
    with pytest.raises(NotFound, match="no topic 'nope'"):
        service.build("nope")
    own_corpus.topics.ensure("Empty Topic")
    with pytest.raises(NotFound, match=r"no indexed papers yet.*ingest-arxiv"):
        service.build("Empty Topic")


def test_sentence_vectors_are_cached_and_a_rebuild_embeds_nothing(
    own_corpus: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import assistant.overview_text as overview_text
    from ingest.sentences import split_sentences

    service = OverviewService(own_corpus)
    first = service.build(TOPIC)
    rows = own_corpus.catalog.query("SELECT chunk_id, span_start, vector FROM sentence_vectors")
    assert len(rows) >= len(first.answer.sentences)
    for row in rows[:5]:  # what is cached is what the model gives for that sentence
        chunk = own_corpus.catalog.chunks_by_id([row["chunk_id"]])[row["chunk_id"]]
        sentence = next(s for s in split_sentences(chunk.text) if s.start == row["span_start"])
        fresh = embed_texts(own_corpus.embedder, [sentence.text], short=True)[0]
        assert np.allclose(unpack(row["vector"], MODEL_DIM), fresh, atol=2e-3)  # stored as float16
    calls: list[int] = []
    real = overview_text.embed_texts
    monkeypatch.setattr(overview_text, "embed_texts", lambda *a, **k: calls.append(1) or real(*a, **k))
    second = OverviewService(own_corpus).build(TOPIC)
    assert second.answer.text == first.answer.text and calls == []


def test_a_store_from_before_overviews_is_migrated_and_keeps_its_papers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from storage import migrations
    from storage.catalog import Catalog
    from storage.migrations import current_version
    from storage.overviews import Overviews

    path = tmp_path / "catalog.sqlite3"
    with monkeypatch.context() as m:
        m.setattr(migrations, "MIGRATIONS", [migrations.m001_initial])
        old = Catalog(path)
        old.set_meta("chunks_version", "3")
        old.close()
    catalog = Catalog(path)
    assert catalog.schema_version == current_version() and catalog.chunks_version == 3
    tables = {r[0] for r in catalog.query("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"overviews", "sentence_vectors"} <= tables
    assert Overviews(catalog).get("anything") is None
    catalog.close()
