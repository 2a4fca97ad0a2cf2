"""The latency benchmark's measurements of one store, run in a process of its own (so its peak RSS is its own)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from datetime import date
from functools import partial
from typing import Any

import numpy as np

from bench.common import Stopwatch, peak_rss_mb, percentile
from bench.latency_scopes import ExactDense, exactness, scopes
from bench.latency_stores import CACHE, disk_mib, store_dir, store_settings


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
    clock.wrap(retriever, "resolve", "resolve")
    clock.wrap(store.keywords, "mask_for", "mask")
    clock.wrap(retriever, "_dense", "dense")  # Chroma, or exact in memory for a narrow scope
    clock.wrap(store.keywords, "search", "keyword")
    clock.wrap(assistant.answerer, "answer", "answer")
    clock.wrap(assistant.answerer, "stored", "stored")
    clock.wrap(extractive, "similarities", "sentence_embed")
    return clock


def stages_of(raw: dict[str, float]) -> dict[str, float]:
    """Milliseconds per reported stage, derived from the nested wrapped calls."""
    names = ("candidates", "dense", "keyword", "mask", "resolve", "retrieve", "answer", "stored", "sentence_embed")
    ms = dict.fromkeys(names, 0.0) | {k: v * 1000 for k, v in raw.items()}
    return {
        "query embed": ms["candidates"] - ms["dense"] - ms["keyword"],
        "dense search": ms["dense"],
        "keyword (BM25)": ms["keyword"],
        "keyword: of which paper mask": ms["mask"],
        "scope resolve (SQLite)": ms["resolve"],
        "fusion + hydrate": ms["retrieve"] - ms["candidates"] - ms["resolve"],
        "answer: stored sentence vectors": ms["stored"],
        "answer: sentence embed": ms["sentence_embed"],
        "answer: rest": ms["answer"] - ms["stored"] - ms["sentence_embed"],
        "other": ms["total"] - ms["retrieve"] - ms["answer"],
        "total": ms["total"],
    }


def time_questions(
    assistant: Any, clock: StageClock, questions: list[str], scope: Any = None, before: Callable[[], Any] | None = None
) -> dict[str, Any]:
    """p50/p95/mean/max ms per stage over `questions`; `before` runs ahead of each question, untimed."""
    cache = assistant.store.embedder._query_cache
    rows, abstained = [], 0
    for text in questions:
        cache.clear()  # every question pays for its own query embedding
        if before is not None:
            before()
        clock.current = {}
        start, cpu = time.perf_counter(), time.process_time()
        answer = assistant.ask(text, scope)
        clock.current["total"] = time.perf_counter() - start
        rows.append(stages_of(clock.current) | {"cpu": (time.process_time() - cpu) * 1000})
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


AFTER_CHANGE = 5  # questions timed each just after a catalog write that moves scopes_version


def time_scope(assistant: Any, clock: StageClock, questions: list[str], scope: Any) -> dict[str, Any]:
    """A scope's questions as a chat in it asks them: the first apart (the process meets the scope: resolves it,
    builds its keyword mask, reads and stacks its chunk vectors), then the rest (all of that kept), then
    AFTER_CHANGE more, each just after a write to the papers table (moving `scopes_version`: resolved and
    masked again; the chunk vectors, keyed by `chunks_version`, stay held)."""
    first = time_questions(assistant, clock, questions[:1], scope)
    rest = time_questions(assistant, clock, questions[1:], scope)
    touch = partial(assistant.store.catalog.transaction, [("UPDATE papers SET status = status WHERE 0", ())])
    changed = time_questions(assistant, clock, questions[:AFTER_CHANGE], scope, before=touch)
    rest["first"] = {stage: first[stage]["max"] for stage in first if isinstance(first[stage], dict)}
    rest["after_change"] = {stage: changed[stage] for stage in changed if isinstance(changed[stage], dict)}
    return rest


def interleaved(ways: dict[str, Callable[[Any], Any]], items: list[Any]) -> dict[str, dict[str, float]]:
    """p50/p95 ms of each way over the same items, the ways taking turns (rotated) so load hits all alike."""
    times: dict[str, list[float]] = {name: [] for name in ways}
    names = list(ways)
    for i, item in enumerate(items):
        for name in names[i % len(names) :] + names[: i % len(names)]:
            start = time.perf_counter()
            ways[name](item)
            times[name].append((time.perf_counter() - start) * 1000)
    return {name: {"p50": percentile(t, 50), "p95": percentile(t, 95)} for name, t in times.items()}


VARIANT_QUESTIONS = 30  # questions for the variant tables (a filtered Chroma search can take a second)


FETCHES = (1000, 2000, 4000)  # unfiltered searches whose in-scope hits are kept


def dense_variants(retriever: Any, questions: list[str], kinds: dict[str, Any]) -> dict[str, Any]:
    """100-candidate dense search, same query vectors: whole corpus, and for each scope Chroma's `published`
    filter (date scopes), a `paper_id $in` filter, unfiltered searches of FETCHES kept if in scope, and the
    retriever's own way (an unfiltered search sized to the scope's share, else Chroma's filter)."""
    store = retriever.store
    vectors = [store.embedder.get_query_embedding(q) for q in questions[:VARIANT_QUESTIONS]]
    search, collection = store.vectors.search, store.vectors.collection
    ways: dict[str, Callable[[Any], Any]] = {
        "whole corpus: VectorIndex.search (ids + distances)": lambda v: search(v, 100),
        "whole corpus: Chroma returning documents + metadatas too": lambda v: collection.query(
            query_embeddings=[v], n_results=100, include=["documents", "metadatas", "distances"]
        ),
    }
    out: dict[str, Any] = {}
    for key, scope in kinds.items():
        name, resolved = scope.describe(), retriever.resolve(scope)
        ids = resolved.paper_ids
        if resolved.published and not scope.topic:
            ways[f"{name}: Chroma `published` filter"] = partial(search, k=100, published=resolved.published)
        if len(ids) <= 10000:
            ways[f"{name}: Chroma `paper_id $in` filter"] = partial(search, k=100, paper_ids=ids)
        for fetch in FETCHES:
            ways[f"{name}: {fetch:,} unfiltered, kept if in scope"] = partial(post_filtered, search, set(ids), fetch)
        ways[f"{name}: as now, `HybridRetriever._dense`"] = partial(retriever._dense, n=100, scope=resolved)
        out[key] = {
            "scope": name,
            "papers": len(ids),
            "kept": {
                str(f): float(np.mean([len(post_filtered(search, set(ids), f, v)) for v in vectors])) for f in FETCHES
            },
            "accepted": sum(retriever._post_filtered(v, 100, resolved) is not None for v in vectors) / len(vectors),
        }
    out["times"] = interleaved(ways, vectors)
    return out


def post_filtered(search: Callable[..., Any], allowed: set[str], fetch: int, vector: list[float]) -> list[Any]:
    return [h for h in search(vector, fetch) if h.paper_id in allowed][:100]


def fill_sentences(assistant: Any, asked: list[tuple[Any, list[str]]]) -> dict[str, Any]:
    """Sentence vectors stored for every chunk of every paper the timed questions retrieve, before timing:
    the store was built without them (embedding every sentence of 112k abstracts takes hours here)."""
    from ingest.sentence_vectors import fill

    store = assistant.store
    papers = sorted({p.paper_id for scope, texts in asked for text in texts for p in assistant.sources(text, scope)})
    chunk_ids = [c.chunk_id for pid in papers for c in store.catalog.chunks_of(pid)]
    stored = store.sentence_vectors.get(chunk_ids)
    have = {cid for cid, _ in stored}
    missing = [cid for cid in chunk_ids if cid not in have]
    with Stopwatch() as sw:
        added = fill(store, missing)
    return {"papers": len(papers), "chunks": len(chunk_ids), "filled": len(missing), "vectors": added, "s": sw.seconds,
            "held": len(stored) + added}  # fmt: skip


def answer_variants(assistant: Any, questions: list[str]) -> dict[str, Any]:
    """p50/p95 ms of the extractive answer alone, same questions and sources: with the stored sentence vectors
    (every sentence scored) and with them ignored (the 6 pre-filtered sentences embedded, as before)."""
    from assistant.extractive import ExtractiveAnswerer
    from assistant.types import Scope

    stored = assistant.answerer
    embedding = ExtractiveAnswerer(stored.embedder, stored.settings)
    items = [(text, assistant.sources(text, Scope())) for text in questions]
    ways: dict[str, Callable[[Any], Any]] = {
        "stored sentence vectors, every sentence scored (default)": lambda it: stored.answer(it[0], it[0], it[1]),
        "6 pre-filtered sentences embedded at question time (before)": lambda it: embedding.answer(it[0], it[0], it[1]),
    }
    out: dict[str, Any] = interleaved(ways, items)
    out["sentences"] = float(np.mean([len(stored._score(text, sources)[0]) for text, sources in items]))
    return out


def stored_vectors(collection: Any) -> tuple[list[str], np.ndarray]:
    ids: list[str] = []
    arrays = []
    for offset in range(0, collection.count(), 5000):
        got = collection.get(include=["embeddings"], limit=5000, offset=offset)
        ids += got["ids"]
        arrays.append(np.asarray(got["embeddings"], dtype=np.float32))
    return ids, np.concatenate(arrays)


def recall(store: Any, questions: list[str], ids: list[str], matrix: np.ndarray) -> dict[str, float]:
    """Chroma's top-k ids against exact cosine top-k over the same stored vectors (unit length)."""
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


def measure(label: str, n_questions: int, n_scoped: int, gist: int) -> dict[str, Any]:
    from assistant.service import Assistant
    from assistant.types import Scope
    from storage.store import Store

    saved = json.loads((CACHE / "questions.json").read_text())
    questions: list[str] = saved["questions"]
    timed, warm = questions[:n_questions], questions[n_questions:]
    load_start = os.getloadavg()[0]
    with Stopwatch() as cold:
        store = Store(store_settings(label, gist))
        assistant = Assistant(store)
        assistant.ask(warm[0])
    kinds = scopes(store, date.fromisoformat(saved["newest"]))
    filled = fill_sentences(assistant, [(Scope(), timed)] + [(scope, timed[:n_scoped]) for scope in kinds.values()])
    for text in warm[1:]:
        assistant.ask(text)
    sentences: list[list[str]] = []
    clock = instrument(assistant, sentences)
    result: dict[str, Any] = {"label": label, "cold_s": cold.seconds, "all": time_questions(assistant, clock, timed)}
    result["filled"], result["embedded_sentences"] = filled, sum(map(len, sentences))
    indexed = store.catalog.count_papers("indexed")
    for key, scope in kinds.items():
        result[key] = time_scope(assistant, clock, timed[:n_scoped], scope)
        papers = len(assistant.retriever.resolve(scope).paper_ids or ())  # after timing: resolving keeps the scope
        result[key] |= {"scope": scope.describe(), "papers": papers, "share": papers / indexed}
    result["peak_rss_mib"] = peak_rss_mb()
    result["load"] = [load_start, os.getloadavg()[0]]
    result["dense_raw"] = dense_variants(assistant.retriever, timed, kinds)
    result["answer_raw"] = answer_variants(assistant, timed[:VARIANT_QUESTIONS])
    ids, matrix = stored_vectors(store.vectors.collection)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    result |= recall(store, timed, ids, matrix)
    exact, few = ExactDense(ids, matrix), timed[:VARIANT_QUESTIONS]
    result["exact"] = {key: exactness(assistant.retriever, exact, few, scope) for key, scope in kinds.items()}
    result["disk_mib"] = disk_mib(store_dir(label, gist))
    result["hnsw"] = store.vectors.collection.configuration_json.get("hnsw")
    result["embed_batch"] = store.embedder.embed_batch_size
    return result
