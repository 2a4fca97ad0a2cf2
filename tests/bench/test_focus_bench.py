"""The focus bench's labels and measures: every evidence sentence of bench/agentic_qa.json is in its paper's text
as papertalk reads it, and an answer counts as quoting the evidence only when one of its sentences does."""

from __future__ import annotations

import pytest

from assistant.types import Answer, AnswerSentence
from bench.bench_focus import _lead_quotes, _quotes, agentic_qa
from bench.common import pdf_folder
from bench.qa_harness import Question, Reference, covers, shingles


def _answer(*texts: str) -> Answer:
    return Answer("q", "q", " ".join(texts), [AnswerSentence(t, []) for t in texts], [], "extractive")


def test_the_lead_and_the_rest_are_told_apart() -> None:
    evidence = "We employ Group Relative Policy Optimization (GRPO) with fully online policy training."
    q = Question("x", "p", "What RL algorithm is used?", [Reference("abstractive", "GRPO", (evidence,))])
    both = _answer("The final stage leverages reinforcement learning.", evidence)
    assert _quotes(q, both) and not _lead_quotes(q, both)
    assert _lead_quotes(q, _answer(evidence)) and not _quotes(q, _answer("MiroThinker reaches 81.9% on GAIA."))


@pytest.mark.skipif(not pdf_folder().exists(), reason="the shared PDFs (../shared/data/pdfs) are not here")
def test_every_evidence_sentence_is_in_its_paper() -> None:
    papers, questions = agentic_qa(pdf_folder())
    pages = {p.paper_id: [shingles(page) for page in p.pages] for p in papers}
    for q in questions:
        for evidence in q.references[0].evidence:
            assert any(covers(page, shingles(evidence)) for page in pages[q.paper_id]), (q.text, evidence)
