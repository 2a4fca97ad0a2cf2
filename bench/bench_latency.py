"""Question latency at 2k, 20k and ~112k papers: retrieve + extractive answer, no LLM.

Three papertalk data dirs are built once under bench/.cache/latency/ from the shared arXiv file, through
the real pipeline (`Ingestor`: `Chunker`, catalog, `VectorIndex`, `KeywordIndex`); the 20k and 2k stores
hold the first papers of the same seeded shuffle. To make ~200k chunks affordable on a shared 2-core
machine, each chunk's vector is the embedding of its first 64 word pieces (`embed_texts(short=True)`):
chunk count, HNSW size, chunk texts and BM25 stay real. Vectors are cached as .npy parts, so reruns
re-embed nothing. Questions come from the titles of held-out records that no store contains.

Each size is then measured in its own process (its own peak RSS): warm-up, then every question timed end
to end (`Assistant.ask`, extractive backend) and per stage, then Chroma's recall@10 and @100 against
exact cosine search over the vectors stored in Chroma.

    nice -n 10 python -m bench.bench_latency                  # everything, cached steps skipped
    nice -n 10 python -m bench.bench_latency --phase prepare  # only chunk + embed (resumable)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import os
import random
import shutil
import sys
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr

from bench.common import (
    ROOT,
    Stopwatch,
    add_common_args,
    arxiv_file,
    emit_result,
    markdown_table,
    peak_rss_mb,
    percentile,
    publish,
    require,
    run_child,
)
from storage.records import Chunk, Paper

MODULE = "bench.bench_latency"
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
log = logging.getLogger(MODULE)


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


def chunk_all(papers: dict[str, Paper], order: list[str]) -> list[Chunk]:
    from ingest.chunking import Chunker
    from papertalk.settings import Settings

    chunker = Chunker(Settings().chunking)
    out: list[Chunk] = []
    for n, pid in enumerate(order, start=1):
        paper = papers[pid]
        out += chunker.chunk(paper, paper.content_hash())
        if n % 10000 == 0:
            log.info("chunked %d papers (%d chunks)", n, len(out))
    return out


# --- embeddings (cached) --------------------------------------------------------------------------
def embed_parts(chunks: list[Chunk]) -> None:
    """Embed every chunk's 64-piece gist, in order, into parts/NNNN.npy; existing parts are kept."""
    from storage.embeddings import LocalMiniLMEmbedding

    parts = CACHE / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    (CACHE / "keys.json").write_text(json.dumps([text_key(c.embed_text) for c in chunks]))
    model = LocalMiniLMEmbedding(threads=0, batch_size=32)
    started, done = time.perf_counter(), 0
    for index, start in enumerate(range(0, len(chunks), PART)):
        path = parts / f"{index:04d}.npy"
        if path.exists():
            continue
        texts = [c.embed_text for c in chunks[start : start + PART]]
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


def cached_vectors() -> tuple[list[str], np.ndarray]:
    """(text keys, vectors) of every chunk embedded so far, in plan order."""
    keys: list[str] = json.loads((CACHE / "keys.json").read_text())
    arrays = []
    for index in range(0, -(-len(keys) // PART)):
        path = CACHE / "parts" / f"{index:04d}.npy"
        if not path.exists():
            break
        arrays.append(np.load(path))
    vectors = np.concatenate(arrays) if arrays else np.zeros((0, 384), dtype=np.float32)
    return keys[: len(vectors)], vectors


def prepare() -> None:
    papers = load_papers()
    plan = make_plan(papers)
    write_questions(papers, plan)
    log.info("%d papers read, %d held out", len(papers), len(plan["holdout"]))
    chunks = chunk_all(papers, plan["order"])
    log.info("%d chunks", len(chunks))
    embed_parts(chunks)


# --- stores ---------------------------------------------------------------------------------------
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
            raise SystemExit("a chunk has no cached vector: run `python -m bench.bench_latency --phase prepare`")
        return [float(x) for x in vector]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._lookup(text)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return [self._lookup(t) for t in texts]

    def _get_query_embedding(self, query: str) -> list[float]:
        raise NotImplementedError("CachedGists only serves chunk texts")

    async def _aget_query_embedding(self, query: str) -> list[float]:
        raise NotImplementedError("CachedGists only serves chunk texts")


def store_dir(label: str) -> Path:
    return CACHE / f"store-{label}"


def store_settings(label: str) -> Any:
    from papertalk.settings import Settings

    return Settings(_env_file=None, data_dir=store_dir(label), llm={"backend": "extractive"})


def build_store(label: str, papers: dict[str, Paper], plan: dict[str, Any]) -> dict[str, Any]:
    """Ingest the first papers of the plan into store-LABEL (skipped when already built)."""
    from ingest.pipeline import Ingestor
    from storage.store import Store

    marker = store_dir(label) / "bench-built.json"
    if marker.exists():
        built: dict[str, Any] = json.loads(marker.read_text())
        return built
    order = plan["order"][: SIZES[label]]
    keys, vectors = cached_vectors()
    shutil.rmtree(store_dir(label), ignore_errors=True)
    store = Store(store_settings(label))
    store.__dict__["embedder"] = CachedGists(dict(zip(keys, vectors, strict=True)))
    with Stopwatch() as sw:
        report = Ingestor(store, batch_chunks=2048).run(papers[pid] for pid in order)
    built = {"papers": len(order), "chunks": report.chunks, "vectors": store.vectors.count(), "build_s": sw.seconds}
    store.close()
    marker.write_text(json.dumps(built))
    log.info("built store-%s: %s", label, built)
    return built


def disk_mib(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20


# --- measuring one size (in its own process) -------------------------------------------------------


class StageClock:
    """Wraps callables so that each call adds its wall time to the current question's stage total."""

    def __init__(self) -> None:
        self.current: dict[str, float] = {}

    def wrap(self, owner: Any, attr: str, stage: str) -> None:
        inner: Callable[..., Any] = getattr(owner, attr)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.current[stage] = self.current.get(stage, 0.0) + time.perf_counter() - start

        setattr(owner, attr, timed)


def instrument(assistant: Any, sentences: list[list[str]]) -> StageClock:
    """Stage timers on the assistant's parts; `sentences` collects the texts each answer embeds."""
    import assistant.extractive as extractive

    recorded: Callable[..., Any] = extractive.similarities

    def recording(model: Any, query: str, texts: list[str]) -> Any:
        sentences.append(list(texts))
        return recorded(model, query, texts)

    extractive.similarities = recording  # type: ignore[assignment]
    clock = StageClock()
    retriever, store = assistant.retriever, assistant.store
    clock.wrap(retriever, "retrieve", "retrieve")
    clock.wrap(retriever, "_candidates", "candidates")
    clock.wrap(store.vectors, "search", "dense")
    clock.wrap(store.keywords, "search", "keyword")
    clock.wrap(assistant.answerer, "answer", "answer")
    clock.wrap(extractive, "similarities", "sentence_embed")
    return clock


def stages_of(raw: dict[str, float]) -> dict[str, float]:
    """Milliseconds per reported stage, derived from the nested wrapped calls."""
    ms = dict.fromkeys(("candidates", "dense", "keyword", "retrieve", "answer", "sentence_embed"), 0.0)
    ms |= {k: v * 1000 for k, v in raw.items()}
    return {
        "query embed": ms["candidates"] - ms["dense"] - ms["keyword"],
        "dense (Chroma)": ms["dense"],
        "keyword (BM25)": ms["keyword"],
        "fusion + hydrate": ms["retrieve"] - ms["candidates"],
        "answer: sentence embed": ms["sentence_embed"],
        "answer: rest": ms["answer"] - ms["sentence_embed"],
        "other": ms["total"] - ms["retrieve"] - ms["answer"],
        "total": ms["total"],
    }


def time_questions(assistant: Any, clock: StageClock, questions: list[str], scope: Any = None) -> dict[str, Any]:
    cache = assistant.store.embedder._query_cache
    rows, abstained = [], 0
    for text in questions:
        cache.clear()  # every question pays for its own query embedding
        clock.current = {}
        start = time.perf_counter()
        answer = assistant.ask(text, scope)
        clock.current["total"] = time.perf_counter() - start
        rows.append(stages_of(clock.current))
        abstained += answer.abstained
    return {
        stage: {
            "p50": percentile([r[stage] for r in rows], 50),
            "p95": percentile([r[stage] for r in rows], 95),
            "mean": float(np.mean([r[stage] for r in rows])),
            "max": max(r[stage] for r in rows),
        }
        for stage in rows[0]
    } | {"abstained": abstained, "n": len(rows)}


def dense_variants(store: Any, questions: list[str]) -> dict[str, dict[str, float]]:
    """p50/p95 ms of 100-candidate dense search: through VectorIndex, and straight to Chroma with two include lists."""
    vectors = [store.embedder.get_query_embedding(q) for q in questions]
    ways: dict[str, Callable[[list[float]], Any]] = {
        "VectorIndex.search": lambda v: store.vectors.search(v, 100),
        "collection.query, documents + metadatas + distances": lambda v: store.vectors.collection.query(
            query_embeddings=[v], n_results=100, include=["documents", "metadatas", "distances"]
        ),
        "collection.query, distances only": lambda v: store.vectors.collection.query(
            query_embeddings=[v], n_results=100, include=["distances"]
        ),
    }
    out = {}
    for name, way in ways.items():
        times = []
        for v in vectors:
            start = time.perf_counter()
            way(v)
            times.append((time.perf_counter() - start) * 1000)
        out[name] = {"p50": percentile(times, 50), "p95": percentile(times, 95)}
    return out


def sentence_variants(store: Any, batches: list[list[str]]) -> dict[str, Any]:
    """p50/p95 ms of embedding each answer's pre-filtered sentences in other ways, same sentences."""
    from storage.embeddings import OnnxMiniLM, load_tokenizer

    model: OnnxMiniLM = store.embedder._model
    short32 = OnnxMiniLM()
    short32.__dict__.update(session=model.session, short_tokenizer=load_tokenizer(32))
    ways: dict[str, Callable[[list[str]], Any]] = {
        "as now: all gists (≤64 pieces) in one padded batch": lambda t: model.embed(t, short=True),
        "one call per sentence (no padding)": lambda t: [model.embed([x], short=True) for x in t],
        "gists cut at 32 pieces, one batch": lambda t: short32.embed(t, short=True),
        "only the best 5 of them, one batch": lambda t: model.embed(t[:5], short=True),
    }
    out: dict[str, Any] = {}
    for name, way in ways.items():
        times = []
        for texts in batches:
            start = time.perf_counter()
            way(texts)
            times.append((time.perf_counter() - start) * 1000)
        out[name] = {"p50": percentile(times, 50), "p95": percentile(times, 95)}
    lengths = [[sum(e.attention_mask) for e in model.short_tokenizer.encode_batch(t)] for t in batches]
    out["pieces"] = {
        "sentences": float(np.mean([len(x) for x in lengths])),
        "mean": float(np.mean([np.mean(x) for x in lengths])),
        "padded_to": float(np.mean([max(x) for x in lengths])),
    }
    return out


def stored_vectors(collection: Any) -> tuple[list[str], np.ndarray]:
    ids: list[str] = []
    arrays = []
    for offset in range(0, collection.count(), 5000):
        got = collection.get(include=["embeddings"], limit=5000, offset=offset)
        ids += got["ids"]
        arrays.append(np.asarray(got["embeddings"], dtype=np.float32))
    return ids, np.concatenate(arrays)


def recall(store: Any, questions: list[str]) -> dict[str, float]:
    """Chroma's top-k ids against exact cosine top-k over the same stored vectors."""
    ids, matrix = stored_vectors(store.vectors.collection)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    out = {}
    for k in (10, 100):
        hits = []
        for text in questions:
            q = np.asarray(store.embedder.get_query_embedding(text), dtype=np.float32)
            exact = {ids[i] for i in np.argpartition(-(matrix @ q), k - 1)[:k]}
            found = {h.chunk_id for h in store.vectors.search(q.tolist(), k)}
            hits.append(len(found & exact) / k)
        out[f"recall@{k}"] = float(np.mean(hits))
    return out


def measure(label: str, n_questions: int, n_scoped: int) -> dict[str, Any]:
    from assistant.service import Assistant
    from assistant.types import Scope
    from storage.store import Store

    saved = json.loads((CACHE / "questions.json").read_text())
    questions: list[str] = saved["questions"]
    timed, warm = questions[:n_questions], questions[n_questions:]
    load_start = os.getloadavg()[0]
    with Stopwatch() as cold:
        store = Store(store_settings(label))
        assistant = Assistant(store)
        assistant.ask(warm[0])
    for text in warm[1:]:
        assistant.ask(text)
    sentences: list[list[str]] = []
    clock = instrument(assistant, sentences)
    result: dict[str, Any] = {"label": label, "cold_s": cold.seconds, "all": time_questions(assistant, clock, timed)}
    answered = sentences[:]
    since = date.fromisoformat(saved["newest"]) - timedelta(days=180)
    result["scoped"] = time_questions(assistant, clock, timed[:n_scoped], Scope(since=since))
    result["scoped_since"] = since.isoformat()
    result["peak_rss_mib"] = peak_rss_mb()
    result["load"] = [load_start, os.getloadavg()[0]]
    result["dense_raw"] = dense_variants(store, timed)
    result["sentence_raw"] = sentence_variants(store, answered)
    result |= recall(store, timed)
    result["disk_mib"] = disk_mib(store_dir(label))
    return result


# --- report ---------------------------------------------------------------------------------------
STAGES = (
    "query embed",
    "dense (Chroma)",
    "keyword (BM25)",
    "fusion + hydrate",
    "answer: sentence embed",
    "answer: rest",
    "other",
    "total",
)


def summary_table(results: list[dict[str, Any]]) -> str:
    headers = ["store", "papers", "chunks", "disk MiB", "first answer s", "p50 ms", "p95 ms", "max ms"]
    headers += ["peak RSS MiB", "recall@10", "recall@100", "load avg"]
    rows = []
    for r in results:
        t = r["all"]["total"]
        load = f"{r['load'][0]:.1f} → {r['load'][1]:.1f}"
        rows.append(
            [
                r["label"],
                r["built"]["papers"],
                r["built"]["vectors"],
                r["disk_mib"],
                r["cold_s"],
                t["p50"],
                t["p95"],
                t["max"],
                r["peak_rss_mib"],
                f"{r['recall@10']:.3f}",
                f"{r['recall@100']:.3f}",
                load,
            ]
        )
    return markdown_table(headers, rows)


def stage_table(results: list[dict[str, Any]], key: str) -> str:
    headers = ["stage"] + [f"{r['label']} p50 / p95 ms" for r in results] + [f"{results[-1]['label']} share of mean"]
    last = results[-1][key]
    rows = []
    for stage in STAGES:
        cells = [f"{r[key][stage]['p50']:.1f} / {r[key][stage]['p95']:.1f}" for r in results]
        share = 100 * last[stage]["mean"] / last["total"]["mean"]
        rows.append([stage, *cells, f"{share:.0f}%"])
    return markdown_table(headers, rows)


def dense_table(results: list[dict[str, Any]]) -> str:
    headers = ["100-candidate dense search"] + [f"{r['label']} p50 / p95 ms" for r in results]
    rows = [
        [way, *[f"{r['dense_raw'][way]['p50']:.1f} / {r['dense_raw'][way]['p95']:.1f}" for r in results]]
        for way in results[0]["dense_raw"]
    ]
    return markdown_table(headers, rows)


def sentence_table(results: list[dict[str, Any]]) -> str:
    headers = ["embedding an answer's sentences"] + [f"{r['label']} p50 / p95 ms" for r in results]
    ways = [w for w in results[0]["sentence_raw"] if w != "pieces"]
    rows = [
        [way, *[f"{r['sentence_raw'][way]['p50']:.1f} / {r['sentence_raw'][way]['p95']:.1f}" for r in results]]
        for way in ways
    ]
    return markdown_table(headers, rows)


def dominant(result: dict[str, Any], key: str) -> str:
    stages = {s: result[key][s]["mean"] for s in STAGES if s != "total"}
    top = max(stages, key=lambda s: stages[s])
    return f"{top} ({100 * stages[top] / result[key]['total']['mean']:.0f}% of the mean)"


def sentence_intro(result: dict[str, Any]) -> str:
    pieces = result["sentence_raw"]["pieces"]
    return (
        f"The extractive answer's sentence embedding, timed again on the very sentences each answer embedded "
        f"({pieces['sentences']:.1f} sentences per answer, {pieces['mean']:.0f} word pieces on average, padded "
        f"to {pieces['padded_to']:.0f} in one batch, at {result['label']}):"
    )


def report_body(results: list[dict[str, Any]], args: argparse.Namespace) -> str:
    big = results[-1]
    verdict = "meets" if big["all"]["total"]["p95"] < 100 else "misses"
    parts = [
        f"Retrieve + extractive answer per question (`Assistant.ask`, no LLM), {big['all']['n']} questions per size "
        f"after {HOLDOUT - args.questions} warm-up questions, each paying for its own query embedding. "
        f"Target: p95 under 100 ms at ~112k papers; this run **{verdict}** it "
        f"(p95 {big['all']['total']['p95']:.0f} ms). Slowest stage at {big['label']}: {dominant(big, 'all')}.",
        summary_table(results),
        "Per stage, whole corpus:",
        stage_table(results, "all"),
        f"Per stage, {big['scoped']['n']} of the questions limited to papers first listed since "
        f"{big['scoped_since']} (`Scope(since=...)`: a Chroma metadata filter plus a BM25 paper mask):",
        stage_table(results, "scoped"),
        "Dense search through `VectorIndex.search` (llama-index's `ChromaVectorStore.query`) against Chroma's own "
        "`collection.query` asked for less, same query vectors:",
        dense_table(results),
        sentence_intro(big),
        sentence_table(results),
        NOTES,
    ]
    return "\n\n".join(parts)


NOTES = """How the stores were made: the shared arXiv file's 111,997 records, 130 held out (their titles make the
questions), the rest shuffled with a fixed seed; the 2k and 20k stores hold the first 2,000 and 20,000 of
that order, the 112k store all 111,867. Each is a papertalk data dir written by `Ingestor` (real `Chunker`
chunks of title + abstract, SQLite catalog, Chroma collection with default HNSW settings, bm25s index
over the full chunk texts). **What was embedded:** each chunk's vector is the embedding of the first 64
word pieces of its embedded text (title + chunk, `embed_texts(short=True)`), not of the full ≤256 pieces
an ingest embeds, because embedding ~200k full chunks takes hours on this machine; the number of vectors,
the HNSW graph size and everything keyword-side are as in a real ingest. Questions are held-out titles
put in one of three templates ("What is known about …?", "Which methods have been proposed for …?",
"What results are reported on …?"); query embeddings use the full model as in normal use.

Stages: *query embed* is the MiniLM call for the question; *dense* is `VectorIndex.search` (Chroma HNSW,
100 candidates, via llama-index); *keyword* is `KeywordIndex.search` (bm25s, 100 candidates);
*fusion + hydrate* is RRF plus the SQLite reads of the 8 passages and their papers; *answer: sentence
embed* is the extractive answerer embedding its 10 pre-filtered sentence gists; *answer: rest* is
sentence splitting and keyword scoring; *other* is the rest of `ask` (rewrite, numbering, streaming).
Peak RSS is the measuring process's high-water mark after the timed questions (model, Chroma's HNSW
index, BM25 matrices), before the recall check loads every vector. Recall compares `VectorIndex.search`
(k = 10 and the retriever's k = 100) with exact cosine top-k computed in numpy over the vectors read back
from the same Chroma collection, for the same questions. The machine is shared: *load avg* is the
1-minute load at the start and end of each size's measurement (2 cores; above 2 means queued work)."""


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phase", choices=["prepare", "build", "measure", "all"], default="all")
    parser.add_argument("--sizes", default=",".join(SIZES), help="comma-separated, of " + ", ".join(SIZES))
    parser.add_argument("--questions", type=int, default=100, help=f"timed questions per size (< {HOLDOUT})")
    parser.add_argument("--scoped", type=int, default=50, help="date-scoped questions per size")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    add_common_args(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("chromadb").setLevel(logging.WARNING)
    require(arxiv_file(), "the shared arXiv metadata file")
    if args.child:
        emit_result(measure(args.child, args.questions, args.scoped))
        return
    labels = [s for s in args.sizes.split(",") if s]
    if args.phase in ("prepare", "all"):
        prepare()
    if args.phase in ("build", "all"):
        papers = load_papers()
        plan = make_plan(papers)
        write_questions(papers, plan)
        for label in labels:
            build_store(label, papers, plan)
    if args.phase in ("measure", "all"):
        results = []
        for label in labels:
            child = ["--child", label, "--questions", str(args.questions), "--scoped", str(args.scoped)]
            result = run_child(MODULE, child)
            result["built"] = json.loads((store_dir(label) / "bench-built.json").read_text())
            results.append(result)
            log.info(
                "%s: p50 %.1f ms, p95 %.1f ms", label, result["all"]["total"]["p50"], result["all"]["total"]["p95"]
            )
        publish(args, "latency", "Question latency at 2k, 20k and 112k papers", MODULE, report_body(results, args))


if __name__ == "__main__":
    main()
