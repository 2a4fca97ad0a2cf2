"""The question as Ask PDF reads it, measured on and off in one run (issue 9).

A search inside one paper reads the question without the paper's own name ("What RL algorithm is used to train
MiroThinker?" asked of the MiroThinker report) and with its acronyms followed by their long forms
(`retrieval.paper_focus`); the offline answer's sentence scorer reads the acronyms so too (`answer.focus`;
`assistant/focus.py`). Four configurations, the two settings off and on, answer the same questions on the same
stores.

Sets, each indexed afresh under bench/.cache/focus/ and every question asked of its own paper:
1. bench/agentic_qa.json: 28 questions that name their paper or use acronyms, on two on-topic papers in
   shared/data/pdfs (MiroThinker, PaSa; needs ../shared) and on the two bundled CC BY papers;
2. the bundled CC BY PDFs with bench/pdf_qa.json (always);
3. the QASPER slice (when ../shared has it).
Then whole-corpus questions over the demo corpus time what `answer.focus` costs there.

    nice -n 10 python -m bench.bench_focus
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.focus import focus
from assistant.service import Assistant
from assistant.types import Answer, Scope
from bench.bench_qasper import load_qasper, qasper_dir
from bench.common import ROOT, add_common_args, markdown_table, pdf_folder, percentile, publish, quiet_logs
from bench.eval_data import pdf_qa
from bench.latency_stores import question
from bench.qa_harness import Question, Reference, covers, evidence_recall, index_papers, open_store, shingles
from bench.selection_compare import first_page_right, gold_pages
from ingest.demo import load_demo_corpus
from ingest.pdf import read_pdf
from ingest.sources import arxiv_papers
from papertalk.demo import DEMO_METADATA, DEMO_PDFS
from papertalk.settings import Settings
from storage.records import Paper
from storage.store import Store

MODULE = "bench.bench_focus"
CACHE = ROOT / "bench" / ".cache" / "focus"
AGENTIC_QA = Path(__file__).with_name("agentic_qa.json")
DEMO_DATA = ROOT / "bench" / ".cache" / "definitions" / "data"  # the demo store bench_definitions builds too
CORPUS_QUESTIONS = 120
CONFIGS = (("**both off** (defaults)", False, False), ("answer.focus only", True, False),
           ("retrieval.paper_focus only", False, True), ("both on", True, True))  # fmt: skip


def agentic_qa(folder: Path) -> tuple[list[Paper], list[Question]]:
    """The on-topic papers (read from ../shared) and the questions written for them."""
    spec = json.loads(AGENTIC_QA.read_text(encoding="utf-8"))
    papers, questions = [], []
    for entry in spec["papers"]:
        bundled = entry["pdf"].removeprefix("bundled:")
        paper = read_pdf(DEMO_PDFS / bundled if bundled != entry["pdf"] else folder / entry["pdf"])
        papers.append(paper)
        for i, q in enumerate(entry["questions"]):
            ref = Reference("abstractive", q["answer"], tuple(q["evidence"]))
            questions.append(Question(f"{entry['pdf']}-{i:02d}", paper.paper_id, q["question"], [ref], "agentic"))
    return papers, questions


@dataclass
class Run:
    answers: list[Answer]


def _configured(store: Store, answer_focus: bool, paper_focus: bool) -> None:
    s = store.settings
    store.settings = s.model_copy(
        update={
            "answer": s.answer.model_copy(update={"focus": answer_focus}),
            "retrieval": s.retrieval.model_copy(update={"paper_focus": paper_focus}),
        }
    )


def ask(store: Store, questions: Sequence[Question], answer_focus: bool, paper_focus: bool) -> Run:
    """Every question asked of its own paper with the two settings as given."""
    _configured(store, answer_focus, paper_focus)
    try:
        assistant = Assistant(store)
        return Run([assistant.ask(q.text, Scope(paper_id=q.paper_id)) for q in questions])
    finally:
        _configured(store, False, False)


def _share(flags: Sequence[bool]) -> str:
    return f"{sum(flags)}/{len(flags)} ({100 * sum(flags) / len(flags):.0f}%)" if flags else "-"


def _lead_quotes(q: Question, answer: Answer) -> bool:
    evidence = [e for e in (shingles(t) for r in q.references for t in r.evidence) if e]
    return bool(answer.sentences) and any(covers(shingles(answer.sentences[0].text), e) for e in evidence)


def _quotes(q: Question, answer: Answer) -> bool:
    evidence = [e for e in (shingles(t) for r in q.references for t in r.evidence) if e]
    return any(covers(shingles(s.text), e) for s in answer.sentences for e in evidence)


def row(name: str, run: Run, questions: Sequence[Question], papers: dict[str, Paper]) -> list[object]:
    idx = [i for i, q in enumerate(questions) if any(r.evidence for r in q.references)]
    recalls = [evidence_recall(questions[i].references, run.answers[i].sources, 5) for i in idx]
    found = [r for r in recalls if r is not None]
    pages = [first_page_right(run.answers[i], gold_pages(questions[i], papers[questions[i].paper_id])) for i in idx]
    answerable = [a.abstained for a, q in zip(run.answers, questions, strict=True) if q.answerable]
    unanswerable = [a.abstained for a, q in zip(run.answers, questions, strict=True) if q.unanswerable]
    return [name, sum(found) / len(found) if found else 0.0,
            _share([_lead_quotes(questions[i], run.answers[i]) for i in idx]),
            _share([_quotes(questions[i], run.answers[i]) for i in idx]), _share(pages),
            _share(answerable), _share(unanswerable)]  # fmt: skip


HEADERS = ["configuration", "evidence recall@5", "lead quotes the evidence", "evidence quoted",
           "first citation on a gold page", "abstained, answerable", "abstained, unanswerable"]  # fmt: skip


def measure(label: str, papers: list[Paper], questions: list[Question], data_dir: Path) -> str:
    store = open_store(data_dir)
    index_papers(store, papers)
    by_id = {p.paper_id: p for p in papers}
    ask(store, questions[:3], False, False)  # warm-up: models loaded, caches filled
    rows = [row(name, ask(store, questions, a, p), questions, by_id) for name, a, p in CONFIGS]
    store.close()
    n_papers = len({q.paper_id for q in questions})
    return f"**{label}** ({len(questions)} questions on {n_papers} papers)\n\n{markdown_table(HEADERS, rows, digits=3)}"


def corpus_latency(n: int = CORPUS_QUESTIONS) -> str:
    """Whole-corpus questions over the demo corpus, the focus off and on taking turns: what spelling acronyms out
    costs (a focused question is embedded once more for the sentence scorer)."""
    store = Store(Settings(data_dir=DEMO_DATA))
    load_demo_corpus(store)
    papers = [p for p in arxiv_papers(DEMO_METADATA) if isinstance(p, Paper)]
    asked = [question(p, i) for i, p in enumerate(papers[:: max(1, len(papers) // n)][:n])]
    ways = {}
    for name, on in (("off (default)", False), ("on", True)):
        _configured(store, on, False)
        ways[name] = Assistant(store)
        ways[name].ask("What is a warm-up question?", Scope())  # model, indexes and answerer built before timing
    times: dict[str, list[float]] = {name: [] for name in ways}
    for i, q in enumerate(asked):
        for name in sorted(ways, reverse=bool(i % 2)):  # each goes first on every other question
            started = time.perf_counter()
            ways[name].ask(q, Scope())
            times[name].append(1000 * (time.perf_counter() - started))
    answers = ways["on"].sources
    spelled = sum(focus(q, answers(q, Scope())).text != q for q in asked)
    store.close()
    rows = [[name, percentile(t, 50), percentile(t, 95)] for name, t in times.items()]
    return (
        f"**Whole corpus, demo store** ({len(asked)} questions from demo titles in the latency bench's templates, "
        f'"What is known about ...?" and two more; the focus changed {spelled} of them, all by spelling '
        "acronyms out: the paper's own name is only taken out inside one paper)\n\n"
        + markdown_table(["answer.focus", "p50 ms", "p95 ms"], rows, digits=1)
    )


NOTE = (
    "Same store and questions for every configuration, in one process. `answer.focus`: the sentence scorer reads "
    "each acronym of the question with its long form (as the passages define it, else as the bundled glossary "
    "has it), and a sentence that spells a long form out counts as using the acronym; `retrieval.paper_focus`: "
    "the search inside the paper reads the question without the paper's own name (the name its title starts "
    'with; not for "what is X" about that name) and with its acronyms spelled out. Measures over questions '
    "with text evidence (bench/qa_harness.py): evidence recall@5; lead quotes the evidence: the answer's first "
    "sentence is at least half made of an evidence sentence's word 4-grams (or holds half of them); evidence "
    "quoted: any sentence of the answer does; first citation on a gold page: the first sentence cites a page "
    "holding evidence (since cleanup 6 the page of its quote, before it its passage's page range; an abstention "
    "counts as wrong). The whole-corpus table times the two settings of "
    "`answer.focus` question by question, each first on every other question."
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    args = parser.parse_args(argv)
    Settings()  # a misspelt PAPERTALK_ variable fails here, before minutes of indexing
    parts = []
    with quiet_logs():
        if pdf_folder().exists():
            papers, questions = agentic_qa(pdf_folder())
            parts.append(measure("On-topic PDFs, bench/agentic_qa.json", papers, questions, CACHE / "agentic"))
        else:
            parts.append(f"On-topic PDFs: not measured, shared/data/pdfs not found at {pdf_folder()}.")
        papers, questions, _, _ = pdf_qa()
        parts.append(measure("Bundled CC BY PDFs, bench/pdf_qa.json", papers, questions, CACHE / "bundled"))
        if qasper_dir().exists():
            papers, questions = load_qasper(qasper_dir())
            parts.append(measure("QASPER slice", papers, questions, CACHE / "qasper"))
        parts.append(corpus_latency())
    body = "\n\n".join(parts) + "\n\n" + NOTE
    publish(args, "focus", "Ask PDF: the paper's own name, acronyms and the kind nudge (bench_focus)", MODULE, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
