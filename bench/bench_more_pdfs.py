"""Ask PDF on 15 more papers of shared/data/pdfs: 180 questions none of the answerer's settings was chosen on.

bench/pdf_qa.json (37 answerable questions on the two bundled papers) and the QASPER slice (43) are the sets the
extractive answerer's nudges and weights were chosen on; bench/more_pdf_qa.json was written afterwards (issue 9),
12 questions a paper from its title and abstract, each with every sentence of the paper that states its answer.
The papers are read from ../shared (their licences keep them out of the project), so each evidence sentence is
stored as a key (`sentence_key`) and found again in the paper's text as papertalk reads it (`paper_sentences`).

Each paper is indexed afresh under bench/.cache/more_pdfs/ and every question asked of its own paper with the
defaults (Ask PDF, extractive backend). Rows: all questions, then by what the question asks for.

    nice -n 10 python -m bench.bench_more_pdfs
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.service import Assistant
from assistant.types import Answer, Scope
from bench.common import ROOT, markdown_table, pdf_bench_args, pdf_folder, publish, quiet_logs
from bench.qa_harness import Question, Reference, covers, index_papers, open_store, shingles
from bench.selection_compare import first_page_right, gold_pages
from ingest.chunking import Chunker
from ingest.pdf import read_pdf
from ingest.sentences import split_sentences, usable
from papertalk.settings import Settings
from storage.records import Paper

MODULE = "bench.bench_more_pdfs"
LABELS = Path(__file__).with_name("more_pdf_qa.json")
CACHE = ROOT / "bench" / ".cache" / "more_pdfs"
KINDS = ("number", "name", "definition", "other")


def sentence_key(text: str) -> str:
    """What names an evidence sentence in the labels: the first 16 hex digits of the SHA-1 of its text, whitespace
    collapsed."""
    return hashlib.sha1(" ".join(text.split()).encode("utf-8")).hexdigest()[:16]


def paper_sentences(paper: Paper, settings: Settings) -> list[str]:
    """The usable sentences of `paper` as the answerer sees them: chunked, split, whitespace collapsed."""
    chunks = Chunker(settings.chunking).chunk(paper, "0" * 16)
    return [" ".join(s.text.split()) for c in chunks for s in split_sentences(c.text) if usable(s)]


@dataclass
class LabelledSet:
    papers: list[Paper]
    questions: list[Question]
    kinds: dict[str, str]  # question id -> number, name, definition or other
    missing: list[str]  # evidence keys not found in their paper's text ("pdf: key first words")


def resolve(
    entry: dict[str, Any], paper: Paper, sentences: Sequence[str]
) -> tuple[list[Question], dict[str, str], list[str]]:
    """One paper's questions with their evidence keys turned back into its sentences."""
    by_key = {sentence_key(s): s for s in sentences}
    questions, kinds, missing = [], {}, []
    for i, q in enumerate(entry["questions"]):
        qid = f"{entry['pdf']}-{i:02d}"
        found = []
        for ev in q["evidence"]:
            key = ev.split(" ", 1)[0]
            if key in by_key:
                found.append(by_key[key])
            else:
                missing.append(f"{entry['pdf']}: {ev}")
        questions.append(
            Question(qid, paper.paper_id, q["question"], [Reference("abstractive", q["answer"], tuple(found))], "more")
        )
        kinds[qid] = q["kind"]
    return questions, kinds, missing


def load(folder: Path, settings: Settings, labels: Path = LABELS) -> LabelledSet:
    """The papers read from `folder` (shared/data/pdfs) and their questions, evidence resolved."""
    spec = json.loads(labels.read_text(encoding="utf-8"))
    out = LabelledSet([], [], {}, [])
    for entry in spec["papers"]:
        paper = read_pdf(folder / entry["pdf"])
        questions, kinds, missing = resolve(entry, paper, paper_sentences(paper, settings))
        out.papers.append(paper)
        out.questions += questions
        out.kinds.update(kinds)
        out.missing += missing
    return out


@dataclass
class Outcome:
    hit_first: bool  # the first passage holds an evidence sentence
    hit_5: bool
    hit_all: bool  # any passage handed to the answerer does
    lead: bool  # the answer's first sentence is an evidence sentence
    quoted: bool  # one of its sentences is
    page: bool  # its first citation is on a page holding evidence
    abstained: bool


def outcome(q: Question, answer: Answer, paper: Paper) -> Outcome:
    evidence = [e for e in (shingles(t) for t in q.references[0].evidence) if e]
    holds = [any(covers(shingles(p.text), e) for e in evidence) for p in answer.sources]
    said = [any(covers(shingles(s.text), e) for e in evidence) for s in answer.sentences]
    return Outcome(any(holds[:1]), any(holds[:5]), any(holds), any(said[:1]), any(said),
                   first_page_right(answer, gold_pages(q, paper)), answer.abstained)  # fmt: skip


def _share(flags: Sequence[bool]) -> str:
    return f"{sum(flags)}/{len(flags)} ({100 * sum(flags) / len(flags):.0f}%)" if flags else "-"


HEADERS = ["questions", "n", "evidence in the first passage", "evidence hit@5", "evidence in all sources",
           "lead quotes the evidence", "evidence quoted", "first citation on a gold page", "abstained"]  # fmt: skip


def rows(outcomes: Sequence[Outcome], kinds: Sequence[str]) -> list[list[object]]:
    groups = [("all", list(range(len(outcomes))))] + [(k, [i for i, x in enumerate(kinds) if x == k]) for k in KINDS]
    table: list[list[object]] = []
    for label, idx in groups:
        picked = [outcomes[i] for i in idx]
        if not picked:
            continue
        table.append([label, len(picked)] + [_share([getattr(o, f) for o in picked]) for f in
                     ("hit_first", "hit_5", "hit_all", "lead", "quoted", "page", "abstained")])  # fmt: skip
    return table


def measure(labelled: LabelledSet, data_dir: Path = CACHE / "data") -> list[Outcome]:
    store = open_store(data_dir)
    index_papers(store, labelled.papers)
    assistant = Assistant(store)
    by_id = {p.paper_id: p for p in labelled.papers}
    out = [outcome(q, assistant.ask(q.text, Scope(paper_id=q.paper_id)), by_id[q.paper_id]) for q in labelled.questions]
    store.close()
    return out


NOTE = (
    "Measures (bench/qa_harness.py's 4-gram cover): a passage holds the evidence when it holds at least half of an "
    "evidence sentence's word 4-grams; the answer quotes it when one of its sentences is at least half made of an "
    "evidence sentence's 4-grams (or holds half of them); lead: its first sentence does; first citation on a gold "
    "page: the page of the first sentence's quote holds an evidence sentence; an abstention counts as a miss. Every "
    "question is answered by its paper, so each abstention is a false one. Evidence is every sentence that states "
    "the answer (as bench/pdf_qa.json's `also` sets), so these rows compare with the bundled PDFs' "
    "every-sentence table; no evidence recall@5 here, since a set that lists every statement of an answer is not "
    "meant to be retrieved whole."
)


def main(argv: list[str] | None = None) -> int:
    args = pdf_bench_args(__doc__, argv)
    if args is None:
        return 1
    settings = Settings()
    with quiet_logs():
        labelled = load(pdf_folder(), settings)
        outcomes = measure(labelled)
    kinds = [labelled.kinds[q.qid] for q in labelled.questions]
    found = sum(len(q.references[0].evidence) for q in labelled.questions)
    head = (
        f"{len(labelled.questions)} questions on {len(labelled.papers)} papers of shared/data/pdfs "
        f"(bench/more_pdf_qa.json; {found} evidence sentences found in the papers' text, {len(labelled.missing)} not "
        "found), each asked of its own paper (`Scope(paper_id=...)`) with the defaults: extractive backend, "
        f"abstain_below={settings.answer.abstain_below}, top_k={settings.retrieval.top_k}."
    )
    body = head + "\n\n" + markdown_table(HEADERS, rows(outcomes, kinds)) + "\n\n" + NOTE
    publish(args, "more-pdfs", "Ask PDF on 15 more papers, none tuned on (bench_more_pdfs)", MODULE, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
