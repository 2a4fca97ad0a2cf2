"""Extractive answers on the two bundled CC BY papers lead with the sentence that answers, on the cited page.

The questions are of the kinds that went wrong before (a number, a named tool, a definition), written for
facts these papers state: S2ORC (Lo et al., ACL 2020) and LongEval (Krishna et al., EACL 2023).
"""

from __future__ import annotations

import re

import pytest

from assistant.extractive import ExtractiveAnswerer
from assistant.service import Assistant
from assistant.types import Answer, Passage, Scope
from ingest.cleanup import drop_note_marks
from ingest.pdf import read_pdf
from ingest.sentences import split_sentences
from storage.store import Store
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF


def _paper_id(store: Store, title_start: str) -> str:
    rows = store.catalog.query("SELECT paper_id FROM papers WHERE title LIKE ?", (title_start + "%",))
    assert rows, title_start
    return str(rows[0]["paper_id"])


def _flat(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _on_cited_page(answer: Answer, pdf_pages: list[str]) -> bool:
    """The first sentence's quote is in the text of the pages its citation names (without the note marks the
    cleanup drops: "S2ORC,1 a large corpus")."""
    citation = answer.sentences[0].citations[0]
    assert citation.page_start is not None
    pages = pdf_pages[citation.page_start - 1 : (citation.page_end or citation.page_start)]
    return _flat(citation.quote) in _flat(drop_note_marks(" ".join(pages)))


@pytest.fixture(scope="module")
def pages() -> dict[str, list[str]]:
    return {"S2ORC": read_pdf(S2ORC_PDF).pages, "LONGEVAL": read_pdf(LONGEVAL_PDF).pages}


CASES = [
    ("S2ORC", "How many PDFs are selected for processing?", r"30\.5M"),
    ("S2ORC", "How many full text LaTeX parses are provided?", r"1\.5M"),
    ("S2ORC", "Which tool is used to extract the title and authors from each PDF?", r"SCIENCE\s*PARSE"),
    ("LONGEVAL", "How many of the surveyed papers release their raw human annotation data?", r"\b2 of the 44\b"),
    ("LONGEVAL", "How many papers report inter-annotator agreement?", r"\b12\b"),
]


@pytest.mark.parametrize(("paper", "question", "expected"), CASES)
def test_the_answering_sentence_comes_first_on_the_cited_page(
    corpus: Store, pages: dict[str, list[str]], paper: str, question: str, expected: str
) -> None:
    answer = Assistant(corpus).ask(question, Scope(paper_id=_paper_id(corpus, paper)))
    assert not answer.abstained, answer.notes
    first = answer.sentences[0]
    assert re.search(expected, first.text, re.IGNORECASE), [s.text for s in answer.sentences]
    assert _on_cited_page(answer, pages[paper])
    assert answer.text.startswith(first.text)


def test_a_source_is_named_once_for_a_run_of_its_sentences(corpus: Store) -> None:
    answer = Assistant(corpus).ask(
        "How many papers does the corpus contain?", Scope(paper_id=_paper_id(corpus, "S2ORC"))
    )
    numbers = [s.citations[0].number for s in answer.sentences]
    runs = sum(1 for i, n in enumerate(numbers) if i + 1 == len(numbers) or numbers[i + 1] != n)
    assert len(re.findall(r"\[\d+\]", answer.text)) == runs


def _first_chunks(store: Store, paper_id: str, n: int) -> list[Passage]:
    """The paper's first `n` chunks as numbered sources, the passages a "what is X" question needs."""
    (paper,) = store.catalog.get_many([paper_id]).values()
    return [
        Passage(c.chunk_id, paper_id, paper.title, [], None, None, c.page_start, c.page_end, c.text, number=i)
        for i, c in enumerate(store.catalog.chunks_of(paper_id)[:n], start=1)
    ]


@pytest.mark.parametrize(
    ("paper", "question", "expected"),
    [
        ("S2ORC", "What is S2ORC?", r"We introduce S2ORC"),
        ("LONGEVAL", "What is LongEval?", r"LONGEVAL, a set of guidelines"),
    ],
)
def test_a_definition_question_leads_with_the_defining_sentence(
    corpus: Store, pages: dict[str, list[str]], paper: str, question: str, expected: str
) -> None:
    sources = _first_chunks(corpus, _paper_id(corpus, paper), 8)
    answer = ExtractiveAnswerer(corpus.embedder, corpus.settings.answer).answer(question, question, sources)
    assert re.search(expected, answer.sentences[0].text), [s.text for s in answer.sentences]
    assert _on_cited_page(answer, pages[paper])


@pytest.mark.parametrize("paper", ["S2ORC", "LONGEVAL"])
def test_a_quote_from_a_passage_over_two_pages_cites_its_own_page(
    corpus: Store, pages: dict[str, list[str]], paper: str
) -> None:
    """The catalog keeps where each page starts in a chunk, so a sentence of a chunk that runs from one page to
    the next cites the page it is on ("p. 5"), not the chunk's range ("pp. 4-5"); one that crosses the page break
    cites both."""
    paper_id = _paper_id(corpus, paper)
    spanning = [c for c in corpus.catalog.chunks_of(paper_id) if c.page_start != c.page_end]
    assert len(spanning) >= 15 and all(c.page_marks for c in spanning)
    one_page = crossing = 0
    for c in spanning:
        passage = Passage(c.chunk_id, paper_id, paper, [], None, None, c.page_start, c.page_end, c.text,
                          page_marks=c.page_marks)  # fmt: skip
        for sentence in split_sentences(c.text):
            first, last = passage.pages_of(sentence.start, sentence.end)
            assert first is not None and last is not None and c.page_start <= first <= last <= c.page_end  # type: ignore[operator]
            cited = _flat(drop_note_marks(" ".join(pages[paper][first - 1 : last])))
            assert _flat(sentence.text) in cited or first != last, (sentence.text, first, last)
            one_page += first == last
            crossing += first != last
    assert one_page >= 100 and crossing >= 5, (one_page, crossing)


def test_an_answer_cites_the_page_of_its_quote_within_a_two_page_passage(
    corpus: Store, pages: dict[str, list[str]]
) -> None:
    """LongEval's "101 out of 162 papers" is on p. 3 of a passage that runs over pp. 2-3 (as chunked today):
    the answer's citation names p. 3 alone."""
    answer = Assistant(corpus).ask(
        "How many of the surveyed papers perform no human evaluation?", Scope(paper_id=_paper_id(corpus, "LONGEVAL"))
    )
    citation = answer.sentences[0].citations[0]
    chunk = corpus.catalog.chunks_by_id([citation.chunk_id])[citation.chunk_id]
    assert "101 out of 162" in citation.quote and (chunk.page_start, chunk.page_end) == (2, 3), citation
    assert (citation.page_start, citation.page_end) == (3, 3) and _on_cited_page(answer, pages["LONGEVAL"])
