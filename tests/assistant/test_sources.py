"""Sources that are the same paper: an abstract's parts become one source, same-page passages are told
apart, and every citation is still an exact span of the source it points to."""

from __future__ import annotations

from collections import Counter

from assistant.extractive import ExtractiveAnswerer
from assistant.passages import distinct_sources
from assistant.service import Assistant
from assistant.types import Answer, Passage, Scope
from ingest.pdf import read_pdf
from storage.catalog import ChunkRow
from storage.store import Store
from tests.assistant.conftest import TOPIC
from tests.conftest import S2ORC_PDF


def passage(store: Store, chunk: ChunkRow) -> Passage:
    paper = store.catalog.get(chunk.paper_id)
    assert paper is not None
    return Passage(
        chunk.chunk_id,
        paper.paper_id,
        paper.title,
        paper.authors,
        paper.year,
        paper.link,
        chunk.page_start,
        chunk.page_end,
        chunk.text,
    )


def numbered(passages: list[Passage]) -> list[Passage]:
    for n, p in enumerate(passages, start=1):
        p.number = n
    return passages


def assert_exact_citations(answer: Answer) -> None:
    for sentence in answer.sentences:
        for c in sentence.citations:
            source = answer.sources[c.number - 1]
            assert source.text[c.span_start : c.span_end] == c.quote


def abstract_paper_with_parts(store: Store) -> str:
    rows = store.catalog.query("SELECT paper_id FROM papers WHERE n_pages = 0 AND n_chunks >= 2 ORDER BY paper_id")
    assert rows, "the corpus should hold an abstract long enough for two chunks"
    return str(rows[0]["paper_id"])


def test_parts_of_one_abstract_become_one_source_with_exact_citations(corpus: Store) -> None:
    paper_id = abstract_paper_with_parts(corpus)
    parts = corpus.catalog.chunks_of(paper_id)
    other = corpus.catalog.chunks_of(read_pdf(S2ORC_PDF).paper_id)[5]
    given = [passage(corpus, parts[1]), passage(corpus, other), passage(corpus, parts[0])]
    assert given[0].label() == given[2].label()  # what a reader could not tell apart

    sources = numbered(distinct_sources(given, corpus.catalog))
    paper = corpus.catalog.get(paper_id)
    assert paper is not None
    assert [s.paper_id for s in sources] == [paper_id, other.paper_id]
    merged = sources[0]
    assert merged.text == paper.abstract and merged.chunk_ids == [parts[0].chunk_id, parts[1].chunk_id]
    assert merged.chunk_id == parts[1].chunk_id  # the best-ranked part keeps its rank
    for part in parts[:2]:  # each part's words are in the merged text, in order
        assert " ".join(part.text.split()) in " ".join(merged.text.split())

    question = " ".join(parts[1].text.split()[:12])
    answer = ExtractiveAnswerer(corpus.embedder, corpus.settings.answer).answer(question, question, sources)
    assert not answer.abstained and answer.sentences
    assert_exact_citations(answer)


def test_passages_on_the_same_page_are_told_apart(corpus: Store) -> None:
    chunks = corpus.catalog.chunks_of(read_pdf(S2ORC_PDF).paper_id)
    by_label = Counter((c.page_start, c.page_end) for c in chunks)
    same = [c for c in chunks if by_label[(c.page_start, c.page_end)] > 1][:2]
    assert len(same) == 2 and same[0].page_start == same[1].page_start
    given = [passage(corpus, same[1]), passage(corpus, chunks[-1]), passage(corpus, same[0])]
    assert given[0].label() == given[2].label()

    sources = distinct_sources(given, corpus.catalog)
    labels = [s.label() for s in sources]
    assert len(set(labels)) == 3, labels
    n = len(chunks)
    assert labels[0].endswith(f"passage {same[1].ordinal + 1} of {n}")
    assert labels[2].endswith(f"passage {same[0].ordinal + 1} of {n}")
    assert [s.text for s in sources] == [p.text for p in given]  # full-text passages are not merged


def test_answers_never_list_two_sources_alike(corpus: Store) -> None:
    assistant = Assistant(corpus)
    merged_any = False
    queries = [
        ("web agents collecting GUI trajectories", Scope()),
        ("reinforcement learning for language model agents", Scope(topic=TOPIC)),
        ("How many papers does the S2ORC corpus contain?", Scope()),
        ("multi-agent reinforcement learning in language games", Scope(topic=TOPIC)),
    ]
    for query, scope in queries:
        raw = assistant.retriever.retrieve(query, scope)
        answer = assistant.ask(query, scope)
        labels = [s.label() for s in answer.sources]
        assert len(labels) == len(set(labels)), labels
        assert [s.number for s in answer.sources] == list(range(1, len(answer.sources) + 1))
        assert_exact_citations(answer)
        abstract_twice = {p for p, n in Counter(r.paper_id for r in raw if r.page_start is None).items() if n > 1}
        for paper_id in abstract_twice:
            assert [s.paper_id for s in answer.sources].count(paper_id) == 1
            merged_any = True
    assert merged_any  # at least one of the queries met an abstract cut in two
