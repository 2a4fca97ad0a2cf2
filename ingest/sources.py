"""Every kind of input as one stream of `Paper | Problem`, ready for `Ingestor.run`."""

from __future__ import annotations

import gzip
import logging
from collections.abc import Iterator
from pathlib import Path

from ingest.arxiv_metadata import RecordFilter, iter_arxiv_records
from ingest.pdf import iter_pdf_paths, read_pdf
from papertalk.errors import SourceError
from storage.records import Paper, Problem

logging.getLogger("pypdf").setLevel(logging.ERROR)  # pypdf warns per font; our report says what matters


def is_metadata_file(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith((".jsonl", ".jsonl.gz", ".json.gz", ".ndjson"))


def pdf_papers(paths: list[Path]) -> Iterator[Paper | Problem]:
    """Parse each PDF in turn (one in memory at a time); a broken file becomes a `Problem`."""
    for item in iter_pdf_paths(paths):
        if isinstance(item, Problem):
            yield item
            continue
        try:
            yield read_pdf(item)
        except SourceError as exc:
            yield Problem(exc.where, exc.why)
        except Exception as exc:  # a parser bug on one file must not end the run
            yield Problem(str(item), f"could not be parsed ({type(exc).__name__}: {exc})")


def count_pdfs(paths: list[Path]) -> int:
    return sum(1 for _ in iter_pdf_paths(paths))


GZIP_MAGIC = b"\x1f\x8b"


def count_lines(path: Path) -> int | None:
    """Lines in a (possibly gzipped) file, for progress bars; None if it cannot be read at all.

    A file cut short counts the lines before the cut (what an ingest of it will read).
    """
    count = 0
    try:
        with path.open("rb") as raw:
            gzipped = raw.read(2) == GZIP_MAGIC
        with gzip.open(path, "rb") if gzipped else path.open("rb") as fh:
            for _ in fh:
                count += 1
    except (OSError, EOFError):
        return count or None
    return count


def metadata_file_problem(path: Path) -> str | None:
    """Why `path` cannot be read as an arXiv metadata file before any line is read, or None."""
    give = "give a .jsonl or .jsonl.gz file"
    if path.is_dir():
        return f"is a directory: {give}"
    if not path.is_file():
        return "no such file"
    try:
        with path.open("rb") as fh:
            start = fh.read(16)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or type(exc).__name__})"
    if path.name.lower().endswith(".gz") and not start.startswith(GZIP_MAGIC):
        return f"not a gzip file (it starts with {start[:8]!r}): {give}, or name a plain JSON-lines file .jsonl"
    return None


def arxiv_papers(path: Path, keep: RecordFilter | None = None) -> Iterator[Paper | Problem]:
    problem = metadata_file_problem(path)
    if problem:
        yield Problem(str(path), problem)
        return
    try:
        yield from iter_arxiv_records(path, keep)
    except (OSError, EOFError) as exc:  # e.g. a truncated .gz: what was read so far is kept
        yield Problem(str(path), f"stopped reading ({type(exc).__name__}: {exc})")
