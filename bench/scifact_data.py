"""SciFact for the retrieval benchmark: the BEIR files, the store they are ingested into, and each claim's
dense and keyword rankings (bench/bench_scifact.py runs it all)."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.fusion import Ranked
from assistant.retrieval import HybridRetriever
from bench.fusion_eval import Qrels, Runs, Scores, evaluate, ids, papers_of
from bench.keyword_runs import FEEDBACK_GRID, Feedback, LocalBM25, timed_queries
from ingest.pipeline import Ingestor
from papertalk.settings import ChromaSettings, RetrievalSettings, Settings
from storage.embeddings import embedding_identity
from storage.records import Paper
from storage.store import Store

PREFIX = "scifact-"
DEPTH = 1000  # chunks taken from each retriever per query; candidates are cut from these
KEYWORD_SOURCES = {
    "index": "BM25, papertalk keyword index (title + chunk)",
    "prf": "BM25 + RM3 feedback (title + chunk)",
    "whole": "BM25 over title + whole abstract",
}


# --- data ----------------------------------------------------------------------------------------
@dataclass
class Beir:
    corpus: dict[str, tuple[str, str]]  # paper id -> (title, abstract)
    queries: dict[str, str]
    qrels: dict[str, Qrels]  # split -> qrels, paper ids prefixed


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def _qrels(path: Path) -> Qrels:
    out: Qrels = {}
    for line in path.read_text(encoding="utf-8").splitlines()[1:]:  # header: query-id corpus-id score
        qid, doc, score = line.split("\t")[:3]
        out.setdefault(qid, {})[PREFIX + doc] = int(score)
    return out


def load_beir(folder: Path) -> Beir:
    corpus = {
        PREFIX + str(d["_id"]): (d.get("title") or "", d.get("text") or "") for d in _jsonl(folder / "corpus.jsonl")
    }
    queries = {str(q["_id"]): q["text"] for q in _jsonl(folder / "queries.jsonl")}
    qrels = {split: _qrels(folder / "qrels" / f"{split}.tsv") for split in ("train", "test")}
    return Beir(corpus, queries, qrels)


# --- ingest --------------------------------------------------------------------------------------
def open_store(cache: Path, corpus: Path) -> Store:
    """The benchmark's store, always embedded Chroma, one data dir per corpus, model and chunking setup."""
    base = Settings()
    c = base.chunking
    model = re.sub(r"[^\w.-]+", "_", embedding_identity(base)[0])
    digest = hashlib.sha1(corpus.read_bytes()).hexdigest()[:8]
    data_dir = cache / f"{digest}-{model}-c{c.chunk_tokens}-o{c.overlap_tokens}-t{c.title_tokens}"
    return Store(base.model_copy(update={"data_dir": data_dir, "chroma": ChromaSettings()}))


def ingest(store: Store, beir: Beir) -> None:
    papers = (Paper(paper_id=pid, title=t, abstract=a, source="scifact") for pid, (t, a) in beir.corpus.items())
    done = [0]
    start = time.perf_counter()

    def progress(n: int) -> None:
        done[0] += n
        if done[0] // 500 > (done[0] - n) // 500:
            print(f"  ingest: {done[0]:,}/{len(beir.corpus):,} papers, {time.perf_counter() - start:.0f} s", flush=True)

    report = Ingestor(store).run(papers, progress)
    print(f"ingest: {report.summary()} in {time.perf_counter() - start:.0f} s; {store.catalog.count_chunks():,} chunks")
    if report.failed:
        raise SystemExit(f"ingest failed: {report.errors[:3]}")


# --- rankings ------------------------------------------------------------------------------------
@dataclass
class QueryRuns:
    dense: dict[str, Ranked]  # query -> (chunk id, cosine), best first
    keyword: dict[str, dict[str, Ranked]]  # source -> query -> (chunk or paper id, BM25 score)
    feedback: Feedback | None = None
    feedback_train: Scores | None = None

    def pairs(self, source: str, qids: Sequence[str]) -> Runs:
        return {q: (self.dense[q], self.keyword[source][q]) for q in qids}

    def papers(self, source: str, qids: Sequence[str]) -> dict[str, list[str]]:
        ranked = self.dense if source == "dense" else self.keyword[source]
        return {q: papers_of(ids(ranked[q])) for q in qids}


def chunk_index(store: Store) -> LocalBM25:
    """BM25 over the store's chunk texts as its keyword index holds them (title + chunk)."""
    chunk_ids, texts = zip(*store.catalog.iter_chunk_texts(), strict=True)
    return LocalBM25(chunk_ids, list(texts))


def tune_feedback(index: LocalBM25, beir: Beir) -> tuple[Feedback, Scores]:
    """The RM3 settings whose keyword ranking alone scores best on the train claims."""
    train = beir.qrels["train"]
    scored = []
    for fb in FEEDBACK_GRID:
        ranked = {q: papers_of(ids(index.rm3(beir.queries[q], 200, fb))) for q in train}
        scored.append((fb, evaluate(ranked, train)))
    return max(scored, key=lambda fs: fs[1].ndcg10)


def collect_runs(store: Store, beir: Beir, qids: Sequence[str]) -> QueryRuns:
    chunks = chunk_index(store)
    whole = LocalBM25(list(beir.corpus), [f"{t}\n{a}" for t, a in beir.corpus.values()])
    fb, fb_train = tune_feedback(chunks, beir)
    print(f"feedback on train: {fb.describe()}: nDCG@10 {fb_train.ndcg10:.3f}")
    runs = QueryRuns({}, {source: {} for source in KEYWORD_SOURCES}, fb, fb_train)
    start = time.perf_counter()
    for qid in qids:
        text = beir.queries[qid]
        vector = store.embedder.get_query_embedding(text)
        runs.dense[qid] = [(h.chunk_id, h.score) for h in store.vectors.search(vector, DEPTH)]
        runs.keyword["index"][qid] = store.keywords.search(text, DEPTH)
        runs.keyword["prf"][qid] = chunks.rm3(text, DEPTH, fb)
        runs.keyword["whole"][qid] = whole.search(text, DEPTH)
    print(f"rankings: {len(qids):,} queries in {time.perf_counter() - start:.0f} s")
    return runs


def via_retriever(store: Store, settings: RetrievalSettings, beir: Beir, qids: Sequence[str]) -> dict[str, list[str]]:
    """Paper rankings from `HybridRetriever.retrieve` itself (every fused chunk, so Recall@100 is defined)."""
    retriever = HybridRetriever(store, settings)
    out = {}
    for qid in qids:
        passages = retriever.retrieve(beir.queries[qid], k=2 * settings.candidates)
        out[qid] = list(dict.fromkeys(p.paper_id for p in passages))
    return out


def feedback_cost(store: Store, runs: QueryRuns, beir: Beir) -> tuple[list[float], list[float]]:
    """Per-query milliseconds of plain BM25 and of BM25 with the chosen feedback, interleaved by repeat."""
    if runs.feedback is None:
        return [], []
    index = chunk_index(store)
    queries = [beir.queries[q] for q in beir.qrels["test"]]
    plain, fb = [], []
    for _ in range(2):
        plain.append(timed_queries(index, queries, None))
        fb.append(timed_queries(index, queries, runs.feedback))
    return [min(x) for x in zip(*plain, strict=True)], [min(x) for x in zip(*fb, strict=True)]
