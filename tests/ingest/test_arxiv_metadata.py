import gzip
import json
from datetime import date
from pathlib import Path

from ingest.arxiv_metadata import RecordFilter, iter_arxiv_records
from storage.records import Paper, Problem
from tests.conftest import demo_records


def test_reads_real_records_with_first_version_date(metadata_file: Path) -> None:
    papers = [p for p in iter_arxiv_records(metadata_file) if isinstance(p, Paper)]
    assert len(papers) == 30
    first = papers[0]
    raw = demo_records(1)[0]
    assert first.paper_id == raw["id"]
    assert first.title == " ".join(raw["title"].split())
    assert first.authors and all(a.strip() for a in first.authors)
    assert first.published is not None and first.categories


def test_gzipped_file_streams_the_same_records(tmp_path: Path, metadata_file: Path) -> None:
    gz = tmp_path / "records.jsonl.gz"
    gz.write_bytes(gzip.compress(metadata_file.read_bytes()))
    plain = [p.paper_id for p in iter_arxiv_records(metadata_file) if isinstance(p, Paper)]
    zipped = [p.paper_id for p in iter_arxiv_records(gz) if isinstance(p, Paper)]
    assert plain == zipped


def test_filters_by_date_category_and_limit(metadata_file: Path) -> None:
    all_papers = [p for p in iter_arxiv_records(metadata_file) if isinstance(p, Paper)]
    pivot = sorted(p.published for p in all_papers if p.published)[len(all_papers) // 2]
    since = [p for p in iter_arxiv_records(metadata_file, RecordFilter(since=pivot)) if isinstance(p, Paper)]
    assert since and all(p.published and p.published >= pivot for p in since)
    assert len(since) < len(all_papers)
    ir = [p for p in iter_arxiv_records(metadata_file, RecordFilter(categories=("cs.IR",))) if isinstance(p, Paper)]
    assert all("cs.IR" in p.categories for p in ir)
    limited = [p for p in iter_arxiv_records(metadata_file, RecordFilter(limit=5)) if isinstance(p, Paper)]
    assert len(limited) == 5
    until = RecordFilter(until=date(2000, 1, 1))
    assert not [p for p in iter_arxiv_records(metadata_file, until) if isinstance(p, Paper)]


def test_malformed_line_and_record_without_abstract_are_reported_and_the_rest_goes_on(tmp_path: Path) -> None:
    good = demo_records(3)
    no_abstract = dict(good[1], abstract=None, id="2501.99999")
    lines = [json.dumps(good[0]), "{not json", json.dumps(no_abstract), json.dumps({"title": "x"}), json.dumps(good[2])]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(lines) + "\n")
    items = list(iter_arxiv_records(path))
    problems = [i for i in items if isinstance(i, Problem)]
    papers = [i for i in items if isinstance(i, Paper)]
    assert [p.paper_id for p in papers] == [good[0]["id"], "2501.99999", good[2]["id"]]
    assert any(p.where.endswith(":2") and "malformed JSON" in p.why and p.fatal for p in problems)
    assert any(p.where.endswith(":3") and "no abstract" in p.why and not p.fatal for p in problems)
    assert any(p.where.endswith(":4") and "'id'" in p.why and p.fatal for p in problems)
