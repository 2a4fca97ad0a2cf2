"""The session corpora (built once, in tests/conftest.py), opened for one test at a time."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from papertalk.settings import Settings
from storage.store import Store
from tests.conftest import TOPIC

__all__ = ["TOPIC"]


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


@pytest.fixture
def tool_use(tool_use_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """The multi-turn tool-use corpus, opened for one test."""
    yield from opened(tool_use_dir, monkeypatch)
