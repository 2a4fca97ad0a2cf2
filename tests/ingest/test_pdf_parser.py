"""The `pdf.parser` setting: pypdfium2 reads the same PDFs as pypdf, keeps spaces pypdf drops, and fails
with the same kind of one-line problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from ingest.pdf import parse_pdf
from papertalk.errors import SourceError
from papertalk.settings import PdfSettings
from tests.conftest import S2ORC_PDF
from tests.helpers.cli import invoke_cli
from tests.ingest.test_cleanup import GLUED_PDF

pytest.importorskip("pypdfium2")
PDFIUM = PdfSettings(parser="pypdfium2")


def test_pdfium_reads_the_same_pages_and_metadata_as_pypdf() -> None:
    by_pypdf, _ = parse_pdf(S2ORC_PDF)
    by_pdfium, warnings = parse_pdf(S2ORC_PDF, PDFIUM)
    assert not warnings and len(by_pdfium.pages) == len(by_pypdf.pages) == 15
    assert by_pdfium.title == by_pypdf.title == "S2ORC: The Semantic Scholar Open Research Corpus"
    assert "81.1M papers" in "\n".join(by_pdfium.pages)


def test_pdfium_keeps_the_spaces_pypdf_drops() -> None:
    assert "dependencygraphwithanadditionalmulti" in parse_pdf(GLUED_PDF)[0].pages[0]
    assert "dependency graph with an additional multi" in " ".join(parse_pdf(GLUED_PDF, PDFIUM)[0].pages[0].split())


def test_pdfium_limits_and_damage_are_source_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"over the 3 page limit.*PAPERTALK_PDF__MAX_PAGES"):
        parse_pdf(S2ORC_PDF, PdfSettings(parser="pypdfium2", max_pages=3))
    with pytest.raises(SourceError, match="over the 1,000 character text limit"):
        parse_pdf(S2ORC_PDF, PdfSettings(parser="pypdfium2", max_text_chars=1000))
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(S2ORC_PDF.read_bytes()[:3000])
    with pytest.raises(SourceError, match="damaged PDF"):
        parse_pdf(cut, PDFIUM)


def test_cli_ingest_with_pdfium_reports_a_damaged_file_in_one_line(tmp_path: Path) -> None:
    cut = tmp_path / "cut.pdf"
    cut.write_bytes(S2ORC_PDF.read_bytes()[:3000])
    result = invoke_cli("ingest", cut, PAPERTALK_PDF__PARSER="pypdfium2")
    assert "Traceback" not in result.stderr
    assert result.returncode != 0 and "cut.pdf" in result.stderr and "damaged PDF" in result.stderr
