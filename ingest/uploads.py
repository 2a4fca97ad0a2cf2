"""One PDF given by a user (Ask PDF, an upload): recognised by its bytes, else parsed and ingested; id returned."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path

from ingest.parse_worker import parse_isolated
from ingest.pdf import file_digest
from ingest.pipeline import Ingestor
from papertalk.errors import SourceError
from storage.records import Problem
from storage.store import Store


@dataclass(frozen=True)
class PdfResult:
    """The paper a PDF is, whether it was parsed now (False: the same bytes were ingested before), and warnings."""

    paper_id: str
    parsed: bool
    warnings: list[Problem] = field(default_factory=list)


def add_pdf(store: Store, path: Path, replace: bool = False) -> PdfResult:
    """The paper the PDF at `path` holds: a file already ingested is looked up by its SHA-256 and not parsed
    again; a new one is parsed and ingested (merged into the stored paper it is a copy of, if any).

    A file with less text than the stored version of its paper does not replace it (a warning says so),
    unless `replace`, which also parses a known file again.

    Raises `SourceError` (naming the file and why) when the PDF can't be used.
    """
    if not path.is_file():
        raise SourceError(str(path), "no such file")
    digest = file_digest(path)
    known = None if replace else store.catalog.paper_of_file(digest)
    if known is not None:
        return PdfResult(known, parsed=False)
    paper = parse_isolated(path, store.settings.pdf)
    report = Ingestor(store, replace=replace).run([dataclasses.replace(paper, file_hash=digest)])
    if report.failed:
        raise SourceError(str(path), "; ".join(p.why for p in report.errors))
    return PdfResult(report.paper_ids[-1], parsed=True, warnings=report.warnings)


def ingest_pdf(store: Store, path: Path, replace: bool = False) -> str:
    """The paper id of the PDF at `path` (see `add_pdf`)."""
    return add_pdf(store, path, replace).paper_id
