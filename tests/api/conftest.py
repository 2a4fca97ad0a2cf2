"""The HTTP API through the real app over real stores: the shared answer corpus, or an empty one."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from papertalk.settings import ApiSettings, Settings
from tests.conftest import TOPIC

__all__ = ["TOPIC"]
PROBLEM = "application/problem+json"


def with_api(settings: Settings, **api: object) -> Settings:
    """`settings` with some `api` settings changed (validated, as from the environment)."""
    group = ApiSettings.model_validate({**settings.api.model_dump(), **api})
    return settings.model_copy(update={"api": group})


def client_for(data_dir: Path, **api: object) -> TestClient:
    settings = with_api(Settings(data_dir=data_dir), **api)
    return TestClient(create_app(settings), raise_server_exceptions=False)


@pytest.fixture
def client(corpus_dir: Path) -> Iterator[TestClient]:
    """The app over the answer corpus (two PDFs and 30 arXiv records in one topic)."""
    with client_for(corpus_dir) as c:
        yield c


@pytest.fixture
def empty_client(tmp_path: Path) -> Iterator[TestClient]:
    """The app over an empty data directory of this test's own."""
    with client_for(tmp_path / "empty") as c:
        yield c


def assert_problem(response: Any, status: int, words: str = "") -> dict[str, object]:
    """The response is an RFC 9457 problem with `status` whose detail mentions `words`."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body = response.json()
    assert {"type", "title", "status", "detail"} <= body.keys()
    assert body["status"] == status
    assert "Traceback" not in response.text
    assert words.lower() in str(body["detail"]).lower()
    return dict(body)
