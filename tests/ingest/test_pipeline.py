"""Ingest into a real embedded Chroma and a real SQLite catalog."""

from pathlib import Path

import pytest

from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers, pdf_papers
from papertalk.errors import EmbeddingModelMismatch
from papertalk.settings import Settings
from storage.embeddings import LocalMiniLMEmbedding
from storage.records import Paper
from storage.store import Store
from storage.vectors import VectorIndex
from tests.conftest import S2ORC_PDF


def _consistent(store: Store) -> None:
    """Catalog and Chroma hold exactly the same chunks, and every paper is indexed."""
    assert store.catalog.count_papers("pending") == 0
    ids_catalog = {r["chunk_id"] for r in store.catalog.query("SELECT chunk_id FROM chunks")}
    ids_chroma = set(store.vectors.collection.get(include=[])["ids"])
    assert ids_catalog == ids_chroma


def test_metadata_ingest_then_rerun_embeds_nothing(
    store: Store, metadata_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = Ingestor(store).run(arxiv_papers(metadata_file))
    assert first.added == 30 and first.chunks >= 30 and not first.failed
    _consistent(store)
    calls: list[int] = []
    original = LocalMiniLMEmbedding.embed_texts

    def counting(self: LocalMiniLMEmbedding, texts: list[str]):  # type: ignore[no-untyped-def]
        calls.append(len(texts))
        return original(self, texts)

    monkeypatch.setattr(LocalMiniLMEmbedding, "embed_texts", counting)
    again = Ingestor(store).run(arxiv_papers(metadata_file))
    assert again.unchanged == 30 and again.added == again.updated == again.chunks == 0
    assert calls == []
    assert store.vectors.count() == first.chunks


def test_changed_paper_replaces_its_old_chunks(store: Store) -> None:
    paper = Paper(paper_id="2501.00010", title="Agents", abstract="word " * 500)
    Ingestor(store).run([paper])
    old = set(store.vectors.ids_of("2501.00010"))
    changed = Paper(paper_id="2501.00010", title="Agents", abstract="different text about rewards. " * 10)
    report = Ingestor(store).run([changed])
    assert report.updated == 1
    new = set(store.vectors.ids_of("2501.00010"))
    assert new and old.isdisjoint(new)
    _consistent(store)


def test_pdf_with_arxiv_id_of_a_metadata_record_becomes_that_paper(store: Store, tmp_path: Path) -> None:
    record = Paper(
        paper_id="2001.00001",
        title="S2ORC from metadata",
        authors=["Kyle Lo"],
        abstract="We introduce S2ORC.",
        categories=["cs.CL"],
        arxiv_id="2001.00001",
    )
    Ingestor(store).run([record])
    pdf = tmp_path / "2001.00001v2.pdf"
    pdf.write_bytes(S2ORC_PDF.read_bytes())
    report = Ingestor(store).run(pdf_papers([pdf]))
    assert report.updated == 1 and report.added == 0
    row = store.catalog.get("2001.00001")
    assert row is not None and row.n_pages == 15 and row.title == "S2ORC from metadata"
    assert row.source == "arxiv-metadata+pdf" and store.catalog.count_papers() == 1
    pages = {c.page_start for c in store.catalog.chunks_of("2001.00001")}
    assert max(p for p in pages if p) >= 14
    _consistent(store)


def test_vector_store_built_with_another_model_gives_a_clear_error(store: Store, settings: Settings) -> None:
    Ingestor(store).run([Paper(paper_id="2501.00011", title="T", abstract="An abstract.")])
    with pytest.raises(EmbeddingModelMismatch, match="was built with all-MiniLM-L6-v2-onnx-int8"):
        VectorIndex(settings, "openai:text-embedding-3-small", 1536)


def test_a_paper_that_breaks_chunking_is_reported_and_the_rest_is_stored(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ingest.chunking import Chunker

    original = Chunker.chunk

    def fragile(self: Chunker, paper: Paper, digest: str):  # type: ignore[no-untyped-def]
        if paper.paper_id == "2501.00021":
            raise TypeError("unexpected text")
        return original(self, paper, digest)

    monkeypatch.setattr(Chunker, "chunk", fragile)
    papers = [Paper(paper_id=f"2501.0002{i}", title=f"T{i}", abstract="An abstract about agents.") for i in range(3)]
    report = Ingestor(store).run(papers)
    assert report.failed and report.added == 2
    assert [p.where for p in report.errors] == ["2501.00021"] and "could not be chunked" in report.errors[0].why
    assert store.catalog.get("2501.00021") is None and store.catalog.get("2501.00022") is not None
