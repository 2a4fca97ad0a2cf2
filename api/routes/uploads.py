"""Ask PDF uploads: a PDF in, its upload id and state out; parsed and indexed in the background."""

from __future__ import annotations

from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, BackgroundTasks, File, UploadFile
from starlette.concurrency import run_in_threadpool

from api.deps import SettingsDep, StoreDep, WriteAccess
from api.errors import TooLarge, UnsupportedMedia
from api.limits import MB
from api.schemas import UploadOut
from ingest.uploads import check_pdf_bytes, process_upload, receive_upload
from papertalk.errors import SourceError
from storage.uploads import Upload, Uploads

router = APIRouter(prefix="/uploads", tags=["uploads"])


def upload_json(upload: Upload, known: bool = False) -> UploadOut:
    return UploadOut(**asdict(upload), known=known)


async def read_limited(file: UploadFile, limit_mb: float) -> bytes:
    limit = int(limit_mb * MB)
    data = await file.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(
            f"the file is larger than the upload limit ({limit_mb:g} MB, setting PAPERTALK_API__MAX_UPLOAD_MB)"
        )
    return data


@router.post("", response_model=UploadOut, status_code=202, dependencies=[WriteAccess])
async def upload_pdf(
    file: Annotated[UploadFile, File(description="A PDF.")],
    store: StoreDep,
    settings: SettingsDep,
    tasks: BackgroundTasks,
) -> Any:
    """Upload a PDF to ask questions about (Ask PDF).

    The reply comes at once with the upload's id and state; the PDF is parsed and indexed in the background
    (watch `GET /api/uploads/{id}` until `ready`, then ask with `scope.paper_id`). The same bytes uploaded
    again are recognised (`known`) and not parsed again. Too large: 413; not a PDF: 415.
    """
    data = await read_limited(file, settings.api.max_upload_mb)
    name = "the uploaded file"  # the client's file name is never used as a path, nor echoed
    try:
        check_pdf_bytes(name, data)
    except SourceError as exc:
        raise UnsupportedMedia(f"{exc.why}") from None
    upload, known = await run_in_threadpool(receive_upload, store, name, data)
    if upload.status == "queued" and not known:
        tasks.add_task(process_upload, store, upload.upload_id)
    return upload_json(upload, known)


@router.get("/{upload_id}", response_model=UploadOut)
def get_upload(upload_id: str, store: StoreDep) -> Any:
    """An upload's state: queued, parsing, ready (with the paper id) or failed (with the reason)."""
    return upload_json(Uploads(store.catalog).get(upload_id))
