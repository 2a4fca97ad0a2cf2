"""One handle on everything stored: catalog, vectors, keyword index and the embedding model."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from papertalk.settings import Settings, ensure_data_dir
from storage.catalog import Catalog
from storage.chats import Chats
from storage.keyword import KeywordIndex
from storage.library import Library
from storage.topics import Topics

if TYPE_CHECKING:  # the model and the vector store load on first use: `papers list` needs neither
    from llama_index.core.base.embeddings.base import BaseEmbedding

    from storage.scope_vectors import ScopeVectors
    from storage.sentence_vectors import SentenceVectors
    from storage.vectors import VectorIndex


def open_catalog(settings: Settings) -> Catalog:
    """The SQLite catalog in the data directory, or the PostgreSQL one when `catalog.url` names it."""
    if settings.catalog.url:
        from storage.pg_catalog import PgCatalog

        cfg = settings.catalog
        return PgCatalog(cfg.url.get_secret_value(), cfg.connect_timeout_s, cfg.pool_size)  # type: ignore[union-attr]
    return Catalog(settings.catalog_path)


class Store:
    """Opened from settings; parts are created on first use, so a CLI listing papers loads no model."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        ensure_data_dir(settings.data_dir)  # a path that cannot hold the store is one clear error
        self.catalog = open_catalog(settings)

    @cached_property
    def embedder(self) -> BaseEmbedding:
        from storage.embeddings import build_embedding

        return build_embedding(self.settings)

    @cached_property
    def vectors(self) -> VectorIndex:
        from storage.embeddings import embedding_identity
        from storage.vectors import VectorIndex

        name, dim = embedding_identity(self.settings)
        return VectorIndex(self.settings, name, dim)

    @cached_property
    def scope_vectors(self) -> ScopeVectors:
        """Exact dense search within a scope of a few thousand papers (storage/scope_vectors.py)."""
        from storage.scope_vectors import ScopeVectors

        return ScopeVectors(self.catalog, self.vectors)

    @cached_property
    def sentence_vectors(self) -> SentenceVectors:
        """Each chunk's sentences embedded once, at ingest or by an overview (storage/sentence_vectors.py)."""
        from storage.embeddings import embedding_identity
        from storage.sentence_vectors import SentenceVectors

        return SentenceVectors(self.catalog, *embedding_identity(self.settings))

    @cached_property
    def keywords(self) -> KeywordIndex:
        return KeywordIndex(self.settings.keyword_path, self.catalog)

    @cached_property
    def topics(self) -> Topics:
        return Topics(self.catalog)

    @cached_property
    def chats(self) -> Chats:
        return Chats(self.catalog)

    @cached_property
    def library(self) -> Library:
        return Library(self.catalog)

    def close(self) -> None:
        self.catalog.close()
