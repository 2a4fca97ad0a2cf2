"""Bad input: every broken file or record is one clear line (where and why), the run goes on, the
exit code says something failed, and nothing already stored is lost."""

from __future__ import annotations

import gzip
import io
import json
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from ingest.arxiv_metadata import HEAD_LINES, RecordFilter, iter_arxiv_records
from ingest.pdf import read_pdf
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers, count_lines, pdf_papers
from papertalk.errors import SourceError
from storage.records import Problem
from storage.store import Store
from tests.conftest import LONGEVAL_PDF, S2ORC_PDF, demo_records
from tests.helpers.cli import catalog_rows, error_lines, invoke_cli, run_cli
from tests.helpers.pdfs import blank_pdf, encrypted_copy, image_only_pdf, text_pdf, truncated_copy

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "pdfs"
IOP_PDF = FIXTURES / "index-list-out-of-range-7f4e18385a30ccb00dc637d5123f894f1f862964.pdf"
SHARED_PAPERMAGE = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "pdfs" / "papermage"

Builder = Callable[[Path], Path]

# file name -> (how to make it, what its one report line must say)
BAD_PDFS: dict[str, tuple[Builder, str]] = {
    "truncated.pdf": (lambda p: truncated_copy(S2ORC_PDF, p), r"^damaged PDF: .+ \(\w+\)$"),
    "encrypted.pdf": (
        lambda p: encrypted_copy(LONGEVAL_PDF, p, "s3cret"),
        r"^encrypted PDF with a password: save a decrypted copy",
    ),
    "not-a-pdf.pdf": (
        lambda p: (p.write_text("<!DOCTYPE html><html><body>403 Forbidden</body></html>"), p)[1],
        r"^not a PDF \(it starts with b'<!DOCTYPE html><'\); remove or rename it$",
    ),
    "empty.pdf": (lambda p: (p.write_bytes(b""), p)[1], r"^empty file \(0 bytes\)$"),
    "blank.pdf": (lambda p: blank_pdf(p, 3), r"^no text layer on its 3 page\(s\) \(a scan\?\): run OCR"),
    "scan [draft].pdf": (lambda p: image_only_pdf(p, 2), r"^no text layer on its 2 page\(s\) \(a scan\?\): run OCR"),
}

GOOD_LINES = [
    "Credit assignment for language agents with sparse rewards",
    "We study how a web agent learns from a single success signal at the end of an episode.",
    "Turn-level advantages estimated by a learned critic reduce the variance of policy gradients.",
    "On three benchmarks the agent completes more tasks than agents trained with outcome rewards alone.",
]


def make_bad_pdfs(folder: Path) -> dict[Path, str]:
    folder.mkdir(parents=True, exist_ok=True)
    return {build(folder / name): why for name, (build, why) in BAD_PDFS.items()}


def make_good_pdf(path: Path, topic: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pages = [[f"{topic}: a study of {i}" if i == 0 else line for i, line in enumerate(GOOD_LINES)] * 3] * 2
    return text_pdf(path, pages, title=f"{topic} for Language Agents")


def _ids(store: Store) -> tuple[set[str], set[str]]:
    catalog = {str(r["chunk_id"]) for r in store.catalog.query("SELECT chunk_id FROM chunks")}
    return catalog, set(store.vectors.collection.get(include=[])["ids"])


@pytest.mark.parametrize("name", list(BAD_PDFS))
def test_each_bad_pdf_is_one_problem_naming_the_file(tmp_path: Path, name: str) -> None:
    build, why = BAD_PDFS[name]
    path = build(tmp_path / name)
    items = list(pdf_papers([path]))
    assert len(items) == 1 and isinstance(items[0], Problem), items
    assert items[0].where == str(path) and items[0].fatal
    assert re.search(why, items[0].why), items[0].why
    assert "\n" not in str(items[0])


def test_a_path_that_does_not_exist_is_a_problem(tmp_path: Path) -> None:
    assert list(pdf_papers([tmp_path / "nowhere.pdf"])) == [
        Problem(str(tmp_path / "nowhere.pdf"), "no such file or folder")
    ]


def test_bad_pdfs_fail_alone_and_stored_papers_stay(store: Store, metadata_file: Path, tmp_path: Path) -> None:
    before = Ingestor(store).run(arxiv_papers(metadata_file, RecordFilter(limit=4)))
    assert before.added == 4 and not before.failed
    stored_ids, _ = _ids(store)
    bad = make_bad_pdfs(tmp_path / "inbox")
    good = [
        make_good_pdf(tmp_path / "inbox" / "a.pdf", "Turn Rewards"),
        make_good_pdf(tmp_path / "inbox" / "sub" / "b.pdf", "Critics"),
    ]
    ticks: list[int] = []
    report = Ingestor(store).run(pdf_papers([tmp_path / "inbox"]), progress=ticks.append)
    assert report.failed and report.added == 2 and len(ticks) == len(bad) + len(good)
    assert {p.where for p in report.errors} == {str(p) for p in bad}
    for problem in report.errors:
        assert re.search(bad[Path(problem.where)], problem.why), problem
    catalog_ids, chroma_ids = _ids(store)
    assert catalog_ids == chroma_ids and stored_ids < catalog_ids
    assert store.catalog.count_papers("indexed") == 6 and store.catalog.count_papers("pending") == 0
    titles = {r.title for r in store.catalog.list_papers(limit=10) if r.source == "pdf"}
    assert titles == {"Turn Rewards for Language Agents", "Critics for Language Agents"}


def _bad_metadata(path: Path) -> dict[int, str]:
    """Good and bad lines; returns line number -> what its problem must say (fatal ones)."""
    a, b, c = demo_records(3)
    lines = [
        json.dumps(a),
        '{"id": "2501.00001", "title": "cut off',
        json.dumps({**b, "abstract": ""}),
        "",
        json.dumps({"title": "A record without an id", "abstract": "text"}),
        "[1, 2, 3]",
        json.dumps(c),
        json.dumps({"id": "2501.00002", "title": "  ", "abstract": "text"}),
    ]
    path.write_text("\n".join(lines) + "\n")
    return {
        2: r"^malformed JSON \(Unterminated string starting at column 31\)$",  # not "at at column"
        5: r"^field 'id' is missing or not an arXiv id",
        6: r"^a record must be a JSON object$",
        8: r"^field 'title' is empty for 2501\.00002$",
    }


def test_bad_metadata_lines_are_reported_by_line_number(store: Store, tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    expected = _bad_metadata(path)
    report = Ingestor(store).run(arxiv_papers(path))
    assert report.failed and report.added == 3
    assert {p.where: p.why for p in report.errors}.keys() == {f"{path}:{n}" for n in expected}
    for problem in report.errors:
        assert re.search(expected[int(problem.where.rsplit(":", 1)[1])], problem.why), problem
    (warning,) = report.warnings
    no_abstract = demo_records(2)[1]["id"]
    assert (
        warning.where == f"{path}:3" and warning.why == f"record {no_abstract} has no abstract: indexed by title only"
    )
    row = store.catalog.get(no_abstract)
    assert row is not None and row.status == "indexed" and row.n_chunks == 1 and row.abstract == ""


def test_truncated_gzip_keeps_the_records_read_before_the_cut(store: Store, tmp_path: Path) -> None:
    records = demo_records(12)
    whole = gzip.compress("".join(json.dumps(r) + "\n" for r in records).encode())
    path = tmp_path / "records.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    report = Ingestor(store).run(arxiv_papers(path))
    assert [p.where for p in report.errors] == [str(path)]
    assert re.match(r"^stopped reading \((EOFError|BadGzipFile|OSError)", report.errors[0].why)
    assert 0 < report.added < 12
    assert {r.paper_id for r in store.catalog.list_papers(limit=50)} == {r["id"] for r in records[: report.added]}


def test_cli_ingest_names_each_bad_pdf_exits_1_and_keeps_stored_papers(metadata_file: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"  # PAPERTALK_DATA_DIR, set for every test
    first = invoke_cli("ingest-arxiv", metadata_file, "--limit", "3")
    assert first.returncode == 0, first.stderr
    bad = make_bad_pdfs(tmp_path / "inbox")
    make_good_pdf(tmp_path / "inbox" / "good.pdf", "Outcome Rewards")
    result = invoke_cli("ingest", tmp_path / "inbox")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = error_lines(result.stderr)
    assert len(lines) == len(bad), result.stderr
    for path, why in bad.items():
        (line,) = [x for x in lines if x.startswith(f"failed {path}: ")]
        assert re.search(why, line.removeprefix(f"failed {path}: ")), line
        assert result.stderr.count(str(path)) == 1, f"{path} reported more than once:\n{result.stderr}"
    assert "1 added, 0 updated, 0 unchanged" in result.stdout and f"{len(bad)} failed" in result.stdout
    indexed = catalog_rows(data, "SELECT paper_id, title FROM papers WHERE status = 'indexed'")
    assert len(indexed) == 4
    assert "Outcome Rewards for Language Agents" in {t for _, t in indexed}


def test_cli_ingest_arxiv_names_bad_lines_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    expected = _bad_metadata(path)
    result = invoke_cli("ingest-arxiv", path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    lines = error_lines(result.stderr)
    assert [line.split(": ", 1)[0] for line in lines] == [f"failed {path}:{n}" for n in sorted(expected)]
    assert f"warning {path}:3: record" in result.stderr
    assert re.search(
        r"^3 added, 0 updated, 0 unchanged, \d+ chunks embedded, 4 failed, 1 warnings$", result.stdout, re.M
    )


def test_cli_warnings_alone_do_not_fail_the_run(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_text(json.dumps({**demo_records(1)[0], "abstract": ""}) + "\n")
    result = invoke_cli("ingest-arxiv", path)
    assert result.returncode == 0, result.stderr
    assert f"warning {path}:1: record" in result.stderr and "0 failed, 1 warnings" in result.stdout


def test_iop_pdf_that_breaks_other_parsers_reads_with_its_real_title() -> None:
    paper = read_pdf(IOP_PDF)
    assert len(paper.pages) == 12 and paper.source == "pdf" and paper.paper_id.startswith("pdf-")
    assert paper.title == "SemEAGAT: A Novel Approach by Incorporating Semantic Dependency Graph in Event Detection"
    assert "Event detection (ED) is a task" in paper.pages[0]
    assert sum(len(p.split()) for p in paper.pages) > 4000


@pytest.mark.skipif(not SHARED_PAPERMAGE.is_dir(), reason="needs ../shared/data/pdfs/papermage (not in a clone)")
# index-list-out-of-range-… is committed (IOP_PDF) and tested above in every checkout.
@pytest.mark.parametrize("prefix", ["index-string-out-of-range-", "key-error-", "value-error-"])
def test_shared_parser_edge_cases_parse_or_fail_cleanly(prefix: str) -> None:
    (path,) = sorted(SHARED_PAPERMAGE.glob(f"{prefix}*.pdf"))
    try:
        paper = read_pdf(path)
    except SourceError as exc:  # failing is fine, as long as it is one clear line about this file
        assert exc.where == str(path) and exc.why and "\n" not in exc.why
        return
    assert paper.pages and sum(len(p) for p in paper.pages) > 2000
    assert len(paper.title.split()) >= 3 and not paper.title[0].islower(), paper.title


# Whole files that are not arXiv metadata: one line each, never a line per byte.


def _random_bytes(path: Path) -> Path:
    data = random.Random(6).randbytes(2048)
    path.write_bytes(data)
    lines = [x for x in io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace") if x.strip()]
    assert len(lines) > HEAD_LINES  # 21: today's reader would report each of them
    return path


def test_cli_files_that_are_not_metadata_are_one_line_each(tmp_path: Path) -> None:
    folder = tmp_path / "snapshot"
    folder.mkdir()
    fake_gz = tmp_path / "records.jsonl.gz"
    fake_gz.write_text(json.dumps(demo_records(1)[0]) + "\n")
    noise = _random_bytes(tmp_path / "noise.jsonl")
    expected = {
        folder: "is a directory: give a .jsonl or .jsonl.gz file",
        fake_gz: 'not a gzip file (it starts with b\'{"id": "\'): give a .jsonl or .jsonl.gz file, or name a '
        "plain JSON-lines file .jsonl",
        noise: "not arXiv metadata JSON lines: its first 10 records all failed (line 1: malformed JSON "
        "(Expecting value at column 1)); give a .jsonl or .jsonl.gz file in the arXiv bulk-metadata layout",
    }
    for path, why in expected.items():
        result = invoke_cli("ingest-arxiv", path)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        assert error_lines(result.stderr) == [f"failed {path}: {why}"], result.stderr
        assert "0 added, 0 updated, 0 unchanged, 0 chunks embedded, 1 failed" in result.stdout


def test_cli_caps_the_bad_lines_of_one_file_and_ingests_the_rest(tmp_path: Path) -> None:
    good = [json.dumps(r) for r in demo_records(3)]
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join([good[0], *[f"{{broken {i}" for i in range(25)], good[1], good[2]]) + "\n")
    result = invoke_cli("ingest-arxiv", path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert error_lines(result.stderr) == [
        f"failed {path}:{n}: malformed JSON (Expecting property name enclosed in double quotes at column 2)"
        for n in range(2, 12)
    ]
    assert f"… and 15 more malformed lines in {path}" in result.stderr.splitlines()
    assert re.search(
        r"^3 added, 0 updated, 0 unchanged, \d+ chunks embedded, 25 failed, 0 warnings$", result.stdout, re.M
    )


def test_bad_lines_before_the_first_record_are_held_back_until_it_comes(tmp_path: Path) -> None:
    good = [json.dumps(r) for r in demo_records(2)]
    few = tmp_path / "few.jsonl"
    few.write_text("\n".join(["{x", "[1]", good[0], "{y", good[1]]) + "\n")
    items = list(iter_arxiv_records(few))
    assert [(i.where, i.fatal) if isinstance(i, Problem) else i.paper_id for i in items] == [
        (f"{few}:1", True),
        (f"{few}:2", True),
        demo_records(1)[0]["id"],
        (f"{few}:4", True),
        demo_records(2)[1]["id"],
    ]
    only_bad = tmp_path / "only-bad.jsonl"
    only_bad.write_text("{x\n{y\n")  # fewer than HEAD_LINES: each line is reported
    assert [p.where for p in iter_arxiv_records(only_bad) if isinstance(p, Problem)] == [
        f"{only_bad}:1",
        f"{only_bad}:2",
    ]
    late = tmp_path / "late.jsonl"
    late.write_text("\n".join([*(f"{{bad {i}" for i in range(HEAD_LINES)), good[0]]) + "\n")
    (problem,) = list(iter_arxiv_records(late))  # the good line after 10 bad ones is never read
    assert isinstance(problem, Problem) and problem.where == str(late) and problem.why.startswith("not arXiv")


def test_cli_truncated_gzip_is_counted_and_reported_without_a_traceback(tmp_path: Path) -> None:
    whole = gzip.compress("".join(json.dumps(r) + "\n" for r in demo_records(12)).encode())
    path = tmp_path / "records.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    assert 0 < (count_lines(path) or 0) < 12  # the lines before the cut
    assert count_lines(tmp_path) is None
    result = run_cli("ingest-arxiv", path)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    (line,) = error_lines(result.stderr)
    assert line.startswith(f"failed {path}: stopped reading (")
