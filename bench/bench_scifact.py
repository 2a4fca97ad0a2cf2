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
    nice -n 10 python -m bench.bench_scifact --signals  # more than two rankings fused (bench/scifact_signals.py)
    nice -n 10 python -m bench.bench_scifact --feedback  # pseudo-relevance feedback etc. (bench/scifact_feedback.py)
    nice -n 10 python -m bench.bench_scifact --sentences  # each chunk's best stored sentence as a third list
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, add_common_args, publish, quiet_logs, require, shared_dir
from bench.scifact_data import collect_runs, feedback_cost, ingest, load_beir, open_store
from bench.scifact_feedback import feedback_body, sentence_body
from bench.scifact_report import (
    Found,
    baseline_rows,
    body,
    candidates_rows,
    feedback_line,
    hybrid_rows,
    tune_all,
    tune_shipped,
)
from bench.scifact_signals_report import signals_body

MODULE = "bench.bench_scifact"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="SciFact retrieval: BM25, dense, hybrid; fusion tuned on train")
    parser.add_argument("--data", type=Path, help="BEIR-layout folder (default: the shared SciFact copy)")
    parser.add_argument("--cache", type=Path, default=ROOT / "bench" / ".cache" / "scifact", help="data dirs kept here")
    parser.add_argument("--max-train", type=int, default=0, help="tune on the first N train claims only (0: all)")
    parser.add_argument("--signals", action="store_true", help="fuse more than two rankings per paper instead")
    parser.add_argument("--feedback", action="store_true", help="second-round variants of the shipped fusion instead")
    parser.add_argument("--sentences", action="store_true", help="the best stored sentence as a third list instead")
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
        if args.feedback:
            title = "SciFact: feedback and other second-round variants"
            publish(args, "scifact-feedback", title, MODULE, feedback_body(store, beir))
            return
        if args.sentences:
            title = "SciFact: the best stored sentence as a third list"
            publish(args, "scifact-sentences", title, MODULE, sentence_body(store, beir))
            return
        if args.signals:
            publish(
                args, "scifact-signals", "SciFact: more rankings fused per paper", MODULE, signals_body(store, beir)
            )
            return
        qids = [q for q in dict.fromkeys([*beir.qrels["train"], *beir.qrels["test"]]) if q in beir.queries]
        runs = collect_runs(store, beir, qids)
        found = Found(tune_all(runs, beir.qrels["train"]), tune_shipped(runs, beir.qrels["train"]))
        rows = baseline_rows(runs, beir.qrels["test"]) + hybrid_rows(store, beir, runs, found)
        chunks = store.catalog.count_chunks()
        cost = feedback_line(runs, feedback_cost(store, runs, beir), chunks)
        text = body(rows, found, runs, beir, chunks, cost, candidates_rows(store, beir, runs, found.shipped[0]))
    publish(args, "scifact", "SciFact retrieval (BEIR test claims)", MODULE, text)


if __name__ == "__main__":
    main()
