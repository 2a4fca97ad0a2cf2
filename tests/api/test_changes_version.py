"""Each chat answer says which state of the store it was made from: the catalog's `changes_version` read
before retrieval and again once the answer was made, in the body and in the `Papertalk-Changes-Version`
header. Writes are real catalog writes to a copy of the answer corpus."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.routes.chat import VERSION_HEADER
from assistant.retrieval import HybridRetriever
from papertalk.settings import Settings
from storage.catalog import Catalog
from tests.api.conftest import TOPIC, client_for
from tests.api.test_chat import QUESTION, parse_sse

BODY = {"question": QUESTION, "scope": {"topic": TOPIC}}


@pytest.fixture
def data_dir(corpus_dir: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(corpus_dir, tmp_path / "data"))


@pytest.fixture
def client(data_dir: Path) -> Iterator[TestClient]:
    with client_for(data_dir) as c:
        yield c


@pytest.fixture
def writer(data_dir: Path) -> Iterator[Catalog]:
    """A second connection to the same catalog, as another process (an ingest) holds."""
    catalog = Catalog(Settings(data_dir=data_dir).catalog_path)
    yield catalog
    catalog.close()


def ask(client: TestClient, body: dict[str, Any] = BODY) -> tuple[dict[str, Any], str]:
    response = client.post("/api/chat", json=body)
    assert response.status_code == 200, response.text
    return response.json(), response.headers[VERSION_HEADER]


def test_an_answer_names_the_catalog_version_it_was_made_from(client: TestClient, writer: Catalog) -> None:
    version = writer.changes_version
    answer, header = ask(client)
    assert answer["changes_version"] == answer["changes_version_after"] == version
    assert header == str(version)
    writer.set_meta("unrelated", "x")  # any write, by any process, moves the version on
    again, header = ask(client)
    assert again["changes_version"] == again["changes_version_after"] == version + 1
    assert header == str(version + 1)
    assert again["text"] == answer["text"]


def test_a_write_landing_while_the_answer_is_made_shows_as_a_moved_version(
    client: TestClient, writer: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    retrieve = HybridRetriever.retrieve

    def retrieve_while_an_ingest_writes(self: HybridRetriever, *args: Any, **kwargs: Any) -> Any:
        writer.set_meta("landed", "during retrieval")
        return retrieve(self, *args, **kwargs)

    monkeypatch.setattr(HybridRetriever, "retrieve", retrieve_while_an_ingest_writes)
    version = writer.changes_version
    answer, header = ask(client)
    assert (answer["changes_version"], answer["changes_version_after"]) == (version, version + 1)
    assert header == f"{version}-{version + 1}"


def test_the_streamed_answer_carries_the_versions_too(client: TestClient, writer: Catalog) -> None:
    version = writer.changes_version
    response = client.post("/api/chat?stream=true", json=BODY)
    streamed = dict(parse_sse(response.text))["answer"]
    assert streamed["changes_version"] == streamed["changes_version_after"] == version


def test_a_conversation_turn_is_read_at_one_version_and_its_saving_moves_it(client: TestClient) -> None:
    chat_id = client.post("/api/conversations", json={"scope": {"topic": TOPIC}}).json()["conversation_id"]
    first, _ = ask(client, {"question": QUESTION, "conversation_id": chat_id})
    assert first["changes_version"] == first["changes_version_after"]  # read before the turn is saved
    second, _ = ask(client, {"question": QUESTION, "conversation_id": chat_id})
    assert second["changes_version"] == first["changes_version"] + 1  # saving the first turn was one write
