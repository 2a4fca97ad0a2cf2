"""Chunks of a cleaned PDF are not cut tiny: the title block opens the abstract's chunk, a caption between two
paragraphs does not cut the text around it, and short runs join their neighbours (a chunk of a few words
embeds as little more than the paper's title, which every chunk carries)."""

from __future__ import annotations

import pytest

from ingest.chunking import Chunker
from ingest.pdf import read_pdf
from papertalk.settings import ChunkSettings
from storage.embeddings import WordPieceCounter
from storage.records import Chunk
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF

MIN_PIECES = 16  # before runs were merged, LongEval had a chunk of 4 word pieces ("See Figure 6.")


def chunks_of(pdf: object) -> list[Chunk]:
    paper = read_pdf(pdf)  # type: ignore[arg-type]
    return Chunker(ChunkSettings()).chunk(paper, paper.content_hash())


def test_title_block_and_abstract_start_share_the_first_chunk() -> None:
    first = chunks_of(LONGEVAL_PDF)[0]
    assert "Guidelines for Human Evaluation" in first.text
    assert "While human evaluation remains best practice" in first.text
    assert first.section == "Abstract" and not first.caption


@pytest.mark.parametrize("pdf", [S2ORC_PDF, LONGEVAL_PDF])
def test_no_chunk_is_a_few_words_and_captions_of_a_section_share_chunks(pdf: object) -> None:
    chunks = chunks_of(pdf)
    counter = WordPieceCounter()
    assert min(counter.count(c.text) for c in chunks) >= MIN_PIECES
    assert not any(c.text.strip() == "See Figure 6." for c in chunks)
    captions = [c for c in chunks if c.caption]
    starts = sum(c.text.count("\n\nFigure ") + c.text.count("\n\nTable ") for c in captions)
    assert captions and starts >= 1  # at least one chunk holds two captions
    assert all(c.text.startswith(("Figure", "Table", "Fig")) for c in captions)


def test_a_caption_does_not_cut_the_paragraphs_around_it() -> None:
    chunks = chunks_of(LONGEVAL_PDF)
    body = [c for c in chunks if not c.caption and c.section.startswith("1 Introduction")]
    assert not any(c.caption for c in body)
    text = " ".join(c.text for c in body)
    assert "RQ1: Can inter-annotator agreement be improved" in text and "Overall, our contributions are" in text
    assert len(body) <= 9  # 10 body chunks and a caption chunk between them before
