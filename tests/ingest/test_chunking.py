import re

from ingest.chunking import Chunker
from ingest.pdf import read_pdf
from papertalk.settings import ChunkSettings
from storage.embeddings import MODEL_MAX_PIECES, WordPieceCounter
from storage.records import Paper, fold
from tests.conftest import S2ORC_PDF


def _letters(text: str) -> str:
    return re.sub(r"[^a-z]", "", fold(text))


def test_pdf_chunks_fit_the_model_window_and_know_their_pages() -> None:
    paper = read_pdf(S2ORC_PDF)
    chunks = Chunker(ChunkSettings()).chunk(paper, paper.content_hash())
    counter = WordPieceCounter()
    lengths = [counter.count(c.embed_text) + 2 for c in chunks]  # + [CLS] and [SEP]
    assert max(lengths) <= MODEL_MAX_PIECES
    assert len(chunks) > 30
    for c in chunks:
        assert c.page_start is not None and c.page_end is not None and 1 <= c.page_start <= c.page_end
        pages_text = "\n\n".join(paper.pages[c.page_start - 1 : c.page_end])
        # cleanup may restore a space or drop a page number between two halves of a word: compare letters only.
        # A chunk's blocks need not be adjacent on the page (a section's captions share a chunk): its first block
        first_block = c.text.split("\n\n")[0]
        assert _letters(first_block[:60]) in _letters(pages_text)
    assert {c.page_start for c in chunks} >= set(range(1, 10))


def test_abstract_only_paper_is_at_least_one_chunk_with_title() -> None:
    paper = Paper(paper_id="2501.00001", title="A Title", abstract="")
    chunks = Chunker(ChunkSettings()).chunk(paper, paper.content_hash())
    assert len(chunks) == 1 and chunks[0].embed_text.startswith("A Title")
    paper = Paper(paper_id="2501.00002", title="T", abstract="Short abstract about agents.")
    (only,) = Chunker(ChunkSettings()).chunk(paper, paper.content_hash())
    assert only.text == "Short abstract about agents." and only.page_start is None


def test_chunk_ids_are_deterministic_and_change_with_content() -> None:
    chunker = Chunker(ChunkSettings())
    paper = Paper(paper_id="2501.00003", title="T", abstract="word " * 600)
    a = [c.chunk_id for c in chunker.chunk(paper, paper.content_hash())]
    b = [c.chunk_id for c in chunker.chunk(paper, paper.content_hash())]
    assert a == b and len(a) > 1
    changed = Paper(paper_id="2501.00003", title="T", abstract="other " * 600)
    assert set(a).isdisjoint(c.chunk_id for c in chunker.chunk(changed, changed.content_hash()))


def test_raw_pdf_chunks_are_cut_from_their_pages_as_extracted() -> None:
    """With cleanup turned off, chunk text is the extracted page text exactly (the baseline for the benchmark)."""
    paper = read_pdf(S2ORC_PDF)
    chunks = Chunker(ChunkSettings(clean_text=False)).chunk(paper, paper.content_hash())
    for c in chunks:
        assert c.page_start and c.page_end and not c.section and not c.caption
        assert c.text[:60] in "\n\n".join(paper.pages[c.page_start - 1 : c.page_end])
