"""Conversations in the catalog: a chat has a scope and a list of turns (question, answer JSON)."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from papertalk.errors import NotFound
from storage.catalog import Catalog


@dataclass(frozen=True)
class ChatTurn:
    question: str
    standalone: str
    answer_text: str
    answer: dict[str, Any]


@dataclass(frozen=True)
class Chat:
    chat_id: str
    scope: dict[str, Any]
    title: str
    created_at: str


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Chats:
    """Create chats and append turns; every worker reads the same catalog, so workers stay stateless."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog

    def create(self, scope: dict[str, Any], title: str = "") -> Chat:
        chat = Chat(uuid.uuid4().hex[:16], scope, title[:200], _now())
        self.catalog.transaction(
            [
                (
                    "INSERT INTO chats(chat_id, scope, title, created_at) VALUES(?, ?, ?, ?)",
                    (chat.chat_id, json.dumps(scope), chat.title, chat.created_at),
                )
            ]
        )
        return chat

    def get(self, chat_id: str) -> Chat:
        rows = self.catalog.query("SELECT * FROM chats WHERE chat_id = ?", (chat_id,))
        if not rows:
            raise NotFound(f"no chat {chat_id!r}: start a new one (omit the chat id)")
        r = rows[0]
        return Chat(r["chat_id"], json.loads(r["scope"]), r["title"], r["created_at"])

    def recent(self, limit: int = 50) -> list[Chat]:
        rows = self.catalog.query("SELECT * FROM chats ORDER BY created_at DESC LIMIT ?", (limit,))
        return [Chat(r["chat_id"], json.loads(r["scope"]), r["title"], r["created_at"]) for r in rows]

    def append(self, chat_id: str, question: str, standalone: str, answer_text: str, answer: dict[str, Any]) -> None:
        self.catalog.transaction(
            [
                (
                    "INSERT INTO chat_turns(chat_id, question, standalone, answer_text, answer_json, created_at) "
                    "VALUES(?, ?, ?, ?, ?, ?)",
                    (chat_id, question, standalone, answer_text, json.dumps(answer), _now()),
                )
            ]
        )

    def turns(self, chat_id: str, last: int | None = None) -> list[ChatTurn]:
        rows = self.catalog.query("SELECT * FROM chat_turns WHERE chat_id = ? ORDER BY turn_id", (chat_id,))
        turns = [ChatTurn(r["question"], r["standalone"], r["answer_text"], json.loads(r["answer_json"])) for r in rows]
        return turns[-last:] if last else turns

    def delete(self, chat_id: str) -> None:
        """Remove a chat and its turns; `NotFound` when there is no such chat."""
        self.get(chat_id)
        self.catalog.transaction(
            [
                ("DELETE FROM chat_turns WHERE chat_id = ?", (chat_id,)),
                ("DELETE FROM chats WHERE chat_id = ?", (chat_id,)),
            ]
        )
