"""The README's promises stay true."""

import re
from pathlib import Path

import pytest

from ingest.chunking import Chunker
from ingest.sources import arxiv_papers, pdf_papers
from papertalk.demo import DEMO_METADATA, DEMO_PDFS
from papertalk.settings import ChunkSettings, settings_table
from storage.records import Paper

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_readme_configuration_table_matches_the_settings() -> None:
    block = re.search(r"<!-- settings-table:start -->\n(.*?)\n<!-- settings-table:end -->", README, re.S)
    assert block is not None
    assert block.group(1) == settings_table()


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one() -> None:
    setup = README.split("## Set up", 1)[1].split("##", 1)[0]
    commands = re.findall(r"^(\./scripts/\S+)", setup, re.M)
    assert commands == ["./scripts/demo.sh", "./scripts/test.sh"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "scripts/test.sh" in ci
    for cmd in commands:
        assert (ROOT / cmd).is_file()


@pytest.mark.slow
def test_readme_states_how_many_chunks_the_demo_load_embeds() -> None:
    """What `papertalk demo` embeds, counted by chunking its records and PDFs (without embedding them)."""
    stated = re.search(r"embeds ([\d,]+) chunks \(([\d,]+) from the records, ([\d,]+)\s+from the PDFs\)", README)
    assert stated is not None
    total, records, pdfs = (int(g.replace(",", "")) for g in stated.groups())
    chunker = Chunker(ChunkSettings())
    papers = {p.paper_id: p for p in arxiv_papers(DEMO_METADATA) if isinstance(p, Paper)}  # a repeated id is replaced
    pdfs_read = [p for p in pdf_papers([DEMO_PDFS]) if isinstance(p, Paper)]
    assert len(papers) == 2212 and len(pdfs_read) == 2 and not any(p.arxiv_id in papers for p in pdfs_read)
    assert records == sum(len(chunker.chunk(p, p.content_hash())) for p in papers.values())
    assert pdfs == sum(len(chunker.chunk(p, p.content_hash())) for p in pdfs_read)
    assert total == records + pdfs
