"""Ask PDF measured: evidence recall@5, answer F1 and abstention of the extractive backend, on two sets.

1. The bundled PDFs (always): the two CC BY papers in papertalk/demo/pdfs, read with the PDF reader, and the
   45 questions of bench/pdf_qa.json (written from title and abstract, answered from the full text).
2. QASPER (when shared/data/eval/qasper is there): 10 papers, 51 questions, in the Hugging Face layout. QASPER
   has no PDF pages, so the abstract is page 1 and each section (its heading, then its paragraphs separated
   by blank lines) is one more page.

Each set is indexed afresh in a data dir under bench/.cache/, and every question is asked of its own paper
(`Scope(paper_id=...)`), as Ask PDF asks it. The measures are defined in bench/qa_harness.py.

    nice -n 10 python -m bench.bench_qasper
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    ROOT,
    add_common_args,
    markdown_table,
    publish,
    quiet_logs,
    require,
    shared_dir,
    write_section,
)
from bench.eval_data import pdf_qa
from bench.qa_harness import (
    Outcome,
    Question,
    Reference,
    answer_text,
    ask_all,
    best_f1,
    evidence_recall,
    index_papers,
    open_store,
    quotes_evidence,
    reanswer,
)
from papertalk.settings import Settings
from storage.records import Paper
from storage.store import Store

MODULE = "bench.bench_qasper"
CACHE = ROOT / "bench" / ".cache" / "qasper"
PDF_CACHE = ROOT / "bench" / ".cache" / "pdf-qa"
FLOAT_PREFIX = "FLOAT SELECTED"
KINDS = ("extractive", "abstractive", "boolean", "none")


def qasper_dir() -> Path:
    return shared_dir() / "data" / "eval" / "qasper"


# --- loading ----------------------------------------------------------------------------------------
def iter_json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Objects of a file of concatenated JSON values (a list's items are yielded one by one)."""
    decoder, pos = json.JSONDecoder(), 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return
        value, pos = decoder.raw_decode(text, pos)
        yield from (value if isinstance(value, list) else [value])


def reference(info: dict[str, Any]) -> Reference:
    """One annotator's answer the way QASPER's evaluator reads it."""
    evidence = tuple(e for e in info.get("evidence") or [] if e.strip() and not e.startswith(FLOAT_PREFIX))
    if info.get("unanswerable"):
        return Reference("none", "Unanswerable", evidence)
    if info.get("extractive_spans"):
        return Reference("extractive", ", ".join(info["extractive_spans"]), evidence)
    if (info.get("free_form_answer") or "").strip():
        return Reference("abstractive", info["free_form_answer"], evidence)
    if info.get("yes_no") is not None:
        return Reference("boolean", "Yes" if info["yes_no"] else "No", evidence)
    return Reference("none", "Unanswerable", evidence)


def paper_of(record: dict[str, Any]) -> Paper:
    full = record.get("full_text") or {}
    pages = [record.get("abstract") or ""]
    for name, paragraphs in zip(full.get("section_name") or [], full.get("paragraphs") or [], strict=False):
        body = "\n\n".join(p.strip() for p in paragraphs if p and p.strip())
        if body:
            pages.append(f"{name or ''}\n\n{body}".strip())
    return Paper(
        paper_id=str(record["id"]),
        title=record.get("title") or str(record["id"]),
        abstract=record.get("abstract") or "",
        source="qasper",
        pages=pages,
    )


def questions_of(record: dict[str, Any]) -> list[Question]:
    qas = record.get("qas") or {}
    out = []
    for text, qid, answers in zip(
        qas.get("question", []), qas.get("question_id", []), qas.get("answers", []), strict=False
    ):
        infos = answers.get("answer", []) if isinstance(answers, dict) else answers
        refs = [reference(i) for i in infos]
        if refs:
            out.append(Question(str(qid), str(record["id"]), text.strip(), refs))
    return out


def load_qasper(folder: Path) -> tuple[list[Paper], list[Question]]:
    papers, questions = [], []
    for path in sorted(folder.glob("*.json")) + sorted(folder.glob("*.jsonl")):
        for record in iter_json_objects(path.read_text(encoding="utf-8")):
            if "full_text" in record and "qas" in record:
                papers.append(paper_of(record))
                questions += questions_of(record)
    if not papers:
        raise SystemExit(f"no QASPER records (objects with full_text and qas) in {folder}")
    return papers, questions


def qasper_store(cache: Path = CACHE) -> tuple[Store, list[Question]]:
    """The QASPER papers indexed afresh, and their questions."""
    papers, questions = load_qasper(require(qasper_dir(), "the QASPER slice (shared/data/eval/qasper)"))
    store = open_store(cache / "data")
    index_papers(store, papers)
    return store, questions


def qasper_run(cache: Path = CACHE) -> tuple[Store, list[Outcome]]:
    """Index the QASPER papers (afresh) and ask every question of its paper."""
    store, questions = qasper_store(cache)
    return store, ask_all(store, questions)


def pdf_store(
    settings: Settings | None = None, alternatives: bool = False
) -> tuple[Store, list[Paper], list[Question], list[str], dict[str, str]]:
    """The PDF set's papers read and indexed as Ask PDF does it, with its questions (with `alternatives`, every
    sentence that states the answer as evidence: `pdf_qa`), off-topic ones and claims."""
    papers, questions, off_topic, claims = pdf_qa(alternatives)
    store = open_store(PDF_CACHE / "data", settings)
    index_papers(store, papers)
    return store, papers, questions, off_topic, claims


# --- report -----------------------------------------------------------------------------------------
def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _rate(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.0f}%)" if total else "-"


def results_table(outcomes: Sequence[Outcome], answers: Sequence[Any]) -> str:
    rows: list[list[object]] = []
    groups = [("all questions", list(range(len(outcomes))))]
    groups += [(f"gold: {k}", [i for i, o in enumerate(outcomes) if o.question.kind == k]) for k in KINDS]
    for label, idx in groups:
        if not idx:
            continue
        f1 = [best_f1(answer_text(answers[i]), outcomes[i].question.references) for i in idx]
        recalls = [evidence_recall(outcomes[i].question.references, outcomes[i].sources, 5) for i in idx]
        found = [r for r in recalls if r is not None]
        hits = sum(r > 0 for r in found)
        deep = [evidence_recall(outcomes[i].question.references, outcomes[i].sources, len(outcomes[i].sources))
                for i in idx]  # fmt: skip
        deep_hits = sum(r > 0 for r in deep if r is not None)
        quoted = [quotes_evidence(outcomes[i].question.references, answers[i]) for i in idx]
        quoted_known = [q for q in quoted if q is not None]
        abstained = sum(answers[i].abstained for i in idx)
        rows.append([label, len(idx), _mean(f1), _mean(found) if found else "-", _rate(hits, len(found)),
                     _rate(deep_hits, len(found)), _rate(sum(quoted_known), len(quoted_known)),
                     _rate(abstained, len(idx))])  # fmt: skip
    headers = ["questions", "n", "answer F1", "evidence recall@5", "evidence hit@5", "hit in all sources",
               "evidence quoted", "abstained"]  # fmt: skip
    return markdown_table(headers, rows, digits=3)


def abstention_line(outcomes: Sequence[Outcome], answers: Sequence[Any]) -> str:
    unans = [i for i, o in enumerate(outcomes) if o.question.unanswerable]
    ans = [i for i, o in enumerate(outcomes) if o.question.answerable]
    return (
        f"Abstention at abstain_below: on questions every annotator marked unanswerable "
        f"{_rate(sum(answers[i].abstained for i in unans), len(unans))} (correct abstentions); on questions no "
        f"annotator marked unanswerable {_rate(sum(answers[i].abstained for i in ans), len(ans))} (false "
        "abstentions). Questions the annotators disagree on count in F1 only."
    )


def results_body(store: Store, outcomes: Sequence[Outcome], data: str) -> str:
    threshold = store.settings.answer.abstain_below
    answers = reanswer(store, outcomes, threshold)
    n_papers = len({o.question.paper_id for o in outcomes})
    return (
        f"{len(outcomes)} questions on {n_papers} {data}, each paper its own Ask PDF scope "
        f"(`Scope(paper_id=...)`). Extractive backend with the current defaults (abstain_below={threshold}, "
        f"semantic_weight={store.settings.answer.semantic_weight}, max_sentences="
        f"{store.settings.answer.max_sentences}, top_k={store.settings.retrieval.top_k}).\n\n"
        f"{results_table(outcomes, answers)}\n\n"
        f"{abstention_line(outcomes, answers)}\n\n"
        "Answer F1 is SQuAD-style token F1 against each annotator's reference, max over annotators "
        '(extractive spans joined with ", ", the free-form answer, "Yes"/"No", or "Unanswerable"; an '
        'abstention is the prediction "Unanswerable"). The extractive backend quotes whole sentences, so its F1 '
        "against short references is low by construction (a correct quoted sentence of 25 words against a "
        "3-word reference scores about 0.2), and it never says yes or no. Evidence recall@5: a gold paragraph "
        "counts as retrieved when a top-5 passage holds at least half of its word 4-grams or is at least half "
        "made of them; per question the best annotator; table/figure evidence left out. Hit in all sources: "
        "the same within all top_k passages handed to the answerer (its ceiling). Evidence quoted: the "
        "answer has a sentence at least half made of a gold paragraph's 4-grams. Rows are by the first "
        "annotator's answer kind."
    )


NOT_MEASURED = (
    "Not measured yet: the QASPER slice (shared/data/eval/qasper) was not on the machine that last ran this "
    "benchmark. With it, `nice -n 10 python -m bench.bench_qasper` writes the same table as above for its "
    "51 questions here, and `python -m bench.calibrate` adds QASPER and QASA questions to the calibration."
)
QASPER_DATA = (
    "QASPER papers (abstract as page 1, then one page per section: its heading, then its paragraphs "
    "separated by blank lines)"
)
PDF_DATA = (
    "bundled CC BY PDFs (papertalk/demo/pdfs, read with the PDF reader) with the questions of bench/pdf_qa.json "
    "(written from title and abstract, answered from the full text; one reference each)"
)


EVERY_DATA = (
    "the bundled PDFs (bench/pdf_qa.json), each question's `also` sets (the other sentences of the paper that "
    "state its answer) counted as more annotators' evidence"
)
EVERY_NOTE = (
    "The one reference sentence per question undercounts right answers: a paper states most facts more than once "
    "(abstract, introduction, section, conclusion), and an answer that quotes another statement of the fact was "
    "counted as a miss. The `also` sets were labelled after the first set (2026-12-03), prompted by such answers: "
    "each paper's text, as papertalk's cleanup reads it, was searched for each answer's facts (its numbers and "
    "names) and every hit read; each sentence that states the answer (or, like a gold sentence, part of it) was "
    "taken, whether papertalk had quoted it or not: 52 sets for 22 of the 37 questions. "
    "Evidence recall@5 is then the best annotator's share, evidence quoted any annotator's sentence, the first "
    "citation's page any annotator's page. The table above, with one reference, stays the measure the targets "
    "were set on."
)


COMPARE_NOTE = (
    "Same questions, same retrieval run (twice top_k passages per question, retrieval order), answered four ways "
    "(bench/selection_compare.py): the first top_k passages or the top_k kept by the sentence-based rerank "
    "(bench/passage_rerank.py), quoted by the keyword-prefiltered scorer (with the answer-type nudges) or the "
    "learned one (assistant/selection.py, trained by bench/train_selection.py). Over questions with text evidence: "
    "evidence recall@5 and evidence quoted as above; first citation on a gold page: the answer's first "
    "citation names a page holding a gold evidence paragraph (since cleanup 6 the page of its quote, before it the "
    "page range of the quote's passage; an abstention counts as wrong). "
    "Abstentions at the current abstain_below. The ms include the rerank and the answer, not retrieval."
)


def compare_body(store: Store, questions: Sequence[Question], papers: Sequence[Paper], data: str) -> str:
    from bench.selection_compare import table

    return f"{len(questions)} questions on {data}.\n\n{table(store, questions, papers)}\n\n{COMPARE_NOTE}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    args = parser.parse_args(argv)
    with quiet_logs():
        store, papers, questions, _, _ = pdf_store()
        body = results_body(store, ask_all(store, questions), PDF_DATA)
        compared = compare_body(store, questions, papers, "the bundled PDFs (bench/pdf_qa.json)")
        _, every, _, _ = pdf_qa(alternatives=True)
        compared_every = compare_body(store, every, papers, EVERY_DATA) + "\n\n" + EVERY_NOTE
    publish(args, "pdf-qa", "Ask PDF on the bundled PDFs (bench_qasper)", MODULE, body)
    publish(args, "selection-pdf-qa", "Sentence selection on the bundled PDFs (bench_qasper)", MODULE, compared)
    title = "Sentence selection on the bundled PDFs, every sentence that states the answer as evidence (bench_qasper)"
    publish(args, "selection-pdf-qa-every", title, MODULE, compared_every)
    if not qasper_dir().exists() and not args.no_record:
        write_section("qasper", f"## Ask PDF on QASPER (bench_qasper)\n\n{NOT_MEASURED}")
    require(qasper_dir(), "the QASPER slice (shared/data/eval/qasper)")
    with quiet_logs():
        qpapers, qquestions = load_qasper(qasper_dir())
        store = open_store(CACHE / "data")
        index_papers(store, qpapers)
        body = results_body(store, ask_all(store, qquestions), QASPER_DATA)
        compared = compare_body(store, qquestions, qpapers, "the QASPER slice")
    publish(args, "qasper", "Ask PDF on QASPER (bench_qasper)", MODULE, body)
    publish(args, "selection-qasper", "Sentence selection on QASPER (bench_qasper)", MODULE, compared)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
