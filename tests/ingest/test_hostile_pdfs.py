"""Hostile PDFs, each built by its test: refused with one line naming the limit it hit (or the damage),
in bounded time, with the parsing done in a worker process so this process's memory stays flat; the
worker is reused for good files and replaced after it is killed or runs out of memory."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ingest.parse_worker import PdfParser
from ingest.pdf import parse_pdf
from ingest.pipeline import Ingestor
from ingest.sources import pdf_papers
from papertalk.errors import SourceError
from papertalk.settings import PdfSettings
from storage.records import Problem
from storage.store import Store
from tests.helpers.cli import catalog_rows, error_lines, run_cli
from tests.helpers.hostile_pdfs import (
    broken_pages_pdf,
    deep_nesting,
    flate_bomb,
    page_tree_bomb,
    sentence_splitter_trap,
    shared_stream_pdf,
    small_text_pdf,
    zero_padded,
)

MB = 1 << 20
LIMITS: dict[str, Any] = {"max_file_mb": 1, "max_pages": 500, "max_text_chars": 200_000, "timeout_s": 5}
LIMITS["max_memory_mb"] = 512
SETTING = r"raise PAPERTALK_PDF__"

# name -> (how to build it, limits over LIMITS, what its one line must say)
CASES: dict[str, tuple[Callable[[Path], Path], dict[str, Any], str]] = {
    "page-tree-90000.pdf": (
        page_tree_bomb,
        {},
        rf"^over the 500 page limit \(it declares 90,000 pages\): {SETTING}MAX_PAGES$",
    ),
    "page-tree-20000-pages-allowed.pdf": (  # walking a tree this size takes pypdf a second or more
        lambda p: page_tree_bomb(p, copies=20_000),
        {"max_pages": 100_000, "max_text_chars": 50_000, "timeout_s": 30},
        rf"^over the 50,000 character text limit \(reached at page \d\d of 20,000\): {SETTING}MAX_TEXT_CHARS$",
    ),
    "zero-padded.pdf": (
        lambda p: zero_padded(p, 3 * MB),
        {},
        rf"^over the 1 MB file size limit \(it is 3\.0 MB\): {SETTING}MAX_FILE_MB$",
    ),
    "shared-stream.pdf": (
        lambda p: shared_stream_pdf(p, n_pages=20, stream_mb=5),  # page 1 alone takes pypdf ~10-40 s
        {"max_text_chars": 50_000_000},  # so that only time can stop it
        rf"^over the 5 s parse time limit: {SETTING}TIMEOUT_S$",
    ),
    "flate-bomb.pdf": (
        lambda p: flate_bomb(p, inflated_mb=100),
        {},
        r"^page 1 of 1 could not be read: a stream or object over the parser's safety limit "
        r"\(Limit reached while decompressing\. \d+ bytes remaining\.\)$",
    ),
    "flate-bomb-low-memory.pdf": (
        lambda p: flate_bomb(p, inflated_mb=100),
        {"max_memory_mb": 150},
        rf"^over the 150 MB parse memory limit: {SETTING}MAX_MEMORY_MB$",
    ),
    "deep-nesting.pdf": (deep_nesting, {}, r"^damaged PDF: objects nested too deep \(RecursionError\)$"),
}


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.parametrize("name", list(CASES))
def test_each_hostile_pdf_is_refused_with_the_limit_it_hit_in_bounded_time_and_memory(
    tmp_path: Path, name: str
) -> None:
    build, overrides, reason = CASES[name]
    path = build(tmp_path / name)
    limits = PdfSettings(**{**LIMITS, **overrides})
    rss_before = rss_mb()
    with PdfParser(limits) as parser:
        started = time.monotonic()
        with pytest.raises(SourceError) as caught:
            parser.parse(path)
        elapsed = time.monotonic() - started
    assert caught.value.where == str(path)
    assert re.search(reason, caught.value.why), caught.value.why
    assert elapsed < limits.timeout_s + 5, f"{name} took {elapsed:.1f} s"  # 5 s: the worker's start and its kill
    assert rss_mb() - rss_before < 64, "the PDF was parsed in this process, not in the worker"


def test_a_page_tree_that_understates_its_count_is_counted(tmp_path: Path) -> None:
    path = page_tree_bomb(tmp_path / "tree.pdf", copies=5_000, declared=1)
    with pytest.raises(SourceError, match=rf"^.*: over the 500 page limit \(it has 5,000 pages\): {SETTING}MAX_PAGES$"):
        parse_pdf(path, PdfSettings(**LIMITS))


def test_a_2_gb_zero_padded_pdf_is_refused_at_the_default_size_limit_without_being_read(tmp_path: Path) -> None:
    path = zero_padded(tmp_path / "padded.pdf", int(2.3e9))  # sparse: takes no disk
    started = time.monotonic()
    items = list(pdf_papers([path], PdfSettings()))
    assert time.monotonic() - started < 5
    assert items == [Problem(str(path), f"over the 100 MB file size limit (it is 2,193.5 MB): {SETTING}MAX_FILE_MB")]


def test_a_small_pdf_padded_under_the_size_limit_still_parses(tmp_path: Path) -> None:
    path = zero_padded(tmp_path / "padded.pdf", MB // 2)
    paper, warnings = parse_pdf(path, PdfSettings(**LIMITS))
    assert len(paper.pages) == 2 and "turn-level rewards" in paper.pages[1] and warnings == []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


def test_one_worker_serves_file_after_file_and_is_replaced_after_a_timeout(tmp_path: Path) -> None:
    good = [small_text_pdf(tmp_path / f"good-{i}.pdf", n_pages=2 + i) for i in range(3)]
    slow = shared_stream_pdf(tmp_path / "slow.pdf", n_pages=20, stream_mb=5)
    with PdfParser(PdfSettings(**{**LIMITS, "max_text_chars": 50_000_000})) as parser:
        assert len(parser.parse(good[0])[0].pages) == 2
        first = parser.pid
        assert first is not None and len(parser.parse(good[1])[0].pages) == 3 and parser.pid == first
        with pytest.raises(SourceError, match="over the 5 s parse time limit"):
            parser.parse(slow)
        assert parser.pid is None and not _alive(first), "the worker that ran over was not killed"
        assert len(parser.parse(good[2])[0].pages) == 4
        assert parser.pid not in (None, first)
        last = parser.pid
    assert last is not None and not _alive(last), "closing the parser left its worker running"


def test_a_worker_out_of_memory_answers_and_the_next_file_gets_a_fresh_one(tmp_path: Path) -> None:
    bomb = flate_bomb(tmp_path / "bomb.pdf", inflated_mb=100)
    good = small_text_pdf(tmp_path / "good.pdf")
    with PdfParser(PdfSettings(**{**LIMITS, "max_memory_mb": 150})) as parser:
        parser.parse(good)
        first = parser.pid
        with pytest.raises(SourceError, match="over the 150 MB parse memory limit"):
            parser.parse(bomb)
        assert first is not None and not _alive(first)
        assert parser.parse(good)[0].pages and parser.pid != first


@pytest.mark.slow
def test_a_worker_left_alone_mid_file_is_stopped_by_its_cpu_limit(tmp_path: Path) -> None:
    """Should the parent die while a file is parsed, the worker's own CPU limit ends it."""
    slow = shared_stream_pdf(tmp_path / "slow.pdf", n_pages=20, stream_mb=5)
    parser = PdfParser(PdfSettings(**{**LIMITS, "timeout_s": 1, "max_text_chars": 50_000_000}))
    proc = parser._worker()  # the parent's side of the protocol, minus the parent's own deadline
    assert proc.stdin is not None
    proc.stdin.write(b'{"path": "%s"}\n' % str(slow).encode())
    proc.stdin.flush()
    try:
        assert proc.wait(timeout=120) == -signal.SIGXCPU
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    finally:
        parser.close()


def test_pages_that_do_not_inflate_are_a_warning_naming_them_and_the_rest_is_ingested(
    store: Store, tmp_path: Path
) -> None:
    path = broken_pages_pdf(tmp_path / "partly.pdf", 15, {2, 4, 6, 7, 8, 9, 12, 15})
    report = Ingestor(store).run(pdf_papers([path]))
    assert report.added == 1 and not report.failed
    (warning,) = report.warnings
    assert warning.where == str(path)
    assert warning.why == (
        "pages 2, 4, 6-9, 12, 15 of 15 could not be read: Error -3 while decompressing data: incorrect header "
        "check (pypdf); the other pages were ingested"
    )
    assert report.summary().endswith("0 failed, 1 warnings")
    (row,) = store.catalog.list_papers()
    assert row.n_pages == 15


def test_partly_unreadable_pdf_is_on_the_paper_too(tmp_path: Path) -> None:
    paper, _ = parse_pdf(broken_pages_pdf(tmp_path / "partly.pdf", 5, {1, 5}))
    assert paper.skipped_pages == [1, 5]
    assert [bool(p) for p in paper.pages] == [False, True, True, True, False]


REASONS: dict[str, tuple[Callable[[Path], Path], str]] = {
    "all pages damaged": (
        lambda p: broken_pages_pdf(p, 3, {1, 2, 3}),
        r"^damaged PDF: pages 1-3 of 3 could not be read: Error -3 while decompressing data: incorrect header "
        r"check \(pypdf\)$",
    ),
    "text drawn but not extractable": (
        lambda p: broken_pages_pdf(p, 2, {1, 2}, ops=b"BT /F1 11 Tf 56 740 Td <0102030405> Tj ET"),
        r"^pages 1-2 of 2 could not be read: it draws text that could not be extracted \(fonts without a "
        r"Unicode map\?\): run OCR",
    ),
    "too little text": (
        lambda p: broken_pages_pdf(p, 1, {1}, ops=b"BT /F1 11 Tf 56 740 Td (A cover page.) Tj ET"),
        r"^only 13 characters of text on its 1 page\(s\) \(a scan\?\): run OCR",
    ),
    "no text operators at all": (
        lambda p: broken_pages_pdf(p, 2, {1, 2}, ops=b"q 1 0 0 1 0 0 cm 0 0 100 100 re f Q"),
        r"^no text layer on its 2 page\(s\) \(a scan\?\): run OCR on it first",
    ),
}


@pytest.mark.parametrize("name", list(REASONS))
def test_a_pdf_without_usable_text_says_why_as_exactly_as_its_pages_tell(tmp_path: Path, name: str) -> None:
    build, reason = REASONS[name]
    path = build(tmp_path / "file.pdf")
    with pytest.raises(SourceError) as caught:
        parse_pdf(path)
    assert re.search(reason, caught.value.why), caught.value.why


@pytest.mark.slow
def test_cli_ingest_of_hostile_pdfs_names_each_limit_and_ingests_the_good_one(tmp_path: Path) -> None:
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    names = ["page-tree-90000.pdf", "zero-padded.pdf", "shared-stream.pdf", "flate-bomb.pdf", "deep-nesting.pdf"]
    expected = {CASES[name][0](inbox / name): CASES[name][2] for name in names}
    broken_pages_pdf(inbox / "partly.pdf", 15, {2, 4, 6, 7, 8, 9, 12, 15})
    limits = {**LIMITS, "max_text_chars": 50_000_000}  # the shared stream must run out of time
    env = {f"PAPERTALK_PDF__{k.upper()}": str(v) for k, v in limits.items()}
    started = time.monotonic()
    result = run_cli("ingest", inbox, timeout=300, **env)
    elapsed = time.monotonic() - started
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    lines = error_lines(result.stderr)
    assert len(lines) == len(expected), result.stderr
    for path, reason in expected.items():
        (line,) = [x for x in lines if x.startswith(f"failed {path}: ")]
        assert re.search(reason, line.removeprefix(f"failed {path}: ")), line
    assert f"warning {inbox / 'partly.pdf'}: pages 2, 4, 6-9, 12, 15 of 15 could not be read" in result.stderr
    assert re.search(rf"^1 added, .* {len(expected)} failed, 1 warnings$", result.stdout, re.M), result.stdout
    assert catalog_rows(tmp_path / "data", "SELECT COUNT(*) FROM papers WHERE status = 'indexed'") == [(1,)]
    assert elapsed < 120, f"the run took {elapsed:.0f} s"


def test_cli_ask_pdf_on_a_hostile_pdf_is_one_error_line(tmp_path: Path) -> None:
    path = page_tree_bomb(tmp_path / "tree.pdf")
    result = run_cli("ask", "What is it about?", "--pdf", path, PAPERTALK_PDF__MAX_PAGES="500")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    why = f"over the 500 page limit (it declares 90,000 pages): {SETTING}MAX_PAGES"
    assert result.stderr.strip() == f"error: {path}: {why}"


def test_cli_ingest_of_a_file_whose_name_is_not_utf8_is_one_line(tmp_path: Path) -> None:
    """Such a name cannot be stored in the catalog; it once ended the run with a UnicodeEncodeError."""
    path = tmp_path / os.fsdecode(b"paper-\xff\xfe [x].pdf")
    small_text_pdf(path, n_pages=3)
    result = run_cli("ingest", tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert error_lines(result.stderr) == [
        f"failed {tmp_path}/paper-\\xff\\xfe [x].pdf: its name is not valid UTF-8: rename the file"
    ]


def test_text_that_trips_the_sentence_splitter_fails_that_file_not_the_run(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under the text limit, but nltk's regular expressions give up (TimeoutError) on the sentence split.

    The page holds 30,000 "a. "; nltk's time limit per match is lowered from 5 s to 0.05 s so that the
    same thing happens in a second rather than after minutes, on any machine.
    """
    monkeypatch.setattr("nltk.redos.DEFAULT_TIMEOUT", 0.05)
    trap = sentence_splitter_trap(tmp_path / "trap.pdf", repeats=30_000)
    small_text_pdf(tmp_path / "good.pdf")
    report = Ingestor(store).run(pdf_papers([tmp_path]))
    (problem,) = report.errors
    assert problem.where == str(trap) and "\n" not in problem.why
    assert problem.why.startswith("could not be chunked (TimeoutError: regular-expression match exceeded its 0.05s")
    assert report.added == 1 and store.catalog.count_papers("indexed") == 1
