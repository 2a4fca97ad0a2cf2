"""The retrieval benchmark's tuning on SciFact's train claims and its report (bench/bench_scifact.py)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from assistant.fusion import fuse
from bench.common import markdown_table, percentile
from bench.fusion_eval import (
    Convex,
    Fusion,
    Level,
    Method,
    Qrels,
    Runs,
    Scores,
    convex_grid,
    evaluate,
    fuse_all,
    grid,
    paired_gain,
    tune,
    tune_convex,
    tune_rrf,
)
from bench.keyword_runs import FEEDBACK_GRID
from bench.scifact_data import DEPTH, KEYWORD_SOURCES, Beir, QueryRuns, via_retriever
from papertalk.settings import RetrievalSettings
from storage.store import Store

CANDIDATES = (50, 100, 200, 400, 1000)
RRF_KS = (1, 5, 10, 20, 40, 60, 100)
DENSE_WEIGHTS = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0)
CONVEX_WEIGHTS = tuple(round(0.05 * i, 2) for i in range(21))


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


def method_of(d: RetrievalSettings) -> Method:
    """Retrieval settings as a benchmark method."""
    if d.fusion == "convex":
        return Convex(d.candidates, d.convex_dense_weight, d.normalization)
    return Fusion("chunk", d.candidates, d.rrf_k, d.dense_weight, d.keyword_weight)


def current_method() -> Method:
    """The shipped defaults as a benchmark method."""
    return method_of(RetrievalSettings())


def tune_shipped(runs: QueryRuns, qrels: Qrels) -> list[Tuned]:
    """The fusions `HybridRetriever` runs, each tuned on train at the shipped number of candidates, best first.

    Candidates stay at the default: the question-latency figures (docs/benchmarks.md) are measured with it,
    and more candidates cost every question (ten times more in wide scopes, which over-fetch)."""
    n, pairs = RetrievalSettings().candidates, runs.pairs("index", list(qrels))
    rrf = tune(grid(["chunk"], [n], RRF_KS, DENSE_WEIGHTS), pairs, qrels)[0]
    convex = tune(convex_grid([n], CONVEX_WEIGHTS, ["minmax", "zscore"], ["chunk"]), pairs, qrels)[0]
    return sorted([Tuned("index", m, sc) for m, sc in (rrf, convex)], key=lambda t: -t.train.ndcg10)


def dense_ms(store: Store, vectors: Sequence[list[float]], k: int) -> list[float]:
    out = []
    for vector in vectors:
        start = time.perf_counter()
        store.vectors.search(vector, k)
        out.append(1000 * (time.perf_counter() - start))
    return out


def fuse_ms(runs: Runs, settings: RetrievalSettings) -> list[float]:
    out = []
    n = settings.candidates
    for dense, keyword in runs.values():
        start = time.perf_counter()
        fuse(dense[:n], keyword[:n], settings)
        out.append(1000 * (time.perf_counter() - start))
    return out


def candidates_rows(store: Store, beir: Beir, runs: QueryRuns, best: Tuned) -> list[list[object]]:
    """The chosen fusion at each number of candidates: train and test nDCG@10, and what the candidates cost
    here (dense search and fusion, p50 ms over the test claims)."""
    test = list(beir.qrels["test"])
    vectors = [store.embedder.get_query_embedding(beir.queries[q]) for q in test]
    rows: list[list[object]] = []
    for n in CANDIDATES:
        method = replace(best.method, candidates=n)  # type: ignore[type-var]
        settings = as_settings(method, "index", RetrievalSettings())
        assert settings is not None
        train = _score(method, "index", runs, beir.qrels["train"])
        on_test = _score(method, "index", runs, beir.qrels["test"])
        dense = percentile(dense_ms(store, vectors, n), 50)
        fusion = percentile(fuse_ms(runs.pairs("index", test), settings), 50)
        rrf = percentile(fuse_ms(runs.pairs("index", test), settings.model_copy(update={"fusion": "rrf"})), 50)
        rows.append([n, train.ndcg10, on_test.ndcg10, on_test.recall100, f"{dense:.1f}", f"{fusion:.2f}", f"{rrf:.2f}"])
    return rows


# --- report --------------------------------------------------------------------------------------
@dataclass
class Found:
    tuned: list[Tuned]  # every family, keyword ranking and level, candidates free; best first
    shipped: list[Tuned]  # what HybridRetriever runs, at the shipped candidates; best first


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


def hybrid_rows(store: Store, beir: Beir, runs: QueryRuns, found: Found) -> list[Row]:
    """Through `HybridRetriever`: each fusion with the default settings, and the best on train at the shipped
    candidates; from the rankings: the best of each family on train."""
    test, base = beir.qrels["test"], RetrievalSettings()
    qids = list(test)
    rows = []
    for fusion in ("rrf", "convex"):
        settings = base.model_copy(update={"fusion": fusion})
        label = "current defaults" if fusion == base.fusion else f"fusion={fusion}, other settings default"
        scores = evaluate(via_retriever(store, settings, beir, qids), test)
        rows.append(Row(f"hybrid, {label} (HybridRetriever)", scores, method_of(settings).describe()))
    best = found.shipped[0]
    chosen = as_settings(best.method, best.source, base)
    run_already = [method_of(base.model_copy(update={"fusion": f})) for f in ("rrf", "convex")]
    if chosen is not None and method_of(chosen) not in run_already:
        scores = evaluate(via_retriever(store, chosen, beir, qids), test)
        rows.append(Row("hybrid, best on train at the shipped candidates (HybridRetriever)", scores,
                        best.method.describe()))  # fmt: skip
    for family in ("RRF", "convex"):
        top = next(t for t in found.tuned if t.family == family)
        scores = evaluate(fuse_all(top.method, runs.pairs(top.source, qids)), test)
        rows.append(Row(f"hybrid, best {family} on train, any candidates ({KEYWORD_SOURCES[top.source]})", scores,
                        top.method.describe()))  # fmt: skip
    return rows


def _params(m: Method) -> str:
    if isinstance(m, Fusion):
        return f"rrf_k={m.rrf_k}, dense_weight={m.dense_weight:g}"
    if isinstance(m, Convex):
        return f"{m.norm}, dense_weight={m.dense_weight:g}"
    return "-"


def _score(method: Method, source: str, runs: QueryRuns, qrels: Qrels) -> Scores:
    return evaluate(fuse_all(method, runs.pairs(source, list(qrels))), qrels)


def tuning_table(found: Found, runs: QueryRuns, beir: Beir) -> str:
    train, test = beir.qrels["train"], beir.qrels["test"]
    current = current_method()
    named = [("current defaults", Tuned("index", current, _score(current, "index", runs, train)))]
    named += [(f"tuned at candidates={RetrievalSettings().candidates}", t) for t in found.shipped]
    named += [("tuned", t) for t in found.tuned]
    rows = []
    for name, t in named:
        on_test = _score(t.method, t.source, runs, test)
        rows.append([name, KEYWORD_SOURCES[t.source], t.family, t.level, t.method.candidates, _params(t.method),
                     t.train.ndcg10, t.train.recall100, on_test.ndcg10, on_test.recall100])  # fmt: skip
    headers = ["", "keyword ranking", "fusion", "level", "candidates", "parameters", "train nDCG@10", "train R@100",
               "test nDCG@10", "test R@100"]  # fmt: skip
    return markdown_table(headers, rows, digits=3)


def candidates_table(rows: list[list[object]], best: Tuned, chunks: int) -> str:
    headers = ["candidates", "train nDCG@10", "test nDCG@10", "test R@100", "dense search p50 ms", "fusion p50 ms",
               "RRF instead, p50 ms"]  # fmt: skip
    return (
        f"The best fusion at the shipped candidates ({best.method.describe()}) with other numbers of candidates "
        f"(costs on this {chunks:,}-chunk store, p50 over the test claims; a 112k-paper store's dense search "
        "grows with k faster, see the latency section):\n\n" + markdown_table(headers, rows, digits=3)
    )


def _gain(new: Tuned, old: Tuned, runs: QueryRuns, train: Qrels) -> tuple[float, float]:
    qids = list(train)
    return paired_gain(
        fuse_all(new.method, runs.pairs(new.source, qids)), fuse_all(old.method, runs.pairs(old.source, qids)), train
    )


def recommendation(found: Found, runs: QueryRuns, train: Qrels) -> str:
    """The best fusion on train at the shipped candidates becomes the recommended default."""
    best = found.shipped[0]
    current = Tuned("index", current_method(), Scores(0.0, 0.0, 0))
    gain, se = _gain(best, current, runs, train)
    settings = as_settings(best.method, best.source, RetrievalSettings())
    assert settings is not None
    changed = {k: v for k, v in settings.model_dump().items() if v != getattr(RetrievalSettings(), k)}
    verdict = (
        "Recommended `RetrievalSettings` defaults: " + ", ".join(f"{k}={v}" for k, v in changed.items())
        if changed
        else "The current `RetrievalSettings` defaults are the best fusion on train at the shipped candidates"
    )
    text = f"{verdict} ({best.method.describe()}; train nDCG@10 {best.train.ndcg10:.3f}, gain over the current "
    text += f"defaults {gain:+.3f} ± {se:.3f} standard error"
    for other in ("rrf", "convex"):
        method = method_of(RetrievalSettings().model_copy(update={"fusion": other}))
        if method != current.method and method != best.method:
            vs, vs_se = _gain(best, Tuned("index", method, Scores(0.0, 0.0, 0)), runs, train)
            text += f"; over fusion={other} with its default settings {vs:+.3f} ± {vs_se:.3f}"
    text += ")."
    top = found.tuned[0]
    if as_settings(top.method, top.source, RetrievalSettings()) is None:
        more, more_se = _gain(top, best, runs, train)
        text += (
            f" The best fusion on train overall ({KEYWORD_SOURCES[top.source]}, {top.method.describe()}) needs a "
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


def body(rows: list[Row], found: Found, runs: QueryRuns, beir: Beir, chunks: int, cost_line: str,
         candidates: list[list[object]]) -> str:  # fmt: skip
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
or summed chunk score before a chunk-level fusion), candidates free; and the two fusions `HybridRetriever`
runs, tuned at the shipped number of candidates. Chosen on train; test shown for reference only.

{tuning_table(found, runs, beir)}

{candidates_table(candidates, found.shipped[0], chunks)}

{cost_line}

{recommendation(found, runs, train)}
"""
