"""The catalog on PostgreSQL with vectors on a Chroma server: the CLI's behaviour equals the embedded one."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.conftest import LONGEVAL_PDF, S2ORC_PDF
from tests.helpers.cli import run_cli
from tests.helpers.topics import demo_records_by_id
from tests.scaleout.conftest import write_records

pytestmark = pytest.mark.scaleout

RAG = ["2604.09666", "2501.15228"]
GUI = ["2504.10458"]
LATER = ["2604.09508", "2603.17441"]
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\+00:00|Z)?")


def _scenario(tmp_path: Path) -> list[object]:
    """Ingest, topics, follow, ask, Ask PDF, reading list: every step's output (JSON where there is some)."""
    first = write_records(tmp_path / "a.jsonl", demo_records_by_id(set(RAG + GUI)))
    later = write_records(tmp_path / "b.jsonl", demo_records_by_id(set(LATER)))
    steps = [
        ("ingest-arxiv", first),
        ("ingest", S2ORC_PDF, LONGEVAL_PDF),
        ("topics", "follow", "retrieval-augmented-generation"),
        ("topics", "add", "Paper corpora", "--description", "Large corpora of scientific papers and their text"),
        ("topics", "assign"),
        ("ask", "How does retrieval-augmented generation use retrieved documents?", "--json"),
        ("ask", "How many papers does S2ORC contain?", "--pdf", S2ORC_PDF, "--json"),
        ("ingest-arxiv", later),
        ("whatsnew", "--json", "--keep"),
        ("whatsnew", "--json"),
        ("whatsnew", "--json"),
        ("papers", "save", RAG[0]),
        ("papers", "saved", "--json"),
        ("topics", "list", "--json"),
        ("topics", "show", "retrieval-augmented-generation", "--json", "--as-of", "2026-04-30"),
        ("papers", "list", "--json", "--limit", "50"),
    ]
    outputs: list[object] = []
    for step in steps:
        result = run_cli(*step, timeout=300)
        assert result.returncode == 0 and "Traceback" not in result.stderr, (step, result.stderr)
        text = TIMESTAMP.sub("<time>", result.stdout)
        outputs.append(json.loads(text) if "--json" in step else text)
    stats = json.loads(run_cli("stats", "--json").stdout)
    outputs.append({k: v for k, v in stats.items() if k not in ("data_dir", "chroma")})
    return outputs


@pytest.mark.slow
def test_cli_on_postgres_and_chroma_server_equals_the_embedded_stores(
    tmp_path: Path, stack: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    served = _scenario(tmp_path)
    assert not (tmp_path / "data" / "catalog.sqlite3").exists(), "the PostgreSQL catalog must not touch SQLite"
    assert not (tmp_path / "data" / "chroma").exists(), "http mode must not create a local Chroma store"
    for key in stack:
        monkeypatch.delenv(key)
    monkeypatch.setenv("PAPERTALK_DATA_DIR", str(tmp_path / "embedded"))
    embedded = _scenario(tmp_path)
    assert (tmp_path / "embedded" / "catalog.sqlite3").exists()
    assert served == embedded
    stats = served[-1]
    assert isinstance(stats, dict) and stats["papers"] == 7 and stats["chunks"] == stats["vectors"] > 7
    news = served[8]
    assert [[p["paper_id"] for p in n["papers"]] for n in news] == [["2604.09508"]]  # type: ignore[union-attr]
    assert os.environ["PAPERTALK_DATA_DIR"].endswith("embedded")
