"""Ask PDF inside a library: the same questions asked of their papers indexed alone and in the demo library.

Every other Ask PDF bench indexes its papers alone, so the keyword ranking's document frequencies come from a
few papers. A user asks a PDF inside their library, where the paper's own name is rare across the library and
written in most of the paper's chunks. This bench asks three labelled sets twice in one run. First each set's
papers are indexed alone, in a store of their own. Then all of them are ingested into one store loaded with the
demo corpus (2,212 arXiv records on RL for LLM agents and the two bundled PDFs; its shipped vectors are used):
- bench/pdf_qa.json, the bundled PDFs, with every sentence that states the answer as evidence (its `also` sets);
- bench/agentic_qa.json, MiroThinker, PaSa and the bundled PDFs;
- bench/more_pdf_qa.json, 15 papers of shared/data/pdfs.

Run: `PAPERTALK_SHARED=../shared python -m bench.bench_library` (about 15 minutes on 2 cores).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.service import Assistant
from assistant.types import Answer, Scope
from bench import bench_more_pdfs
from bench.bench_focus import agentic_qa
from bench.common import ROOT, markdown_table, pdf_bench_args, pdf_folder, publish, quiet_logs
from bench.eval_data import pdf_qa
from bench.qa_harness import Question, covers, evidence_recall, index_papers, open_store, shingles
from bench.selection_compare import first_page_right, gold_pages
from ingest.demo import load_demo_corpus
from papertalk.settings import Settings
from storage.records import Paper
from storage.store import Store

MODULE = "bench.bench_library"
CACHE = ROOT / "bench" / ".cache" / "library"


@dataclass
class LabelledSet:
    name: str
    papers: list[Paper]
    questions: list[Question]  # answerable, with text evidence


def _with_evidence(questions: Sequence[Question]) -> list[Question]:
    return [q for q in questions if q.answerable and any(r.evidence for r in q.references)]


def labelled_sets(settings: Settings) -> list[LabelledSet]:
    bundled, questions, _, _ = pdf_qa(alternatives=True)
    agentic = agentic_qa(pdf_folder())
    more = bench_more_pdfs.load(pdf_folder(), settings)
    return [
        LabelledSet("bundled PDFs (pdf_qa.json, every statement)", bundled, _with_evidence(questions)),
        LabelledSet("agentic_qa.json", agentic[0], _with_evidence(agentic[1])),
        LabelledSet("15 papers (more_pdf_qa.json)", more.papers, _with_evidence(more.questions)),
    ]


@dataclass
class Outcome:
    recall_5: float  # share of the first reference's evidence in the top 5 passages
    first: bool  # the first passage holds evidence (any reference's)
    hit_5: bool
    lead: bool  # the answer's first sentence quotes evidence
    quoted: bool  # one of its sentences does
    page: bool  # its first citation is on a page holding evidence
    abstained: bool


def outcome(q: Question, answer: Answer, paper: Paper) -> Outcome:
    evidence = [e for e in (shingles(t) for r in q.references for t in r.evidence) if e]
    holds = [any(covers(shingles(p.text), e) for e in evidence) for p in answer.sources]
    said = [any(covers(shingles(s.text), e) for e in evidence) for s in answer.sentences]
    recall = evidence_recall(q.references[:1], answer.sources, 5) or 0.0
    page = first_page_right(answer, gold_pages(q, paper))
    return Outcome(recall, any(holds[:1]), any(holds[:5]), any(said[:1]), any(said), page, answer.abstained)


def ask(store: Store, labelled: LabelledSet) -> list[Outcome]:
    assistant = Assistant(store)
    by_id = {p.paper_id: p for p in labelled.papers}
    return [
        outcome(q, assistant.ask(q.text, Scope(paper_id=q.paper_id)), by_id[q.paper_id]) for q in labelled.questions
    ]


def alone(labelled: LabelledSet, folder: Path) -> list[Outcome]:
    store = open_store(folder)
    try:
        index_papers(store, labelled.papers)
        return ask(store, labelled)
    finally:
        store.close()


def in_library(sets: Sequence[LabelledSet], folder: Path) -> list[list[Outcome]]:
    """Every set's papers ingested into one store holding the demo corpus (a paper the demo holds as a metadata
    record gets its full text), then each set asked."""
    store = open_store(folder)
    try:
        load_demo_corpus(store)
        papers = {p.paper_id: p for s in sets for p in s.papers}  # the bundled PDFs are in two sets
        index_papers(store, list(papers.values()))
        return [ask(store, s) for s in sets]
    finally:
        store.close()


def _share(flags: Sequence[bool]) -> str:
    return f"{sum(flags)}/{len(flags)} ({100 * sum(flags) / len(flags):.0f}%)" if flags else "-"


HEADERS = ["questions", "papers indexed", "evidence recall@5", "evidence in the first passage", "evidence hit@5",
           "lead quotes the evidence", "evidence quoted", "first citation on a gold page", "abstained"]  # fmt: skip


def row(name: str, where: str, outcomes: Sequence[Outcome]) -> list[object]:
    recall = sum(o.recall_5 for o in outcomes) / len(outcomes) if outcomes else 0.0
    flags = [
        _share([getattr(o, f) for o in outcomes]) for f in ("first", "hit_5", "lead", "quoted", "page", "abstained")
    ]
    return [f"{name} ({len(outcomes)})", where, round(recall, 3), *flags]


NOTE = (
    "Measures as bench_more_pdfs' (bench/qa_harness.py's 4-gram cover), with every reference's evidence: a passage "
    "holds the evidence when it holds at least half of an evidence sentence's word 4-grams, the answer quotes it when "
    "one of its sentences is at least half made of one; lead: its first sentence does; first citation on a gold "
    "page: the page of the first sentence's quote holds evidence; an abstention counts as a miss (every question is "
    "answered by its paper). Evidence recall@5 counts the first reference's evidence only (the set's own sentences). "
    "Extractive backend with the defaults; each question asked of its own paper (`Scope(paper_id=...)`)."
)


def main(argv: list[str] | None = None) -> int:
    args = pdf_bench_args(__doc__, argv)
    if args is None:
        return 1
    settings = Settings()
    with quiet_logs():
        sets = labelled_sets(settings)
        by_itself = [alone(s, CACHE / f"alone-{i}") for i, s in enumerate(sets)]
        library = in_library(sets, CACHE / "library")
    table = []
    for s, own, mixed in zip(sets, by_itself, library, strict=True):
        table.append(row(s.name, f"its {len(s.papers)} alone", own))
        table.append(row(s.name, "in the demo library", mixed))
    body = markdown_table(HEADERS, table, digits=3) + "\n\n" + NOTE
    publish(args, "library", "Ask PDF inside a library (bench_library)", MODULE, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
