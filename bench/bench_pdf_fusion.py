"""Fusion settings inside one paper (Ask PDF): evidence found by each, on QASPER and on the bundled PDFs.

Within one paper the keyword ranking may deserve more weight than across a corpus (the question's terms
pick the right section; the dense ranking sees paragraphs that all sound alike). Each setting is run
through `HybridRetriever.retrieve` with `Scope(paper_id=...)`, as Ask PDF runs it, on the questions with
text evidence: QASPER (10 papers, abstract and sections as pages) is the set a setting is chosen on, the
bundled PDFs with bench/pdf_qa.json the set it is checked on. Measures as in bench/qa_harness.py: evidence
recall@5 and the share of questions whose evidence is among the top_k passages handed to the answerer.

    nice -n 10 python -m bench.bench_pdf_fusion
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.retrieval import HybridRetriever
from assistant.types import Scope
from bench.bench_qasper import pdf_store, qasper_dir, qasper_store
from bench.common import add_common_args, markdown_table, publish, quiet_logs, require
from bench.fusion_eval import paired_mean
from bench.qa_harness import Question, evidence_recall
from papertalk.settings import RetrievalSettings
from storage.store import Store

MODULE = "bench.bench_pdf_fusion"
CONVEX_WEIGHTS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
RRF_KEYWORD_WEIGHTS = (0.5, 1.0, 1.5, 2.0, 3.0)


def variants() -> list[tuple[str, RetrievalSettings]]:
    base = RetrievalSettings()
    out = [("defaults", base)]
    out += [(f"rrf, keyword_weight={w:g}", base.model_copy(update={"single_paper_fusion": "rrf", "keyword_weight": w,
             "dense_weight": 1.0, "rrf_k": 60})) for w in RRF_KEYWORD_WEIGHTS]  # fmt: skip
    out += [(f"convex {norm}, dense_weight={w:g}", base.model_copy(update={"single_paper_fusion": "convex",
             "normalization": norm, "convex_dense_weight": w}))
            for norm in ("minmax", "zscore") for w in CONVEX_WEIGHTS]  # fmt: skip
    return out


@dataclass
class Found:
    recall5: list[float]  # per question with text evidence
    hit_k: list[float]  # 1.0 when any evidence is in the top_k passages


def measure(store: Store, questions: Sequence[Question], settings: RetrievalSettings) -> Found:
    retriever = HybridRetriever(store, settings)
    found = Found([], [])
    for q in questions:
        passages = retriever.retrieve(q.text, Scope(paper_id=q.paper_id))
        at5 = evidence_recall(q.references, passages, 5)
        if at5 is None:
            continue
        found.recall5.append(at5)
        found.hit_k.append(float((evidence_recall(q.references, passages, len(passages)) or 0.0) > 0))
    return found


def sweep(store: Store, questions: Sequence[Question]) -> dict[str, Found]:
    return {name: measure(store, questions, settings) for name, settings in variants()}


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def table(tune: dict[str, Found], check: dict[str, Found], chosen: str) -> str:
    rows: list[list[object]] = []
    for name in tune:
        gain, se = paired_mean(tune[name].recall5, tune["defaults"].recall5)
        label = f"**{name}** (best on QASPER)" if name == chosen else name
        rows.append([label, _mean(tune[name].recall5), f"{gain:+.3f} ± {se:.3f}", _mean(tune[name].hit_k),
                     _mean(check[name].recall5), _mean(check[name].hit_k)])  # fmt: skip
    headers = ["fusion in one paper", "QASPER recall@5", "vs defaults (± s.e.)", "QASPER hit in top_k",
               "PDF set recall@5", "PDF set hit in top_k"]  # fmt: skip
    return markdown_table(headers, rows, digits=3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    args = parser.parse_args(argv)
    require(qasper_dir(), "the QASPER slice (shared/data/eval/qasper)")
    with quiet_logs():
        store, questions = qasper_store()
        tune = sweep(store, questions)
        pdf, _, pdf_questions, _, _ = pdf_store()
        check = sweep(pdf, pdf_questions)
    chosen = max(tune, key=lambda name: (round(_mean(tune[name].recall5), 3), name == "defaults"))
    n_tune, n_check = len(tune["defaults"].recall5), len(check["defaults"].recall5)
    text = (
        f"{n_tune} QASPER questions and {n_check} PDF-set questions with text evidence, each asked of its own "
        f"paper through `HybridRetriever.retrieve` (top_k={RetrievalSettings().top_k}, candidates="
        f"{RetrievalSettings().candidates}). Defaults when run: single_paper_fusion="
        f"{RetrievalSettings().single_paper_fusion}. A setting is chosen on "
        "QASPER (best evidence recall@5) and checked on the PDF set; paired differences against the defaults "
        "with their standard error.\n\n"
        f"{table(tune, check, chosen)}\n"
    )
    publish(args, "pdf-fusion", "Fusion inside one paper (bench_pdf_fusion)", MODULE, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
