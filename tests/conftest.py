"""Shared fixtures: every test gets its own data directory; corpora are small real samples."""

from __future__ import annotations

import gzip
import itertools
import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from papertalk.demo import DEMO_METADATA, DEMO_PDFS
from papertalk.settings import Settings
from storage.embeddings import OnnxMiniLM
from storage.store import Store

S2ORC_PDF = DEMO_PDFS / "2020.acl-main.447.pdf"
LONGEVAL_PDF = DEMO_PDFS / "2023.eacl-main.121.pdf"


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
