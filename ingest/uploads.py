"""One PDF given by a user (Ask PDF, an upload): ingested if new, deduplicated by content, id returned."""

from __future__ import annotations

from pathlib import Path

from ingest.parse_worker import parse_isolated
from ingest.pipeline import Ingestor
from papertalk.errors import SourceError
from storage.store import Store


def ingest_pdf(store: Store, path: Path) -> str:
    """The paper id of the PDF at `path`, ingesting it first unless the same content is already stored.

    Raises `SourceError` (naming the file and why) when the PDF can't be used.
    """
    if not path.is_file():
        raise SourceError(str(path), "no such file")
    paper = parse_isolated(path, store.settings.pdf)
    report = Ingestor(store).run([paper])
    if report.failed:
        raise SourceError(str(path), "; ".join(p.why for p in report.errors))
    return paper.paper_id
