"""The 15-paper Ask PDF set: evidence stored as keys is found again in the papers' text, a key that matches no
sentence is reported (not dropped silently), and the table counts each measure per kind of question."""

from __future__ import annotations

import json

import pytest

from assistant.types import Answer, AnswerSentence, Citation, Passage
from bench.bench_more_pdfs import LABELS, Outcome, load, outcome, paper_sentences, resolve, rows, sentence_key
from bench.common import pdf_folder
from bench.qa_harness import Question, Reference
from papertalk.settings import Settings
from storage.records import Paper

GOLD = "We train Llama 3.1 8B Instruct on the generated training data."


def _paper() -> Paper:
    body = f"4 Training\n\nThe model is trained in two stages. {GOLD} Training takes two days on 8 GPUs."
    return Paper(paper_id="p1", title="A paper", abstract="", pages=["An abstract page.", body])


def test_a_key_names_a_sentence_whatever_its_spacing() -> None:
    assert sentence_key("We  train Llama\n3.1 8B") == sentence_key("We train Llama 3.1 8B")
    assert sentence_key("We train Llama 3.1 8B") != sentence_key("We train Llama 3.1 70B")


def test_evidence_keys_resolve_to_the_papers_sentences_and_misses_are_reported() -> None:
    paper = _paper()
    sentences = paper_sentences(paper, Settings())
    assert GOLD in sentences
    entry = {"pdf": "x.pdf", "questions": [
        {"question": "Which base model?", "kind": "name", "answer": "Llama 3.1 8B Instruct",
         "evidence": [f"{sentence_key(GOLD)} We train Llama 3.1", "0123456789abcdef Not in the paper"]},
    ]}  # fmt: skip
    questions, kinds, missing = resolve(entry, paper, sentences)
    assert questions[0].references[0].evidence == (GOLD,)
    assert kinds == {"x.pdf-00": "name"}
    assert missing == ["x.pdf: 0123456789abcdef Not in the paper"]


def _passage(chunk_id: str, text: str) -> Passage:
    return Passage(chunk_id, "p1", "A paper", [], None, None, 2, 2, text)


def _answer(lead: str, page: int, sources: list[Passage]) -> Answer:
    citation = Citation(1, "c1", "p1", page, page, 0, len(lead), lead, 0.5)
    return Answer("q", "q", lead, [AnswerSentence(lead, [citation])], sources, "extractive")


def test_an_outcome_reads_passages_lead_and_page() -> None:
    paper = _paper()
    q = Question("x-00", "p1", "Which base model?", [Reference("abstractive", "Llama", (GOLD,))])
    holding = _passage("c1", GOLD + " Training takes two days.")
    other = _passage("c2", "The model is trained in two stages on a cluster.")
    right = outcome(q, _answer(GOLD, 2, [other, holding]), paper)
    assert (right.hit_first, right.hit_5, right.lead, right.quoted, right.page) == (False, True, True, True, True)
    wrong = outcome(q, _answer("The model is trained in two stages.", 1, [other]), paper)
    assert (wrong.hit_5, wrong.lead, wrong.quoted, wrong.page) == (False, False, False, False)


def test_rows_count_each_kind_apart() -> None:
    hit = Outcome(True, True, True, True, True, True, False)
    miss = Outcome(False, False, True, False, False, False, True)
    table = rows([hit, miss, miss], ["number", "name", "name"])
    assert table[0][:2] == ["all", 3] and table[0][2] == "1/3 (33%)"
    assert table[1][:3] == ["number", 1, "1/1 (100%)"]
    assert table[2][:2] == ["name", 2] and table[2][-1] == "2/2 (100%)"  # both abstained


def test_the_labels_are_well_formed() -> None:
    spec = json.loads(LABELS.read_text(encoding="utf-8"))
    questions = [q for entry in spec["papers"] for q in entry["questions"]]
    assert len(spec["papers"]) == 15 and len(questions) == 180
    for q in questions:
        assert q["kind"] in ("number", "name", "definition", "other") and q["question"].strip() and q["answer"]
        assert q["evidence"] and all(len(e.split(" ", 1)[0]) == 16 for e in q["evidence"]), q["question"]


@pytest.mark.slow
@pytest.mark.skipif(not pdf_folder().exists(), reason="the shared PDFs (../shared/data/pdfs) are not here")
def test_every_evidence_key_is_found_in_its_paper() -> None:
    labelled = load(pdf_folder(), Settings())
    assert not labelled.missing
    assert all(q.references[0].evidence for q in labelled.questions)
