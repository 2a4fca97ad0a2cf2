"""Abstention on the bundled CC BY PDFs (Ask PDF): questions a paper does not answer abstain, and still show the
closest passages; a question about the paper's own subject does not."""

from __future__ import annotations

import pytest

from assistant.abstention import agreement, coverage, gather, missing_name, type_missing
from assistant.service import Assistant
from assistant.types import Passage, Scope
from ingest.pdf import read_pdf
from storage.store import Store
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF


def passage(chunk_id: str, text: str, dense: float | None, keyword: float | None) -> Passage:
    return Passage(chunk_id, "p", "T", [], None, None, 1, 1, text, dense_score=dense, keyword_score=keyword)


def test_a_name_the_question_gives_that_no_passage_holds_is_missing() -> None:
    texts = ["PaSa is an LLM agent for paper search trained with PPO.", "The Crawler issues search queries."]
    assert missing_name("Which RL algorithm trains MiroThinker?", texts)
    assert not missing_name("Which RL algorithm trains PaSa's Crawler?", texts)
    assert not missing_name("What is the reward of the crawler?", texts)  # no name given


def test_a_name_from_the_passages_paper_title_is_found() -> None:
    """Ask PDF: the question names the paper (as its title does), its passages about the asked fact do not."""
    pay = "All annotators were compensated at a rate of 20$ USD / hr, their hourly rate on Upwork."
    titled = Passage("c1", "p", "LONGEVAL: Guidelines for Human Evaluation", [], None, None, 5, 5, pay)
    untitled = Passage("c1", "p", "", [], None, None, 5, 5, pay)
    question = "How much were LongEval's annotators paid?"
    assert not gather(question, [titled], 0.5).missing_name
    assert gather(question, [untitled], 0.5).missing_name
    assert gather(question, [titled], 0.5).coverage > gather(question, [untitled], 0.5).coverage
    assert gather("Which RL algorithm trains MiroThinker?", [titled], 0.5).missing_name  # another paper's name


def test_a_question_asking_for_a_number_needs_a_related_sentence_with_one() -> None:
    with_number = ["The corpus contains 81.1M papers, 8.1M of them with full text."]
    without = ["The corpus contains papers from many fields, with full text for some."]
    question = "How many papers does the corpus contain?"
    assert not type_missing(question, with_number)
    assert type_missing(question, without)
    assert not type_missing("What is the corpus?", without)  # no answer type asked


def test_coverage_weighs_missing_rare_terms() -> None:
    texts = ["The corpus is built from PDFs parsed with GROBID.", "The corpus links citations."]
    assert coverage("Which tool parses the PDFs of the corpus?", texts) > coverage("What GPU trained it?", texts)
    assert coverage("What GPU trained it?", texts) == 0.0


def test_agreement_compares_the_two_retrievers_top_passages() -> None:
    same = [passage(f"c{i}", "x", 1.0 - i / 10, 5.0 - i) for i in range(4)]
    apart = [passage(f"c{i}", "x", 1.0 - i / 10, None) for i in range(3)]
    apart += [passage(f"k{i}", "x", None, 5.0 - i) for i in range(3)]
    assert agreement(same) == 1.0
    assert agreement(apart) == 0.0


@pytest.mark.parametrize(
    ("pdf", "question"),
    [
        (S2ORC_PDF, "How much disk space does the full corpus take?"),
        (LONGEVAL_PDF, "What GPU hardware was used to generate the summaries?"),
        (LONGEVAL_PDF, "Which reward model architecture is used for RLHF in InstructGPT?"),
    ],
)
def test_a_question_the_paper_does_not_answer_abstains_and_shows_the_closest_passages(
    corpus: Store, pdf: object, question: str
) -> None:
    paper_id = read_pdf(pdf).paper_id  # type: ignore[arg-type]
    answer = Assistant(corpus).ask(question, Scope(paper_id=paper_id))
    assert answer.abstained, answer.text
    assert not answer.sentences and "don't answer" in answer.text
    assert answer.sources and all(s.paper_id == paper_id for s in answer.sources)
    assert "chance the passages answer" in answer.notes[0]


def test_a_question_about_the_other_paper_by_its_name_abstains_and_points_to_it(corpus: Store) -> None:
    s2orc, longeval = read_pdf(S2ORC_PDF).paper_id, read_pdf(LONGEVAL_PDF).paper_id
    question = "How many annotators judged each unit of the LongEval summaries?"
    answer = Assistant(corpus).ask(question, Scope(paper_id=s2orc))
    assert answer.abstained and not answer.sentences
    assert [r.paper_id for r in answer.elsewhere] == [longeval]  # assistant.elsewhere
    assert answer.sources and all(s.paper_id == s2orc for s in answer.sources)


@pytest.mark.parametrize(
    ("pdf", "question"),
    [
        (S2ORC_PDF, "What is S2ORC?"),
        (LONGEVAL_PDF, "What is LongEval?"),
        (S2ORC_PDF, "How many papers does S2ORC contain?"),
        # the paper's name in the question, in none of the passages about pay, but in their paper's title
        (LONGEVAL_PDF, "How much were LongEval's annotators paid?"),
    ],
)
def test_a_question_about_the_papers_own_subject_is_answered(corpus: Store, pdf: object, question: str) -> None:
    paper_id = read_pdf(pdf).paper_id  # type: ignore[arg-type]
    answer = Assistant(corpus).ask(question, Scope(paper_id=paper_id))
    assert not answer.abstained, answer.notes
    assert answer.sentences and answer.sentences[0].citations
