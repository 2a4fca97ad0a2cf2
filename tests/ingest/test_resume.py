"""Kill and resume: `papertalk ingest-arxiv` killed with SIGKILL part-way, then run again, ends with exactly
the chunks of a clean run: catalog == Chroma == what the chunker makes, nothing pending, no duplicates."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from ingest.chunking import Chunker
from ingest.sources import arxiv_papers
from papertalk.settings import ChunkSettings
from storage.records import Paper
from tests.conftest import demo_records
from tests.helpers.cli import PAPERTALK, catalog_rows, cli_env, run_cli

N_RECORDS = 150
# Short chunks: about 1,150 of them, so the run writes several batches of 256 and a kill lands between two.
CHUNKING = {"chunk_tokens": 48, "overlap_tokens": 0, "title_tokens": 0}
CHUNK_ENV = {f"PAPERTALK_CHUNKING__{k.upper()}": str(v) for k, v in CHUNKING.items()}


def _indexed(data_dir: Path) -> int:
    try:
        rows = catalog_rows(data_dir, "SELECT COUNT(*) FROM papers WHERE status = 'indexed'")
    except sqlite3.OperationalError:  # the database is being created
        return 0
    return int(rows[0][0]) if rows else 0


def _start_and_kill(records: Path, data_dir: Path, timeout: float = 120) -> int:
    """Run the ingest until the catalog shows indexed papers, then SIGKILL it; returns papers indexed then."""
    proc = subprocess.Popen(
        [str(PAPERTALK), "ingest-arxiv", str(records)],
        env=cli_env(**CHUNK_ENV),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout
    try:
        while _indexed(data_dir) == 0 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, f"the ingest ended on its own (exit {proc.returncode}) before the kill"
    return _indexed(data_dir)


def _expected_chunk_ids(records: Path) -> list[str]:
    chunker = Chunker(ChunkSettings(**CHUNKING))
    papers = [p for p in arxiv_papers(records) if isinstance(p, Paper)]
    return [c.chunk_id for p in papers for c in chunker.chunk(p, p.content_hash())]


def _chroma_ids(data_dir: Path) -> list[str]:
    import chromadb
    from chromadb.config import Settings

    client = chromadb.PersistentClient(path=str(data_dir / "chroma"), settings=Settings(anonymized_telemetry=False))
    collection = client.get_collection("papertalk_chunks")
    got = collection.get(include=["metadatas"])
    for chunk_id, meta in zip(got["ids"], got["metadatas"] or [], strict=True):
        assert chunk_id.startswith(f"{meta['paper_id']}#"), (chunk_id, meta)
    return list(got["ids"])


@pytest.mark.slow
def test_killed_ingest_resumes_to_exactly_the_chunks_of_a_clean_run(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    records = tmp_path / "records.jsonl"
    records.write_text("".join(json.dumps(r) + "\n" for r in demo_records(N_RECORDS)))
    expected = _expected_chunk_ids(records)
    assert len(expected) > 4 * 256, "too few chunks for several batches"

    indexed_at_kill = _start_and_kill(records, data_dir)
    assert 0 < indexed_at_kill < N_RECORDS

    rerun = run_cli("ingest-arxiv", records, timeout=300, **CHUNK_ENV)
    assert rerun.returncode == 0, rerun.stderr
    summary = re.search(r"(\d+) added, (\d+) updated, (\d+) unchanged, (\d+) chunks embedded, 0 failed", rerun.stdout)
    assert summary is not None, rerun.stdout
    added, updated, unchanged, embedded = map(int, summary.groups())
    assert unchanged == indexed_at_kill and added + updated == N_RECORDS - indexed_at_kill
    assert 0 < embedded < len(expected)  # the papers indexed before the kill were not embedded again

    catalog_ids = [str(r[0]) for r in catalog_rows(data_dir, "SELECT chunk_id FROM chunks")]
    chroma_ids = _chroma_ids(data_dir)
    assert len(catalog_ids) == len(set(catalog_ids)) and len(chroma_ids) == len(set(chroma_ids))
    assert set(catalog_ids) == set(chroma_ids) == set(expected)
    assert len(chroma_ids) == len(expected)
    status: dict[str, int] = dict(catalog_rows(data_dir, "SELECT status, COUNT(*) FROM papers GROUP BY status"))
    assert status == {"indexed": N_RECORDS}
    (total,) = catalog_rows(data_dir, "SELECT SUM(n_chunks) FROM papers")[0]
    assert total == len(expected)
    dupes = catalog_rows(
        data_dir, "SELECT paper_id, ordinal FROM chunks GROUP BY paper_id, ordinal HAVING COUNT(*) > 1"
    )
    assert dupes == []
