"""An embedded vector store written by another process: a long-running process (`papertalk serve`) sees
the papers a CLI ingest added beside it, instead of searching its old in-memory index (which missed them)
and failing to read their vectors ("Error finding id")."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from papertalk.settings import Settings
from storage.paper_vectors import paper_vectors
from storage.store import Store
from tests.conftest import demo_records
from tests.helpers.cli import run_cli
from tests.helpers.openai_server import serve


def ingest(records: list[dict], path: Path, env: dict[str, str]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    done = run_cli("ingest-arxiv", path, timeout=300, **env)
    assert done.returncode == 0, done.stderr


def test_a_store_open_in_this_process_sees_papers_another_process_ingested(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    records = demo_records(35)
    with serve() as server:
        env = {"PAPERTALK_DATA_DIR": str(tmp_path / "data"), "PAPERTALK_EMBEDDING__BACKEND": "openai"}
        env |= {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "test"}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        ingest(records[:5], tmp_path / "first.jsonl", env)
        store = Store(Settings())
        try:
            probe = np.ones(store.vectors.dim, dtype=np.float32)
            assert len(store.vectors.search(probe, 500)) == store.catalog.count_chunks()  # index loaded
            old = {r.paper_id for r in store.catalog.list_papers(50)}

            ingest(records[5:], tmp_path / "more.jsonl", env)  # another process writes the same store
            new = sorted({r.paper_id for r in store.catalog.list_papers(50)} - old)
            assert len(new) == 30
            hits = store.vectors.search(probe, 500)
            assert len(hits) == store.catalog.count_chunks() == store.vectors.count()
            assert {h.paper_id for h in store.vectors.search(probe, 500, paper_ids=new)} == set(new)
            kept, vectors = paper_vectors(store.catalog, store.vectors, new)  # the new ids' vectors read back
            assert sorted(kept) == new and vectors.shape[0] == 30
        finally:
            store.close()


DELETE_ONE = """
import sys
from papertalk.settings import Settings
from storage.store import Store

store = Store(Settings())
store.vectors.delete_papers([sys.argv[1]])
store.close()
"""


def test_a_write_that_leaves_the_file_mtime_and_size_alone_is_still_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two commits in one clock tick can leave the file's mtime as it was, and a deletion its size: SQLite's
    change counter in the file header still tells the store that another process wrote it."""
    import os
    import subprocess
    import sys

    with serve() as server:
        env = {"PAPERTALK_DATA_DIR": str(tmp_path / "data"), "PAPERTALK_EMBEDDING__BACKEND": "openai"}
        env |= {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "test"}
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        ingest(demo_records(4), tmp_path / "first.jsonl", env)
        store = Store(Settings())
        try:
            probe = np.ones(store.vectors.dim, dtype=np.float32)
            gone = store.vectors.search(probe, 500)[0].paper_id  # the index is loaded
            db = Settings().chroma_path / "chroma.sqlite3"
            before = db.stat()
            run = subprocess.run([sys.executable, "-c", DELETE_ONE, gone], capture_output=True, text=True, timeout=300)
            assert run.returncode == 0, run.stderr
            os.utime(db, ns=(before.st_atime_ns, before.st_mtime_ns))  # as if written within the same tick
            assert (db.stat().st_mtime_ns, db.stat().st_size) == (before.st_mtime_ns, before.st_size)
            hits = store.vectors.search(probe, 500)
            assert hits and gone not in {h.paper_id for h in hits}
            assert len(hits) == store.vectors.count()
        finally:
            store.close()
