"""The library bench: an answer quoting any statement of the answer counts, evidence recall reads the set's own
evidence only, and each table row says where the papers were indexed."""

from __future__ import annotations

from assistant.types import Answer, AnswerSentence, Citation, Passage
from bench.bench_library import Outcome, outcome, row
from bench.qa_harness import Question, Reference
from storage.records import Paper

OWN = "We train Llama 3.1 8B Instruct on the generated training data."
ALSO = "The generator is initialised from Llama 3.1 8B Instruct before fine-tuning."


def _paper() -> Paper:
    return Paper(paper_id="p1", title="A paper", abstract="", pages=[f"Intro. {ALSO}", f"4 Training. {OWN}"])


def _passage(chunk_id: str, text: str, page: int) -> Passage:
    return Passage(chunk_id, "p1", "A paper", [], None, None, page, page, text)


def _answer(lead: str, page: int, sources: list[Passage]) -> Answer:
    citation = Citation(1, "c1", "p1", page, page, 0, len(lead), lead, 0.5)
    return Answer("q", "q", lead, [AnswerSentence(lead, [citation])], sources, "extractive")


def test_another_statement_of_the_answer_counts_but_not_for_recall() -> None:
    q = Question("x-00", "p1", "Which base model?", [Reference("abstractive", "Llama", (OWN,)),
                                                      Reference("abstractive", "Llama", (ALSO,))])  # fmt: skip
    also = _passage("c1", f"Intro. {ALSO}", 1)
    got = outcome(q, _answer(ALSO, 1, [also]), _paper())
    assert (got.first, got.hit_5, got.lead, got.quoted, got.page) == (True, True, True, True, True)
    assert got.recall_5 == 0.0  # the set's own sentence (page 2) was not retrieved
    own = outcome(q, _answer(OWN, 2, [_passage("c2", f"4 Training. {OWN}", 2), also]), _paper())
    assert own.recall_5 == 1.0 and own.lead and own.page
    missed = outcome(q, _answer("The paper is about training.", 2, [_passage("c3", "Other text here.", 2)]), _paper())
    assert (missed.first, missed.lead, missed.quoted, missed.page) == (False, False, False, True)


def test_a_row_names_the_set_its_size_and_where_it_was_indexed() -> None:
    hit = Outcome(1.0, True, True, True, True, True, False)
    outcomes = [hit, Outcome(0.0, False, False, False, False, False, True)]
    assert row("set", "in the demo library", outcomes) == [
        "set (2)", "in the demo library", 0.5, "1/2 (50%)", "1/2 (50%)", "1/2 (50%)", "1/2 (50%)", "1/2 (50%)",
        "1/2 (50%)",
    ]  # fmt: skip
