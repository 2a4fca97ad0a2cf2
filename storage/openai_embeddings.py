"""The `openai` embedding backend: any OpenAI-compatible embeddings endpoint, with the configured timeout
and retries, and failures as one line that says what to change.

llama-index's `OpenAIEmbedding` retries on two levels: the `openai` client's own retries, and a tenacity
loop (10 attempts, waits of 1 to 20 s, up to 60 s) around every call, so an unreachable server took about
100 s to fail. Here only the client retries, `embedding.max_retries` times with its short backoff, and each
request waits at most `embedding.timeout_s`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
import openai
from llama_index.embeddings.openai import OpenAIEmbedding

from papertalk.errors import ConfigurationError, NetworkError

if TYPE_CHECKING:
    from papertalk.settings import Settings

F = TypeVar("F", bound=Callable[..., Any])


class EmbeddingUnavailable(NetworkError):
    """The embeddings server could not be reached, timed out, refused the key or failed."""


class CheckedOpenAIEmbedding(OpenAIEmbedding):
    """`OpenAIEmbedding` with one retry layer (the client's) and errors turned into `EmbeddingUnavailable`."""

    @classmethod
    def class_name(cls) -> str:
        return "CheckedOpenAIEmbedding"

    def _create_retry_decorator(self) -> Callable[[F], F]:
        return lambda fn: fn  # the openai client retries `max_retries` times; a second loop would multiply them

    def _get_query_embedding(self, query: str) -> list[float]:
        with self._errors():
            return super()._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        with self._errors():
            return super()._get_text_embedding(text)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        with self._errors():
            return super()._get_text_embeddings(texts)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        with self._errors():
            return await super()._aget_query_embedding(query)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        with self._errors():
            return await super()._aget_text_embeddings(texts)

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except (openai.OpenAIError, httpx.HTTPError) as exc:
            raise EmbeddingUnavailable(describe_failure(exc, self)) from exc


def describe_failure(exc: Exception, cfg: OpenAIEmbedding) -> str:
    """What went wrong with the embeddings server, and what to do about it."""
    server, model = f"the embeddings server at {cfg.api_base}", cfg.model_name
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return (
            f"{server} did not answer within {cfg.timeout:g} s ({cfg.max_retries} retries): check that it is "
            "running and not overloaded, or raise PAPERTALK_EMBEDDING__TIMEOUT_S"
        )
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        return (
            f"could not connect to {server} ({cfg.max_retries} retries): check OPENAI_BASE_URL "
            "(or PAPERTALK_LLM__BASE_URL) and that the server is running"
        )
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return f"{server} refused the API key (HTTP {exc.status_code}): set OPENAI_API_KEY to a valid key"
    if isinstance(exc, openai.NotFoundError):
        return (
            f"{server} has no model {model!r} or no embeddings endpoint (HTTP 404): check "
            "PAPERTALK_EMBEDDING__OPENAI_MODEL and that OPENAI_BASE_URL ends with the API root (often /v1)"
        )
    if isinstance(exc, openai.APIStatusError):
        return f"{server} failed (HTTP {exc.status_code}) after {cfg.max_retries} retries: check the server's logs"
    return f"{server} answered badly ({type(exc).__name__}: {exc}): check the server"


def build_openai_embedding(settings: Settings) -> CheckedOpenAIEmbedding:
    """The embeddings client for `PAPERTALK_EMBEDDING__BACKEND=openai`, from the embedding and key settings."""
    cfg = settings.embedding
    key, base_url = settings.llm_api_key(), settings.llm_base_url()
    if not key and not base_url:
        raise ConfigurationError(
            "the `openai` embedding backend needs an API key: set OPENAI_API_KEY (or PAPERTALK_LLM__API_KEY), or "
            "point OPENAI_BASE_URL at a local OpenAI-compatible server, or use PAPERTALK_EMBEDDING__BACKEND=local"
        )
    return CheckedOpenAIEmbedding(
        model=cfg.openai_model,
        api_key=key or "unused",  # local servers (vLLM, Ollama, llama.cpp) accept any key
        api_base=base_url,
        embed_batch_size=cfg.openai_batch_size,
        timeout=cfg.timeout_s,
        max_retries=cfg.max_retries,
    )
