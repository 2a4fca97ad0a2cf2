"""Every quotable sentence is embedded at ingest, stored with its chunk, and replaced with it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ingest.pipeline import Ingestor
from ingest.sentences import split_sentences, usable
from ingest.sources import arxiv_papers, pdf_papers
from papertalk.settings import ChunkSettings, EmbeddingSettings, Settings
from storage.embeddings import MODEL_DIM, embed_texts
from storage.sentence_vectors import unpack
from storage.store import Store
from tests.conftest import S2ORC_PDF, demo_records
from tests.helpers.cli import invoke_cli


def _stored(store: Store) -> dict[tuple[str, int], np.ndarray]:
    rows = store.catalog.query("SELECT chunk_id, span_start, vector FROM sentence_vectors")
    return {(r["chunk_id"], r["span_start"]): unpack(r["vector"], MODEL_DIM) for r in rows}


def _expected(store: Store) -> dict[tuple[str, int], str]:
    """(chunk id, start) -> text of every usable sentence of every stored chunk."""
    out = {}
    for r in store.catalog.query("SELECT chunk_id, text FROM chunks"):
        out.update({(r["chunk_id"], s.start): s.text for s in split_sentences(r["text"]) if usable(s)})
    return out


def _records(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_pdf_ingest_stores_the_model_vector_of_every_usable_sentence_of_every_chunk(store: Store) -> None:
    report = Ingestor(store).run(pdf_papers([S2ORC_PDF]))
    assert report.chunks > 10 and not report.failed
    stored, expected = _stored(store), _expected(store)
    assert len(expected) > 100 and set(stored) == set(expected)
    keys = sorted(expected)[::40]
    fresh = embed_texts(store.embedder, [expected[k] for k in keys], short=True)
    for key, vector in zip(keys, fresh, strict=True):
        assert np.allclose(stored[key], vector, atol=2e-3)  # float16 of what the answer would embed


def test_rechunking_replaces_a_papers_sentence_vectors_and_leaves_none_behind(tmp_path: Path) -> None:
    records = _records(tmp_path / "records.jsonl", demo_records(6))
    store = Store(Settings())
    Ingestor(store).run(arxiv_papers(records))
    before = set(_stored(store))
    store.close()
    small = Settings(chunking=ChunkSettings(chunk_tokens=48, overlap_tokens=8))
    store = Store(small)
    report = Ingestor(store).run(arxiv_papers(records))
    assert report.rechunked == 6
    after, expected = set(_stored(store)), _expected(store)
    assert after == set(expected) and after != before
    orphans = "SELECT count(*) FROM sentence_vectors WHERE chunk_id NOT IN (SELECT chunk_id FROM chunks)"
    assert store.catalog.query(orphans)[0][0] == 0
    store.close()


def test_with_the_setting_off_ingest_stores_no_sentence_vectors(tmp_path: Path) -> None:
    records = _records(tmp_path / "records.jsonl", demo_records(4))
    store = Store(Settings(embedding=EmbeddingSettings(sentence_vectors=False)))
    report = Ingestor(store).run(arxiv_papers(records))
    assert report.chunks >= 4 and _stored(store) == {}
    store.close()


def test_embed_sentences_fills_a_store_ingested_without_them_and_a_rerun_embeds_nothing(
    metadata_file: Path, settings: Settings
) -> None:
    off = invoke_cli("ingest-arxiv", metadata_file, "--limit", "5", PAPERTALK_EMBEDDING__SENTENCE_VECTORS="false")
    assert off.returncode == 0, off.stderr
    store = Store(settings)
    assert _stored(store) == {}
    store.close()

    filled = invoke_cli("embed-sentences")

    assert filled.returncode == 0, filled.stderr
    store = Store(settings)
    stored, expected = _stored(store), _expected(store)
    chunks = store.catalog.count_chunks()
    store.close()
    assert set(stored) == set(expected) and expected
    assert f"{len(expected)} sentence vectors stored for {chunks} chunks that had none" in filled.stdout
    again = invoke_cli("embed-sentences")
    assert again.returncode == 0 and "0 sentence vectors stored for 0 chunks" in again.stdout


def test_sentence_vectors_default_to_on_with_the_local_model_and_off_with_an_embeddings_api() -> None:
    assert EmbeddingSettings().stores_sentences is True
    assert EmbeddingSettings(backend="openai").stores_sentences is False  # it would double the API calls
    assert EmbeddingSettings(backend="openai", sentence_vectors=True).stores_sentences is True
    assert EmbeddingSettings(sentence_vectors=False).stores_sentences is False


def test_each_bulleted_item_is_a_sentence_of_its_own() -> None:
    text = (
        "The main contributions of this paper are summarized as follows: \u2022 We introduce PaSa, a paper search "
        "agent. \u2022 We develop two datasets for academic search \u2022 Although PaSa is trained on synthetic "
        "data, it works on real queries."
    )
    got = split_sentences(text)
    assert [s.text for s in got] == [
        "The main contributions of this paper are summarized as follows:",
        "We introduce PaSa, a paper search agent.",
        "We develop two datasets for academic search",
        "Although PaSa is trained on synthetic data, it works on real queries.",
    ]
    assert all(text[s.start : s.end] == s.text for s in got)
