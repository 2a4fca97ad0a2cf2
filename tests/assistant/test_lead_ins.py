"""Sentences that cannot answer on their own: a paragraph's run-in heading is nudged down, and a sentence that
announces what follows is quoted with the sentence after it (bench_more_pdfs: "Which dataset is SemEAGAT evaluated
on?" led with "Dataset and Evaluation Metrics.")."""

from __future__ import annotations

from assistant.extractive import ExtractiveAnswerer, _Candidate, _continued
from assistant.question_type import classify
from assistant.sentence_features import run_in_heading, type_bonus
from assistant.types import Passage
from ingest.sentences import split_sentences
from storage.store import Store


def test_a_run_in_heading_is_told_from_a_short_statement() -> None:
    for heading in ("Dataset and Evaluation Metrics.", "Controlled comparison against trained baselines.",
                    "Limitations of OPENSCHOLAR."):  # fmt: skip
        assert run_in_heading(heading), heading
    for statement in ("We use GRPO.", "Molecular distance is subjective.", "Is the explanation succinct?",
                      "The circuits were fabricated using UMC L180 technology."):  # fmt: skip
        assert not run_in_heading(statement), statement
    kind = classify("Which dataset is the model evaluated on?")
    assert type_bonus(kind, "Dataset and Evaluation Metrics.") < 0
    assert type_bonus(kind, "We evaluate on ACE2005.") == 0


def test_a_sentence_that_only_says_where_the_results_are_is_nudged_down() -> None:
    question = "How does local verification work in MiroThinker-H1?"
    kind = classify(question)
    for pointer in ("Results of MiroThinker-H1 w/ Local Verification only are reported in Table 4.",
                    "We show in Table 2 an evaluation comparing this against the same recipe."):  # fmt: skip
        assert type_bonus(kind, pointer, question) < 0, pointer
    assert type_bonus(kind, "Local verification checks each step as it is taken (Table 4).", question) == 0
    assert type_bonus(kind, "Accuracy is shown in Table 2: 85.1% with local verification.", question) == 0


def _passage(text: str) -> Passage:
    return Passage("c1", "paper", "An event detection paper", [], 2022, None, 5, 5, text, number=1)


LEAD_IN = "We use four datasets for our experiments as discussed below."
LISTED = "Quora Question Pairs (QQP) is a paraphrase detection dataset with 50K pairs in our split."
TEXT = f"{LEAD_IN} {LISTED} The second dataset is MSCOCO captions, five captions an image."


def test_a_sentence_that_leads_in_is_quoted_with_the_next_and_the_next_not_again() -> None:
    sources = [_passage(TEXT)]
    first, second, _ = split_sentences(TEXT)
    lead, listed = _Candidate(0, first, 0.5, score=0.6), _Candidate(0, second, 0.4, score=0.5)
    out = _continued([lead, listed], sources)
    assert len(out) == 1 and out[0].sentence.text == f"{LEAD_IN} {LISTED}"
    assert TEXT[out[0].sentence.start : out[0].sentence.end] == out[0].sentence.text
    plain = _Candidate(0, second, 0.4, score=0.5)
    assert _continued([plain], sources) == [plain]  # a sentence that announces nothing stays as it is


def test_the_answer_quotes_what_a_lead_in_announces(corpus: Store) -> None:
    question = "Which datasets are used in the experiments?"
    answerer = ExtractiveAnswerer(corpus.embedder, corpus.settings.answer)
    answer = answerer.answer(question, question, [_passage(TEXT)])
    assert not answer.abstained, answer.notes
    quotes = [c.quote for s in answer.sentences for c in s.citations]
    assert any(LEAD_IN in q and LISTED in q for q in quotes), quotes
    assert sum(LISTED in q for q in quotes) == 1, quotes
