"""`summarize`: one paper's framing, method, results and limitations, each sentence quoted from that paper
and cited with the pages it is on."""

from __future__ import annotations

import pytest

from assistant.overview import OverviewService
from papertalk.errors import NotFound
from storage.catalog import PaperRow
from storage.records import pages_of_span
from storage.store import Store


def pdf_paper(store: Store, word: str) -> PaperRow:
    return next(p for p in store.catalog.list_papers(limit=200) if p.has_full_text and word in p.title)


@pytest.mark.parametrize("word", ["S2ORC", "LONGEVAL"])
def test_summary_cites_pages_of_that_paper(corpus: Store, word: str) -> None:
    paper = pdf_paper(corpus, word)
    summary = OverviewService(corpus).summarize(paper.paper_id)
    assert summary.kind == "paper" and summary.key == paper.paper_id and summary.subject == paper.title
    chunks = {c.chunk_id: c for c in corpus.catalog.chunks_of(paper.paper_id)}
    answer = summary.answer
    assert len(answer.sentences) >= 4
    for sentence in answer.sentences:
        (citation,) = sentence.citations
        chunk = chunks[citation.chunk_id]  # a chunk of this paper, nothing else
        assert citation.paper_id == paper.paper_id
        assert citation.page_start is not None and 1 <= citation.page_start <= paper.n_pages
        # the quote's own page(s), within its chunk's range
        assert citation.page_end is not None and chunk.page_start is not None and chunk.page_end is not None
        assert chunk.page_start <= citation.page_start <= citation.page_end <= chunk.page_end
        assert (citation.page_start, citation.page_end) == pages_of_span(
            chunk.page_marks, citation.span_start, citation.span_end, (chunk.page_start, chunk.page_end)
        )
        assert " ".join(chunk.text[citation.span_start : citation.span_end].split()) == sentence.text
    assert all(p.pages.startswith("p") for p in answer.sources)  # "p. 3" / "pp. 3-4" shown with each source
    kinds = [s.kind for s in summary.sections]
    assert kinds[:2] == ["framing", "method"] and "results" in kinds
    framing = [answer.sentences[i] for i in summary.sections[0].sentences]
    assert all(s.citations[0].page_start <= 2 for s in framing)  # the opening: abstract and introduction


def test_summary_of_an_abstract_only_paper(corpus: Store) -> None:
    paper = next(p for p in corpus.catalog.list_papers(limit=200) if not p.has_full_text)
    summary = OverviewService(corpus).summarize(f"arxiv:{paper.paper_id}")
    assert summary.answer.sentences and summary.cited_papers() == {paper.paper_id}


def test_unknown_paper_says_what_to_do(corpus: Store) -> None:
    with pytest.raises(NotFound, match="papertalk papers list"):
        OverviewService(corpus).summarize("0000.00000")
