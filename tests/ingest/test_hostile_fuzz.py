"""Fuzz: a few hundred seeded mutations of the bundled CC BY PDFs go through ingest under a budget.

Every file gets exactly one outcome (a paper, or one line saying why not), none takes longer than its
time limit, the run goes on to the end, and the store is consistent afterwards. Embeddings come from
the local OpenAI-compatible test server (real HTTP), so the time goes to parsing, not to the model.
"""

from __future__ import annotations

import collections
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ingest.pdf import printable
from ingest.pipeline import Ingestor
from ingest.sources import pdf_papers
from papertalk.settings import PdfSettings, Settings
from storage.records import Paper, Problem
from storage.store import Store
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF
from tests.helpers.mutate_pdfs import mutants, page_cuts
from tests.helpers.openai_server import serve

IOP_PDF = (
    Path(__file__).resolve().parents[1]
    / "fixtures"
    / "pdfs"
    / ("index-list-out-of-range-7f4e18385a30ccb00dc637d5123f894f1f862964.pdf")
)
N_FILES = 240  # 20 per mutation; 1 CPU-minute, 2-3 minutes on two busy shared cores
LIMITS = PdfSettings(max_file_mb=5, max_pages=100, max_text_chars=500_000, timeout_s=10, max_memory_mb=512)
REASONS = re.compile(
    r"^(damaged PDF: .+"
    r"|pages? [\d, -]+ of \d+ could not be read: .+"
    r"|over the [\d,.]+ (MB file size|page|character text|s parse time|MB parse memory) limit.*"
    r"|no text layer on its \d+ page\(s\).+|only \d+ characters of text on its \d+ page\(s\).+"
    r"|not a PDF \(it starts with .+\); remove or rename it|empty file \(0 bytes\)"
    r"|encrypted PDF with a password: .+|its name is not valid UTF-8: rename the file"
    r"|kept the stored version of \S+: the new file has .+; use --replace to replace it)$"
)


class TimedItems:
    """The items of an iterator, recorded with the time each took to come (the parse time of a file)."""

    def __init__(self, items: Iterator[Paper | Problem]) -> None:
        self.items = items
        self.seconds: list[tuple[float, str]] = []
        self.outcomes: dict[str, list[str]] = collections.defaultdict(list)  # file -> paper/failed/warning

    def __iter__(self) -> Iterator[Paper | Problem]:
        while True:
            started = time.monotonic()
            try:
                item = next(self.items)
            except StopIteration:
                return
            self.seconds.append((time.monotonic() - started, str(item.path if isinstance(item, Paper) else item)))
            if isinstance(item, Paper):
                self.outcomes[str(item.path)].append("paper")
            else:
                self.outcomes[item.where].append("failed" if item.fatal else "warning")
            yield item


@pytest.fixture
def http_embedded_store() -> Iterator[Store]:
    with serve() as server:
        llm = {"base_url": server.url, "api_key": "test-key"}
        store = Store(Settings(embedding={"backend": "openai"}, llm=llm))
        yield store
        store.close()


def seeds() -> list[bytes]:
    """Two-page cuts of the bundled PDFs: their real fonts and streams, quick to parse."""
    return [cut for pdf in (S2ORC_PDF, LONGEVAL_PDF, IOP_PDF) for cut in page_cuts(pdf, [0, 5, 10])]


@pytest.mark.slow
def test_mutated_pdfs_each_get_one_outcome_within_budget_and_the_store_stays_consistent(
    http_embedded_store: Store, tmp_path: Path
) -> None:
    store = http_embedded_store
    files = [printable(path) for path, _ in mutants(seeds(), N_FILES, tmp_path / "mutants")]
    items = TimedItems(pdf_papers([tmp_path / "mutants"], LIMITS))
    report = Ingestor(store).run(items)  # an exception here fails the test: the run must go on to the end

    slowest = max(items.seconds)
    assert slowest[0] < LIMITS.timeout_s + 5, f"{slowest[1]} took {slowest[0]:.1f} s"
    assert sorted(items.outcomes) == sorted(files)
    for path, outcome in items.outcomes.items():
        assert outcome in (["failed"], ["paper"], ["paper", "warning"]), (path, outcome)
        assert ("\\xff" not in path) or outcome == ["failed"], path
    for problem in report.problems:
        assert "\n" not in problem.why and REASONS.match(problem.why.split("; the other pages")[0]), problem
    papers = sum(outcome[0] == "paper" for outcome in items.outcomes.values())
    assert papers > N_FILES // 3, f"only {papers} of {N_FILES} mutated files parsed: the mutations are too harsh"
    assert len(report.paper_ids) == papers  # every paper reached the pipeline

    catalog, vectors = store.catalog, store.vectors
    assert catalog.count_papers("pending") == 0
    assert catalog.count_papers("indexed") == catalog.count_papers() == len(set(report.paper_ids))
    chunk_ids = {str(r["chunk_id"]) for r in catalog.query("SELECT chunk_id FROM chunks")}
    assert catalog.count_chunks() == vectors.count() == len(chunk_ids) > 0
    assert set(vectors.collection.get(include=[])["ids"]) == chunk_ids
    reasons = collections.Counter(re.sub(r"\d+", "N", p.why)[:60] for p in report.problems)
    parse_s = sum(seconds for seconds, _ in items.seconds)
    print(f"\n{papers} papers from {N_FILES} mutants; parsing {parse_s:.0f} s, slowest file {slowest[0]:.1f} s")
    print(f"reasons: {reasons.most_common(8)}")
