"""One PDF given by a user (Ask PDF, an upload): ingested if new, deduplicated by content, id returned."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from ingest.pdf import read_pdf
from ingest.pipeline import Ingestor
from papertalk.errors import PapertalkError, SourceError
from storage.store import Store
from storage.uploads import Upload, Uploads, upload_id_of

log = logging.getLogger(__name__)
UPLOAD_DIR = "uploads"


def ingest_pdf(store: Store, path: Path) -> str:
    """The paper id of the PDF at `path`, ingesting it first unless the same content is already stored.

    Raises `SourceError` (naming the file and why) when the PDF can't be used.
    """
    if not path.is_file():
        raise SourceError(str(path), "no such file")
    paper = read_pdf(path)
    report = Ingestor(store).run([paper])
    if report.failed:
        raise SourceError(str(path), "; ".join(p.why for p in report.errors))
    return paper.paper_id


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
    existing = store.catalog.get(f"pdf-{digest[:16]}")  # a PDF ingested before, e.g. from the CLI
    if existing is not None and existing.status == "indexed":
        return uploads.save(Upload(upload.upload_id, digest, len(data), "ready", existing.paper_id)), True
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
