"""The `openai` embedding backend through the real openai client, against a local OpenAI-compatible server
(or a closed port): selection, the configured timeout and retries, failures as one line."""

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.pipeline import Ingestor
from papertalk.errors import ConfigurationError, EmbeddingModelMismatch
from papertalk.settings import Settings
from storage.embeddings import build_embedding, embed_texts
from storage.openai_embeddings import EmbeddingUnavailable
from storage.records import Paper
from storage.store import Store
from tests.conftest import demo_records
from tests.helpers.cli import invoke_cli, one_error_line, run_cli
from tests.helpers.openai_server import EMBED_DIM, ChatServer, serve


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[ChatServer]:
    with serve() as s:
        monkeypatch.setenv("OPENAI_BASE_URL", s.url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("PAPERTALK_EMBEDDING__BACKEND", "openai")
        yield s


def test_openai_embeddings_are_selected_by_setting_and_recorded_with_the_collection(server: ChatServer) -> None:
    settings = Settings()
    store = Store(settings)
    papers = [
        Paper(paper_id="2501.00031", title="Reward shaping", abstract="Dense rewards for web navigation agents."),
        Paper(paper_id="2501.00032", title="Protein folding", abstract="Structure prediction of amino acid chains."),
    ]
    report = Ingestor(store).run(papers)
    assert report.added == 2 and not report.failed
    assert any(r.path == "/v1/embeddings" for r in server.requests)
    meta = store.vectors.collection.metadata
    assert meta["embed_model"] == "openai:text-embedding-3-small" and meta["embed_dim"] == EMBED_DIM
    query = store.embedder.get_query_embedding("rewards for web navigation agents")
    assert len(query) == EMBED_DIM
    assert store.vectors.search(query, 1)[0].paper_id == "2501.00031"
    store.close()
    local = Store(Settings(embedding={"backend": "local"}))
    with pytest.raises(EmbeddingModelMismatch, match="openai:text-embedding-3-small"):
        _ = local.vectors


# Failures: the configured timeout and retries, and one line that says what to change.


@pytest.fixture
def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _records(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in demo_records(n)))
    return path


def test_unreachable_server_fails_fast_in_one_line(
    tmp_path: Path, closed_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{closed_port}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("PAPERTALK_EMBEDDING__BACKEND", "openai")
    embedder = build_embedding(Settings())
    started = time.monotonic()
    with pytest.raises(EmbeddingUnavailable) as caught:
        embedder.get_query_embedding("rewards for web agents")
    assert time.monotonic() - started < 10  # 2 retries with the client's short backoff (was ~100 s)
    expected = (
        f"could not connect to the embeddings server at {url} (2 retries): check OPENAI_BASE_URL "
        "(or PAPERTALK_LLM__BASE_URL) and that the server is running"
    )
    assert str(caught.value) == expected
    result = run_cli("ingest-arxiv", _records(tmp_path, 3))
    assert one_error_line(result) == expected


def test_slow_server_is_given_the_configured_timeout_and_retries(server: ChatServer) -> None:
    server.embed_delay = 5.0
    settings = Settings(embedding={"backend": "openai", "timeout_s": 0.5, "max_retries": 1})
    embedder = build_embedding(settings)
    started = time.monotonic()
    with pytest.raises(EmbeddingUnavailable, match=r"did not answer within 0\.5 s \(1 retries\)"):
        embed_texts(embedder, ["one passage", "another passage"])
    assert time.monotonic() - started < 4.5  # two tries of 0.5 s and one short backoff, not the server's 5 s
    assert [r.path for r in server.requests] == ["/v1/embeddings"] * 2


def test_cli_ask_when_the_server_turns_slow_is_one_line(server: ChatServer, tmp_path: Path) -> None:
    ingested = invoke_cli("ingest-arxiv", _records(tmp_path, 3))
    assert ingested.returncode == 0, ingested.stderr
    server.embed_delay = 5.0
    asked = run_cli(
        "ask",
        "How are web agents rewarded?",
        PAPERTALK_EMBEDDING__TIMEOUT_S="0.5",
        PAPERTALK_EMBEDDING__MAX_RETRIES="0",
    )
    assert one_error_line(asked) == (
        f"the embeddings server at {server.url} did not answer within 0.5 s (0 retries): check that it is running "
        "and not overloaded, or raise PAPERTALK_EMBEDDING__TIMEOUT_S"
    )


def test_openai_key_and_url_in_dotenv_are_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with serve() as s:
        (tmp_path / ".env").write_text(f"OPENAI_BASE_URL={s.url}\nOPENAI_API_KEY=key-from-dotenv\nOTHER_TOOL=1\n")
        result = run_cli("ingest-arxiv", _records(tmp_path, 2), PAPERTALK_EMBEDDING__BACKEND="openai")
        assert result.returncode == 0, result.stderr
        calls = [r for r in s.requests if r.path == "/v1/embeddings"]
        assert calls and all(r.headers.get("Authorization") == "Bearer key-from-dotenv" for r in calls)


def test_no_key_and_no_server_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERTALK_EMBEDDING__BACKEND", "openai")
    with pytest.raises(ConfigurationError, match=r"needs an API key: set OPENAI_API_KEY"):
        build_embedding(Settings())
