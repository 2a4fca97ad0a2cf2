"""Every kind of input as one stream of `Paper | Problem`, ready for `Ingestor.run`."""

from __future__ import annotations

import gzip
import logging
from collections.abc import Iterator
from pathlib import Path

from ingest.arxiv_metadata import RecordFilter, iter_arxiv_records
from ingest.parse_worker import PdfParser
from ingest.pdf import iter_pdf_paths
from papertalk.errors import SourceError
from papertalk.settings import PdfSettings, Settings
from storage.records import Paper, Problem

logging.getLogger("pypdf").setLevel(logging.ERROR)  # pypdf warns per font; our report says what matters


def is_metadata_file(path: Path) -> bool:
    name = path.name.lower()
    return name.endswith((".jsonl", ".jsonl.gz", ".json.gz", ".ndjson"))


def pdf_papers(paths: list[Path], limits: PdfSettings | None = None) -> Iterator[Paper | Problem]:
    """Parse each PDF in turn, one at a time in a worker process, within `limits` (default: the settings).

    A broken or over-budget file becomes a `Problem`; pages that could not be read, a warning.
    """
    with PdfParser(limits or Settings().pdf) as parser:
        for item in iter_pdf_paths(paths):
            if isinstance(item, Problem):
                yield item
                continue
            try:
                paper, warnings = parser.parse(item)
            except SourceError as exc:
                yield Problem(exc.where, exc.why)
                continue
            except Exception as exc:  # a parser bug on one file must not end the run
                yield Problem(str(item), f"could not be parsed ({type(exc).__name__}: {exc})")
                continue
            yield paper
            yield from warnings


def count_pdfs(paths: list[Path]) -> int:
    return sum(1 for _ in iter_pdf_paths(paths))


def count_lines(path: Path) -> int:
    """Lines in a (possibly gzipped) file, for progress bars."""
    with path.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    with gzip.open(path, "rb") if gzipped else path.open("rb") as fh:
        return sum(1 for _ in fh)


def arxiv_papers(path: Path, keep: RecordFilter | None = None) -> Iterator[Paper | Problem]:
    if not path.is_file():
        yield Problem(str(path), "no such file")
        return
    try:
        yield from iter_arxiv_records(path, keep)
    except (OSError, EOFError) as exc:  # e.g. a truncated .gz: what was read so far is kept
        yield Problem(str(path), f"stopped reading ({type(exc).__name__}: {exc})")
