"""The `openai` embedding backend through the real openai client, against a local OpenAI-compatible server."""

from collections.abc import Iterator

import pytest

from ingest.pipeline import Ingestor
from papertalk.errors import EmbeddingModelMismatch
from papertalk.settings import Settings
from storage.records import Paper
from storage.store import Store
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
