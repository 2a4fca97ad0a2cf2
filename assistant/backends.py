"""Builds the answer backend chosen by `settings.llm.backend` (one adapter per backend)."""

from __future__ import annotations

from llama_index.core.base.embeddings.base import BaseEmbedding

from assistant.base import Answerer
from assistant.extractive import ExtractiveAnswerer
from assistant.stored_sentences import StoredLookup
from papertalk.errors import ConfigurationError
from papertalk.settings import Settings


def build_answerer(settings: Settings, embedder: BaseEmbedding, stored: StoredLookup | None = None) -> Answerer:
    """`stored`: the vectors ingest stored for retrieved sentences, which the extractive answer scores."""
    if settings.llm.backend == "extractive":
        return ExtractiveAnswerer(embedder, settings.answer, stored=stored)
    try:
        from assistant.generative import OpenAIAnswerer
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ConfigurationError(
            f"the `openai` answer backend could not be loaded ({exc}): reinstall papertalk with its dependencies"
        ) from exc
    return OpenAIAnswerer(settings, embedder)
