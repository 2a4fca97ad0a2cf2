"""The `papertalk` command line: ingest options and browsing commands through its entry point in this
process; exit codes and one-line errors of a real process."""

from __future__ import annotations

import json
import re
from datetime import date
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from tests.conftest import demo_records
from tests.helpers.cli import catalog_rows, invoke_cli, one_error_line, run_cli

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
SUMMARY = re.compile(r"^(\d+) added, 0 updated, 0 unchanged, (\d+) chunks embedded, 0 failed, 0 warnings$")


def _first_listed(record: dict[str, Any]) -> date:
    return parsedate_to_datetime(record["versions"][0]["created"]).date()


def _authors(record: dict[str, Any]) -> list[str]:
    return [" ".join(f"{first} {last}".split()) for last, first, *_ in record["authors_parsed"]]


def _json(args: tuple[str, ...]) -> Any:
    result = invoke_cli(*args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_ingest_arxiv_with_limit_then_list_show_and_stats(metadata_file: Path, tmp_path: Path) -> None:
    records = demo_records(5)
    ingest = invoke_cli("ingest-arxiv", metadata_file, "--limit", "5", TTY_COMPATIBLE="1")  # as on a terminal
    assert ingest.returncode == 0, ingest.stderr
    summary = SUMMARY.match(ANSI.sub("", ingest.stdout).strip())
    assert summary is not None and summary.group(1) == "5", ingest.stdout
    progress = ANSI.sub("", ingest.stderr)
    assert re.search(r"records\.jsonl \S+ 5/5 [\d.,]+ items/s \d+:\d\d:\d\d ETA", progress), progress[-500:]

    listed = _json(("papers", "list", "--json"))
    assert {p["paper_id"] for p in listed} == {r["id"] for r in records}
    dates = [p["published"] for p in listed]
    assert dates == sorted(dates, reverse=True)
    assert all(p["status"] == "indexed" and p["chunks"] >= 1 and p["pages"] == 0 for p in listed)
    assert _json(("papers", "list", "--json", "--limit", "2", "--offset", "1")) == listed[1:3]

    record = records[2]
    shown = _json(("papers", "show", f"arxiv:{record['id']}", "--json"))
    assert shown == next(p for p in listed if p["paper_id"] == record["id"])
    assert shown["title"] == " ".join(record["title"].split())
    assert shown["abstract"] == " ".join(record["abstract"].split())
    assert shown["authors"] == _authors(record) and shown["categories"] == record["categories"].split()
    assert shown["published"] == _first_listed(record).isoformat()
    assert shown["link"] == f"https://arxiv.org/abs/{record['id']}" and shown["source"] == "arxiv-metadata"

    stats = _json(("stats", "--json"))
    chunks = int(summary.group(2))
    assert chunks == sum(p["chunks"] for p in listed)
    assert stats == {
        "data_dir": str(tmp_path / "data"),
        "papers": 5,
        "papers_indexed": 5,
        "papers_pending": 0,
        "chunks": chunks,
        "vectors": chunks,
        "embedding_model": "all-MiniLM-L6-v2-onnx-int8",
        "chroma": "local",
    }


def test_ingest_arxiv_since_until_category_and_limit_pick_the_right_records(
    metadata_file: Path, tmp_path: Path
) -> None:
    records = demo_records(30)
    since, wanted = date(2025, 1, 20), {"cs.IR", "cs.CL"}
    first = invoke_cli(
        "ingest-arxiv", metadata_file, "--since", since.isoformat(), "--category", "cs.IR", "--category", "cs.CL"
    )
    expected = {r["id"] for r in records if _first_listed(r) >= since and wanted & set(r["categories"].split())}
    assert first.returncode == 0 and first.stdout.startswith(f"{len(expected)} added"), first.stdout
    assert 0 < len(expected) < len(records)
    assert _ids(tmp_path) == expected

    until = date(2024, 12, 31)
    second = invoke_cli("ingest-arxiv", metadata_file, "--until", until.isoformat(), "--limit", "3")
    early = [r["id"] for r in records if _first_listed(r) <= until][:3]
    assert second.returncode == 0 and second.stdout.startswith("3 added"), second.stdout
    assert len(early) == 3 and _ids(tmp_path) == expected | set(early)


def _ids(tmp_path: Path) -> set[str]:
    return {str(r[0]) for r in catalog_rows(tmp_path / "data", "SELECT paper_id FROM papers WHERE status = 'indexed'")}


def test_exit_codes_for_bad_dates_missing_files_and_unknown_papers(tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text(json.dumps(demo_records(1)[0]) + "\n")
    bad_date = run_cli("ingest-arxiv", records, "--since", "2025-13-01")
    assert bad_date.returncode == 2 and "Traceback" not in bad_date.stderr
    assert "'2025-13-01' is not a date: use YYYY-MM-DD" in bad_date.stderr and "--since" in bad_date.stderr
    assert _ids(tmp_path) == set()

    missing = run_cli("ingest-arxiv", tmp_path / "nope.jsonl")
    assert missing.returncode == 1
    assert f"failed {tmp_path / 'nope.jsonl'}: no such file" in missing.stderr.splitlines()

    unknown = run_cli("papers", "show", "2501.99999")
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == "error: no paper '2501.99999' in the catalog: see `papertalk papers list`"


def test_a_file_where_the_store_needs_a_folder_is_one_line_not_a_traceback(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "chroma").write_text("")  # the vector store's folder, taken by a file
    message = one_error_line(run_cli("stats"))
    assert message == f"File exists: {data / 'chroma'}"


def test_serve_is_a_command_with_host_port_and_workers() -> None:
    result = invoke_cli("serve", "--help")
    assert result.returncode == 0
    for option in ("--host", "--port", "--workers"):
        assert option in result.stdout
