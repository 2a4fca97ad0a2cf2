"""Chunk vectors in Chroma, through llama-index's `ChromaVectorStore`.

`local` mode runs Chroma embedded (PersistentClient in the data directory); `http` mode talks to a
Chroma server (`chroma run`, or a managed Chroma). The collection records the embedding model's name and
dimension, and opening it with another model raises `EmbeddingModelMismatch` instead of returning
wrong neighbours.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import httpx
import numpy as np
from llama_index.core.schema import BaseNode, TextNode

from papertalk.errors import EmbeddingModelMismatch, StoreUnavailable
from storage.records import Chunk

if TYPE_CHECKING:
    from llama_index.vector_stores.chroma import ChromaVectorStore

    from papertalk.settings import ChromaSettings, Settings

log = logging.getLogger(__name__)


_NOT_EMBEDDED = ("paper_id", "ordinal", "page_start", "page_end", "section", "caption", "published")


@dataclass(frozen=True)
class VectorHit:
    chunk_id: str
    paper_id: str
    score: float  # cosine similarity


def _client(settings: Settings) -> Any:
    import chromadb
    from chromadb.config import Settings as ChromaClientSettings

    chroma_settings = ChromaClientSettings(anonymized_telemetry=False)
    cfg = settings.chroma
    if cfg.effective_mode == "http":
        try:
            headers = {"Authorization": f"Bearer {cfg.token.get_secret_value()}"} if cfg.token else None
            return chromadb.HttpClient(
                host=cfg.host or "localhost", port=cfg.port, ssl=cfg.ssl, headers=headers, settings=chroma_settings
            )
        except Exception as exc:
            if _refused(exc):
                raise StoreUnavailable(
                    f"the Chroma server at {cfg.host}:{cfg.port} refused papertalk ({exc}): set "
                    "PAPERTALK_CHROMA__TOKEN to the server's token"
                ) from exc
            raise StoreUnavailable(
                f"cannot reach the Chroma server at {cfg.host}:{cfg.port} ({exc}): start it with "
                f"`chroma run --path DIR --port {cfg.port}` or unset PAPERTALK_CHROMA__HOST to use the embedded store"
            ) from exc
    settings.chroma_path.mkdir(parents=True, exist_ok=True)
    return chromadb.PersistentClient(path=str(settings.chroma_path), settings=chroma_settings)


def _refused(exc: Exception) -> bool:
    """The server (or an authenticating proxy in front of it) answered, but refused the credentials."""
    from chromadb.errors import AuthorizationError, ChromaAuthError

    return isinstance(exc, AuthorizationError | ChromaAuthError) or "Unauthorized" in str(exc)


def _answers_in_time(cfg: ChromaSettings) -> None:
    """`StoreUnavailable` unless the Chroma server answers its heartbeat within `timeout_s` (the chromadb
    client itself waits forever, and its constructor already calls the server)."""
    url = f"{'https' if cfg.ssl else 'http'}://{cfg.host or 'localhost'}:{cfg.port}/api/v2/heartbeat"
    try:
        headers = {"Authorization": f"Bearer {cfg.token.get_secret_value()}"} if cfg.token else None
        httpx.get(url, timeout=cfg.timeout_s, headers=headers)
    except httpx.TimeoutException as exc:
        raise StoreUnavailable(
            f"the Chroma server at {cfg.host}:{cfg.port} did not answer within {cfg.timeout_s:g} s: check that it "
            "is running and not overloaded, or raise PAPERTALK_CHROMA__TIMEOUT_S"
        ) from exc
    except httpx.HTTPError:
        return  # not reachable at all: the client's own error says so


def _bound_requests(client: Any, timeout_s: float) -> None:
    """Give the chromadb HTTP client's session a timeout (it has none, and no setting for one)."""
    session = getattr(getattr(client, "_server", None), "_session", None)
    if isinstance(session, httpx.Client):
        session.timeout = httpx.Timeout(timeout_s)


class VectorIndex:
    """Add, delete and search chunk vectors; one collection per data directory (or server)."""

    def __init__(self, settings: Settings, model_name: str, dim: int) -> None:
        self.model_name = model_name
        self.dim = dim
        self._settings = settings
        self._server = f"{settings.chroma.host}:{settings.chroma.port}"
        if settings.chroma.effective_mode == "http":
            _answers_in_time(settings.chroma)
        self._disk = settings.chroma_path / "chroma.sqlite3" if settings.chroma.effective_mode == "local" else None
        self._lock = threading.RLock()
        self._retired: Any = None  # the embedded system replaced by the last reopen, stopped at the next one
        self._open()
        self._check_model(settings)

    def _open(self) -> None:
        self._client = _client(self._settings)
        _bound_requests(self._client, self._settings.chroma.timeout_s)
        with self._reachable():
            self._collection = self._client.get_or_create_collection(
                name=self._settings.chroma.collection,
                metadata={
                    "embed_model": self.model_name,
                    "embed_dim": self.dim,
                    "hnsw:space": "cosine",
                    "hnsw:search_ef": 200,
                },
                embedding_function=None,
            )
        self.store = self._llama_store()
        self._seen = self._disk_state()

    # --- embedded Chroma written by another process ------------------------------------------------
    # An embedded Chroma loads its vector index into memory when opened and never looks at the disk again:
    # after another process (a CLI ingest beside `papertalk serve`) writes the same data directory, this
    # process would search the old index (missing the new papers) and fail to read the new ids' vectors
    # ("Error finding id"). Every write commits to its SQLite file (journal mode "delete": the main file is
    # written at each commit), so a change of that file not made here means the store is reopened before
    # the next read or write.
    #
    # What tells a change: the file's mtime and size, and SQLite's file change counter (header bytes 24-27,
    # moved on by every commit in this journal mode). mtime alone can miss: it moves in clock ticks (a few
    # ms here), so two commits in one tick that leave the size alone (pages rewritten in place) look the
    # same; the counter does not. What none of them can see: a write by another process landing between
    # this process's own write and the state it then records as its own (`_writing`), or during a reopen
    # (the state is read after opening, which itself commits once). So one writer beside any number of
    # readers is always seen; two processes writing one embedded store at the same time are not supported
    # (chromadb's embedded mode is single-writer anyway): serve several workers over a Chroma server.

    def _disk_state(self) -> tuple[int, int, bytes] | None:
        if self._disk is None:
            return None
        try:
            st = self._disk.stat()
            with self._disk.open("rb") as db:
                counter = db.read(28)[24:28]
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, counter

    def _catch_up(self) -> None:
        if self._disk is None or self._disk_state() == self._seen:
            return
        with self._lock:
            if self._disk_state() != self._seen:
                log.info("the vector store at %s was written by another process: reopening it", self._disk.parent)
                self._reopen()

    def _reopen(self) -> None:
        """A fresh embedded client; the replaced one keeps serving reads already under way until the next
        reopen stops it (chromadb shares one system per path in a process, hence the cache entry popped)."""
        from chromadb.api.shared_system_client import SharedSystemClient

        if self._retired is not None:
            self._retired.stop()
        self._retired = SharedSystemClient._identifier_to_system.pop(self._client._identifier, None)
        self._open()

    @property
    def collection(self) -> Any:
        """The Chroma collection, as the disk holds it now."""
        self._catch_up()
        return self._collection

    @contextmanager
    def _writing(self) -> Iterator[None]:
        """Writes of this process, after catching up with others'; what they change on disk is then known."""
        self._catch_up()
        with self._lock, self._reachable():
            try:
                yield
            finally:
                self._seen = self._disk_state()

    @contextmanager
    def _reachable(self) -> Iterator[None]:
        """A Chroma server that stops answering mid-run becomes `StoreUnavailable`, not a network traceback."""
        try:
            yield
        except httpx.TransportError as exc:
            raise StoreUnavailable(
                f"lost the Chroma server at {self._server} ({type(exc).__name__}: {exc}): check that it is running "
                "and run the command again (an interrupted ingest picks up where it stopped)"
            ) from exc

    def _llama_store(self) -> ChromaVectorStore:
        from llama_index.vector_stores.chroma import ChromaVectorStore

        return ChromaVectorStore(chroma_collection=self._collection)

    def _check_model(self, settings: Settings) -> None:
        meta = self.collection.metadata or {}
        where = settings.chroma_path if settings.chroma.effective_mode == "local" else "the Chroma server"
        if meta.get("embed_model") != self.model_name or int(meta.get("embed_dim", self.dim)) != self.dim:
            raise EmbeddingModelMismatch(
                f"the vector store at {where} "
                f"(collection '{settings.chroma.collection}') was built with {meta.get('embed_model')} "
                f"({meta.get('embed_dim')}-d), but papertalk is set to {self.model_name} ({self.dim}-d): "
                "switch PAPERTALK_EMBEDDING__BACKEND back, or use another PAPERTALK_DATA_DIR / "
                "PAPERTALK_CHROMA__COLLECTION and ingest again"
            )

    def count(self) -> int:
        with self._reachable():
            return int(self.collection.count())

    def add(self, chunks: Sequence[Chunk], vectors: np.ndarray, published: dict[str, int]) -> None:
        nodes: list[BaseNode] = []
        for chunk, vec in zip(chunks, vectors, strict=True):
            node = TextNode(
                id_=chunk.chunk_id,
                text=chunk.text,
                embedding=vec.tolist(),
                metadata={
                    "paper_id": chunk.paper_id,
                    "ordinal": chunk.ordinal,
                    "page_start": chunk.page_start or 0,
                    "page_end": chunk.page_end or 0,
                    "section": chunk.section,
                    "caption": chunk.caption,
                    "published": published.get(chunk.paper_id, 0),
                },
                excluded_embed_metadata_keys=list(_NOT_EMBEDDED),
            )
            nodes.append(node)
        if nodes:
            with self._writing():
                self.store.add(nodes)

    def delete_papers(self, paper_ids: Sequence[str]) -> None:
        if paper_ids:
            with self._writing():
                self._collection.delete(where={"paper_id": {"$in": list(paper_ids)}})

    def vectors_of(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """The stored vectors of `chunk_ids` (those the index holds), one row each, in no particular order."""
        if not chunk_ids:
            return np.zeros((0, 0), dtype=np.float32)
        with self._reachable():
            got = self.collection.get(ids=list(chunk_ids), include=["embeddings"])
        return np.asarray(got["embeddings"], dtype=np.float32)

    def ids_of(self, paper_id: str) -> list[str]:
        with self._reachable():
            return list(self.collection.get(where={"paper_id": paper_id}, include=[])["ids"])

    def search(
        self,
        vector: Sequence[float],
        k: int,
        paper_ids: Sequence[str] | None = None,
        published: tuple[int, int] | None = None,
    ) -> list[VectorHit]:
        """Nearest chunks, optionally only of `paper_ids` and/or first published in a yyyymmdd range."""
        clauses: list[dict[str, Any]] = []
        if paper_ids is not None:
            if not paper_ids:
                return []
            clauses.append({"paper_id": {"$in": list(paper_ids)}} if len(paper_ids) > 1 else {"paper_id": paper_ids[0]})
        if published is not None:
            clauses += [{"published": {"$gte": published[0]}}, {"published": {"$lte": published[1]}}]
        where = clauses[0] if len(clauses) == 1 else ({"$and": clauses} if clauses else None)
        # Writes go through llama-index's ChromaVectorStore; searches ask Chroma for ids and distances only:
        # the wrapper would rebuild a node (text, metadata) for every candidate, ~80 ms at k=100.
        with self._reachable():
            result = self.collection.query(
                query_embeddings=[list(map(float, vector))], n_results=k, where=where, include=["distances"]
            )
        ids, distances = result["ids"][0], (result.get("distances") or [[]])[0]
        # cosine space: distance = 1 - cosine similarity; chunk ids start with their paper id
        return [VectorHit(i, i.split("#", 1)[0], 1.0 - float(d)) for i, d in zip(ids, distances, strict=True)]
