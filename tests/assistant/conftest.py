"""A real corpus for answer tests, built once per session: two CC BY PDFs and 30 real arXiv records."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.demo_vectors import use_shipped_vectors
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers, pdf_papers
from papertalk.demo import DEMO_TOPIC
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


def opened(data_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """A session store opened for one test (PAPERTALK_DATA_DIR points at it too, for subprocesses)."""
    monkeypatch.setenv("PAPERTALK_DATA_DIR", str(data_dir))
    store = Store(Settings(data_dir=data_dir))
    yield store
    store.close()


@pytest.fixture
def corpus(corpus_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """The session corpus, opened for one test."""
    yield from opened(corpus_dir, monkeypatch)


def tool_use_records() -> list[dict]:
    """The demo records whose abstracts are about multi-turn tool use (130 of 2,212)."""
    about = re.compile(r"\btool", re.I)
    return [r for r in demo_records(3000) if about.search(r["abstract"]) and "multi-turn" in r["abstract"]]


@pytest.fixture(scope="session")
def tool_use_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The multi-turn tool-use papers of the demo corpus, with the demo's shipped vectors, in its topic."""
    data = tmp_path_factory.mktemp("tooluse")
    records = data / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in tool_use_records()))
    store = Store(Settings(data_dir=data / "data"))
    use_shipped_vectors(store)  # the demo's own vectors for its chunks: nothing to embed
    report = Ingestor(store).run(arxiv_papers(records))
    assert not report.failed
    store.topics.assign(store.topics.ensure(DEMO_TOPIC), report.paper_ids)
    store.close()
    return data / "data"


@pytest.fixture
def tool_use(tool_use_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """The multi-turn tool-use corpus, opened for one test."""
    yield from opened(tool_use_dir, monkeypatch)
