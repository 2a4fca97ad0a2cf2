"""A real corpus for answer tests, built once per session: two CC BY PDFs and 30 real arXiv records."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers, pdf_papers
from papertalk.settings import Settings
from storage.store import Store
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF, demo_records

TOPIC = "RL for LLM Agents"


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import json

    data = tmp_path_factory.mktemp("corpus")
    records = data / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in demo_records(30)))
    store = Store(Settings(data_dir=data / "data"))
    report = Ingestor(store).run(pdf_papers([S2ORC_PDF, LONGEVAL_PDF]))
    assert not report.failed
    report = Ingestor(store).run(arxiv_papers(records))
    store.topics.assign(store.topics.ensure(TOPIC), report.paper_ids)
    store.close()
    return data / "data"


@pytest.fixture
def corpus(corpus_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """The session corpus, opened for one test (PAPERTALK_DATA_DIR points at it too, for subprocesses)."""
    monkeypatch.setenv("PAPERTALK_DATA_DIR", str(corpus_dir))
    store = Store(Settings(data_dir=corpus_dir))
    yield store
    store.close()
