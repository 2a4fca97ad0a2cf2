import json
from datetime import date
from pathlib import Path

import pytest

from assistant.retrieval import HybridRetriever, rrf_fuse
from assistant.types import Scope
from papertalk.errors import NotFound
from storage.store import Store
from tests.assistant.conftest import TOPIC


def _s2orc_id(store: Store) -> str:
    rows = store.catalog.query("SELECT paper_id FROM papers WHERE title LIKE 'S2ORC%'")
    return str(rows[0][0])


def test_rrf_fuse_rewards_agreement_and_respects_weights() -> None:
    fused = dict(rrf_fuse([(1.0, ["a", "b", "c"]), (1.0, ["b", "d"])], k=60))
    assert max(fused, key=fused.__getitem__) == "b"
    only_dense = rrf_fuse([(1.0, ["a"]), (0.0, ["z"])], k=60)
    assert [i for i, _ in only_dense] == ["a"]


def test_results_carry_paper_page_and_passage(corpus: Store) -> None:
    passages = HybridRetriever(corpus).retrieve("How many papers does the S2ORC corpus contain?", k=5)
    assert passages and passages[0].title.startswith("S2ORC")
    top = passages[0]
    assert top.page_start and top.text and top.chunk_id.startswith(top.paper_id)
    assert top.dense_score is not None or top.keyword_score is not None


def test_paper_scope_returns_only_that_paper(corpus: Store) -> None:
    pid = _s2orc_id(corpus)
    passages = HybridRetriever(corpus).retrieve("faithfulness of summaries", Scope(paper_id=pid), k=8)
    assert passages and {p.paper_id for p in passages} == {pid}


def test_topic_and_date_scopes(corpus: Store) -> None:
    retriever = HybridRetriever(corpus)
    members = set(corpus.topics.paper_ids(corpus.topics.get(TOPIC).slug))
    in_topic = retriever.retrieve("reinforcement learning agents", Scope(topic=TOPIC), k=10)
    assert in_topic and {p.paper_id for p in in_topic} <= members
    dates = sorted(r.published for r in corpus.catalog.list_papers(limit=100) if r.published)
    pivot = dates[len(dates) // 2]
    later = retriever.retrieve("language model agents", Scope(since=pivot), k=10)
    rows = corpus.catalog.get_many(p.paper_id for p in later)
    assert later and all(rows[p.paper_id].published and rows[p.paper_id].published >= pivot for p in later)
    assert not retriever.retrieve("agents", Scope(until=date(1990, 1, 1)))


def test_unknown_scope_says_what_to_do(corpus: Store) -> None:
    with pytest.raises(NotFound, match="papertalk papers list"):
        HybridRetriever(corpus).retrieve("x", Scope(paper_id="9999.99999"))
    with pytest.raises(NotFound, match="--topic"):
        HybridRetriever(corpus).retrieve("x", Scope(topic="no such topic"))


def test_keyword_search_matches_title_words_missing_from_the_chunk(store: Store) -> None:
    from ingest.pipeline import Ingestor
    from storage.records import Paper

    paper = Paper(paper_id="2501.00077", title="Zyxwvut: a benchmark", abstract="We measure things carefully.")
    Ingestor(store).run([paper])
    hits = store.keywords.search("zyxwvut", 5)
    assert hits and hits[0][0].startswith("2501.00077#")


def spy_on_dense_filters(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The `paper_ids` filter of each dense search, in order (None: unfiltered)."""
    calls: list[object] = []
    original = store.vectors.search

    def spy(vector, k, paper_ids=None, published=None):  # type: ignore[no-untyped-def]
        calls.append(paper_ids)
        return original(vector, k, paper_ids=paper_ids, published=published)

    monkeypatch.setattr(store.vectors, "search", spy)
    return calls


def test_wide_scopes_filter_after_the_search_and_stay_in_scope(corpus: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import assistant.retrieval as retrieval

    question = "reinforcement learning for language model agents"
    members = set(corpus.topics.paper_ids(corpus.topics.get(TOPIC).slug))
    filtered = HybridRetriever(corpus).retrieve(question, Scope(topic=TOPIC), k=8)
    monkeypatch.setattr(retrieval, "WIDE_SCOPE", 5)  # the 30-paper topic now counts as wide
    calls = spy_on_dense_filters(corpus, monkeypatch)
    wide = HybridRetriever(corpus).retrieve(question, Scope(topic=TOPIC), k=8)
    assert calls[0] is None  # searched unfiltered, then kept what is in scope
    assert wide and {p.paper_id for p in wide} <= members
    assert [p.chunk_id for p in wide] == [p.chunk_id for p in filtered]


def test_topic_and_date_together_keep_only_papers_in_both(corpus: Store) -> None:
    members = set(corpus.topics.paper_ids(corpus.topics.get(TOPIC).slug))
    dated = sorted((r.published, r.paper_id) for r in corpus.catalog.list_papers(limit=100) if r.published)
    pivot = dated[len(dated) // 2][0]
    both = {pid for published, pid in dated if published >= pivot} & members
    passages = HybridRetriever(corpus).retrieve("language model agents", Scope(topic=TOPIC, since=pivot), k=20)
    assert passages and {p.paper_id for p in passages} <= both
    assert len({p.paper_id for p in passages}) > 1


QUESTIONS = [
    "reinforcement learning for language model agents",
    "How are rewards designed for web agents?",
    "benchmarks for tool use",
    "multi-turn planning with search engines",
]


@pytest.mark.parametrize("fusion", ["convex", "rrf"])
@pytest.mark.parametrize("question", QUESTIONS)
def test_wide_date_scopes_return_what_an_exactly_filtered_search_returns(
    corpus: Store, question: str, fusion: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import assistant.retrieval as retrieval

    settings = corpus.settings.retrieval.model_copy(update={"fusion": fusion, "candidates": 20})
    dates = sorted(r.published for r in corpus.catalog.list_papers(limit=100) if r.published)
    for since in (dates[len(dates) // 3], dates[2 * len(dates) // 3]):
        scope = Scope(since=since)
        exact = HybridRetriever(corpus, settings).retrieve(question, scope, k=8)  # narrow: Chroma filters
        monkeypatch.setattr(retrieval, "WIDE_SCOPE", 2)
        calls = spy_on_dense_filters(corpus, monkeypatch)
        wide = HybridRetriever(corpus, settings).retrieve(question, scope, k=8)
        monkeypatch.undo()
        assert calls[0] is None
        assert wide and [p.chunk_id for p in wide] == [p.chunk_id for p in exact]


@pytest.mark.parametrize("fusion", ["convex", "rrf"])
def test_wide_scopes_accept_what_stands_for_the_filtered_search(
    corpus: Store, fusion: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import assistant.retrieval as retrieval

    settings = corpus.settings.retrieval.model_copy(update={"fusion": fusion})
    dates = sorted(r.published for r in corpus.catalog.list_papers(limit=100) if r.published)
    scope = HybridRetriever(corpus, settings).resolve(Scope(since=dates[len(dates) // 2]))
    vector = corpus.embedder.get_query_embedding(QUESTIONS[0])
    exact = corpus.vectors.search(vector, 100, paper_ids=scope.paper_ids)
    chunks = corpus.catalog.count_chunks()
    assert 2 * settings.top_k <= len(exact) < 100 < chunks  # fewer in scope than candidates wanted
    monkeypatch.setattr(retrieval, "MAX_FETCH", 100)  # an unfiltered 100 cannot hold every chunk in scope
    short = HybridRetriever(corpus, settings)._post_filtered(vector, 100, scope)
    # Score fusion normalises over the whole list: only the full list will do. Rank fusion takes 2 x top_k.
    assert short is None if fusion == "convex" else short == exact[: len(short)]
    monkeypatch.setattr(retrieval, "MAX_FETCH", chunks + 1)  # the unfiltered search returns the whole store
    monkeypatch.setattr(retrieval, "FETCH_MARGIN", 100.0)
    assert HybridRetriever(corpus, settings)._post_filtered(vector, 100, scope) == exact


def test_too_few_hits_in_scope_fall_back_to_chromas_filter(corpus: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    import assistant.retrieval as retrieval

    dates = sorted(r.published for r in corpus.catalog.list_papers(limit=100) if r.published)
    scope = Scope(since=dates[-4])  # the newest few papers
    exact = HybridRetriever(corpus).retrieve(QUESTIONS[0], scope, k=8)
    monkeypatch.setattr(retrieval, "WIDE_SCOPE", 2)
    monkeypatch.setattr(retrieval, "MAX_FETCH", 3)  # an unfiltered search this short cannot hold 2 x top_k
    monkeypatch.setattr(corpus.scope_vectors, "max_chunks", 0)  # nor can memory hold the scope's chunks
    calls = spy_on_dense_filters(corpus, monkeypatch)
    fallback = HybridRetriever(corpus).retrieve(QUESTIONS[0], scope, k=8)
    assert calls[0] is None and calls[1] is not None
    assert [p.chunk_id for p in fallback] == [p.chunk_id for p in exact]


def test_chromas_filter_takes_paper_ids_in_batches(corpus: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scope of more papers than SQLite can bind (40k at 112k papers) is filtered batch by batch."""
    import assistant.retrieval as retrieval

    retriever = HybridRetriever(corpus)
    scope = retriever.resolve(Scope(topic=TOPIC))
    vector = corpus.embedder.get_query_embedding(QUESTIONS[1])
    whole = retriever._dense(vector, 30, scope)
    monkeypatch.setattr(retrieval, "IN_BATCH", 4)
    monkeypatch.setattr(corpus.scope_vectors, "max_chunks", 0)  # too many chunks to search in memory
    calls = spy_on_dense_filters(corpus, monkeypatch)
    batched = retriever._dense(vector, 30, scope)
    assert len(calls) == -(-len(scope.paper_ids) // 4) and all(len(c) <= 4 for c in calls)  # type: ignore[arg-type]
    assert [h.chunk_id for h in batched] == [h.chunk_id for h in whole] and len(whole) == 30


@pytest.mark.parametrize("question", QUESTIONS)
def test_narrow_scopes_are_searched_exactly_in_memory_after_one_read(
    corpus: Store, question: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A topic or date scope of a few percent of the store: the chunk vectors of its papers are read from Chroma
    once, and each search is then exact over them, as Chroma's own filtered search (brute force at this size)."""
    import storage.scope_vectors as scope_vectors

    retriever = HybridRetriever(corpus)
    dates = sorted(r.published for r in corpus.catalog.list_papers(limit=100) if r.published)
    vector = corpus.embedder.get_query_embedding(question)
    reads: list[int] = []
    original = scope_vectors.chunk_vectors

    def counted(index: object, ids: list[str]) -> object:
        reads.append(len(ids))
        return original(index, ids)  # type: ignore[arg-type]

    monkeypatch.setattr(scope_vectors, "chunk_vectors", counted)
    for scope in (Scope(topic=TOPIC), Scope(since=dates[len(dates) // 2])):
        resolved = retriever.resolve(scope)
        filtered = corpus.vectors.search(vector, 40, paper_ids=resolved.paper_ids)
        calls = spy_on_dense_filters(corpus, monkeypatch)
        for _ in range(2):
            hits = retriever._dense(vector, 40, resolved)
            assert [h.chunk_id for h in hits] == [h.chunk_id for h in filtered]
            assert [h.score for h in hits] == pytest.approx([h.score for h in filtered], abs=1e-5)
        assert calls == []  # neither Chroma's filter nor an unfiltered search
    assert len(reads) <= 2 and sum(reads) <= corpus.catalog.count_chunks()  # each paper's vectors read once


def test_memory_follows_the_catalog_when_a_papers_chunks_change(store: Store, tmp_path: Path) -> None:
    """A paper re-ingested (or deleted) moves `chunks_version`: what memory held is read again, not reused."""
    from ingest.pipeline import Ingestor
    from ingest.sources import arxiv_papers
    from tests.conftest import demo_records

    records = demo_records(12)
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    Ingestor(store).run(arxiv_papers(path))
    retriever = HybridRetriever(store)
    scope = retriever.resolve(Scope(paper_id=records[0]["id"]))
    vector = store.embedder.get_query_embedding(records[0]["title"])
    before = retriever._dense(vector, 10, scope)
    assert before and {h.paper_id for h in before} == {records[0]["id"]}
    records[0] = records[0] | {"abstract": "A short note on quantum annealing schedules for spin glasses."}
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    Ingestor(store).run(arxiv_papers(path))  # the paper's chunks are replaced
    after = retriever._dense(vector, 10, scope)
    chroma = store.vectors.search(vector, 10, paper_ids=scope.paper_ids)
    assert [h.chunk_id for h in after] == [h.chunk_id for h in chroma]
    assert [h.score for h in after] == pytest.approx([h.score for h in chroma], abs=1e-5)
    assert [h.chunk_id for h in after] != [h.chunk_id for h in before]
