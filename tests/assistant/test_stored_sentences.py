"""Offline answers read the sentence vectors ingest stored: every retrieved sentence is scored, none is embedded
while the user waits, and abstention weighs what it weighed before."""

from __future__ import annotations

import pytest

import assistant.extractive as extractive
from assistant.extractive import PREFILTER, ExtractiveAnswerer
from assistant.passages import distinct_sources
from assistant.service import Assistant
from assistant.stored_sentences import stored_lookup
from assistant.types import Scope
from ingest.sentences import split_sentences, usable
from storage.store import Store
from tests.assistant.conftest import TOPIC
from tests.assistant.test_sources import passage

QUESTION = "How are rewards designed for training LLM agents with reinforcement learning?"


def test_an_answer_from_an_ingested_corpus_embeds_no_sentence(corpus: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    embedded: list[int] = []
    real = extractive.similarities
    monkeypatch.setattr(
        extractive, "similarities", lambda m, q, texts: embedded.append(len(texts)) or real(m, q, texts)
    )
    answer = Assistant(corpus).ask(QUESTION, Scope(topic=TOPIC))
    assert not answer.abstained and answer.sentences and answer.sentences[0].citations
    assert embedded == []


def test_every_retrieved_sentence_is_scored_and_abstention_weighs_the_prefiltered_ones_as_before(
    corpus: Store,
) -> None:
    sources = Assistant(corpus).sources(QUESTION, Scope(topic=TOPIC))
    settings = corpus.settings.answer
    with_stored = ExtractiveAnswerer(corpus.embedder, settings, stored=stored_lookup(corpus.sentence_vectors))
    without = ExtractiveAnswerer(corpus.embedder, settings)
    pool = [s for p in sources for s in split_sentences(p.text) if usable(s)]
    scored, best = with_stored._score(QUESTION, sources)
    prefiltered, best_before = without._score(QUESTION, sources)
    assert len(pool) > 2 * PREFILTER and len(scored) == len(pool) and len(prefiltered) == PREFILTER
    assert best == pytest.approx(best_before, abs=5e-3)  # the same six sentences; stored vectors are float16
    probability = with_stored.evidence(QUESTION, sources).probability()
    assert probability == pytest.approx(without.evidence(QUESTION, sources).probability(), abs=1e-2)


def test_an_abstract_read_as_one_source_finds_the_vectors_of_all_its_chunks(corpus: Store) -> None:
    rows = corpus.catalog.query("SELECT paper_id FROM papers WHERE n_chunks >= 2 AND n_pages = 0 ORDER BY paper_id")
    assert rows, "the corpus has an abstract-only paper in two chunks"
    chunks = corpus.catalog.chunks_of(rows[0]["paper_id"])
    merged = distinct_sources([passage(corpus, c) for c in chunks], corpus.catalog)
    assert len(merged) == 1 and merged[0].chunk_id == chunks[0].chunk_id
    found = stored_lookup(corpus.sentence_vectors)(merged)
    in_chunks = [{s.text for s in split_sentences(c.text) if usable(s)} for c in chunks]
    whole = {s.text for s in split_sentences(merged[0].text) if usable(s)} & set().union(*in_chunks)
    assert whole <= set(found)
    assert (in_chunks[-1] - in_chunks[0]) & set(found)  # sentences only the later chunk holds are found too


def test_the_learned_scorer_reads_the_stored_vectors_too(corpus: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    sources = Assistant(corpus).sources(QUESTION, Scope(topic=TOPIC))
    embedded: list[int] = []
    real = extractive.similarities
    spy = lambda m, q, texts: embedded.append(len(texts)) or real(m, q, texts)  # noqa: E731
    monkeypatch.setattr(extractive, "similarities", spy)
    lookup = stored_lookup(corpus.sentence_vectors)
    answer = ExtractiveAnswerer(corpus.embedder, corpus.settings.answer, "learned", lookup).answer(
        QUESTION, QUESTION, sources
    )
    assert not answer.abstained and answer.sentences and answer.sentences[0].citations
    assert embedded == []
