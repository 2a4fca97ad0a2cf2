"""bench_cleanup: a footnote under a cut sentence is counted with the cleanup off, not on; the parser table is left
as recorded where pypdfium2 is not installed."""

from __future__ import annotations

import sys

import pytest

from bench.bench_cleanup import parsers_table, sentence_counts
from storage.records import Paper

PAGES = [
    "2 Survey\nWe survey the field of summarization. Most of the 162 surveyed papers\n"
    "2We exclude five papers on pre-training only.",
    "were published in major venues. They rarely report any agreement between",
    "their annotators, and few of them release their annotations.",
]


def test_sentence_counts_see_the_footnote_and_the_cut_sentence_only_without_cleanup() -> None:
    paper = Paper(paper_id="p", title="A survey", pages=PAGES)
    off = sentence_counts([paper], clean=False)
    on = sentence_counts([paper], clean=True)
    # off: "... surveyed papers\n2We exclude ..." holds the footnote, "... agreement between" ends open
    assert off[3].startswith("1 (") and off[4].startswith("1 (")
    assert on[3].startswith("0 (") and on[4].startswith("0 (")
    assert on[2] == 4  # the survey, the sentence across the first break, the one across the second, the note


def test_without_pypdfium2_the_parser_table_is_left_as_recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the optional parser is not installed the bench says so and writes no table, so that the side-by-side
    measurement recorded in docs/benchmarks.md is not replaced by a line saying nothing was measured."""
    monkeypatch.setitem(sys.modules, "pypdfium2", None)  # import pypdfium2 raises ImportError
    assert parsers_table([]) == ""
