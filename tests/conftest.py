"""Shared fixtures: every test gets its own data directory; corpora are small real samples.

The session corpora are defined here, once for the whole run: a fixture imported into a conftest or a test
module further down would be a second fixture of the same name, built a second time.
"""

from __future__ import annotations

import copy
import dataclasses
import fcntl
import gzip
import itertools
import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest

from ingest.demo_vectors import use_shipped_vectors
from ingest.parse_worker import PdfParser
from ingest.pdf import file_digest
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers, pdf_papers
from papertalk.demo import DEMO_METADATA, DEMO_PDFS, DEMO_TOPIC
from papertalk.settings import Settings
from storage.embeddings import OnnxMiniLM
from storage.records import Paper, Problem
from storage.store import Store

S2ORC_PDF = DEMO_PDFS / "2020.acl-main.447.pdf"
LONGEVAL_PDF = DEMO_PDFS / "2023.eacl-main.121.pdf"
TOPIC = "RL for LLM Agents"


@pytest.fixture(autouse=True, scope="session")
def _model_outputs_computed_once() -> Iterator[None]:
    """The embedding model's output for a batch of texts is computed once per session and handed out again.

    Many tests ingest the same bundled PDFs and records, each into a store of its own: the model's vectors
    for a batch are the same each time (same model file, same texts in the same order, same mode and
    threads), so the repeats are served from memory. The model is still loaded and its file checked first,
    as without the memo, and everything after the model (Chroma, the catalog, the keyword index) runs as is.
    """
    computed: dict[tuple[int, bool, tuple[str, ...]], np.ndarray] = {}
    embed = OnnxMiniLM.embed

    def embed_once(self: OnnxMiniLM, texts: list[str], short: bool = False) -> np.ndarray:
        if not texts:
            return embed(self, texts, short=short)
        _ = self.session  # loaded and its sha256 checked, as on every first use
        key = (self._threads, short, tuple(texts))
        if key not in computed:
            computed[key] = embed(self, texts, short=short)
        return computed[key].copy()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(OnnxMiniLM, "embed", embed_once)
        yield


@pytest.fixture(autouse=True, scope="session")
def _bundled_pdfs_parsed_once() -> Iterator[None]:
    """A bundled demo PDF is parsed once per session for each name and set of parse settings.

    Dozens of tests ingest the same two bundled PDFs: the first time, a file goes through the real parser
    worker, and its paper and warnings are handed out again when the same bytes, under the same file name
    (an arXiv id may come from the name) and the same `PdfSettings`, are parsed again. Any other file (a
    hostile, cut or edited PDF, even a copy of a bundled one with a byte changed) and any other settings
    parse for real, every time; so does `parse_pdf` in this process.
    """
    bundled = {p.stat().st_size: file_digest(p) for p in DEMO_PDFS.glob("*.pdf")}
    parsed: dict[tuple[str, str, str], tuple[Paper, list[str]]] = {}
    parse = PdfParser.parse

    def parse_once(self: PdfParser, path: Path) -> tuple[Paper, list[Problem]]:
        size = path.stat().st_size if path.is_file() else -1  # only a file of a bundled size is read to compare
        digest = file_digest(path) if size in bundled else ""
        if digest != bundled.get(size):
            return parse(self, path)
        key = (digest, path.name, self.limits.model_dump_json())
        if key not in parsed:
            paper, warnings = parse(self, path)
            parsed[key] = (copy.deepcopy(paper), [w.why for w in warnings])
        paper, whys = copy.deepcopy(parsed[key])
        return dataclasses.replace(paper, path=str(path)), [Problem(str(path), why, fatal=False) for why in whys]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PdfParser, "parse", parse_once)
        yield


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "data"
    monkeypatch.setenv("PAPERTALK_DATA_DIR", str(data))
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.chdir(tmp_path)  # no stray .env from the project folder
    return data


@pytest.fixture
def settings() -> Settings:
    return Settings()


@pytest.fixture
def store(settings: Settings) -> Iterator[Store]:
    s = Store(settings)
    yield s
    s.close()


def demo_records(n: int) -> list[dict]:
    with gzip.open(DEMO_METADATA, "rt", encoding="utf-8") as fh:
        return [json.loads(line) for line in itertools.islice(fh, n)]


@pytest.fixture
def metadata_file(tmp_path: Path) -> Path:
    """The first 30 real records of the demo corpus, as a plain JSON-lines file."""
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in demo_records(30)))
    return path


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """A data dir built by `build` once per run: under pytest-xdist the first worker to ask builds it and the
    others wait for it, then each worker gets a copy of its own (tests may write to their store)."""
    own = tmp_path_factory.mktemp(name)
    if "PYTEST_XDIST_WORKER" not in os.environ:
        build(own / "data")
        return own / "data"
    run_dir = tmp_path_factory.getbasetemp().parent  # shared by the run's workers
    shared = run_dir / f"built-{name}"
    with open(run_dir / f"built-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (shared / "complete").exists():
            shutil.rmtree(shared, ignore_errors=True)  # a worker that failed half-way
            build(shared / "data")
            (shared / "complete").touch()
    return Path(shutil.copytree(shared / "data", own / "data"))


def _build(data: Path, records: list[dict], topic: str, pdfs: tuple[Path, ...] = (), shipped: bool = False) -> None:
    """A store of `pdfs` and then `records` (with the demo's shipped vectors if `shipped`), all in `topic`."""
    data.mkdir(parents=True)
    path = data.parent / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    store = Store(Settings(data_dir=data))
    if shipped:
        use_shipped_vectors(store)  # the demo's own vectors for its chunks: nothing to embed
    if pdfs:
        assert not Ingestor(store).run(pdf_papers(list(pdfs))).failed
    report = Ingestor(store).run(arxiv_papers(path))
    assert not report.failed
    store.topics.assign(store.topics.ensure(topic), report.paper_ids)
    store.close()


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The answer corpus: two CC BY PDFs and 30 real arXiv records, in one topic."""
    pdfs = (S2ORC_PDF, LONGEVAL_PDF)
    return built_once(tmp_path_factory, "corpus", lambda data: _build(data, demo_records(30), TOPIC, pdfs))


def tool_use_records() -> list[dict]:
    """The demo records whose abstracts are about multi-turn tool use (130 of 2,212)."""
    about = re.compile(r"\btool", re.I)
    return [r for r in demo_records(3000) if about.search(r["abstract"]) and "multi-turn" in r["abstract"]]


@pytest.fixture(scope="session")
def tool_use_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The multi-turn tool-use papers of the demo corpus, with the demo's shipped vectors, in its topic."""
    build = lambda data: _build(data, tool_use_records(), DEMO_TOPIC, shipped=True)  # noqa: E731
    return built_once(tmp_path_factory, "tooluse", build)
