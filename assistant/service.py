"""The assistant as the CLI and the HTTP API use it: ask, stream, chat — retrieval, answer, checks, history."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from dataclasses import asdict, replace
from datetime import date
from functools import cached_property
from typing import Any

from assistant.backends import build_answerer
from assistant.base import AnswerChunk, Answerer, Turn
from assistant.compound import parts
from assistant.counts import EXAMPLE_POOL, count_answer, count_of, counted, mentions
from assistant.definitions import with_definition
from assistant.elsewhere import elsewhere_answer, named_elsewhere
from assistant.focus import as_written, camel_names
from assistant.followups import asks_of_the_paper
from assistant.kind_lookup import with_asked_kind
from assistant.lists import list_sources
from assistant.passages import distinct_sources
from assistant.retrieval import HybridRetriever
from assistant.stored_sentences import stored_lookup
from assistant.types import Answer, Passage, Scope
from papertalk.errors import InvalidQuestion, NothingIndexed
from storage.chats import ChatTurn
from storage.store import Store

log = logging.getLogger(__name__)
HISTORY_TURNS = 4  # earlier turns a follow-up is read with
HISTORY_CHARS = 400  # of each earlier question (and standalone question) handed to a rewrite


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
        return build_answerer(self.settings, self.store.embedder, stored_lookup(self.store.sentence_vectors))

    def start_chat(self, scope: Scope, title: str = "") -> str:
        """A new chat in `scope`; refused, as a question would be, when nothing is indexed or the scope is unknown."""
        self.check_ready()
        self.retriever.resolve(scope)
        return self.store.chats.create(scope_to_dict(scope), title).chat_id

    def check_ready(self) -> None:
        """Raise `NothingIndexed` (saying how to add papers) when the store has no indexed paper."""
        if not self.store.catalog.query("SELECT 1 FROM papers WHERE status = 'indexed' LIMIT 1"):
            raise NothingIndexed(
                f"nothing is indexed yet in {self.settings.data_dir}: load the demo papers with "
                "`papertalk demo --load-only`, or add papers with `papertalk ingest FILE.pdf` or "
                "`papertalk ingest-arxiv FILE.jsonl`"
            )

    @staticmethod
    def clean_question(question: str) -> str:
        """The question without surrounding blanks; `InvalidQuestion` when nothing is left."""
        question = question.strip()
        if not question:
            raise InvalidQuestion('the question is empty: ask something about the papers, e.g. "What is S2ORC?"')
        return question

    def ask(self, question: str, scope: Scope | None = None, chat_id: str | None = None) -> Answer:
        """One answer, all at once."""
        answer: Answer | None = None
        for chunk in self.stream(question, scope, chat_id):
            answer = chunk.answer or answer
        assert answer is not None
        return answer

    def stream(self, question: str, scope: Scope | None = None, chat_id: str | None = None) -> Iterator[AnswerChunk]:
        """Text pieces as the backend produces them, then the checked `Answer` (saved to the chat)."""
        question = self.clean_question(question)
        version = self.store.catalog.changes_version  # read first: see `Answer.changes_version`
        self.check_ready()
        scope, history = self._context(scope, chat_id)
        # "What are the limitations?" asked of one paper is asked of that paper, whatever the chat spoke of before
        own = scope.paper_id is not None and asks_of_the_paper(question)
        standalone = self._as_written(question if own else self.answerer.rewrite(question, history), scope)
        thing = counted(standalone) if not scope.paper_id else None  # "How many papers use GRPO?"
        pieces = self._count(question, standalone, thing, scope) if thing else self._answer(question, standalone, scope)
        for chunk in pieces:
            if chunk.answer is not None:
                chunk.answer.changes_version = version
                chunk.answer.changes_version_after = self.store.catalog.changes_version  # before saving the turn
                if chat_id:
                    self.store.chats.append(chat_id, question, standalone, chunk.answer.text, chunk.answer.to_dict())
            yield chunk

    def sources(self, query: str, scope: Scope) -> list[Passage]:
        """The passages a question is answered from, numbered. A question of several parts ("What is GRPO and how do
        agentic papers modify it?", `assistant.compound.parts`) is searched part by part, `top_k` passages for
        each, so that each part's answer is among them."""
        asked = parts(query) if self.settings.answer.compound else [query]
        if len(asked) == 1:
            found = self._found(query, scope, list_sources(query, scope, self.settings))
        else:
            each = [self._found(part, scope, list_sources(part, scope, self.settings)) for part in asked]
            found = list({p.chunk_id: p for p in itertools.chain(*each)}.values())
        return self._numbered(found)

    def _answer(self, question: str, standalone: str, scope: Scope) -> Iterator[AnswerChunk]:
        """The answer from the scope's passages; when the question names a paper outside the scope that no passage
        in it names (`assistant.elsewhere`), the answer that says so and names that paper."""
        sources = self.sources(standalone, scope)
        refs = named_elsewhere(standalone, scope, sources, self.retriever)
        if not refs:
            return self.answerer.stream(question, standalone, sources)
        answer = elsewhere_answer(question, standalone, refs, sources, self._where(scope), self.answerer.name)
        return self.answerer.stream_answer(answer)

    def _where(self, scope: Scope) -> str:
        """The scope as an answer says it: "topic 'RL for LLM Agents'" (its name, not its slug), "this paper"."""
        if scope.paper_id and not (scope.topic or scope.since or scope.until):
            return "this paper"
        return replace(scope, topic=self.store.topics.get(scope.topic).name if scope.topic else None).describe()

    def _numbered(self, found: list[Passage]) -> list[Passage]:
        """`found` as an answer's sources: each abstract-only paper once (`distinct_sources`), numbered from 1."""
        passages = distinct_sources(found, self.store.catalog)
        for number, passage in enumerate(passages, start=1):
            passage.number = number
        return passages

    def _count(self, question: str, standalone: str, thing: str, scope: Scope) -> Iterator[AnswerChunk]:
        """A question that counts papers (`assistant.counts`): how many of the scope's papers name `thing` (every
        chunk the keyword index finds with all its words read, or a sample of their papers), with `top_k` of the
        keyword index's best passages that name it as the sources, a few of them quoted."""
        ids = self.retriever.resolve(scope).paper_ids
        total = len(ids) if ids is not None else self.store.catalog.count_papers("indexed")
        where = f"in {self._where(scope)}" if ids is not None else ""  # "in topic 'RL for LLM Agents'", not its slug
        count = count_of(thing, self.retriever.holding(thing, scope), self.store.catalog.chunk_texts, total, where)
        named = [p for p in self.retriever.keyword_passages(thing, scope, k=EXAMPLE_POOL) if mentions(p.text, thing)]
        sources = self._numbered(named[: self.settings.retrieval.top_k])
        answer = count_answer(question, standalone, count, sources, self.answerer.name)
        yield from self.answerer.stream_answer(answer)

    def _found(self, query: str, scope: Scope, k: int | None) -> list[Passage]:
        """The `k` passages retrieval ranks best for `query` (None: `top_k`), with a passage that says what the
        asked-about name is, or names one of the asked kind, looked up when none of them does."""
        found = self.retriever.retrieve(query, scope, k)
        if self.settings.answer.definitions:
            found = with_definition(self.retriever, query, scope, found)
        if self.settings.answer.kind_lookup:
            found = with_asked_kind(self.retriever, query, scope, found)
        return found

    def _as_written(self, question: str, scope: Scope) -> str:
        """A question about one paper, its CamelCase names written as the paper writes them (`as_written`)."""
        if not scope.paper_id or not camel_names(question):
            return question
        chunks = self.store.catalog.chunks_of(scope.paper_id.removeprefix("arxiv:"))
        return as_written(question, " ".join(c.text for c in chunks))

    def _context(self, scope: Scope | None, chat_id: str | None) -> tuple[Scope, list[Turn]]:
        if not chat_id:
            return scope or Scope(), []
        chat = self.store.chats.get(chat_id)
        turns = self.store.chats.turns(chat_id, last=HISTORY_TURNS)
        return scope or scope_from_dict(chat.scope), [history_turn(t) for t in turns]


def history_turn(turn: ChatTurn) -> Turn:
    """A stored turn as a rewrite reads it: its texts clipped, the title its answer cited first, and the names its
    answer listed."""
    listed = tuple(str(item.get("name", "")) for item in turn.answer.get("items") or [] if item.get("name"))
    return Turn(
        turn.question[:HISTORY_CHARS], turn.answer_text, turn.standalone[:HISTORY_CHARS],
        first_cited_title(turn.answer), listed,
    )  # fmt: skip


def first_cited_title(answer: dict[str, Any]) -> str:
    """The title of the source an answer (as stored, `Answer.to_dict()`) cites first; "" when none."""
    sources = answer.get("sources") or []
    for sentence in answer.get("sentences") or []:
        for citation in sentence.get("citations") or []:
            number = citation.get("number", 0)
            if 0 < number <= len(sources):
                return str(sources[number - 1].get("title", ""))
    return ""
