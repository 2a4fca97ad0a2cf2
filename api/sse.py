"""Server-Sent Events for a streamed answer: `delta` pieces, the final `answer`, then `done` (or `error`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from api.errors import problem_of
from assistant.base import AnswerChunk
from assistant.types import Answer

SSE_MEDIA = "text/event-stream"


def event(name: str, data: Any) -> str:
    """One SSE frame; the data is one line of JSON."""
    return f"event: {name}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def answer_json(answer: Answer, conversation_id: str | None) -> dict[str, Any]:
    return {**answer.to_dict(), "conversation_id": conversation_id}


def answer_events(first: AnswerChunk, rest: Iterator[AnswerChunk], conversation_id: str | None) -> Iterator[str]:
    """The frames of a stream whose first chunk was already produced (so errors before it were HTTP errors).

    An error after that point can no longer change the status: it is sent as an `error` event holding the
    problem document, and the stream ends.
    """
    chunk: AnswerChunk | None = first
    try:
        while chunk is not None:
            if chunk.text:
                yield event("delta", {"text": chunk.text})
            if chunk.answer is not None:
                yield event("answer", answer_json(chunk.answer, conversation_id))
            chunk = next(rest, None)
    except Exception as exc:
        yield event("error", problem_of(exc))
        return
    yield event("done", {})
