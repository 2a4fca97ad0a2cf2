"""Questions a section of the paper's own answers: "What are the limitations of X?" is answered from its
Limitations section (the bundled LongEval PDF, CC BY, has one on page 10; S2ORC has none)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from assistant.asked_section import IN_CONCLUSION, SECTION_PASSAGES, asked_section, in_section, section_start, settle
from assistant.overview import OverviewService
from assistant.retrieval import HybridRetriever
from assistant.service import Assistant
from assistant.types import Scope
from ingest.pdf import read_pdf
from storage.store import Store
from tests.conftest import LONGEVAL_PDF


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        ("What are the limitations of Tongyi DeepResearch?", "limitations"),
        ("What are the main weaknesses of this study?", "limitations"),
        ("Which drawbacks does the method have?", "limitations"),
        ("What future work do the authors plan?", "future work"),
        ("Which future directions does the paper suggest?", "future work"),
        # the limitations of other work, which the paper addresses: its own Limitations section does not answer
        ("What limitations of existing corpora does this paper address?", None),
        ("What are the limitations of prior methods?", None),
        ("How many papers does the corpus contain?", None),
        ("What is the main contribution?", "contributions"),
        ("What does this paper propose?", "contributions"),
        ("Who contributed to the annotation?", None),
    ],
)
def test_the_section_a_question_asks_for(question: str, asked: str | None) -> None:
    assert asked_section(question) == asked


def test_a_heading_of_the_asked_kind() -> None:
    assert in_section("limitations", "7 Limitations And Future Work")
    assert in_section("future work", "7 Limitations And Future Work")
    assert in_section("future work", "8.5 Future directions")
    assert in_section("limitations", "Limitations")
    assert not in_section("limitations", "4.2 Main Results")
    assert not in_section(None, "Limitations") and not in_section("limitations", None)


def test_future_work_is_read_in_the_conclusion_of_a_paper_without_a_future_work_section() -> None:
    assert settle("future work", ["1 Introduction", "8.5 Future directions", "9 Conclusion"]) == "future work"
    assert settle("future work", ["1 Introduction", "5 Conclusion", None]) == IN_CONCLUSION
    assert settle("future work", ["1 Introduction", "4 Results"]) == "future work"  # no conclusion either
    assert settle("limitations", ["5 Conclusion"]) == "limitations"
    # in a conclusion, only what says what comes next
    assert in_section(IN_CONCLUSION, "5 Conclusion", "As future work, we plan to study salience.")
    assert in_section(IN_CONCLUSION, "8 Conclusion", "We will release the code and plan to extend it to tables.")
    assert not in_section(IN_CONCLUSION, "5 Conclusion", "We introduced LongEval, a set of guidelines.")
    assert not in_section(IN_CONCLUSION, "4 Results", "As future work, we plan to study salience.")


@dataclass
class _Chunk:
    chunk_id: str
    ordinal: int
    section: str


def test_the_section_start_is_read_in_order_from_the_best_ranked_heading_a_contents_line_last() -> None:
    chunks = [
        _Chunk("toc", 1, "H Limitations and Discussions 62"),  # a table of contents' line took the pages after it
        _Chunk("study-1", 40, "5.1 Study 1 Limitations"),
        _Chunk("main-a", 70, "7 Limitations And Future Work"),
        _Chunk("main-b", 71, "7 Limitations And Future Work"),
        _Chunk("main-c", 72, "7 Limitations And Future Work"),
        _Chunk("results", 50, "6 Results"),
    ]
    rank = {"toc": 0, "main-c": 1, "study-1": 2, "results": 3}
    picked = section_start("limitations", chunks, rank)
    assert [c.chunk_id for c in picked] == ["main-a", "main-b"][:SECTION_PASSAGES]
    assert section_start("limitations", [chunks[0]], rank) == [chunks[0]]  # a contents line if nothing else
    assert section_start("future work", [chunks[1], chunks[5]], rank) == []


def test_a_search_inside_one_paper_puts_the_asked_section_first(corpus: Store) -> None:
    pid = read_pdf(LONGEVAL_PDF).paper_id
    passages = HybridRetriever(corpus).retrieve("What are the weaknesses of LongEval?", Scope(paper_id=pid))
    assert passages[0].section == "Limitations", [p.section for p in passages]
    assert len({p.chunk_id for p in passages}) == len(passages) == corpus.settings.retrieval.top_k
    other = HybridRetriever(corpus).retrieve("How many annotators judged each unit?", Scope(paper_id=pid))
    assert other[0].section != "Limitations"


def test_ask_pdf_answers_a_limitations_question_from_the_limitations_section(corpus: Store) -> None:
    """LongEval's Limitations section (page 10) shares no word with the question but "limited": its sentences
    lead the answer and it quotes several of them, each cited to page 10."""
    pid = read_pdf(LONGEVAL_PDF).paper_id
    answer = Assistant(corpus).ask("What are the limitations of this work?", Scope(paper_id=pid))
    assert not answer.abstained, answer.notes
    assert "limited to faithfulness evaluation" in answer.sentences[0].text, [s.text for s in answer.sentences]
    assert len(answer.sentences) >= 3
    for sentence in answer.sentences:
        citation = sentence.citations[0]
        assert (citation.section, citation.page_start) == ("Limitations", 10), sentence.text
    # the limitations of the practices LongEval addresses are stated in its sections 2 and 3, not in Limitations
    other = "What limitations of prior human evaluation practices does LongEval address?"
    answer = Assistant(corpus).ask(other, Scope(paper_id=pid))
    assert answer.sentences and answer.sentences[0].citations[0].section != "Limitations", answer.text


def test_ask_pdf_reads_future_work_in_the_conclusion(corpus: Store) -> None:
    """LongEval has no future-work section; its conclusion (page 9) says what comes next."""
    pid = read_pdf(LONGEVAL_PDF).paper_id
    answer = Assistant(corpus).ask("What future work do the authors suggest?", Scope(paper_id=pid))
    assert not answer.abstained, answer.notes
    lead = answer.sentences[0]
    assert lead.text.startswith("As future work, we plan to conduct experiments"), [s.text for s in answer.sentences]
    assert (lead.citations[0].section, lead.citations[0].page_start) == ("5 Conclusion", 9)


def test_a_paper_summary_quotes_its_limitations_section(corpus: Store) -> None:
    """`papertalk summarize`: cleanup keeps headings out of the text, so the Limitations section is found by the
    section ingest recorded for each chunk; LongEval's (page 10) gives one of the block's sentences."""
    summary = OverviewService(corpus).summarize(read_pdf(LONGEVAL_PDF).paper_id)
    block = next(s for s in summary.sections if s.kind == "limitations")
    cited = [summary.answer.sentences[i].citations[0] for i in block.sentences]
    assert ("Limitations", 10) in [(c.section, c.page_start) for c in cited], [c.quote for c in cited]


@pytest.mark.parametrize("question", ["What is the main contribution?", "What does this paper propose?"])
def test_ask_pdf_answers_what_the_paper_contributes_from_its_abstract(corpus: Store, question: str) -> None:
    """Before, "contribution" matched LongEval's footnote "Details of individual author contributions can be found
    here." and its acknowledgments ("Kalpesh also contributed to ...")."""
    pid = read_pdf(LONGEVAL_PDF).paper_id
    answer = Assistant(corpus).ask(question, Scope(paper_id=pid))
    assert not answer.abstained, answer.notes
    lead = answer.sentences[0]
    assert "we present LONGEVAL" in lead.text and lead.citations[0].section == "Abstract", answer.text
    assert not any("contributed" in s.text or "contributions can be found" in s.text for s in answer.sentences)
    assert not any("Proceedings of" in s.text or "University" in s.text for s in answer.sentences), answer.text
