"""SciFact retrieval through the real papertalk pipeline: BM25, dense and hybrid, nDCG@10 and Recall@100.

The 5,183 SciFact abstracts are ingested with `Ingestor` as abstract-only papers (title + abstract,
paper id `scifact-<doc id>`) into bench/.cache/scifact/ (kept between runs: embedding them takes
minutes). Every claim is run once against the store's dense index (Chroma) and keyword index (bm25s),
plus two keyword variants built here (BM25 with RM3 pseudo-relevance feedback over the same chunk texts,
and BM25 over title + whole abstract; bench/keyword_runs.py). Each fusion (RRF or a convex combination of
normalised scores, assistant/fusion.py; chunk or paper level; candidates, rrf_k, weights) is tuned on the
train claims only, from rankings 1,000 deep; the table reports the 300 test claims, as BEIR does. The
current defaults and the best fusion papertalk can run are also run end to end through `HybridRetriever`.

    nice -n 10 python -m bench.bench_scifact          # --data DIR for another BEIR-layout folder
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.fusion import Ranked
from assistant.retrieval import HybridRetriever
from bench.common import (
    ROOT,
    add_common_args,
    markdown_table,
    percentile,
    publish,
    quiet_logs,
    require,
    shared_dir,
)
from bench.fusion_eval import (
    Convex,
    Fusion,
    Level,
    Method,
    Qrels,
    Runs,
    Scores,
    evaluate,
    fuse_all,
    ids,
    paired_gain,
    papers_of,
    tune_convex,
    tune_rrf,
)
from bench.keyword_runs import FEEDBACK_GRID, Feedback, LocalBM25, timed_queries
from ingest.pipeline import Ingestor
from papertalk.settings import ChromaSettings, RetrievalSettings, Settings
from storage.embeddings import embedding_identity
from storage.records import Paper
from storage.store import Store

MODULE = "bench.bench_scifact"
PREFIX = "scifact-"
DEPTH = 1000  # chunks taken from each retriever per query; candidates are cut from these
CANDIDATES = (50, 100, 200, 400, 1000)
RRF_KS = (1, 5, 10, 20, 40, 60, 100)
DENSE_WEIGHTS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
CONVEX_WEIGHTS = tuple(round(0.05 * i, 2) for i in range(21))
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


# --- tuning on train -----------------------------------------------------------------------------
@dataclass
class Tuned:
    source: str
    method: Method
    train: Scores

    @property
    def family(self) -> str:
        return "RRF" if isinstance(self.method, Fusion) else "convex"

    @property
    def level(self) -> str:
        m = self.method
        if isinstance(m, Convex):
            return m.level if m.keyword == "chunk" else f"{m.level}, keyword {m.keyword}"
        return m.level if isinstance(m, Fusion) else "-"


def tune_all(runs: QueryRuns, qrels: Qrels) -> list[Tuned]:
    """The best RRF and the best convex combination for each keyword ranking and fusion level, on train."""
    out = []
    start = time.perf_counter()
    for source in KEYWORD_SOURCES:
        pairs = runs.pairs(source, list(qrels))
        levels: tuple[Level, ...] = ("paper",) if source == "whole" else ("chunk", "chunk-sum", "paper")
        found: list[tuple[Method, Scores]] = [
            tune_rrf(level, pairs, qrels, CANDIDATES, RRF_KS, DENSE_WEIGHTS) for level in levels
        ]
        if source == "whole":
            found.append(tune_convex("paper", ["chunk"], pairs, qrels, CANDIDATES, CONVEX_WEIGHTS))
        else:
            found.append(tune_convex("chunk", ["chunk"], pairs, qrels, CANDIDATES, CONVEX_WEIGHTS))
            found.append(tune_convex("chunk", ["paper-max", "paper-sum"], pairs, qrels, CANDIDATES, CONVEX_WEIGHTS))
        for method, scores in found:
            out.append(Tuned(source, method, scores))
            elapsed = time.perf_counter() - start
            print(f"  tuned {source}: {method.describe()}: train nDCG@10 {scores.ndcg10:.3f} ({elapsed:.0f} s)")
    return sorted(out, key=lambda t: -t.train.ndcg10)


def as_settings(method: Method, source: str, base: RetrievalSettings) -> RetrievalSettings | None:
    """`method` as `RetrievalSettings` for `HybridRetriever`; None when the retriever cannot run it."""
    if source != "index":
        return None
    if isinstance(method, Fusion) and method.level == "chunk":
        update: dict[str, Any] = {"fusion": "rrf", "rrf_k": method.rrf_k, "dense_weight": method.dense_weight,
                                  "keyword_weight": method.keyword_weight}  # fmt: skip
    elif isinstance(method, Convex) and method.level == "chunk" and method.keyword == "chunk":
        update = {"fusion": "convex", "normalization": method.norm, "convex_dense_weight": method.dense_weight}
    else:
        return None
    return base.model_copy(update={"candidates": method.candidates, **update})


def current_method() -> Method:
    """The shipped defaults as a benchmark method."""
    d = RetrievalSettings()
    if d.fusion == "convex":
        return Convex(d.candidates, d.convex_dense_weight, d.normalization)
    return Fusion("chunk", d.candidates, d.rrf_k, d.dense_weight, d.keyword_weight)


def runnable(tuned: list[Tuned]) -> Tuned:
    """The best fusion on train that `HybridRetriever` can run as it is."""
    return next(t for t in tuned if as_settings(t.method, t.source, RetrievalSettings()) is not None)


# --- report --------------------------------------------------------------------------------------
@dataclass
class Row:
    method: str
    test: Scores
    how: str


def baseline_rows(runs: QueryRuns, test: Qrels) -> list[Row]:
    qids = list(test)
    rows = [
        Row(f"{label} alone", evaluate(runs.papers(s, qids), test), "paper = its best chunk")
        for s, label in KEYWORD_SOURCES.items()
    ]
    rows[-1].how = "one document per paper"
    if runs.feedback:
        rows[1].how += f"; {runs.feedback.describe()} (chosen on train)"
    dense = evaluate(runs.papers("dense", qids), test)
    return [*rows, Row("dense alone (MiniLM, title + chunk)", dense, "paper = its best chunk")]


def hybrid_rows(store: Store, beir: Beir, runs: QueryRuns, tuned: list[Tuned], test: Qrels) -> list[Row]:
    """The shipped defaults and the best runnable tuned fusion through `HybridRetriever`; the best of each family."""
    qids, base = list(test), RetrievalSettings()
    best = runnable(tuned)
    rows = [Row("hybrid, current defaults (HybridRetriever)", evaluate(via_retriever(store, base, beir, qids), test),
                current_method().describe())]  # fmt: skip
    chosen = as_settings(best.method, best.source, base)
    if chosen is not None and chosen != base:
        scores = evaluate(via_retriever(store, chosen, beir, qids), test)
        rows.append(Row("hybrid, best on train that papertalk runs (HybridRetriever)", scores, best.method.describe()))
    for family in ("RRF", "convex"):
        top = next(t for t in tuned if t.family == family)
        scores = evaluate(fuse_all(top.method, runs.pairs(top.source, qids)), test)
        rows.append(Row(f"hybrid, best {family} on train ({KEYWORD_SOURCES[top.source]})", scores,
                        top.method.describe()))  # fmt: skip
    return rows


def _params(m: Method) -> str:
    if isinstance(m, Fusion):
        return f"rrf_k={m.rrf_k}, dense_weight={m.dense_weight:g}"
    if isinstance(m, Convex):
        return f"{m.norm}, dense_weight={m.dense_weight:g}"
    return "-"


def tuning_table(tuned: list[Tuned], runs: QueryRuns, beir: Beir) -> str:
    train, test = beir.qrels["train"], beir.qrels["test"]
    current = current_method()
    rows = []
    for name, t in [("current defaults", Tuned("index", current, _score(current, "index", runs, train))),
                    *(("tuned", t) for t in tuned)]:  # fmt: skip
        on_test = _score(t.method, t.source, runs, test)
        rows.append([name, KEYWORD_SOURCES[t.source], t.family, t.level, t.method.candidates, _params(t.method),
                     t.train.ndcg10, t.train.recall100, on_test.ndcg10, on_test.recall100])  # fmt: skip
    headers = ["", "keyword ranking", "fusion", "level", "candidates", "parameters", "train nDCG@10", "train R@100",
               "test nDCG@10", "test R@100"]  # fmt: skip
    return markdown_table(headers, rows, digits=3)


def _score(method: Method, source: str, runs: QueryRuns, qrels: Qrels) -> Scores:
    return evaluate(fuse_all(method, runs.pairs(source, list(qrels))), qrels)


def _gain(new: Tuned, old: Tuned, runs: QueryRuns, train: Qrels) -> tuple[float, float]:
    qids = list(train)
    return paired_gain(
        fuse_all(new.method, runs.pairs(new.source, qids)), fuse_all(old.method, runs.pairs(old.source, qids)), train
    )


def recommendation(tuned: list[Tuned], runs: QueryRuns, train: Qrels) -> str:
    """Change the defaults only when the best runnable fusion beats them on train by more than 2 standard errors."""
    best = runnable(tuned)
    current = Tuned("index", current_method(), Scores(0.0, 0.0, 0))
    gain, se = _gain(best, current, runs, train)
    settings = as_settings(best.method, best.source, RetrievalSettings())
    changed = {k: v for k, v in (settings or RetrievalSettings()).model_dump().items()
               if v != getattr(RetrievalSettings(), k)}  # fmt: skip
    verdict = (
        "Recommended `RetrievalSettings` defaults: " + ", ".join(f"{k}={v}" for k, v in changed.items())
        if gain > 2 * se and changed
        else "Keep the current `RetrievalSettings` defaults: the best fusion papertalk can run is within noise of them"
    )
    text = f"{verdict} ({best.method.describe()}; train nDCG@10 gain over the current defaults {gain:+.3f} ± {se:.3f} "
    text += "standard error)."
    if tuned[0] is not best:
        more, more_se = _gain(tuned[0], best, runs, train)
        text += (
            f" The best fusion on train ({KEYWORD_SOURCES[tuned[0].source]}, {tuned[0].method.describe()}) needs a "
            f"change in papertalk's retrieval; it gains {more:+.3f} ± {more_se:.3f} over that."
        )
    return text


def feedback_line(runs: QueryRuns, cost: tuple[list[float], list[float]], chunks: int) -> str:
    if runs.feedback is None or runs.feedback_train is None:
        return ""
    plain, fb = cost
    return (
        f"Pseudo-relevance feedback: {runs.feedback.describe()}, chosen among {len(FEEDBACK_GRID)} settings by "
        f"train nDCG@10 of the keyword ranking alone ({runs.feedback_train.ndcg10:.3f}). Its cost on the "
        f"{chunks:,} chunks here (bm25s, 100 results, the test claims, best of 2 interleaved rounds): plain BM25 "
        f"p50 {percentile(plain, 50):.1f} / p95 {percentile(plain, 95):.1f} ms per query, with feedback p50 "
        f"{percentile(fb, 50):.1f} / p95 {percentile(fb, 95):.1f} ms."
    )


def body(rows: list[Row], tuned: list[Tuned], runs: QueryRuns, beir: Beir, chunks: int, cost_line: str) -> str:
    table = markdown_table(
        ["method", "nDCG@10", "Recall@100", "how"],
        [[r.method, r.test.ndcg10, r.test.recall100, r.how] for r in rows],
        digits=3,
    )
    train, test = beir.qrels["train"], beir.qrels["test"]
    return f"""
{len(beir.corpus):,} abstracts ingested with `Ingestor` as abstract-only papers ({chunks:,} chunks of at
most 200 word pieces; the title is part of each chunk's embedded text and of its keyword text); scores on
the {len(test)} test claims. A paper ranks at its best chunk unless said otherwise. Every fusion was
chosen on the {len(train)} train claims only. RRF: keyword weight fixed at 1, rrf_k x dense weight at 100
candidates, then candidates {{{", ".join(map(str, CANDIDATES))}}} around the best. Convex combination
(`assistant/fusion.py`): normalisation (min-max, z-score) x dense weight 0-1 in steps of 0.05 at 100
candidates, then the candidates around the best. References: BM25 0.665 nDCG@10 (BEIR paper),
all-MiniLM-L6-v2 about 0.645; a naive baseline (whole abstracts truncated at 256 pieces, min-max fusion
tuned on train) measured 0.687 / 0.647 / 0.731.

{table}

The `HybridRetriever` rows are the pipeline end to end: Chroma's approximate (HNSW) search asked for
`candidates` chunks. The other rows cut rankings fetched {DEPTH:,} deep (near exact), so the same settings
can score slightly differently there.

Tuning: the best of each fusion, keyword ranking and level (`chunk`: papers at their best fused chunk, as
`HybridRetriever` does; `chunk-sum`: papers score the sum of their fused chunks; `paper`: each ranking turned
into papers first; `keyword paper-max`/`paper-sum`: each chunk's keyword score replaced by its paper's best
or summed chunk score before a chunk-level fusion). Chosen on train; test shown for reference only.

{tuning_table(tuned, runs, beir)}

{cost_line}

{recommendation(tuned, runs, train)}
"""


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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="SciFact retrieval: BM25, dense, hybrid; fusion tuned on train")
    parser.add_argument("--data", type=Path, help="BEIR-layout folder (default: the shared SciFact copy)")
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache" / "scifact", help="data dirs kept here")
    parser.add_argument("--max-train", type=int, default=0, help="tune on the first N train claims only (0: all)")
    add_common_args(parser)
    args = parser.parse_args(argv)
    folder = args.data or shared_dir() / "data" / "eval" / "scifact" / "beir"
    require(folder / "corpus.jsonl", "the SciFact corpus (BEIR layout)")
    beir = load_beir(folder)
    if args.max_train:
        beir.qrels["train"] = dict(list(beir.qrels["train"].items())[: args.max_train])
    with quiet_logs():
        store = open_store(args.cache, folder / "corpus.jsonl")
        ingest(store, beir)
        qids = [q for q in dict.fromkeys([*beir.qrels["train"], *beir.qrels["test"]]) if q in beir.queries]
        runs = collect_runs(store, beir, qids)
        tuned = tune_all(runs, beir.qrels["train"])
        rows = baseline_rows(runs, beir.qrels["test"]) + hybrid_rows(store, beir, runs, tuned, beir.qrels["test"])
        chunks = store.catalog.count_chunks()
        cost = feedback_line(runs, feedback_cost(store, runs, beir), chunks)
        text = body(rows, tuned, runs, beir, chunks, cost)
    publish(args, "scifact", "SciFact retrieval (BEIR test claims)", MODULE, text)


if __name__ == "__main__":
    main()
