"""arXiv metadata files in the public bulk-snapshot layout (JSON lines, optionally gzipped), streamed."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any

from ingest.text import normalise_arxiv_id, one_line
from storage.records import Paper, Problem


@dataclass(frozen=True)
class RecordFilter:
    """Which records to keep: first-version date range, any of the categories, at most `limit`."""

    since: date | None = None
    until: date | None = None
    categories: tuple[str, ...] = ()
    limit: int | None = None

    def keeps(self, paper: Paper) -> bool:
        if self.since and (paper.published is None or paper.published < self.since):
            return False
        if self.until and (paper.published is None or paper.published > self.until):
            return False
        return not self.categories or any(c in self.categories for c in paper.categories)


def _open_text(path: Path) -> io.TextIOBase:
    with path.open("rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    return path.open("r", encoding="utf-8", errors="replace")


def _first_version_date(record: dict[str, Any]) -> date | None:
    versions = record.get("versions") or []
    if versions and isinstance(versions[0], dict) and versions[0].get("created"):
        try:
            return parsedate_to_datetime(versions[0]["created"]).date()
        except (TypeError, ValueError):
            pass
    raw = record.get("update_date")
    if isinstance(raw, str):
        try:
            return datetime.strptime(raw[:10], "%Y-%m-%d").date()
        except ValueError:
            return None
    return None


def _authors(record: dict[str, Any]) -> list[str]:
    parsed = record.get("authors_parsed")
    if isinstance(parsed, list) and parsed:
        names = []
        for parts in parsed:
            if isinstance(parts, list) and parts:
                last, first = parts[0], (parts[1] if len(parts) > 1 else "")
                names.append(one_line(f"{first} {last}"))
        return [n for n in names if n]
    raw = record.get("authors") or ""
    return [one_line(a) for a in str(raw).replace(" and ", ",").split(",") if a.strip()]


def record_to_paper(record: dict[str, Any]) -> Paper:
    """One snapshot record → `Paper`; raises ValueError naming the field that is missing or wrong."""
    if not isinstance(record, dict):
        raise ValueError("a record must be a JSON object")
    raw_id = record.get("id")
    arxiv_id = normalise_arxiv_id(str(raw_id)) if raw_id else None
    if not arxiv_id:
        raise ValueError(f"field 'id' is missing or not an arXiv id ({raw_id!r})")
    title = one_line(str(record.get("title") or ""))
    if not title:
        raise ValueError(f"field 'title' is empty for {arxiv_id}")
    abstract = one_line(str(record.get("abstract") or ""))
    return Paper(
        paper_id=arxiv_id,
        title=title,
        authors=_authors(record),
        abstract=abstract,
        categories=str(record.get("categories") or "").split(),
        published=_first_version_date(record),
        source="arxiv-metadata",
        arxiv_id=arxiv_id,
    )


HEAD_LINES = 10  # a file whose first 10 records all fail is not arXiv JSON lines: it is reported once, then left


def iter_arxiv_records(path: Path, keep: RecordFilter | None = None) -> Iterator[Paper | Problem]:
    """Papers from `path`, one line at a time (constant memory); bad lines come out as `Problem`s.

    Problems before the first good record are held back: if the first `HEAD_LINES` records all fail, the
    file is one `Problem` ("not arXiv JSON lines") and reading stops, instead of a line per random byte.
    """
    keep = keep or RecordFilter()
    kept = 0
    head: list[Problem] | None = []  # None once a record has parsed
    with _open_text(path) as fh:
        for number, line in enumerate(fh, start=1):
            if keep.limit is not None and kept >= keep.limit:
                return
            if not line.strip():
                continue
            where = f"{path}:{number}"
            item = _parse(line, where)
            if isinstance(item, Problem) and head is not None:
                head.append(item)
                if len(head) == HEAD_LINES:
                    yield _not_json_lines(path, head)
                    return
                continue
            if isinstance(item, Problem):
                yield item
                continue
            if head:
                yield from head
            head = None
            if not keep.keeps(item):
                continue
            kept += 1
            if not item.abstract:
                yield Problem(where, f"record {item.paper_id} has no abstract: indexed by title only", fatal=False)
            yield item
    yield from head or []


def _parse(line: str, where: str) -> Paper | Problem:
    try:
        return record_to_paper(json.loads(line.rstrip("\r\n")))  # a cut-off string is 'unterminated'
    except json.JSONDecodeError as exc:
        # Some messages end in "at" ("Unterminated string starting at"): the column completes them.
        return Problem(where, f"malformed JSON ({exc.msg.removesuffix(' at')} at column {exc.colno})")
    except RecursionError:
        return Problem(where, "malformed JSON (nested too deeply)")
    except ValueError as exc:
        return Problem(where, str(exc))


def _not_json_lines(path: Path, head: list[Problem]) -> Problem:
    first = head[0]
    line = first.where.rsplit(":", 1)[1]
    return Problem(
        str(path),
        f"not arXiv metadata JSON lines: its first {len(head)} records all failed (line {line}: {first.why}); "
        "give a .jsonl or .jsonl.gz file in the arXiv bulk-metadata layout",
    )
