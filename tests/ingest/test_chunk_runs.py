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


def test_a_short_conclusion_keeps_its_section_and_never_joins_the_references() -> None:
    from ingest.chunking import _merge_small, _runs
    from ingest.cleanup import Block

    def words(n: int) -> str:
        return " ".join(["evidence"] * n)

    blocks = [
        Block(1, words(300), "5 Results"),
        Block(2, words(20), "6 Conclusion"),  # short: under half a chunk
        Block(2, words(400), "References"),
    ]
    runs = _merge_small(_runs(blocks), lambda run: sum(len(b.text.split()) for b in run) < 100)
    sections = [[b.section for b in run] for run in runs]
    assert sections == [["5 Results", "5 Results"], ["References"]], sections
    assert "evidence " * 20 in " ".join(b.text for b in runs[0]) + " "


def test_a_short_run_joined_to_a_longer_one_takes_the_section_holding_most_text() -> None:
    from ingest.chunking import _merge_small, _runs
    from ingest.cleanup import Block

    blocks = [Block(1, "See Figure 6.", "F Prompts"), Block(1, "word " * 300, "G Annotation guide")]
    runs = _merge_small(_runs(blocks), lambda run: sum(len(b.text.split()) for b in run) < 100)
    assert [[b.section for b in run] for run in runs] == [["G Annotation guide", "G Annotation guide"]]
    short = [Block(1, "word " * 60, "F Prompts"), Block(1, "See Figure 6.", "G Annotation guide")]
    runs = _merge_small(_runs(short), lambda run: sum(len(b.text.split()) for b in run) < 100)
    assert {b.section for run in runs for b in run} == {"F Prompts"}
