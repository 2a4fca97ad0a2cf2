"""The four Ask PDF sets answered question by question, for comparing two versions of the answerer.

The published benches (bench_qasper, bench_more_pdfs, bench_focus, bench_library) index their papers afresh on
every run and print totals. Working on the answerer needs the other thing: the same stores, indexed once, asked
again after each change, and the questions whose answer changed listed one by one. This tool does that:

    python -m bench.answer_sets build                 # index the sets into bench/.cache/answer_sets (~6 min)
    python -m bench.answer_sets run --out a.json      # answer every question (~8 min), totals per set
    python -m bench.answer_sets diff a.json b.json    # what changed, question by question
    python -m bench.answer_sets misses b.json --set bundled --measure lead   # each miss with its gold

Sets: `bundled` (bench/pdf_qa.json on the bundled PDFs), `qasper` (the QASPER slice), `more`
(bench/more_pdf_qa.json on 15 papers of shared/data/pdfs) and `agentic` (bench/agentic_qa.json); answerable
questions with text evidence only. Measures as bench_library's: `lead` (the answer's first sentence quotes an
evidence sentence), `quoted` (one of its sentences does), `page` (its first citation is on a page that holds
evidence), `abstained`, and `recall5` (the share of the first reference's evidence in the top five passages).
A store built by older ingest code must be built again (`build`); answering code changes need only `run`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.service import Assistant
from assistant.types import Answer, Scope
from bench import bench_more_pdfs
from bench.bench_focus import agentic_qa
from bench.bench_qasper import load_qasper, qasper_dir
from bench.common import ROOT, pdf_folder, quiet_logs, require
from bench.eval_data import pdf_qa
from bench.qa_harness import Question, covers, evidence_recall, index_papers, open_store, shingles
from bench.selection_compare import first_page_right, gold_pages
from papertalk.settings import Settings
from storage.records import Paper
from storage.store import Store

CACHE = ROOT / "bench" / ".cache" / "answer_sets"
SETS = ("bundled", "qasper", "more", "agentic")
MEASURES = ("lead", "quoted", "page", "abstained")


@dataclass
class Result:
    qid: str
    set: str
    question: str
    lead: bool
    quoted: bool
    page: bool
    abstained: bool
    recall5: float
    said: str  # the answer's first sentence ("" when it abstains)
    evidence: str  # the first evidence sentence or paragraph, for reading a miss


def _answerable(questions: Sequence[Question]) -> list[Question]:
    return [q for q in questions if q.answerable and any(r.evidence for r in q.references)]


def labelled(name: str, settings: Settings) -> tuple[list[Paper], list[Question]]:
    """The papers of set `name` and its answerable questions with text evidence."""
    if name == "bundled":
        papers, questions, _, _ = pdf_qa()
    elif name == "qasper":
        papers, questions = load_qasper(require(qasper_dir(), "the QASPER slice (shared/data/eval/qasper)"))
    elif name == "more":
        more = bench_more_pdfs.load(require(pdf_folder(), "shared/data/pdfs"), settings)
        papers, questions = more.papers, more.questions
    else:
        papers, questions = agentic_qa(require(pdf_folder(), "shared/data/pdfs"))
    return papers, _answerable(questions)


def _store(name: str, settings: Settings) -> Store:
    data_dir = CACHE / name / "data"
    if not data_dir.exists():
        raise SystemExit(f"no store for {name!r} at {data_dir}: run `python -m bench.answer_sets build` first")
    return Store(settings.model_copy(update={"data_dir": data_dir}))


def build(names: Sequence[str]) -> None:
    settings = Settings()
    for name in names:
        started = time.perf_counter()
        papers, questions = labelled(name, settings)
        store = open_store(CACHE / name / "data", settings)  # emptied first
        try:
            chunks = index_papers(store, papers)
        finally:
            store.close()
        print(f"{name}: {len(papers)} papers, {chunks} chunks, {len(questions)} questions "
              f"({time.perf_counter() - started:.0f} s)")  # fmt: skip


def result(name: str, q: Question, answer: Answer, paper: Paper) -> Result:
    evidence = [e for e in (shingles(t) for r in q.references for t in r.evidence) if e]
    said = [any(covers(shingles(s.text), e) for e in evidence) for s in answer.sentences]
    first = next(t for r in q.references for t in r.evidence)
    return Result(
        q.qid, name, q.text, any(said[:1]), any(said), first_page_right(answer, gold_pages(q, paper)),
        answer.abstained, evidence_recall(q.references[:1], answer.sources, 5) or 0.0,
        "" if answer.abstained or not answer.sentences else answer.sentences[0].text, first,
    )  # fmt: skip


def run(names: Sequence[str]) -> list[Result]:
    settings = Settings()
    out: list[Result] = []
    for name in names:
        papers, questions = labelled(name, settings)
        by_id = {p.paper_id: p for p in papers}
        store = _store(name, settings)
        try:
            assistant = Assistant(store)
            for q in questions:
                answer = assistant.ask(q.text, Scope(paper_id=q.paper_id))
                out.append(result(name, q, answer, by_id[q.paper_id]))
        finally:
            store.close()
    return out


def totals(results: Sequence[Result]) -> str:
    lines = [f"{'set':<8} {'n':>4} " + " ".join(f"{m:>9}" for m in MEASURES) + f" {'recall@5':>9}"]
    for name in SETS:
        picked = [r for r in results if r.set == name]
        if picked:
            counts = " ".join(f"{sum(getattr(r, m) for r in picked):>9}" for m in MEASURES)
            recall = sum(r.recall5 for r in picked) / len(picked)
            lines.append(f"{name:<8} {len(picked):>4} {counts} {recall:>9.3f}")
    return "\n".join(lines)


def load_results(path: Path) -> list[Result]:
    return [Result(**row) for row in json.loads(path.read_text(encoding="utf-8"))]


def diff(before: Sequence[Result], after: Sequence[Result], measures: Sequence[str]) -> str:
    old = {(r.set, r.qid): r for r in before}
    lines = []
    for r in after:
        o = old.get((r.set, r.qid))
        if o is None:
            continue
        changed = [f"{m} {'+' if getattr(r, m) else '-'}" for m in measures if getattr(r, m) != getattr(o, m)]
        if changed or (o.said != r.said and "said" in measures):
            lines.append(f"[{r.set} {r.qid}] {', '.join(changed) or 'lead sentence changed'}: {r.question}\n"
                         f"    was: {o.said[:200]}\n    now: {r.said[:200]}")  # fmt: skip
    return "\n".join(lines) or "no answer changed on these measures"


def misses(results: Sequence[Result], name: str | None, measure: str) -> str:
    picked = [r for r in results if (name is None or r.set == name) and not getattr(r, measure)]
    return "\n".join(
        f"[{r.set} {r.qid}] {r.question}\n    said: {r.said[:220]}\n    gold: {r.evidence[:220]}" for r in picked
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="index the sets afresh")
    r = sub.add_parser("run", help="answer every question and write the results")
    for p in (b, r):
        p.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    r.add_argument("--out", type=Path, required=True)
    d = sub.add_parser("diff", help="the questions whose answer changed between two runs")
    d.add_argument("before", type=Path)
    d.add_argument("after", type=Path)
    d.add_argument("--measures", nargs="+", default=["lead", "quoted", "page", "abstained"],
                   choices=[*MEASURES, "said"])  # fmt: skip
    m = sub.add_parser("misses", help="the questions a run missed, with their gold evidence")
    m.add_argument("results", type=Path)
    m.add_argument("--set", choices=SETS)
    m.add_argument("--measure", choices=MEASURES[:3], default="lead")
    args = parser.parse_args(argv)
    with quiet_logs():
        if args.command == "build":
            build(args.sets)
        elif args.command == "run":
            results = run(args.sets)
            args.out.write_text(json.dumps([asdict(x) for x in results], indent=1), encoding="utf-8")
            print(totals(results))
        elif args.command == "diff":
            before, after = load_results(args.before), load_results(args.after)
            print(diff(before, after, args.measures))
            print(f"\nbefore:\n{totals(before)}\nafter:\n{totals(after)}")
        else:
            print(misses(load_results(args.results), args.set, args.measure))
    return 0


if __name__ == "__main__":
    sys.exit(main())
