"""Reranking passages inside one paper (Ask PDF): does a second look at the retrieved passages find the evidence
sooner than retrieval order?

Tried: the best sentence's MiniLM similarity (the bundled model on sentences rather than whole chunks), the
question's terms covered by the passage, BM25 given more weight again, and adjacent chunks (a passage whose
neighbours were retrieved too). Signals and reorderings are in bench/pdf_rerank_eval.py. Each question is
retrieved once; every reordering is measured on the same passages against retrieval order (the defaults).

A reordering is chosen on the calibration half of the QASPER questions (question ids split by CRC-32 parity,
bench/eval_data.py `half`; best evidence recall@5) and reported on the held-out half and on the bundled PDFs;
the chosen one and the defaults then answer (extractive backend) from their first top_k passages.

    nice -n 10 python -m bench.bench_pdf_rerank
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.extractive import ExtractiveAnswerer
from assistant.retrieval import HybridRetriever
from assistant.stored_sentences import stored_lookup
from assistant.types import Scope
from bench.bench_qasper import load_qasper, pdf_store, qasper_dir, qasper_store
from bench.common import add_common_args, markdown_table, publish, quiet_logs, require
from bench.eval_data import half
from bench.pdf_rerank_eval import HEAD, POOL, VARIANTS, Order, Signals, paper_idf, reordered, retrieval_row, signals
from bench.qa_harness import Question, quotes_evidence
from bench.selection_compare import _numbered, _share, first_page_right, gold_pages
from storage.records import Paper
from storage.store import Store

MODULE = "bench.bench_pdf_rerank"


def gather(store: Store, questions: Sequence[Question]) -> list[Signals]:
    retriever = HybridRetriever(store)
    idf = paper_idf(store, {q.paper_id for q in questions})
    out = []
    for q in questions:
        pool = retriever.retrieve(q.text, Scope(paper_id=q.paper_id), POOL)
        out.append(signals(store, q, pool, idf[q.paper_id]))
    return out


def _cell(row: tuple[float, int, int, int]) -> list[object]:
    recall, hits, first, n = row
    return [recall, _share([True] * hits + [False] * (n - hits)), _share([True] * first + [False] * (n - first))]


def retrieval_table(qasper: list[Signals], pdfs: list[Signals], top_k: int) -> tuple[str, str]:
    """The table of every reordering, and the name of the one chosen on QASPER's calibration half."""
    cal = [s for s in qasper if half(s.question.qid) == "calibration"]
    held = [s for s in qasper if half(s.question.qid) != "calibration"]
    rows, best = [], ("", -1.0)
    for name, order in VARIANTS:
        on_cal = retrieval_row(cal, order, top_k)
        best = max(best, (name, on_cal[0]), key=lambda b: b[1])
        rows.append([name, on_cal[0], retrieval_row(held, order, top_k)[0], *_cell(retrieval_row(qasper, order, top_k)),
                     *_cell(retrieval_row(pdfs, order, top_k))])  # fmt: skip
    headers = ["reordering of the first 16 passages", "QASPER cal. recall@5", "QASPER held-out recall@5",
               "QASPER recall@5", f"QASPER evidence in top {top_k}", "QASPER evidence first",
               "PDFs recall@5", f"PDFs evidence in top {top_k}", "PDFs evidence first"]  # fmt: skip
    return markdown_table(headers, rows, digits=3), best[0]


def answer_row(store: Store, runs: list[Signals], order: Order, papers: dict[str, Paper]) -> list[object]:
    answerer = ExtractiveAnswerer(store.embedder, store.settings.answer, stored=stored_lookup(store.sentence_vectors))
    top_k = store.settings.retrieval.top_k
    quoted, first, false_abst, true_abst = [], [], [], []
    for s in runs:
        q = s.question
        answer = answerer.answer(q.text, q.text, _numbered(store, reordered(s, order)[:top_k]))
        if q.answerable:
            false_abst.append(answer.abstained)
        if q.unanswerable:
            true_abst.append(answer.abstained)
        found = quotes_evidence(q.references, answer)
        if found is not None:
            quoted.append(found)
            first.append(first_page_right(answer, gold_pages(q, papers[q.paper_id])))
    return [_share(quoted), _share(first), _share(false_abst), _share(true_abst)]


def answers_table(sets: list[tuple[str, Store, list[Signals], list[Paper]]], chosen: str) -> str:
    orders = dict(VARIANTS)
    rows = []
    for label, store, runs, papers in sets:
        by_id = {p.paper_id: p for p in papers}
        for name in dict.fromkeys([VARIANTS[0][0], chosen]):
            rows.append([label, name, *answer_row(store, runs, orders[name], by_id)])
    headers = ["set", "passages in the order of", "evidence quoted", "first citation on a gold page",
               "abstained, answerable", "abstained, unanswerable"]  # fmt: skip
    return markdown_table(headers, rows)


NOTE = (
    f"Each question retrieved once ({POOL} passages, `HybridRetriever.retrieve` with `Scope(paper_id=...)`); the "
    f"first {HEAD} reordered by a weighted RRF (k=60) of the retrieval rank (weight 1) and the signal's rank "
    "(bench/pdf_rerank_eval.py), or by the fused score plus a share of the better adjacent chunk's fused score. "
    "Best sentence: the bundled MiniLM's best cosine between the question and one usable sentence of the passage. "
    "Coverage: IDF-weighted share of the question's terms in the passage (IDF over the paper's chunks). "
    "Evidence first: the first passage holds gold evidence. Retrieval with a pool of 40 weighs furniture among "
    "3 x 40 fused candidates, so its first top_k can differ slightly from a top_k retrieval. Chosen on the "
    "calibration half of QASPER's questions (best recall@5); the answers table compares it with retrieval "
    "order on both sets, extractive backend at the current defaults."
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    args = parser.parse_args(argv)
    with quiet_logs():
        qpapers, _ = load_qasper(require(qasper_dir(), "the QASPER slice (shared/data/eval/qasper)"))
        pstore, papers, pquestions, _, _ = pdf_store()
        pdfs = gather(pstore, pquestions)
        qstore, qquestions = qasper_store()
        qasper = gather(qstore, qquestions)
        table, chosen = retrieval_table(qasper, pdfs, qstore.settings.retrieval.top_k)
        answers = answers_table([("QASPER", qstore, qasper, qpapers), ("PDFs", pstore, pdfs, papers)], chosen)
    body = (
        f"{len(qquestions)} QASPER questions on 10 papers and {len(pquestions)} questions on the 2 bundled PDFs "
        f"(bench/pdf_qa.json), each asked of its own paper.\n\n{table}\n\nChosen on QASPER's calibration half: "
        f"**{chosen}**.\n\n{answers}\n\n{NOTE}"
    )
    publish(args, "pdf-rerank", "Reranking inside one paper (bench_pdf_rerank)", MODULE, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
