"""The extractive answer's sentence embedding: cheaper ways to do it, and what each costs in answers.

Embedding the 6 pre-filtered sentences was most of an offline question's time at 112k papers (docs/benchmarks.md,
latency-gist16-112k); ingest now stores every sentence's vector instead (ingest/sentence_vectors.py), the first
row here. This bench answers the bundled-PDF and QASPER questions from one retrieval run (as
bench/selection_compare.py does) with the sentence embedding swapped for the variants of
bench/answer_embed_variants.py, and times the embedding step itself per question in the same run.

    python -m bench.bench_answer_embed
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from unittest import mock

import numpy as np

import assistant.extractive as extractive
from assistant.scoring import similarities
from bench.answer_embed_variants import (
    Similarities,
    StaticEmbedder,
    dynamic_int8_model,
    dynamic_int8_similarities,
    piece_counts,
    piece_table,
)
from bench.bench_qasper import load_qasper, pdf_store, qasper_dir, qasper_store
from bench.common import ROOT, add_common_args, arxiv_file, markdown_table, publish, quiet_logs, require
from bench.selection_compare import pools, row, runs

MODULE = "bench.bench_answer_embed"
CACHE = ROOT / "bench" / ".cache" / "answer_embed"
Set = tuple[str, object, list, list, list]  # name, store, papers, questions, pooled passages


@contextmanager
def swapped(sims: Similarities, prefilter: int) -> Iterator[list[float]]:
    """The answerer's sentence embedding replaced by `sims` (timed), embedding `prefilter` sentences."""
    spent: list[float] = []  # CPU seconds of the process (all threads) per call: load inflates it far less than wall

    def timed(model, query, texts):  # type: ignore[no-untyped-def]
        started = time.process_time()
        out = sims(model, query, texts)
        spent.append(time.process_time() - started)
        return out

    with mock.patch.object(extractive, "similarities", timed), mock.patch.object(extractive, "PREFILTER", prefilter):
        yield spent


def answer_set(data: Set, name: str, stored: bool = False) -> list[object]:
    """The row of `bench.selection_compare` for `data`'s questions answered from the first `top_k` passages;
    `stored`: with the sentence vectors ingest stored (every sentence scored), else embedding at question time."""
    _, store, papers, questions, pooled = data
    run = runs(store, questions, pooled, [(name, False, "keyword")], stored)[0]  # type: ignore[arg-type]
    return row(run, questions, {p.paper_id: p for p in papers})


def calibration(sets: Sequence[Set], static: StaticEmbedder) -> tuple[float, float]:
    """Slope and intercept mapping static cosines onto today's, over the sentences today's answers embed."""
    pairs: list[tuple[float, float]] = []

    def logged(model, query, texts):  # type: ignore[no-untyped-def]
        cos, vectors = similarities(model, query, texts)
        pairs.extend(zip((static(texts) @ static([query])[0]).tolist(), cos.tolist(), strict=True))
        return cos, vectors

    for data in sets:
        with swapped(logged, extractive.PREFILTER):
            answer_set(data, "fit")
    x, y = np.array(pairs).T
    slope, intercept = np.polyfit(x, y, 1)
    return float(slope), float(intercept)


def variants(sets: Sequence[Set]) -> list[tuple[str, Similarities, int]]:
    static = StaticEmbedder(piece_table(CACHE), piece_counts(require(arxiv_file(), "the arXiv metadata"), CACHE))
    slope, intercept = calibration(sets, static)
    mapped, fit = static.similarities(slope, intercept), f"x {slope:.2f} {intercept:+.2f}"
    out: list[tuple[str, Similarities, int]] = [
        ("6 pre-filtered sentences embedded at question time (before)", similarities, 6),
        ("4 sentences, bundled model", similarities, 4),
        ("3 sentences, bundled model", similarities, 3),
        (f"static piece vectors, 6 sentences ({fit})", mapped, 6),
        (f"static piece vectors, every sentence ({fit})", mapped, 10**6),
    ]
    dynamic = dynamic_int8_model(CACHE)
    if dynamic is not None:
        out.append(("dynamic int8 re-quantized model, 6 sentences", dynamic_int8_similarities(dynamic), 6))
    return out


STORED = "**stored at ingest: every sentence scored, none embedded at question time** (default)"


def table(sets: Sequence[Set]) -> str:
    rows = []
    for data in sets:
        with swapped(similarities, extractive.PREFILTER) as spent:
            cells = answer_set(data, STORED, stored=True)
        ms = [1000 * s for s in spent] or [0.0]
        rows.append([data[0], *cells[:6], float(np.median(ms)), float(np.percentile(ms, 95))])
    for name, sims, prefilter in variants(sets):
        for data in sets:
            with swapped(sims, prefilter) as spent:
                cells = answer_set(data, name)
            ms = [1000 * s for s in spent]
            rows.append([data[0], *cells[:6], float(np.median(ms)), float(np.percentile(ms, 95))])
    headers = ["set", "sentence embedding", "evidence recall@5", "evidence quoted", "first citation on a gold page",
               "abstained, answerable", "abstained, unanswerable", "embed CPU ms p50", "embed CPU ms p95"]  # fmt: skip
    return markdown_table(headers, rows, digits=3)


def load_sets() -> list[Set]:
    store, papers, questions, _, _ = pdf_store()
    qstore, qquestions = qasper_store()
    qpapers, _ = load_qasper(require(qasper_dir(), "the QASPER slice (shared/data/eval/qasper)"))
    return [("PDFs", store, papers, questions, pools(store, questions)),
            ("QASPER", qstore, qpapers, qquestions, pools(qstore, qquestions))]  # fmt: skip


NOTE = """Same questions and one retrieval run per set (bench_qasper's stores, `top_k` passages per question in
retrieval order); only the answerer's sentence vectors differ between rows: stored at ingest (the first row) or
embedded at question time (bench/answer_embed_variants.py). Columns as in bench_qasper; *embed CPU ms* is the
CPU time (all threads of the process) of the swapped embedding step per question in this run (0 with stored
vectors: no sentence is embedded), which a shared machine's load inflates far less than wall time. The
static rows' linear map onto today's cosines is fitted on the very sentences today's answers embed in this run,
which favours them."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    args = parser.parse_args(argv)
    with quiet_logs():
        body = table(load_sets())
    title = "Answer-time sentence embedding: cheaper variants against today's (bench_answer_embed)"
    publish(args, "answer-embed", title, MODULE, f"{body}\n\n{NOTE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
