"""The assistant as the CLI uses it (and the planned HTTP API will): ask, stream, chat — retrieval, answer, checks,
history."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import asdict
from datetime import date
from functools import cached_property
from typing import Any

from assistant.backends import build_answerer
from assistant.base import AnswerChunk, Answerer, Turn
from assistant.retrieval import HybridRetriever
from assistant.types import Answer, Passage, Scope
from storage.store import Store

log = logging.getLogger(__name__)
HISTORY_TURNS = 4


def scope_to_dict(scope: Scope) -> dict[str, Any]:
    data = asdict(scope)
    return {k: (v.isoformat() if isinstance(v, date) else v) for k, v in data.items() if v is not None}


def scope_from_dict(data: dict[str, Any]) -> Scope:
    return Scope(
        topic=data.get("topic"),
        paper_id=data.get("paper_id"),
        since=date.fromisoformat(data["since"]) if data.get("since") else None,
        until=date.fromisoformat(data["until"]) if data.get("until") else None,
    )


class Assistant:
    """Answers questions about the stored papers; multi-turn when given a chat id."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.settings = store.settings

    @cached_property
    def retriever(self) -> HybridRetriever:
        return HybridRetriever(self.store)

    @cached_property
    def answerer(self) -> Answerer:
        return build_answerer(self.settings, self.store.embedder)

    def start_chat(self, scope: Scope, title: str = "") -> str:
        return self.store.chats.create(scope_to_dict(scope), title).chat_id

    def ask(self, question: str, scope: Scope | None = None, chat_id: str | None = None) -> Answer:
        """One answer, all at once."""
        answer: Answer | None = None
        for chunk in self.stream(question, scope, chat_id):
            answer = chunk.answer or answer
        assert answer is not None
        return answer

    def stream(self, question: str, scope: Scope | None = None, chat_id: str | None = None) -> Iterator[AnswerChunk]:
        """Text pieces as the backend produces them, then the checked `Answer` (saved to the chat)."""
        question = question.strip()
        scope, history = self._context(scope, chat_id)
        standalone = self.answerer.rewrite(question, history)
        sources = self.sources(standalone, scope)
        for chunk in self.answerer.stream(question, standalone, sources):
            if chunk.answer is not None and chat_id:
                self.store.chats.append(chat_id, question, standalone, chunk.answer.text, chunk.answer.to_dict())
            yield chunk

    def sources(self, query: str, scope: Scope) -> list[Passage]:
        passages = self.retriever.retrieve(query, scope)
        for number, passage in enumerate(passages, start=1):
            passage.number = number
        return passages

    def _context(self, scope: Scope | None, chat_id: str | None) -> tuple[Scope, list[Turn]]:
        if not chat_id:
            return scope or Scope(), []
        chat = self.store.chats.get(chat_id)
        turns = self.store.chats.turns(chat_id, last=HISTORY_TURNS)
        history = [Turn(t.question, t.answer_text, t.standalone) for t in turns]
        return scope or scope_from_dict(chat.scope), history
