"""The catalog on PostgreSQL with vectors on a Chroma server behaves as the embedded stores: the same
ingest, topics, answers, chats, follows and reading list, step by step."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from assistant.service import Assistant
from assistant.types import Scope
from ingest.arxiv_metadata import RecordFilter
from ingest.pipeline import Ingestor
from ingest.sentence_vectors import fill, missing_chunks
from ingest.sources import arxiv_papers, pdf_papers
from ingest.topic_assign import TopicAssigner
from papertalk.settings import Settings
from storage.pg_catalog import PgCatalog
from storage.store import Store
from tests.conftest import demo_records
from tests.helpers.pdfs import text_pdf
from tests.scaleout.conftest import write_records

pytestmark = [pytest.mark.scaleout, pytest.mark.slow]
RAG = "retrieval-augmented-generation"


def _answer(answer: Any) -> dict[str, Any]:
    data = dataclasses.asdict(answer)
    return {k: data[k] for k in ("text", "abstained", "removed_citations")} | {
        "sources": [(s["chunk_id"], round(s["score"], 6)) for s in data["sources"]]
    }


def _sentence_vectors(store: Store) -> list[Any]:
    """The sentence vectors ingest stored (none left behind by a replaced chunk), then the same refilled."""
    counts = "SELECT count(*), count(DISTINCT chunk_id) FROM sentence_vectors"
    orphans = "SELECT count(*) FROM sentence_vectors WHERE chunk_id NOT IN (SELECT chunk_id FROM chunks)"
    stored = store.catalog.query(counts)[0]
    out: list[Any] = [(stored[0], stored[1], store.catalog.query(orphans)[0][0])]
    store.catalog.transaction([("DELETE FROM sentence_vectors", ())])
    out.append(fill(store, missing_chunks(store)))
    refilled = store.catalog.query(counts)[0]
    out.append((refilled[0], refilled[1]))
    assert refilled[0] == stored[0] > 0
    return out


def _scenario(store: Store, tmp_path: Path) -> list[Any]:
    """Every step's observable result (timestamps and generated ids left out)."""
    records = demo_records(12)
    out: list[Any] = []
    report = Ingestor(store).run(arxiv_papers(write_records(tmp_path / "a.jsonl", records[:8]), RecordFilter()))
    pdf = text_pdf(tmp_path / "notes.pdf", [[f"Line {i} of notes on retrieval for agents." for i in range(30)]])
    report2 = Ingestor(store).run(pdf_papers([pdf]))
    out += [(report.added, report.chunks), (report2.added, report2.chunks)]
    out += _sentence_vectors(store)
    out.append(TopicAssigner(store).assign_all().summary().split(" in ")[0])
    out.append([(t.slug, t.papers) for t in store.topics.all()])
    store.library.follow(RAG)
    assistant = Assistant(store)
    out.append(_answer(assistant.ask("How do agents use reinforcement learning?")))
    pdf_id = store.catalog.list_papers(limit=50, status="indexed")[-1].paper_id
    out.append(_answer(assistant.ask("What are these notes about?", Scope(paper_id=pdf_id))))
    chat = assistant.start_chat(Scope())
    assistant.ask("Which benchmarks evaluate web agents?", chat_id=chat)
    follow_up = assistant.ask("How were they built?", chat_id=chat)
    out.append((_answer(follow_up), follow_up.standalone_question, len(store.chats.turns(chat))))
    Ingestor(store).run(arxiv_papers(write_records(tmp_path / "b.jsonl", records[8:]), RecordFilter()))
    TopicAssigner(store).assign_new([r["id"] for r in records[8:]])
    out.append({f.slug: store.library.new_since_seen(f) for f in store.library.follows()})
    store.library.save(records[0]["id"])
    out.append([s.paper_id for s in store.library.saved()])
    out.append([(p.paper_id, p.status, p.n_chunks) for p in store.catalog.list_papers(limit=50)])
    out.append((store.catalog.count_chunks(), store.vectors.count(), store.catalog.chunks_version))
    out.append(store.keywords.search("reinforcement learning agents", k=10))
    return out


def test_postgres_and_chroma_server_behave_as_the_embedded_stores(
    tmp_path: Path, stack: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    served_store = Store(Settings())
    try:
        assert isinstance(served_store.catalog, PgCatalog) and served_store.settings.chroma.effective_mode == "http"
        served = _scenario(served_store, tmp_path)
    finally:
        served_store.close()
    assert not (tmp_path / "data" / "catalog.sqlite3").exists(), "the PostgreSQL catalog must not touch SQLite"
    for key in stack:
        monkeypatch.delenv(key)
    monkeypatch.setenv("PAPERTALK_DATA_DIR", str(tmp_path / "embedded"))
    embedded_store = Store(Settings())
    try:
        assert not isinstance(embedded_store.catalog, PgCatalog)
        embedded = _scenario(embedded_store, tmp_path)
    finally:
        embedded_store.close()
    for step, (got, expected) in enumerate(zip(served, embedded, strict=True)):
        assert got == expected, f"step {step} differs"
    assert served[0] == (8, served[0][1]) and served[-2][0] == served[-2][1] > 12
    assert served[-4], "the followed topic shows the papers added after following it"
