"""Ask PDF keeps what is known: a PDF merged into an arXiv record stays merged however often it is asked about."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path
from typing import Any

import pytest

import ingest.uploads
from assistant.service import Assistant
from assistant.types import Scope
from ingest.pipeline import Ingestor
from ingest.sources import pdf_papers
from ingest.uploads import add_pdf, ingest_pdf
from papertalk.settings import PdfSettings
from storage.records import Paper
from storage.store import Store
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF
from tests.helpers.cli import catalog_rows, invoke_cli
from tests.helpers.pdfs import text_pdf

ARXIV_ID = "2001.00001"
RECORD = Paper(
    paper_id=ARXIV_ID,
    title="S2ORC: The Semantic Scholar Open Research Corpus (metadata)",
    authors=["Kyle Lo", "Lucy Lu Wang"],
    abstract="We introduce S2ORC, a large corpus of 81.1M English-language academic papers.",
    categories=["cs.CL", "cs.DL"],
    published=date(2019, 11, 7),
    arxiv_id=ARXIV_ID,
)


def _row(store: Store) -> dict[str, Any]:
    (row,) = store.catalog.query("SELECT * FROM papers WHERE paper_id = ?", (ARXIV_ID,))
    return dict(row)


@pytest.fixture
def merged_pdf(store: Store, tmp_path: Path) -> Path:
    """The S2ORC PDF under its arXiv name, with the metadata record of that id already stored."""
    assert Ingestor(store).run([RECORD]).added == 1
    pdf = tmp_path / f"{ARXIV_ID}v2.pdf"
    shutil.copy(S2ORC_PDF, pdf)
    return pdf


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The PDFs that Ask PDF parsed during the test."""
    seen: list[Path] = []
    original = ingest.uploads.parse_isolated

    def spy(path: Path, limits: PdfSettings | None = None) -> Paper:
        seen.append(path)
        return original(path, limits)

    monkeypatch.setattr(ingest.uploads, "parse_isolated", spy)
    return seen


def test_asking_the_same_merged_pdf_three_times_keeps_the_record_and_parses_once(
    store: Store, merged_pdf: Path, parses: list[Path]
) -> None:
    assistant, rows = Assistant(store), []
    for _ in range(3):
        paper_id = ingest_pdf(store, merged_pdf)
        answer = assistant.ask("How many papers does S2ORC contain?", Scope(paper_id=paper_id))
        assert paper_id == ARXIV_ID and answer.sources
        assert {s.paper_id for s in answer.sources} == {ARXIV_ID}
        rows.append(_row(store))
    assert parses == [merged_pdf]
    assert rows[0] == rows[1] == rows[2]
    row = store.catalog.get(ARXIV_ID)
    assert row is not None and (row.title, row.authors) == (RECORD.title, RECORD.authors)
    assert row.categories == RECORD.categories
    assert (row.published, row.source, row.n_pages) == (RECORD.published, "arxiv-metadata+pdf", 15)
    assert store.catalog.count_papers() == 1


@pytest.mark.slow
def test_parsing_a_merged_pdf_again_never_downgrades_the_record(store: Store, merged_pdf: Path) -> None:
    """The same file again (through `ingest`, which parses every file), then another file for that arXiv id."""
    Ingestor(store).run(pdf_papers([merged_pdf]))
    first = _row(store)
    again = Ingestor(store).run(pdf_papers([merged_pdf]))
    assert (again.unchanged, again.updated) == (1, 0) and _row(store) == first

    other = merged_pdf.with_name(f"{ARXIV_ID}v3.pdf")
    shutil.copy(LONGEVAL_PDF, other)  # a file with other text under the same arXiv id
    report = Ingestor(store).run(pdf_papers([other]))
    assert report.updated == 1
    row = store.catalog.get(ARXIV_ID)
    assert row is not None and row.n_pages == 20 and row.title == RECORD.title
    assert (row.published, row.categories, row.source) == (RECORD.published, RECORD.categories, "arxiv-metadata+pdf")


def test_a_known_file_is_not_parsed_even_when_it_was_ingested_by_ingest(
    store: Store, merged_pdf: Path, parses: list[Path]
) -> None:
    Ingestor(store).run(pdf_papers([merged_pdf]))
    result = add_pdf(store, merged_pdf)
    assert (result.paper_id, result.parsed, parses) == (ARXIV_ID, False, [])


def test_cli_ask_pdf_says_which_paper_it_used_and_json_stays_json(store: Store, merged_pdf: Path) -> None:
    store.close()
    first = invoke_cli("ask", "How many papers does S2ORC contain?", "--pdf", merged_pdf, "--json")
    assert first.returncode == 0 and "Traceback" not in first.stderr, first.stderr
    assert f"{merged_pdf}: paper {ARXIV_ID} (parsed and stored)" in first.stderr
    assert {s["paper_id"] for s in json.loads(first.stdout)["sources"]} == {ARXIV_ID}
    stored = catalog_rows(merged_pdf.parent / "data", "SELECT * FROM papers")

    second = invoke_cli("ask", "How many papers does S2ORC contain?", "--pdf", merged_pdf, "--json")
    assert second.returncode == 0, second.stderr
    assert f"{merged_pdf}: paper {ARXIV_ID} (already stored, not parsed again)" in second.stderr
    assert json.loads(second.stdout)["sources"]
    assert catalog_rows(merged_pdf.parent / "data", "SELECT * FROM papers") == stored


def test_cli_ingest_prints_the_paper_id_of_each_file(tmp_path: Path) -> None:
    lines = [f"Line {i} of a short paper about reward shaping for language agents, with enough text." for i in range(6)]
    first = text_pdf(tmp_path / "first.pdf", [["Reward Shaping for Language Agents", *lines]])
    second = text_pdf(tmp_path / f"{ARXIV_ID}.pdf", [["Curricula for Tool-Using Agents", *lines[::-1]]])
    result = invoke_cli("ingest", first, second)
    assert result.returncode == 0, result.stderr
    rows = catalog_rows(tmp_path / "data", "SELECT paper_id FROM papers WHERE arxiv_id IS NULL")
    (pdf_id,) = [str(r[0]) for r in rows]
    assert pdf_id.startswith("pdf-")
    assert result.stdout.startswith(f"{first} → {pdf_id}\n{second} → {ARXIV_ID}\n2 added"), result.stdout
