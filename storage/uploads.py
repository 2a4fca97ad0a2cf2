"""The state of PDFs uploaded for Ask PDF, kept in the catalog's meta table so every worker sees it.

An upload is named by the SHA-256 of its bytes: the same file uploaded twice is the same upload.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Literal

from papertalk.errors import NotFound
from storage.catalog import Catalog

UploadState = Literal["queued", "parsing", "ready", "failed"]
_KEY = "upload:"


@dataclass(frozen=True)
class Upload:
    upload_id: str
    sha256: str
    size: int
    status: UploadState
    paper_id: str | None = None
    reason: str | None = None


def upload_id_of(sha256: str) -> str:
    return sha256[:24]


class Uploads:
    """Read and record upload states."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def find(self, upload_id: str) -> Upload | None:
        raw = self.catalog.get_meta(_KEY + upload_id)
        return Upload(**json.loads(raw)) if raw else None

    def get(self, upload_id: str) -> Upload:
        upload = self.find(upload_id)
        if upload is None:
            raise NotFound(f"no upload {upload_id!r}: upload the PDF with POST /api/uploads")
        return upload

    def save(self, upload: Upload) -> Upload:
        self.catalog.set_meta(_KEY + upload.upload_id, json.dumps(asdict(upload)))
        return upload

    def set_state(
        self, upload_id: str, status: UploadState, paper_id: str | None = None, reason: str | None = None
    ) -> Upload:
        return self.save(replace(self.get(upload_id), status=status, paper_id=paper_id, reason=reason))
