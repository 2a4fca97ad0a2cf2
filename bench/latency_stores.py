"""The latency benchmark's stores: which records, their cached chunk vectors, and the data dirs built from them.

Everything lands under bench/.cache/latency/ (gitignored): plan.json (held-out ids and the seeded order),
questions.json, keys.json + parts/NNNN.npy (each chunk's 64-piece gist vector, in plan order), and one
papertalk data dir per size, written by the real ingest pipeline with the cached vectors handed in.

`--gist 16` makes the stores affordable on a busy machine: each chunk's vector is the embedding of the
first 8 word pieces of its title and the first 6 of its own text (16 with the two special pieces), about
5x cheaper to embed than 64 pieces. Its vectors and stores live in bench/.cache/latency/gist16/; chunk
texts, chunk count, HNSW size and BM25 are the same as with 64-piece gists.
"""

from __future__ import annotations

import hashlib
import json
import logging
import pickle
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr

from bench.common import ROOT, Stopwatch, arxiv_file, require
from storage.records import Chunk, Paper

CACHE = ROOT / "bench" / ".cache" / "latency"
SEED = 20240
HOLDOUT = 130  # questions (up to 100) + warm-up questions, from records kept out of every store
SIZES = {"2k": 2000, "20k": 20000, "112k": None}  # None: every record not held out
TEMPLATES = (
    "What is known about {}?",
    "Which methods have been proposed for {}?",
    "What results are reported on {}?",
)
PART = 4096  # chunks per cached .npy part
GIST = 64  # word pieces embedded per chunk by default (see `gist_dir`)
TITLE_PIECES = 8  # with a shorter gist: title pieces first, then the chunk's own
log = logging.getLogger(__name__)


# --- plan: which records go where -----------------------------------------------------------------
def load_papers() -> dict[str, Paper]:
    from ingest.sources import arxiv_papers

    papers = {}
    for item in arxiv_papers(require(arxiv_file(), "the shared arXiv metadata file")):
        if isinstance(item, Paper):
            papers[item.paper_id] = item
    return papers


def make_plan(papers: dict[str, Paper]) -> dict[str, Any]:
    """Held-out ids (question sources) and the seeded order in which the rest enter the stores."""
    path = CACHE / "plan.json"
    if path.exists():
        plan: dict[str, Any] = json.loads(path.read_text())
        return plan
    ids = sorted(papers)
    random.Random(SEED).shuffle(ids)
    plan = {"seed": SEED, "holdout": ids[:HOLDOUT], "order": ids[HOLDOUT:]}
    CACHE.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(plan))
    return plan


def write_questions(papers: dict[str, Paper], plan: dict[str, Any]) -> None:
    """Questions from the held-out titles, and the newest first-listed date (so measuring reads no records)."""
    path = CACHE / "questions.json"
    if not path.exists():
        questions = [question(papers[pid], i) for i, pid in enumerate(plan["holdout"])]
        newest = max(p.published for p in papers.values() if p.published)
        path.write_text(json.dumps({"questions": questions, "newest": newest.isoformat()}, indent=1))


def question(paper: Paper, index: int) -> str:
    title = " ".join(paper.title.split()).rstrip(".")
    if len(title) > 1 and not title[1].isupper():
        title = title[0].lower() + title[1:]
    return TEMPLATES[index % len(TEMPLATES)].format(title)


def text_key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:20]


def chunk_all(papers: dict[str, Paper], order: list[str], workers: int = 2) -> list[Chunk]:
    """Every paper's chunks in plan order; kept in chunks.pkl, so building a store does not chunk again.
    `workers` processes chunk in parallel (the order of the result does not depend on them)."""
    from multiprocessing import get_context

    path = CACHE / "chunks.pkl"
    if path.exists():
        cached: list[Chunk] = pickle.loads(path.read_bytes())
        return cached
    out: list[Chunk] = []
    with get_context("fork").Pool(workers, initializer=_start_chunker) as pool:
        for n, chunks in enumerate(pool.imap(_chunk_one, (papers[pid] for pid in order), chunksize=200), start=1):
            out += chunks
            if n % 10000 == 0:
                log.info("chunked %d papers (%d chunks)", n, len(out))
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
    tmp.rename(path)
    return out


_CHUNKER: list[Any] = []  # the worker process's chunker


def _start_chunker() -> None:
    from ingest.chunking import Chunker
    from papertalk.settings import Settings

    _CHUNKER.append(Chunker(Settings().chunking))


def _chunk_one(paper: Paper) -> list[Chunk]:
    return list(_CHUNKER[0].chunk(paper, paper.content_hash()))


class CachedChunker:
    """Hands the ingest pipeline each paper's chunks from `chunk_all` (the same `Chunker` made them)."""

    def __init__(self, chunks: list[Chunk]) -> None:
        self.by_paper: dict[str, list[Chunk]] = {}
        for chunk in chunks:
            self.by_paper.setdefault(chunk.paper_id, []).append(chunk)

    def chunk(self, paper: Paper, content_hash: str) -> list[Chunk]:
        chunks = self.by_paper[paper.paper_id]
        assert chunks[0].chunk_id.split("#")[1] == content_hash[:10], "chunks.pkl is stale: delete it"
        return chunks


# --- embeddings (cached) --------------------------------------------------------------------------
def gist_dir(gist: int = GIST) -> Path:
    """Where the vectors and stores made with `gist`-piece gists live (64: the original layout)."""
    return CACHE if gist == GIST else CACHE / f"gist{gist}"


class GistText:
    """The text whose embedding stands for a chunk: its embedded text (64 pieces), or a shorter mix of
    the title's first pieces and the chunk's own, so two chunks of one paper keep different vectors."""

    def __init__(self, gist: int) -> None:
        from storage.embeddings import WordPieceCounter

        self.gist = gist
        self.counter = WordPieceCounter()

    def __call__(self, chunk: Chunk) -> str:
        if self.gist == GIST:
            return chunk.embed_text  # `short=True` reads its first 64 pieces
        title = chunk.embed_text[: len(chunk.embed_text) - len(chunk.text) - 1]
        body_pieces = self.gist - 2 - TITLE_PIECES
        return f"{self.counter.truncate(title, TITLE_PIECES)}\n{self.counter.truncate(chunk.text, body_pieces)}"


def embed_parts(chunks: list[Chunk], gist: int = GIST) -> None:
    """Embed every chunk's gist, in order, into parts/NNNN.npy; existing parts are kept."""
    from storage.embeddings import LocalMiniLMEmbedding

    folder = gist_dir(gist)
    parts = folder / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    (folder / "keys.json").write_text(json.dumps([text_key(c.embed_text) for c in chunks]))
    model = LocalMiniLMEmbedding(threads=0, batch_size=32)
    gist_text = GistText(gist)
    started, done = time.perf_counter(), 0
    for index, start in enumerate(range(0, len(chunks), PART)):
        path = parts / f"{index:04d}.npy"
        if path.exists():
            continue
        texts = [gist_text(c) for c in chunks[start : start + PART]]
        vectors = model.embed_texts(texts, short=True)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, vectors)
        tmp.rename(path)
        done += len(texts)
        rate = done / (time.perf_counter() - started)
        left = (len(chunks) - start - len(texts)) / rate / 60
        log.info(
            "embedded part %d: %d/%d chunks, %.0f chunks/s, ~%.0f min left",
            index,
            start + len(texts),
            len(chunks),
            rate,
            left,
        )


def cached_vectors(gist: int = GIST) -> tuple[list[str], np.ndarray]:
    """(text keys, vectors) of every chunk embedded so far, in plan order."""
    keys: list[str] = json.loads((gist_dir(gist) / "keys.json").read_text())
    arrays = []
    for index in range(0, -(-len(keys) // PART)):
        path = gist_dir(gist) / "parts" / f"{index:04d}.npy"
        if not path.exists():
            break
        arrays.append(np.load(path))
    vectors = np.concatenate(arrays) if arrays else np.zeros((0, 384), dtype=np.float32)
    return keys[: len(vectors)], vectors


def embedded_all(gist: int = GIST) -> bool:
    keys = gist_dir(gist) / "keys.json"
    if not keys.exists():
        return False
    n = len(json.loads(keys.read_text()))
    return all((gist_dir(gist) / "parts" / f"{i:04d}.npy").exists() for i in range(-(-n // PART)))


def prepare(gist: int = GIST) -> None:
    """Plan, questions, and every chunk's gist vector; nothing is redone once all parts are cached."""
    if (CACHE / "questions.json").exists() and embedded_all(gist):
        log.info("every chunk vector is cached in %s", gist_dir(gist))
        return
    papers = load_papers()
    plan = make_plan(papers)
    write_questions(papers, plan)
    log.info("%d papers read, %d held out", len(papers), len(plan["holdout"]))
    chunks = chunk_all(papers, plan["order"])
    log.info("%d chunks", len(chunks))
    embed_parts(chunks, gist)


# --- stores ---------------------------------------------------------------------------------------
class MissingVector(Exception):
    """A chunk whose vector `prepare` has not embedded (yet)."""


class CachedGists(BaseEmbedding):
    """Hands the ingest pipeline the cached vector of each chunk text (so building embeds nothing)."""

    _vectors: dict[str, np.ndarray] = PrivateAttr()

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        super().__init__(model_name="cached-gists", embed_batch_size=1024)
        self._vectors = vectors

    @classmethod
    def class_name(cls) -> str:
        return "CachedGists"

    def _lookup(self, text: str) -> list[float]:
        vector = self._vectors.get(text_key(text))
        if vector is None:
            raise MissingVector(text[:60])
        return [float(x) for x in vector]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._lookup(text)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [self._lookup(t) for t in texts]

    def _get_query_embedding(self, query: str) -> list[float]:
        raise NotImplementedError("CachedGists only serves chunk texts")

    async def _aget_query_embedding(self, query: str) -> list[float]:
        raise NotImplementedError("CachedGists only serves chunk texts")


def store_dir(label: str, gist: int = GIST) -> Path:
    return gist_dir(gist) / f"store-{label}"


def store_settings(label: str, gist: int = GIST) -> Any:
    from papertalk.settings import Settings

    return Settings(_env_file=None, data_dir=store_dir(label, gist), llm={"backend": "extractive"})


def build_store(label: str, papers: dict[str, Paper], plan: dict[str, Any], gist: int = GIST) -> dict[str, Any] | None:
    """Ingest the first papers of the plan into store-LABEL; None while their vectors are not all cached yet.

    An unfinished build stops like a killed ingest (its last batch left pending) and the next call resumes
    it: the pipeline skips papers already indexed, so stores can be built while `prepare` still embeds.
    """
    from ingest.pipeline import Ingestor
    from storage.store import Store

    marker = store_dir(label, gist) / "bench-built.json"
    if marker.exists():
        built: dict[str, Any] = json.loads(marker.read_text())
        store = Store(store_settings(label, gist))
        store.keywords.refresh()  # an index left in an older format is rebuilt here, not while timing
        store.close()
        return built
    order = plan["order"][: SIZES[label]]
    keys, vectors = cached_vectors(gist)
    store = Store(store_settings(label, gist))
    store.__dict__["embedder"] = CachedGists(dict(zip(keys, vectors, strict=True)))
    try:
        with Stopwatch() as sw:
            ingestor = Ingestor(store, batch_chunks=2048)
            if (CACHE / "chunks.pkl").exists():
                ingestor.chunker = CachedChunker(chunk_all(papers, plan["order"]))  # type: ignore[assignment]
            ingestor.run(papers[pid] for pid in order)
    except MissingVector:
        log.info("store-%s: %d papers indexed so far; rerun once more are embedded", label, indexed(store))
        return None
    finally:
        store.close()
    store = Store(store_settings(label, gist))
    built = {"papers": indexed(store), "vectors": store.vectors.count(), "last_build_s": sw.seconds, "gist": gist}
    chunks = store.catalog.count_chunks()
    store.close()
    if built["papers"] != len(order) or built["vectors"] != chunks:
        raise RuntimeError(f"store-{label} is incomplete ({built}): delete {store_dir(label, gist)} and build again")
    marker.write_text(json.dumps(built))
    log.info("built store-%s: %s", label, built)
    return built


def indexed(store: Any) -> int:
    return int(store.catalog.count_papers("indexed"))


def disk_mib(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20
