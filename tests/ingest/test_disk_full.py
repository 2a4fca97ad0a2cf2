"""The disk filling up while an ingest writes: one clear line, and what was stored before stays intact.

The data directory is on a small tmpfs mounted for the test (needs root and mount permission; skipped
with the reason otherwise), nearly filled by a filler file before the second ingest. Embeddings come from
the local OpenAI-compatible test server, so the time goes to the writes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.store_snapshot import catalog_rows, keyword_rows, vector_rows
from papertalk.settings import Settings
from storage.catalog import Catalog
from tests.conftest import demo_records
from tests.helpers.cli import one_error_line, run_cli
from tests.helpers.openai_server import serve

FREE_LEFT = 300_000  # bytes left free for the second ingest


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "small"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def stored(data_dir: Path, paper_ids: set[str]) -> dict[str, Any]:
    """What the store holds for `paper_ids`: catalog rows, vectors, keyword-indexed chunks."""
    catalog = catalog_rows(data_dir)
    vectors = vector_rows(data_dir, paper_ids=sorted(paper_ids))
    keywords = keyword_rows(data_dir)["chunks"]
    return {
        "papers": [r for r in catalog["papers"] if r[0] in paper_ids],
        "chunks": [r for r in catalog["chunks"] if r[1] in paper_ids],
        "vectors": {i: v for i, v in vectors.items() if dict(v[1])["paper_id"] in paper_ids},
        "keywords": {i: k for i, k in keywords.items() if k[0] in paper_ids},
    }


@pytest.mark.slow
def test_a_full_disk_is_one_clear_line_and_the_stored_papers_stay_intact(small_disk: Path, tmp_path: Path) -> None:
    records = demo_records(35)
    few, more = tmp_path / "few.jsonl", tmp_path / "more.jsonl"
    few.write_text("".join(json.dumps(r) + "\n" for r in records[:5]))
    more.write_text("".join(json.dumps(r) + "\n" for r in records[5:]))
    data_dir = small_disk / "data"
    with serve() as server:
        env = {"PAPERTALK_DATA_DIR": str(data_dir), "PAPERTALK_EMBEDDING__BACKEND": "openai"}
        env |= {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "test"}
        first = run_cli("ingest-arxiv", few, timeout=300, **env)
        assert first.returncode == 0, first.stderr
        first_ids = {str(r[0]) for r in catalog_rows(data_dir)["papers"]}
        before = stored(data_dir, first_ids)
        assert len(first_ids) == 5 and len(before["vectors"]) == len(before["chunks"]) > 0

        filler = small_disk / "filler"
        filler.write_bytes(b"\0" * (shutil.disk_usage(small_disk).free - FREE_LEFT))
        full = run_cli("ingest-arxiv", more, timeout=300, **env)
        message = one_error_line(full)
        assert "disk holding" in message and "is full" in message and "free some space" in message, message
        filler.unlink()

        assert stored(data_dir, first_ids) == before  # nothing stored before was lost or changed
        again = run_cli("ingest-arxiv", more, timeout=900, **env)
        assert again.returncode == 0, again.stderr
        papers = catalog_rows(data_dir)["papers"]
        assert len(papers) == 35 and all(r[12] == "indexed" for r in papers)
        assert stored(data_dir, first_ids) == before
        chunk_ids = {str(r[0]) for r in catalog_rows(data_dir)["chunks"]}
        assert chunk_ids == set(keyword_rows(data_dir)["chunks"])
        assert set(vector_rows(data_dir)) == chunk_ids  # every vector readable, none missing or left over
        for paper_id in sorted(first_ids):
            assert first_source(paper_id, env) == paper_id, f"{paper_id} is no longer found"


def first_source(paper_id: str, env: dict[str, str]) -> str:
    """The paper of the first source `papertalk ask` gives when asked what the paper's title is about."""
    catalog = Catalog(Settings(data_dir=Path(env["PAPERTALK_DATA_DIR"])).catalog_path)
    row = catalog.get(paper_id)
    catalog.close()
    assert row is not None
    title = row.title
    done = run_cli("ask", f"What is {title} about?", "--json", timeout=300, **env)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return str(json.loads(done.stdout)["sources"][0]["paper_id"])
