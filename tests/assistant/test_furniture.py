"""Captions, figure and table text and back matter weigh less in retrieval: for a question that the LongEval
abstract answers, none of them outranks the abstract (they all did before, when a short caption or a block
of axis labels embedded as little more than the paper's title)."""

from __future__ import annotations

import pytest

from assistant.furniture import is_furniture, is_prose
from assistant.retrieval import HybridRetriever
from assistant.types import Passage, Scope
from ingest.chunking import Chunker
from ingest.pdf import read_pdf
from papertalk.settings import ChunkSettings
from storage.store import Store
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF

QUESTION = "What guidelines does LongEval give for human evaluation of faithfulness?"


def longeval_passages() -> list[Passage]:
    paper = read_pdf(LONGEVAL_PDF)
    return [
        Passage(
            c.chunk_id,
            paper.paper_id,
            paper.title,
            [],
            None,
            None,
            c.page_start,
            c.page_end,
            c.text,
            section=c.section,
            caption=c.caption,
        )
        for c in Chunker(ChunkSettings()).chunk(paper, paper.content_hash())
    ]


def test_captions_figure_text_algorithms_and_references_are_furniture() -> None:
    passages = longeval_passages()

    def holding(text: str) -> Passage:
        return next(p for p in passages if text in p.text)

    for text in ("rouge-1_f1", "Xs[i, j]", "Figure 2: 95% confidence intervals", "Narayan, Shay B. Cohen"):
        assert is_furniture(holding(text)), text
    prose = [holding(t) for t in ("While human evaluation remains best practice", "We present the LONGEVAL guidelines")]
    assert not any(is_furniture(p) for p in prose)
    body = [p for p in passages if not p.caption and p.section not in ("References", "Acknowledgments")]
    assert sum(not is_prose(p.text) for p in body) <= len(body) // 8  # tables and figures only, not the paper
    assert not is_prose("0 20 40 60 80 100\nMean human score\nbart\nbart_dpr\nhuman") and not is_prose("")


def abstract_rank(store: Store, scope: Scope, weight: float) -> tuple[int | None, int]:
    """Where LongEval's first abstract passage ranks, and how many furniture passages rank above it."""
    settings = store.settings.retrieval.model_copy(update={"furniture_weight": weight})
    ranked = HybridRetriever(store, settings).retrieve(QUESTION, scope, k=20)
    longeval = read_pdf(LONGEVAL_PDF).paper_id
    first = next((i for i, p in enumerate(ranked) if p.paper_id == longeval and p.section == "Abstract"), None)
    return first, sum(is_furniture(p) for p in ranked[: len(ranked) if first is None else first])


@pytest.mark.parametrize("one_paper", [False, True])
def test_no_caption_or_figure_text_outranks_the_abstract(corpus: Store, one_paper: bool) -> None:
    scope = Scope(paper_id=read_pdf(LONGEVAL_PDF).paper_id) if one_paper else Scope()
    first, furniture_above = abstract_rank(corpus, scope, corpus.settings.retrieval.furniture_weight)
    assert first is not None and furniture_above == 0
    _, unweighed_above = abstract_rank(corpus, scope, 1.0)  # without the weight, furniture crowds it out
    assert unweighed_above >= 5


def test_a_paragraph_cut_off_by_the_table_after_it_is_not_furniture() -> None:
    """S2ORC's "The resulting corpus consists of 81.1M papers." shares its chunk with Table 1's rows: the chunk
    was weighed down as table text, and "How many papers does the corpus contain?" never reached it."""
    paper = read_pdf(S2ORC_PDF)
    chunks = Chunker(ChunkSettings()).chunk(paper, paper.content_hash())
    mixed = next(c for c in chunks if "The resulting corpus consists of 81.1M papers." in c.text)
    assert "Papers w/ PDF" in mixed.text  # the table's rows follow the paragraph in the same chunk
    assert is_prose(mixed.text)
    rows = "\n".join(line for line in mixed.text.splitlines() if line.startswith("Papers w/"))
    assert rows.count("\n") >= 4 and not is_prose(rows)  # the rows alone are still table text
