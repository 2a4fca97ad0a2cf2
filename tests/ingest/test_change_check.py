"""The change check: a paper is skipped only when its content AND the chunking it was made with are the same."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ingest.cleanup import CLEANUP_VERSION
from ingest.pipeline import Ingestor, chunking_fingerprint, same_chunking
from ingest.sources import arxiv_papers
from papertalk.settings import ChunkSettings, Settings
from storage.embeddings import LocalMiniLMEmbedding
from storage.store import Store
from tests.conftest import demo_records
from tests.helpers.cli import invoke_cli


def _records(path: Path, records: list[dict]) -> Path:
    import json

    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _chunk_counts(store: Store) -> dict[str, int]:
    return {r["paper_id"]: r["n_chunks"] for r in store.catalog.query("SELECT paper_id, n_chunks FROM papers")}


@pytest.fixture
def embedded(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The chunk texts embedded by the local model during the test (not the sentence gists, `short=True`)."""
    texts: list[str] = []
    original = LocalMiniLMEmbedding.embed_texts

    def counting(self: LocalMiniLMEmbedding, batch: list[str], **kw):  # type: ignore[no-untyped-def]
        if not kw.get("short"):
            texts.extend(batch)
        return original(self, batch, **kw)

    monkeypatch.setattr(LocalMiniLMEmbedding, "embed_texts", counting)
    return texts


@contextmanager
def _open(settings: Settings, chunk_tokens: int | None = None) -> Iterator[Store]:
    if chunk_tokens is not None:
        settings = settings.model_copy(update={"chunking": ChunkSettings(chunk_tokens=chunk_tokens)})
    store = Store(settings)
    yield store
    store.close()


def test_other_chunk_sizes_rechunk_exactly_the_papers_made_with_the_old_ones(
    settings: Settings, tmp_path: Path, embedded: list[str]
) -> None:
    records = demo_records(12)
    old = _records(tmp_path / "old.jsonl", records[:8])
    both = _records(tmp_path / "all.jsonl", records)
    with _open(settings) as store:  # the first 8 papers with the default chunking
        assert Ingestor(store).run(arxiv_papers(old)).added == 8
        before = _chunk_counts(store)
    with _open(settings, chunk_tokens=64) as store:  # the last 4 papers already with the new chunking
        assert Ingestor(store).run(arxiv_papers(_records(tmp_path / "new.jsonl", records[8:]))).added == 4
        embedded.clear()

        report = Ingestor(store).run(arxiv_papers(both))

        assert (report.added, report.updated, report.unchanged, report.rechunked) == (0, 0, 4, 8)
        assert "4 unchanged, 8 re-chunked (chunking settings changed)" in report.summary()
        after = _chunk_counts(store)
        old_ids = {r["id"] for r in records[:8]}
        assert len(embedded) == report.chunks == sum(after[pid] for pid in old_ids)
        assert all(after[pid] > before[pid] for pid in old_ids), (before, after)
        fingerprints = {r[0] for r in store.catalog.query("SELECT chunking FROM papers")}
        assert fingerprints == {chunking_fingerprint(store.settings)} and "c64/" in fingerprints.pop()
        assert set(store.vectors.collection.get(include=[])["ids"]) == {
            r[0] for r in store.catalog.query("SELECT chunk_id FROM chunks")
        }
        assert store.vectors.count() == sum(after.values())
        embedded.clear()

        again = Ingestor(store).run(arxiv_papers(both))

        assert (again.unchanged, again.rechunked, again.chunks, len(embedded)) == (12, 0, 0, 0)
        assert "re-chunked" not in again.summary()


def test_papers_chunked_before_fingerprints_were_recorded_are_kept_and_recorded(
    store: Store, metadata_file: Path, embedded: list[str]
) -> None:
    Ingestor(store).run(arxiv_papers(metadata_file))
    store.catalog.transaction([("UPDATE papers SET chunking = NULL", ())])  # as a migrated older store has them
    embedded.clear()
    report = Ingestor(store).run(arxiv_papers(metadata_file))
    assert (report.unchanged, report.rechunked, len(embedded)) == (30, 0, 0)
    rows = store.catalog.query("SELECT DISTINCT chunking FROM papers")
    assert [r[0] for r in rows] == [chunking_fingerprint(store.settings)]


def test_a_new_text_cleanup_rechunks_pdfs_but_not_abstract_only_records(
    settings: Settings, metadata_file: Path, embedded: list[str]
) -> None:
    from ingest.sources import pdf_papers
    from tests.conftest import S2ORC_PDF

    with _open(settings) as store:
        Ingestor(store).run(arxiv_papers(metadata_file))
        Ingestor(store).run(pdf_papers([S2ORC_PDF]))
        older = chunking_fingerprint(store.settings).replace(f"/x{CLEANUP_VERSION}", "/x3")
        store.catalog.transaction([("UPDATE papers SET chunking = ?", (older,))])  # as an older cleanup left them
        embedded.clear()
        records = Ingestor(store).run(arxiv_papers(metadata_file))
        assert (records.unchanged, records.rechunked, len(embedded)) == (30, 0, 0)
        pdf = Ingestor(store).run(pdf_papers([S2ORC_PDF]))
        assert (pdf.unchanged, pdf.rechunked) == (0, 1) and len(embedded) == pdf.chunks > 0
    current = chunking_fingerprint(settings)
    assert same_chunking(None, current, True) and same_chunking(current, current, True)
    assert not same_chunking(current.replace(" c", " c9"), current, False)  # other chunk sizes: records too


def test_cli_rerun_with_other_chunk_sizes_says_it_rechunked(metadata_file: Path) -> None:
    first = invoke_cli("ingest-arxiv", metadata_file, "--limit", "5")
    assert first.returncode == 0 and first.stdout.startswith("5 added"), first.stderr
    rerun = invoke_cli("ingest-arxiv", metadata_file, "--limit", "5", PAPERTALK_CHUNKING__CHUNK_TOKENS="64")
    assert rerun.returncode == 0, rerun.stderr
    assert rerun.stdout.startswith("0 added, 0 updated, 0 unchanged, 5 re-chunked (chunking settings changed), ")
    again = invoke_cli("ingest-arxiv", metadata_file, "--limit", "5", PAPERTALK_CHUNKING__CHUNK_TOKENS="64")
    assert again.stdout.startswith("0 added, 0 updated, 5 unchanged, 0 chunks embedded"), again.stdout


def test_pdf_stored_before_the_text_cleanup_is_rechunked_with_sections(settings: Settings) -> None:
    from ingest.sources import pdf_papers
    from tests.conftest import S2ORC_PDF

    raw = settings.model_copy(update={"chunking": ChunkSettings(clean_text=False)})
    with _open(raw) as store:
        assert Ingestor(store).run(pdf_papers([S2ORC_PDF])).added == 1
        assert "/raw" in store.catalog.query("SELECT chunking FROM papers")[0][0]
    with _open(settings) as store:
        report = Ingestor(store).run(pdf_papers([S2ORC_PDF]))
        assert (report.added, report.unchanged, report.rechunked) == (0, 0, 1)
        (paper_id,) = report.paper_ids
        assert {"1 Introduction", "References"} <= {c.section for c in store.catalog.chunks_of(paper_id)}
        assert f"/x{CLEANUP_VERSION}" in store.catalog.query("SELECT chunking FROM papers")[0][0]
