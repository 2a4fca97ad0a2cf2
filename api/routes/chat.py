"""POST /api/chat: a cited answer as JSON, or streamed as Server-Sent Events."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import StreamingResponse

from api.deps import AssistantDep, SettingsDep, WriteAccess
from api.schemas import AnswerOut, ChatIn
from api.sse import SSE_MEDIA, answer_events, answer_json
from assistant.service import Assistant
from assistant.types import Answer, Scope
from papertalk.errors import InvalidQuestion
from papertalk.settings import Settings

router = APIRouter(tags=["chat"], dependencies=[WriteAccess])

STREAM_DOC: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "The answer as JSON or, when streaming, as `text/event-stream`: `delta` events "
        '(`{"text": …}`), one `answer` event (the JSON answer), then `done`; an error after the stream '
        "started is an `error` event holding a problem document.",
        "content": {SSE_MEDIA: {}},
    }
}


def checked_question(body: ChatIn, settings: Settings) -> str:
    limit = settings.api.max_question_chars
    if len(body.question) > limit:
        raise InvalidQuestion(f"the question is {len(body.question):,} characters long: keep it under {limit:,}")
    return Assistant.clean_question(body.question)


def scope_of(body: ChatIn) -> Scope | None:
    """The body's scope; none for a conversation's turn given no scope (the conversation keeps its own)."""
    if body.conversation_id and body.scope.to_scope() == Scope():
        return None
    return body.scope.to_scope()


VERSION_HEADER = "Papertalk-Changes-Version"


def version_header(answer: Answer) -> str:
    """`17` when the answer rests on the catalog at version 17; `17-19` when writes landed while it was made."""
    before, after = answer.changes_version, answer.changes_version_after
    return str(before) if before == after else f"{before}-{after}"


def wants_stream(request: Request, stream: bool) -> bool:
    return stream or SSE_MEDIA in request.headers.get("accept", "")


def stream_answer(assistant: Assistant, body: ChatIn, settings: Settings) -> StreamingResponse:
    chunks = assistant.stream(checked_question(body, settings), scope_of(body), body.conversation_id)
    first = next(chunks)  # retrieval runs here: a bad scope or an empty store is still an HTTP error
    return StreamingResponse(
        answer_events(first, chunks, body.conversation_id),
        media_type=SSE_MEDIA,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@router.post("/chat", response_model=AnswerOut, responses=STREAM_DOC)
def chat(
    body: ChatIn,
    request: Request,
    response: Response,
    assistant: AssistantDep,
    settings: SettingsDep,
    stream: Annotated[bool, Query(description="Stream the answer as Server-Sent Events.")] = False,
) -> Any:
    """Answer a question from the stored papers, every claim cited with the passage and page it rests on.

    The scope narrows the papers (a topic, one paper, a date range); with `conversation_id` the question is
    read as a follow-up of that conversation and the turn is saved to it. Send `Accept: text/event-stream`
    (or `?stream=true`) to receive the answer as Server-Sent Events. The `Papertalk-Changes-Version` header
    (and the `changes_version` fields) say which state of the store the answer was made from.
    """
    if wants_stream(request, stream):
        return stream_answer(assistant, body, settings)
    answer = assistant.ask(checked_question(body, settings), scope_of(body), body.conversation_id)
    response.headers[VERSION_HEADER] = version_header(answer)
    return answer_json(answer, body.conversation_id)


@router.post("/chat/stream", responses=STREAM_DOC, response_class=StreamingResponse)
def chat_stream(body: ChatIn, assistant: AssistantDep, settings: SettingsDep) -> StreamingResponse:
    """The answer to a question as Server-Sent Events: `delta` pieces, the cited `answer`, then `done`."""
    return stream_answer(assistant, body, settings)
