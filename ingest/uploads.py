"""One PDF given by a user (Ask PDF, an upload): recognised by its bytes, else parsed and ingested; id returned."""

from __future__ import annotations

import dataclasses
import hashlib
import logging
from dataclasses import dataclass, field
from pathlib import Path

from ingest.parse_worker import parse_isolated
from ingest.pdf import file_digest
from ingest.service import ingest_papers
from ingest.topic_assign import AssignReport
from papertalk.errors import PapertalkError, SourceError
from storage.records import Problem
from storage.store import Store
from storage.uploads import Upload, Uploads, upload_id_of

log = logging.getLogger(__name__)
UPLOAD_DIR = "uploads"


@dataclass(frozen=True)
class PdfResult:
    """The paper a PDF is, whether it was parsed now (False: the same bytes were ingested before), warnings, and
    the topics assigned to it (nothing scored when it was known already)."""

    paper_id: str
    parsed: bool
    warnings: list[Problem] = field(default_factory=list)
    topics: AssignReport = field(default_factory=AssignReport)


def add_pdf(store: Store, path: Path, replace: bool = False) -> PdfResult:
    """The paper the PDF at `path` holds: a file already ingested is looked up by its SHA-256 and not parsed
    again; a new one is parsed and ingested (merged into the stored paper it is a copy of, if any), then
    scored against the topics like any ingested paper (`ingest.service.ingest_papers`).

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
    done = ingest_papers(store, [dataclasses.replace(paper, file_hash=digest)], replace=replace)
    report = done.report
    if report.failed:
        raise SourceError(str(path), "; ".join(p.why for p in report.errors))
    return PdfResult(report.paper_ids[-1], parsed=True, warnings=report.warnings, topics=done.topics)


def ingest_pdf(store: Store, path: Path, replace: bool = False) -> str:
    """The paper id of the PDF at `path` (see `add_pdf`)."""
    return add_pdf(store, path, replace).paper_id


def check_pdf_bytes(name: str, data: bytes) -> None:
    """`SourceError` unless `data` looks like a PDF (it starts with `%PDF-`)."""
    if not data:
        raise SourceError(name, "empty file (0 bytes)")
    if not data.lstrip()[:5] == b"%PDF-":
        raise SourceError(name, f"not a PDF (it starts with {data[:16]!r}): upload a PDF file")


def upload_path(store: Store, upload_id: str) -> Path:
    """Where an upload's bytes are kept: a name papertalk chooses, under the data directory."""
    return store.settings.data_dir / UPLOAD_DIR / f"{upload_id}.pdf"


def receive_upload(store: Store, name: str, data: bytes) -> tuple[Upload, bool]:
    """Record an uploaded PDF (queued) and keep its bytes; (the upload, whether these bytes were known already).

    `name` is only used in messages: the file is stored under a name made from its content hash.
    """
    check_pdf_bytes(name, data)
    digest = hashlib.sha256(data).hexdigest()
    uploads = Uploads(store.catalog)
    known = uploads.find(upload_id_of(digest))
    if known is not None:
        return known, True
    upload = Upload(upload_id_of(digest), digest, len(data), "queued")
    known_paper = store.catalog.paper_of_file(digest)  # a PDF ingested before, e.g. from the CLI
    if known_paper is not None:
        return uploads.save(Upload(upload.upload_id, digest, len(data), "ready", known_paper)), True
    path = upload_path(store, upload.upload_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(path)
    return uploads.save(upload), False


def process_upload(store: Store, upload_id: str) -> Upload:
    """Parse and index a queued upload; its state ends `ready` (with the paper id) or `failed` (with why)."""
    uploads = Uploads(store.catalog)
    uploads.set_state(upload_id, "parsing")
    try:
        paper_id = ingest_pdf(store, upload_path(store, upload_id))
    except SourceError as exc:
        return uploads.set_state(upload_id, "failed", reason=exc.why)
    except PapertalkError as exc:
        return uploads.set_state(upload_id, "failed", reason=str(exc))
    except Exception as exc:  # a background task has nobody to raise to: the state says it failed
        log.exception("upload %s failed", upload_id)
        return uploads.set_state(upload_id, "failed", reason=f"internal error ({type(exc).__name__})")
    return uploads.set_state(upload_id, "ready", paper_id=paper_id)
