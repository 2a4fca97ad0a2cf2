"""The latency benchmark's cached chunks: chunking in worker processes gives the chunks one chunker gives."""

import pickle
from pathlib import Path

import pytest

import bench.latency_stores as stores
from ingest.chunking import Chunker
from papertalk.settings import Settings
from storage.records import Paper


def test_parallel_chunking_keeps_the_plan_order_and_the_chunks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stores, "CACHE", tmp_path)
    sentence = "Retrieval of scientific claims needs evidence from several abstracts. "
    papers = {f"p{i}": Paper(paper_id=f"p{i}", title=f"Paper {i}", abstract=sentence * (12 * i + 1)) for i in range(7)}
    order = ["p3", "p0", "p6", "p1", "p5", "p2", "p4"]
    got = stores.chunk_all(papers, order, workers=2)
    chunker = Chunker(Settings().chunking)
    want = [c for pid in order for c in chunker.chunk(papers[pid], papers[pid].content_hash())]
    assert got == want and len(want) > len(order)  # the long abstracts were split
    assert pickle.loads((tmp_path / "chunks.pkl").read_bytes()) == want
    assert stores.chunk_all({}, [], workers=2) == want  # read back from the cache, nothing chunked again
