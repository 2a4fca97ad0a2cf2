"""The generative answer backend: any OpenAI-compatible chat server, through llama-index and the `openai` client.

The sources go into the prompt numbered [1]..[n]; the reply is checked by `CitationChecker` (citations to
missing sources dropped, each cited sentence matched to a span of its source, weak ones marked). Failures of
the server surface as `LLMUnavailable`, whose message says what failed and what to change.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import httpx
import openai
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.llms.openai_like import OpenAILike

from assistant.base import AnswerChunk, Answerer, Turn
from assistant.citations import CitationChecker, numbered, strip_reasoning
from assistant.extractive import NOT_ANSWERED
from assistant.leaks import NOTE as LEAK_NOTE
from assistant.leaks import LeakGuard
from assistant.types import Answer, Passage
from papertalk.errors import ConfigurationError, NetworkError
from papertalk.settings import Settings
from prompts import load_prompt

log = logging.getLogger(__name__)

OPENAI_URL = "https://api.openai.com/v1"
CONTEXT_WINDOW = 16_000  # tokens; only used by llama-index's bookkeeping, the server enforces its own
HISTORY_ANSWER_CHARS = 600  # of each earlier answer, in a rewrite prompt
FALLBACK = "or answer offline with PAPERTALK_LLM__BACKEND=extractive"
STREAM_SLACK = 2  # a reply may come in up to this many times `max_tokens` pieces before it is cut off
LEAK_WINDOW = 400  # characters at the end of a streamed reply checked for repeated instructions
MALFORMED = (ValueError, KeyError, IndexError, TypeError, AttributeError)  # a reply that is not what the API says


class LLMUnavailable(NetworkError):
    """The LLM server could not be reached, timed out, refused the key or failed."""


def build_llm(settings: Settings) -> OpenAILike:
    """A chat LLM for any model name on any OpenAI-compatible server; retries happen in the `openai` client."""
    llm = settings.llm
    base_url = settings.llm_base_url()
    key = settings.llm_api_key()
    if not key and not base_url:
        raise ConfigurationError(
            "the `openai` answer backend needs an API key: set OPENAI_API_KEY (or PAPERTALK_LLM__API_KEY), or point "
            f"OPENAI_BASE_URL at a local OpenAI-compatible server, {FALLBACK}"
        )
    key = key or "unused"  # local servers (vLLM, Ollama, llama.cpp) accept any key
    client = openai.OpenAI(api_key=key, base_url=base_url, timeout=llm.timeout_s, max_retries=llm.max_retries)
    return OpenAILike(
        model=llm.model,
        api_base=str(client.base_url),
        api_key=key,
        is_chat_model=True,
        context_window=CONTEXT_WINDOW,
        temperature=llm.temperature,
        max_tokens=llm.max_tokens,
        timeout=llm.timeout_s,
        max_retries=0,  # the client above retries; a second layer would multiply the attempts
        openai_client=client,
    )


def describe_failure(exc: Exception, settings: Settings) -> str:
    """What went wrong with the LLM server, and what to do about it."""
    url = settings.llm_base_url() or OPENAI_URL
    model = settings.llm.model
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return (
            f"the LLM server at {url} did not answer within {settings.llm.timeout_s:g} s: check that it is running "
            f"and not overloaded, raise PAPERTALK_LLM__TIMEOUT_S, {FALLBACK}"
        )
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        return (
            f"could not connect to the LLM server at {url}: check OPENAI_BASE_URL (or PAPERTALK_LLM__BASE_URL) and "
            f"that the server is running, {FALLBACK}"
        )
    if isinstance(exc, openai.AuthenticationError | openai.PermissionDeniedError):
        return (
            f"the LLM server at {url} refused the API key (HTTP {exc.status_code}): set OPENAI_API_KEY "
            f"(or PAPERTALK_LLM__API_KEY) to a valid key, {FALLBACK}"
        )
    if isinstance(exc, openai.NotFoundError):
        return (
            f"the LLM server at {url} has no model {model!r} or no chat endpoint (HTTP 404): check "
            f"PAPERTALK_LLM__MODEL and that OPENAI_BASE_URL ends with the API root (often /v1)"
        )
    if isinstance(exc, openai.RateLimitError):
        return f"the LLM server at {url} is rate limiting requests (HTTP 429): wait a moment and ask again"
    if isinstance(exc, openai.APIStatusError):
        kind = "failed" if exc.status_code >= 500 else "rejected the request"
        return (
            f"the LLM server at {url} {kind} (HTTP {exc.status_code}: {_detail(exc)}) after "
            f"{settings.llm.max_retries} retries: check the server and its logs, then ask again, {FALLBACK}"
        )
    what = f"{type(exc).__name__}: {str(exc)[:200]}"
    return f"the LLM server at {url} answered badly ({what}): check the server, {FALLBACK}"


def endless(settings: Settings, pieces: int) -> str:
    """The message for a reply cut off because it went on too long."""
    url = settings.llm_base_url() or OPENAI_URL
    llm = settings.llm
    return (
        f"the LLM server at {url} kept sending past {pieces:,} pieces or {llm.answer_timeout_s:g} s without ending "
        f"its reply (PAPERTALK_LLM__MAX_TOKENS is {llm.max_tokens}): check the server, raise "
        f"PAPERTALK_LLM__ANSWER_TIMEOUT_S for a slow one, {FALLBACK}"
    )


def _detail(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        message = error.get("message") if isinstance(error, dict) else error
        if message:
            return str(message)[:200]
    return exc.message[:200]


@contextmanager
def _llm_errors(settings: Settings) -> Iterator[None]:
    try:
        yield
    except (openai.OpenAIError, httpx.HTTPError, *MALFORMED) as exc:
        message = describe_failure(exc, settings)
        log.debug("LLM call failed: %r", exc)
        raise LLMUnavailable(message) from exc


def format_sources(sources: Sequence[Passage]) -> str:
    template = load_prompt("source")
    return "\n\n".join(
        template.render(number=n, label=p.label(), text=" ".join(p.text.split())).strip()
        for n, p in numbered(sources).items()
    )


def format_history(history: Sequence[Turn]) -> str:
    lines = []
    for turn in history:
        answer = " ".join(turn.answer.split())
        if len(answer) > HISTORY_ANSWER_CHARS:
            answer = answer[:HISTORY_ANSWER_CHARS].rsplit(" ", 1)[0] + " ..."
        lines += [f"User: {turn.question}", f"Assistant: {answer}"]
    return "\n".join(lines)


def _clean_question(reply: str) -> str:
    """The first non-empty line of a rewrite reply, without a label or quotes."""
    for line in reply.splitlines():
        line = line.strip()
        if line.lower().startswith("standalone question:"):
            line = line.split(":", 1)[1].strip()
        line = line.strip("\"'`* ")
        if line:
            return line
    return ""


class OpenAIAnswerer(Answerer):
    """Generative answers from an OpenAI-compatible server, checked against their sources."""

    name = "openai"

    def __init__(self, settings: Settings, embedder: BaseEmbedding) -> None:
        self.settings = settings
        self.llm = build_llm(settings)
        self.checker = CitationChecker(embedder, settings.answer)

    def messages(self, standalone: str, sources: Sequence[Passage]) -> list[ChatMessage]:
        system = load_prompt("answer_system").render(not_answered=NOT_ANSWERED)
        user = load_prompt("answer_user").render(sources=format_sources(sources), question=standalone)
        return [ChatMessage(role=MessageRole.SYSTEM, content=system), ChatMessage(role=MessageRole.USER, content=user)]

    def guard(self, standalone: str, sources: Sequence[Passage]) -> LeakGuard:
        """What the reply must not repeat: the instructions (less what the sources and question say too)."""
        system = load_prompt("answer_system").render(not_answered="")
        return LeakGuard(system, [NOT_ANSWERED, standalone, *(p.text for p in sources)])

    def answer(self, question: str, standalone: str, sources: list[Passage]) -> Answer:
        """The checked answer; asked for as a stream, so that a reply that never ends is cut off too."""
        if not sources:
            return self._nothing_found(question, standalone)
        reply = "".join(self._pieces(self.messages(standalone, sources)))
        return self._checked(question, standalone, reply, sources)

    def stream(self, question: str, standalone: str, sources: list[Passage]) -> Iterator[AnswerChunk]:
        """Tokens as the server sends them (until the reply starts repeating the instructions), then the
        checked `Answer`."""
        if not sources:
            answer = self._nothing_found(question, standalone)
            yield AnswerChunk(text=answer.text)
            yield AnswerChunk(answer=answer)
            return
        guard = self.guard(standalone, sources)
        reply, leaking = "", False
        for piece in self._pieces(self.messages(standalone, sources)):
            reply += piece
            leaking = leaking or guard.leaks(reply[-LEAK_WINDOW:])  # once it starts, the rest stays back
            if not leaking:
                yield AnswerChunk(text=piece)
        yield AnswerChunk(answer=self._checked(question, standalone, reply, sources, guard))

    def _checked(
        self, question: str, standalone: str, reply: str, sources: list[Passage], guard: LeakGuard | None = None
    ) -> Answer:
        cleaned, leaked = (guard or self.guard(standalone, sources)).clean(reply)
        answer = self.checker.check(question, standalone, cleaned, sources, self.name)
        if leaked:
            answer.notes.append(LEAK_NOTE.format(n=leaked))
        return answer

    def _pieces(self, messages: list[ChatMessage]) -> Iterator[str]:
        """The reply's text as it arrives, within `answer_timeout_s` and `STREAM_SLACK` x `max_tokens` pieces
        (the client's timeout bounds each wait, not a reply that never ends)."""
        deadline = time.monotonic() + self.settings.llm.answer_timeout_s
        limit = STREAM_SLACK * self.settings.llm.max_tokens
        n = 0
        with _llm_errors(self.settings):
            for n, piece in enumerate(self.llm.stream_chat(messages), 1):
                if n > limit or time.monotonic() > deadline:
                    raise LLMUnavailable(endless(self.settings, n - 1))
                if piece.delta:
                    yield piece.delta
        if n == 0:  # not one event: the server is not speaking the chat completions stream format
            raise LLMUnavailable(describe_failure(ValueError("no completion events in its reply"), self.settings))

    def rewrite(self, question: str, history: list[Turn]) -> str:
        """The follow-up rewritten by the LLM to stand alone; no call without history."""
        if not history:
            return question
        prompt = load_prompt("rewrite").render(history=format_history(history), question=question)
        with _llm_errors(self.settings):
            reply = self.llm.chat([ChatMessage(role=MessageRole.USER, content=prompt)])
        rewritten = _clean_question(strip_reasoning(reply.message.content or ""))
        log.debug("rewrote %r as %r", question, rewritten)
        return rewritten or question

    def _nothing_found(self, question: str, standalone: str) -> Answer:
        return Answer(
            question,
            standalone,
            NOT_ANSWERED,
            [],
            [],
            self.name,
            abstained=True,
            notes=["no passage of the indexed papers matched the question, so the LLM was not asked"],
        )
