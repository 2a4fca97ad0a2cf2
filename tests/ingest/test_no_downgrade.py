"""No silent downgrade: a file with less text than a stored paper's does not replace it unless asked to."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from pypdf import PdfWriter
from pypdf.generic import ContentStream

from ingest.pipeline import Ingestor
from ingest.sources import pdf_papers
from ingest.uploads import add_pdf
from storage.catalog import Catalog
from storage.migrations import MIGRATIONS
from storage.records import Paper
from storage.store import Store
from tests.conftest import S2ORC_PDF
from tests.helpers.cli import catalog_rows, invoke_cli

ARXIV_ID = "2001.00001"
REFUSED = (
    f"kept the stored version of {ARXIV_ID}: the new file has 7 of 15 pages with text; use --replace to replace it"
)


def damaged_copy(source: Path, path: Path, keep_pages: int) -> Path:
    """The PDF with every page after the first `keep_pages` emptied: what a damaged download parses to."""
    writer = PdfWriter(clone_from=str(source))
    for page in writer.pages[keep_pages:]:
        empty = ContentStream(None, None)
        empty.set_data(b"")
        page.replace_contents(empty)
    writer.write(path)
    return path


@pytest.fixture
def stored(store: Store, tmp_path: Path) -> Path:
    """S2ORC stored under an arXiv id (15 pages with text); returns a damaged copy with 7 of them."""
    good = shutil.copy(S2ORC_PDF, tmp_path / f"{ARXIV_ID}v1.pdf")
    assert Ingestor(store).run(pdf_papers([Path(good)])).added == 1
    return damaged_copy(S2ORC_PDF, tmp_path / f"{ARXIV_ID}v2.pdf", keep_pages=7)


def _chunk_ids(store: Store) -> list[str]:
    return [c.chunk_id for c in store.catalog.chunks_of(ARXIV_ID)]


def test_a_copy_with_fewer_pages_of_text_is_refused_and_the_stored_text_kept(store: Store, stored: Path) -> None:
    before = _chunk_ids(store)
    row = store.catalog.get(ARXIV_ID)
    assert row is not None and (row.text_pages, row.n_pages) == (15, 15)

    report = Ingestor(store).run(pdf_papers([stored]))

    assert (report.updated, report.kept, report.chunks, report.failed) == (0, 1, 0, False)
    assert [str(w) for w in report.warnings] == [f"{stored}: {REFUSED}"]
    assert "1 kept (the new file had less text)" in report.summary() and "1 warnings" in report.summary()
    assert _chunk_ids(store) == before and sorted(store.vectors.ids_of(ARXIV_ID)) == sorted(before)


def test_replace_lets_the_copy_in(store: Store, stored: Path) -> None:
    before = len(_chunk_ids(store))
    report = Ingestor(store, replace=True).run(pdf_papers([stored]))
    assert (report.updated, report.kept, report.warnings) == (1, 0, [])
    row = store.catalog.get(ARXIV_ID)
    assert row is not None and row.text_pages == 7 and 0 < row.n_chunks < before
    assert sorted(store.vectors.ids_of(ARXIV_ID)) == sorted(_chunk_ids(store))


def test_ask_pdf_with_the_copy_uses_the_stored_paper_unless_told_to_replace(store: Store, stored: Path) -> None:
    result = add_pdf(store, stored)
    assert (result.paper_id, result.parsed) == (ARXIV_ID, True)
    assert [w.why for w in result.warnings] == [REFUSED]
    row = store.catalog.get(ARXIV_ID)
    assert row is not None and row.text_pages == 15
    assert add_pdf(store, stored).parsed is False  # the refused file is known now: not parsed again

    replaced = add_pdf(store, stored, replace=True)
    assert (replaced.paper_id, replaced.parsed, replaced.warnings) == (ARXIV_ID, True, [])
    row = store.catalog.get(ARXIV_ID)
    assert row is not None and row.text_pages == 7


def _pages(chars: int) -> list[str]:
    return [("word " * (chars // 5))[:chars] + f" page {n}" for n in range(10)]


@pytest.mark.parametrize(("chars", "outcome"), [(800, "kept"), (950, "updated")])
def test_a_copy_with_much_less_text_is_refused_a_little_less_is_taken(store: Store, chars: int, outcome: str) -> None:
    Ingestor(store).run([Paper(paper_id="pdf-1", title="Long paper", source="pdf", pages=_pages(1000))])
    report = Ingestor(store).run([Paper(paper_id="pdf-1", title="Long paper", source="pdf", pages=_pages(chars))])
    assert (report.kept, report.updated) == ((1, 0) if outcome == "kept" else (0, 1))
    if outcome == "kept":
        assert "the new file has 20% less text (8,070 of 10,070 characters)" in report.warnings[0].why


def test_cli_ingest_refuses_the_copy_then_replace_takes_it(store: Store, stored: Path, tmp_path: Path) -> None:
    store.close()
    refused = invoke_cli("ingest", stored)
    assert refused.returncode == 0 and "Traceback" not in refused.stderr, refused.stderr
    assert f"warning {stored}: {REFUSED}" in refused.stderr
    assert "0 updated, 0 unchanged, 1 kept (the new file had less text), 0 chunks embedded" in refused.stdout
    pages = "SELECT text_pages FROM papers WHERE paper_id = ?"
    assert catalog_rows(tmp_path / "data", pages, (ARXIV_ID,)) == [(15,)]

    replaced = invoke_cli("ingest", "--replace", stored)
    assert replaced.returncode == 0 and replaced.stdout.startswith(f"{stored} → {ARXIV_ID}\n0 added, 1 updated")
    assert catalog_rows(tmp_path / "data", pages, (ARXIV_ID,)) == [(7,)]


def test_migration_counts_the_pages_with_text_of_stored_papers(tmp_path: Path) -> None:
    """A paper stored before text sizes were recorded gets the pages its chunks start or end on."""
    path = tmp_path / "catalog.sqlite3"
    con = sqlite3.connect(path)
    for step in MIGRATIONS[:4]:  # a store as the release before text sizes left it
        step(con)
    con.execute("PRAGMA user_version = 4")
    con.execute(
        "INSERT INTO papers(paper_id, title, source, content_hash, n_pages, status, added_at, updated_at) "
        "VALUES('pdf-1', 'T', 'pdf', 'h', 6, 'indexed', 't', 't')"
    )
    spans = [(1, 1), (1, 2), (2, 4), (6, 6)]  # page 3 lies inside a chunk: not counted (a lower bound)
    con.executemany(
        "INSERT INTO chunks(chunk_id, paper_id, ordinal, text, page_start, page_end) VALUES(?, 'pdf-1', ?, 'x', ?, ?)",
        [(f"pdf-1#{i}", i, a, b) for i, (a, b) in enumerate(spans)],
    )
    con.commit()
    con.close()
    catalog = Catalog(path)
    row = catalog.get("pdf-1")
    assert row is not None and (row.text_pages, row.text_chars) == (4, None)
    catalog.close()
