"""`papertalk overview` and `papertalk summarize` as a user runs them (through the CLI's entry point, in this
process) over a real corpus."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from papertalk.settings import Settings
from storage.store import Store
from tests.assistant.conftest import TOPIC
from tests.assistant.test_overview import ingest_new
from tests.helpers.cli import invoke_cli


@pytest.fixture
def own_dir(corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    data = tmp_path / "own"
    shutil.copytree(corpus_dir, data)
    monkeypatch.setenv("PAPERTALK_DATA_DIR", str(data))
    return data


def ok(*args: str) -> str:
    out = invoke_cli(*args, COLUMNS="200")
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    return out.stdout


@pytest.mark.slow
def test_overview_then_refresh_after_new_papers(own_dir: Path, tmp_path: Path) -> None:
    assert "No overview yet" in ok("topics", "show", TOPIC)
    first = ok("overview", TOPIC)
    assert TOPIC in first and "Main themes:" in first and "Sources" in first and "[1]" in first
    assert ok("overview", TOPIC) == first  # read back, not rebuilt
    store = Store(Settings(data_dir=own_dir))
    new = ingest_new(store, 30, 3, tmp_path)
    titles = [store.catalog.get(pid).title for pid in new]  # type: ignore[union-attr]
    store.close()
    assert "3 papers added since it was built: run with --refresh" in ok("overview", TOPIC)
    page = ok("topics", "show", TOPIC)  # the topic page shows the stored overview and what it lacks
    assert "Main themes:" in page and "[1]" in page and "3 papers added since it was built" in page
    shown = json.loads(ok("topics", "show", TOPIC, "--json"))["overview"]
    assert sorted(shown["new_since_built"]) == sorted(new) and shown["answer"]["sentences"]
    refreshed = ok("overview", TOPIC, "--refresh")
    assert "What changed" in refreshed and "3 new papers, 0 removed" in refreshed
    for pid, title in zip(new, titles, strict=True):
        assert f"+ {pid} {title[:40]}" in refreshed
    again = json.loads(ok("overview", TOPIC, "--refresh", "--json"))
    assert again["changes"]["new_papers"] == [] and again["papers"] == 33


def test_overview_json_resolves_every_citation(own_dir: Path) -> None:
    data = json.loads(ok("overview", TOPIC, "--json"))
    answer = data["answer"]
    sources = {s["number"]: s for s in answer["sources"]}
    for sentence in answer["sentences"]:
        for c in sentence["citations"]:
            assert sources[c["number"]]["text"][c["span_start"] : c["span_end"]] == c["quote"]
    assert data["themes"] and all("centre" not in t for t in data["themes"])
    assert data["changes"] is None and data["backend"] == "extractive"


def test_summarize_prints_pages(own_dir: Path) -> None:
    store = Store(Settings(data_dir=own_dir))
    paper = next(p for p in store.catalog.list_papers(limit=200) if p.has_full_text)
    store.close()
    out = ok("summarize", paper.paper_id)
    assert "Method: " in out and "p. " in out and "[1]" in out
    data = json.loads(ok("summarize", paper.paper_id, "--json"))
    assert data["kind"] == "paper" and data["answer"]["sources"][0]["pages"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("overview", "No Such Topic"), "no topic 'No Such Topic'"),
        (("summarize", "0000.00000"), "papertalk papers list"),
    ],
)
def test_errors_are_one_clear_line(own_dir: Path, args: tuple[str, ...], message: str) -> None:
    out = invoke_cli(*args)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert message in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_paper_text_with_markup_is_printed_verbatim(own_dir: Path) -> None:
    store = Store(Settings(data_dir=own_dir))
    paper = next(p for p in store.catalog.list_papers(limit=200) if not p.has_full_text)
    sql = "UPDATE papers SET title = ? WHERE paper_id = ?"
    store.catalog.transaction([(sql, (f"[bold]{paper.title}", paper.paper_id))])
    store.close()
    out = ok("summarize", paper.paper_id)
    assert f"[bold]{paper.title}" in out
