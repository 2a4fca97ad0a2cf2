"""The incremental keyword index on real arXiv records: it must rank exactly as a full rebuild would."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import storage.keyword as keyword
from ingest.chunking import Chunker
from ingest.sources import arxiv_papers
from papertalk.settings import Settings
from storage import bm25
from storage.catalog import Catalog
from storage.keyword import KeywordIndex, KeywordTokenizer, _bm25s
from storage.records import Paper
from tests.conftest import demo_records

QUERIES = [
    "reinforcement learning for language model agents",
    "retrieval augmented generation benchmark",
    "tool use planning web navigation",
    "reward model preference optimisation",
    "multi-agent collaboration",
]


def real_papers(tmp_path: Path, n: int) -> list[Paper]:
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in demo_records(n)))
    return [p for p in arxiv_papers(path) if isinstance(p, Paper)]


def write(catalog: Catalog, papers: list[Paper], chunker: Chunker) -> None:
    """What an ingest does to the catalog (the vector store plays no part in keyword search)."""
    catalog.mark_pending(papers, {p.paper_id: p.content_hash() for p in papers})
    chunks = [c for p in papers for c in chunker.chunk(p, p.content_hash())]
    catalog.mark_indexed([p.paper_id for p in papers], chunks)


def shrink(catalog: Catalog, papers: list[Paper], chunker: Chunker) -> None:
    """Replace papers by one-sentence versions: their other chunks are deleted."""
    short = [replace(p, abstract="A short note on agents.") for p in papers]
    assert all(len(chunker.chunk(p, "h")) > 1 for p in papers)
    write(catalog, short, chunker)


def rebuilt(catalog: Catalog, tmp_path: Path, name: str) -> KeywordIndex:
    """A full rebuild over a copy of the catalog (a rebuild on the same catalog would prune its log)."""
    copy = tmp_path / f"{name}.sqlite3"
    with sqlite3.connect(catalog.path) as src, sqlite3.connect(copy) as dst:
        src.backup(dst)
    return KeywordIndex(tmp_path / f"{name}-keyword", Catalog(copy))


def assert_ranks_as_rebuild(index: KeywordIndex, catalog: Catalog, tmp_path: Path, name: str) -> None:
    reference = rebuilt(catalog, tmp_path, name)
    some = [r[0] for r in catalog.query("SELECT paper_id FROM papers ORDER BY paper_id")][::3]
    titles = [r[0] for r in catalog.query("SELECT title FROM papers ORDER BY paper_id LIMIT 5")]
    for query in QUERIES + titles:
        for scope in (None, some):
            got = index.search(query, 20, scope)
            assert got, query
            assert got == reference.search(query, 20, scope), (query, scope is not None)
    reference.catalog.close()


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    return Catalog(tmp_path / "catalog.sqlite3")


@pytest.fixture
def chunker() -> Chunker:
    return Chunker(Settings().chunking)


def test_scores_equal_bm25s_on_real_abstracts() -> None:
    texts = [f"{r['title']}\n{r['abstract']}" for r in demo_records(300)]
    tokens = KeywordTokenizer()(texts)
    segment = bm25.build(tokens, [f"p{i}#h#0000" for i in range(len(texts))], np.arange(len(texts)))
    stats = bm25.Stats.of([segment])
    reference = _bm25s().BM25(k1=bm25.K1, b=bm25.B)
    reference.index(tokens, show_progress=False)
    for query in QUERIES:
        terms = KeywordTokenizer()([query])[0]
        ours = bm25.scores([segment], [stats.norms(segment)], stats, terms)[0]
        theirs = reference.get_scores([t for t in terms if t in reference.vocab_dict])
        assert (ours > 0).sum() > 10
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_remembered_tokens_are_those_of_a_fresh_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [r["abstract"] for r in demo_records(40)] + ["", "The of and", "GRPO and PPO, again."]
    fresh = KeywordTokenizer(memo=0)(texts)
    tokenizer = KeywordTokenizer(memo=40)
    assert tokenizer(texts[:20]) == fresh[:20]
    asked: list[list[str]] = []
    tokenize = tokenizer._tokenize
    monkeypatch.setattr(tokenizer, "_tokenize", lambda batch: asked.append(batch) or tokenize(batch))
    again = tokenizer(texts[10:] + texts[10:12])  # 10 remembered, 23 new, 2 repeated
    assert again == fresh[10:] + fresh[10:12]
    assert asked == [texts[20:]]  # only the texts not remembered, once each
    again[0].append("changed")  # what a caller gets is its own
    assert tokenizer(texts[10:11]) == fresh[10:11]
    assert len(tokenizer._held) == 40  # 43 texts seen: the 3 least recently used dropped


def test_adds_replacements_and_deletions_rank_as_a_full_rebuild(
    catalog: Catalog, chunker: Chunker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(keyword, "MERGE_AT", 10.0)  # keep every change in delta segments
    monkeypatch.setattr(bm25, "CACHE_MIN", 1)  # every term's contributions cached until the next change
    papers = real_papers(tmp_path, 60)
    write(catalog, papers[:40], chunker)
    index = KeywordIndex(tmp_path / "keyword", catalog)
    index.refresh()
    mains = sorted(p.name for p in (tmp_path / "keyword").glob("main-*"))
    assert_ranks_as_rebuild(index, catalog, tmp_path, "built")
    write(catalog, papers[40:50], chunker)  # add
    assert_ranks_as_rebuild(index, catalog, tmp_path, "added")
    changed = [replace(p, abstract=p.abstract + " We also study quantum annealing schedules.") for p in papers[:3]]
    write(catalog, changed, chunker)  # replace
    assert_ranks_as_rebuild(index, catalog, tmp_path, "replaced")
    shrink(catalog, [p for p in papers[4:50] if len(chunker.chunk(p, "h")) > 1][:2], chunker)
    write(catalog, [papers[50]], chunker)
    index.refresh()
    assert_ranks_as_rebuild(index, catalog, tmp_path, "deleted")
    assert sorted(p.name for p in (tmp_path / "keyword").glob("main-*")) == mains  # nothing was rebuilt


def test_replaced_and_deleted_chunks_stop_matching(catalog: Catalog, chunker: Chunker, tmp_path: Path) -> None:
    papers = real_papers(tmp_path, 20)
    marked = replace(papers[0], abstract=papers[0].abstract + " Zorblatt calibration.")
    write(catalog, [*papers[1:], marked], chunker)
    index = KeywordIndex(tmp_path / "keyword", catalog)
    old = {c for c, _ in index.search("zorblatt", 10)}
    assert old and all(c.startswith(marked.paper_id + "#") for c in old)
    write(catalog, [replace(marked, abstract=papers[0].abstract + " Quorvex calibration.")], chunker)
    assert index.search("zorblatt", 10) == []
    new = {c for c, _ in index.search("quorvex", 10)}
    assert new and not new & old
    many = [c for c, _ in index.search(marked.title, 50, [marked.paper_id])]
    assert len(many) > 1
    shrink(catalog, [marked], chunker)
    assert index.search("quorvex", 10) == []
    assert [c for c, _ in index.search(marked.title, 50, [marked.paper_id])] == [
        r[0] for r in catalog.query("SELECT chunk_id FROM chunks WHERE paper_id = ?", (marked.paper_id,))
    ]


def test_large_deltas_are_merged_into_a_saved_main_that_other_processes_load(
    catalog: Catalog, chunker: Chunker, tmp_path: Path
) -> None:
    papers = real_papers(tmp_path, 60)
    write(catalog, papers[:20], chunker)
    index = KeywordIndex(tmp_path / "keyword", catalog)
    index.refresh()
    reader = KeywordIndex(tmp_path / "keyword", Catalog(catalog.path))  # another process's view
    assert reader.search(QUERIES[0], 5)
    write(catalog, papers[20:60], chunker)  # far over MERGE_AT of the main segment
    index.refresh()
    version = catalog.chunks_version
    assert [p.name for p in (tmp_path / "keyword").glob("main-*")] == [f"main-{version:012d}"]
    assert not catalog.query("SELECT * FROM chunk_changes WHERE version <= ?", (version,))
    assert int(catalog.get_meta("chunk_changes_floor") or 0) == version
    write(catalog, [replace(papers[7], abstract="Replaced after the merge.")], chunker)
    assert_ranks_as_rebuild(reader, catalog, tmp_path, "reader")  # loads the merged main, then the change
    assert_ranks_as_rebuild(KeywordIndex(tmp_path / "keyword", Catalog(catalog.path)), catalog, tmp_path, "fresh")


def test_an_index_in_the_previous_format_is_replaced(catalog: Catalog, chunker: Chunker, tmp_path: Path) -> None:
    write(catalog, real_papers(tmp_path, 10), chunker)
    folder = tmp_path / "keyword"
    (folder / "index").mkdir(parents=True)
    (folder / "papertalk.json").write_text(json.dumps({"version": 1, "format": 2, "n": 0, "chunk_ids": []}))
    index = KeywordIndex(folder, catalog)
    assert index.search(QUERIES[0], 5)
    assert sorted(p.name for p in folder.iterdir()) == [f"main-{catalog.chunks_version:012d}"]


def two_segments(catalog: Catalog, chunker: Chunker, tmp_path: Path) -> tuple[list[Paper], KeywordIndex]:
    """40 real papers in an index of two segments: a main one of 30 and a delta of 10, numbered after them."""
    papers, index = real_papers(tmp_path, 40), KeywordIndex(tmp_path / "keyword", catalog)
    write(catalog, papers[:30], chunker)
    assert index.search(QUERIES[0], 5)  # the main segment: these 30
    write(catalog, papers[30:], chunker)
    return papers, index


def test_a_scoped_search_keeps_exactly_the_chunks_of_the_papers_in_scope(
    catalog: Catalog, chunker: Chunker, tmp_path: Path
) -> None:
    papers, index = two_segments(catalog, chunker, tmp_path)
    ids = sorted(p.paper_id for p in papers)
    scope = ids[::4] + ids[-3:] + ["0000.00000", "zzzz-not-a-paper", ids[0]]  # unknown ids, a duplicate
    for query in QUERIES:
        everything = index.search(query, 10_000)
        wanted = [hit for hit in everything if hit[0].split("#", 1)[0] in set(scope)][:20]
        assert wanted, query
        assert index.search(query, 20, scope) == wanted
    assert index.search(QUERIES[0], 20, ["zzzz-not-a-paper"]) == []
    assert index.search(QUERIES[0], 20, []) == []


def test_holding_gives_every_chunk_with_all_the_words_by_paper_in_and_out_of_scope(
    catalog: Catalog, chunker: Chunker, tmp_path: Path
) -> None:
    _, index = two_segments(catalog, chunker, tmp_path)
    tokens = KeywordTokenizer()
    rows = catalog.query("SELECT c.chunk_id, c.paper_id, p.title, c.text FROM chunks c JOIN papers p USING (paper_id)")
    for query in ("reinforcement learning", "language model agents", "zorblatt"):
        wanted = set(tokens([query])[0])
        truth: dict[str, list[str]] = {}
        for r in rows:  # every chunk whose title + text has each of the query's terms
            if wanted <= set(tokens([f"{r['title']} {r['text']}"])[0]):
                truth.setdefault(r["paper_id"], []).append(r["chunk_id"])
        got = index.holding(query)
        assert {p: sorted(c) for p, c in got.items()} == {p: sorted(c) for p, c in truth.items()}, query
        some = sorted(truth)[::2]
        assert set(index.holding(query, some)) == set(some)
    assert len(index.holding("reinforcement learning")) > 1 and index.holding("zorblatt") == {}
