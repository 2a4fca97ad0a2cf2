"""Conversations: started with a scope, listed, read turn by turn, deleted."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Response

from api.deps import AssistantDep, StoreDep, WriteAccess
from api.schemas import ConversationIn, ConversationOut, ConversationTurns
from storage.chats import Chat

router = APIRouter(prefix="/conversations", tags=["conversations"])


def conversation_json(chat: Chat) -> dict[str, Any]:
    return {"conversation_id": chat.chat_id, "scope": chat.scope, "title": chat.title, "created_at": chat.created_at}


@router.post("", response_model=ConversationOut, status_code=201, dependencies=[WriteAccess])
def create_conversation(body: ConversationIn, assistant: AssistantDep) -> Any:
    """Start a conversation in a scope; its turns are asked with `POST /api/chat` and its id."""
    chat_id = assistant.start_chat(body.scope.to_scope(), body.title)
    return conversation_json(assistant.store.chats.get(chat_id))


@router.get("", response_model=list[ConversationOut])
def list_conversations(store: StoreDep, limit: Annotated[int, Query(ge=1, le=500)] = 50) -> Any:
    """The most recent conversations, newest first."""
    return [conversation_json(chat) for chat in store.chats.recent(limit)]


@router.get("/{conversation_id}", response_model=ConversationTurns)
def get_conversation(conversation_id: str, store: StoreDep) -> Any:
    """One conversation with its turns in order, each with its cited answer."""
    chat = store.chats.get(conversation_id)
    turns = [
        {
            "question": t.question,
            "standalone_question": t.standalone,
            "answer": {**t.answer, "conversation_id": chat.chat_id},
        }
        for t in store.chats.turns(conversation_id)
    ]
    return {**conversation_json(chat), "turns": turns}


@router.delete("/{conversation_id}", status_code=204, dependencies=[WriteAccess])
def delete_conversation(conversation_id: str, store: StoreDep) -> Response:
    """Delete a conversation and its turns."""
    store.chats.delete(conversation_id)
    return Response(status_code=204)
