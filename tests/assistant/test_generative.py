"""The `openai` backend against a real OpenAI-compatible HTTP server on 127.0.0.1, over a real corpus.

The server's replies quote sentences of the sources it was actually sent, so every check depends on what
retrieval found and what the prompt carried.
"""

from __future__ import annotations

import re
import shutil
import socket
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from assistant.base import Turn
from assistant.extractive import NOT_ANSWERED
from assistant.generative import LLMUnavailable, OpenAIAnswerer
from assistant.service import Assistant
from assistant.types import Answer, Passage, Scope
from papertalk.errors import ConfigurationError, NetworkError
from papertalk.settings import Settings
from storage.store import Store
from tests.helpers.cli import run_cli
from tests.helpers.openai_server import ChatServer, Reply, Request, serve, tokens

QUESTION = "What is the S2ORC corpus and how many papers does it contain?"
INVENTED = "The authors trained the parser on lunar soil samples returned by the Apollo missions"


@pytest.fixture(scope="module")
def server() -> Iterator[ChatServer]:
    with serve() as running:
        yield running


@pytest.fixture
def llm(server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> ChatServer:
    """The server, reset, and the environment pointing papertalk's `openai` backend at it."""
    server.reset()
    monkeypatch.setenv("PAPERTALK_LLM__BACKEND", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", server.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("PAPERTALK_LLM__MAX_RETRIES", "0")
    return server


@pytest.fixture
def llm_store(llm: ChatServer, corpus_dir: Path) -> Iterator[Store]:
    store = Store(Settings(data_dir=corpus_dir))  # read after `llm` set the environment
    yield store
    store.close()


@pytest.fixture
def assistant(llm_store: Store) -> Assistant:
    return Assistant(llm_store)


def prompt_sources(request: Request) -> dict[int, str]:
    """The numbered sources as the server received them: {n: text}."""
    blocks = re.findall(r"^\[(\d+)\] [^\n]*\n([^\n]+)", request.content("user"), flags=re.MULTILINE)
    return {int(n): text for n, text in blocks}


def first_sentence(text: str) -> str:
    from ingest.sentences import split_sentences

    return next(s.text for s in split_sentences(text) if len(s.text) > 50 and s.text.endswith(".")).rstrip(".")


def quoting(*numbers: int, extra: str = "") -> Callable[[Request], Reply]:
    """A responder that answers with the first real sentence of each numbered source, cited."""

    def respond(request: Request) -> Reply:
        found = prompt_sources(request)
        return Reply(" ".join(f"{first_sentence(found[n])} [{n}]." for n in numbers) + extra)

    return respond


def check_spans(answer: Answer) -> None:
    for s in answer.sentences:
        for c in s.citations:
            passage = answer.sources[c.number - 1]
            assert passage.number == c.number and passage.chunk_id == c.chunk_id
            assert passage.text[c.span_start : c.span_end] == c.quote != ""


def test_answer_cites_real_passages_end_to_end(assistant: Assistant, llm: ChatServer) -> None:
    llm.responder = quoting(1, 2)
    answer = assistant.ask(QUESTION)
    assert isinstance(assistant.answerer, OpenAIAnswerer) and answer.backend == "openai"
    (request,) = llm.requests
    system, user = request.content("system"), request.content("user")
    assert "Cite every sentence" in system and NOT_ANSWERED in system
    for passage in answer.sources:
        assert f"[{passage.number}] {passage.label()}\n" in user
    assert user.rstrip().endswith("Answer with citations:") and f"Question: {QUESTION}" in user
    assert "S2ORC" in answer.sources[0].title or "S2ORC" in answer.sources[0].text
    assert len(answer.sentences) == 2 and answer.removed_citations == []
    check_spans(answer)
    for n, s in enumerate(answer.sentences, start=1):
        (citation,) = s.citations
        assert citation.number == n and s.supported and (s.support or 0) > 0.9
        assert " ".join(citation.quote.split()).rstrip(".") == s.text.rstrip(".")
    assert "[1]" in answer.text and "[2]" in answer.text


def test_a_topic_question_about_a_paper_outside_it_names_that_paper_without_asking_the_llm(
    assistant: Assistant, llm: ChatServer
) -> None:
    from storage.topics import slugify
    from tests.conftest import TOPIC

    llm.responder = quoting(1)
    answer = assistant.ask(QUESTION, Scope(topic=slugify(TOPIC)))  # S2ORC is in the library, not in the topic
    assert answer.backend == "openai" and answer.abstained
    assert [r.name for r in answer.elsewhere] == ["S2ORC"] and llm.requests == []


def with_llm(settings: Settings, **changes: object) -> Settings:
    return settings.model_copy(update={"llm": settings.llm.model_copy(update=changes)})


def sources_for(store: Store, query: str = QUESTION) -> list[Passage]:
    return Assistant(store).sources(query, Scope())


def test_citation_to_a_source_that_does_not_exist_is_removed(llm_store: Store, llm: ChatServer) -> None:
    sources = sources_for(llm_store)
    missing = len(sources) + 5
    llm.responder = lambda r: Reply(
        f"{first_sentence(prompt_sources(r)[1])} [1, {missing}]. {first_sentence(prompt_sources(r)[2])} [{missing}]."
    )
    answer = OpenAIAnswerer(llm_store.settings, llm_store.embedder).answer(QUESTION, QUESTION, sources)
    assert answer.removed_citations == [missing]
    cited = [int(n) for marker in re.findall(r"\[([\d,\s]+)\]", answer.text) for n in marker.split(",")]
    assert missing not in cited and answer.text.count("[1]") == 1
    first, second = answer.sentences
    assert [c.number for c in first.citations] == [1] and first.supported
    assert second.citations == [] and not second.supported
    check_spans(answer)


def test_unsupported_sentence_is_marked(llm_store: Store, llm: ChatServer) -> None:
    sources = sources_for(llm_store)
    llm.responder = quoting(1, extra=f" {INVENTED} [2].")
    answer = OpenAIAnswerer(llm_store.settings, llm_store.embedder).answer(QUESTION, QUESTION, sources)
    good, bad = answer.sentences
    assert good.supported and bad.text.startswith(INVENTED)
    assert not bad.supported and (bad.support or 0) < llm_store.settings.answer.support_threshold
    assert bad.citations[0].number == 2
    check_spans(answer)


def test_streaming_yields_tokens_as_they_arrive_then_the_checked_answer(assistant: Assistant, llm: ChatServer) -> None:
    gap = 0.03

    def respond(request: Request) -> Reply:
        return Reply(quoting(2, 1)(request).text, gap=gap)

    llm.responder = respond
    arrivals: list[tuple[float, str]] = []
    final: list[Answer] = []
    for chunk in assistant.stream(QUESTION):
        if chunk.text:
            arrivals.append((time.monotonic(), chunk.text))
        if chunk.answer is not None:
            final.append(chunk.answer)
    (answer,) = final
    pieces = [text for _, text in arrivals]
    assert pieces == tokens("".join(pieces)) and len(pieces) > 10
    assert "".join(pieces) == answer.text  # nothing was removed from this answer
    assert arrivals[-1][0] - arrivals[0][0] > gap * (len(pieces) - 1) * 0.5  # not delivered all at once
    assert [c.number for s in answer.sentences for c in s.citations] == [2, 1]
    assert all(s.supported for s in answer.sentences)
    check_spans(answer)
    assert llm.requests[0].body["stream"] is True


def test_follow_up_is_rewritten_with_the_history(llm: ChatServer, corpus_dir: Path, tmp_path: Path) -> None:
    data = tmp_path / "copy"
    shutil.copytree(corpus_dir, data)  # the chat is saved: keep the shared corpus as it was
    store = Store(Settings(data_dir=data))
    assistant = Assistant(store)
    standalone = "How many papers does the S2ORC corpus of academic papers contain?"

    def respond(request: Request) -> Reply:
        if "Follow-up question:" in request.content("user"):
            return Reply(f"Standalone question: {standalone}")
        return quoting(1)(request)

    llm.responder = respond
    chat = assistant.start_chat(Scope())
    first = assistant.ask("What is S2ORC?", chat_id=chat)
    assert len(llm.requests) == 1  # no history, no rewrite call
    second = assistant.ask("How big is it?", chat_id=chat)
    rewrite, answer_request = llm.requests[1:]
    prompt = rewrite.content("user")
    assert "User: What is S2ORC?" in prompt and f"Assistant: {first.text[:80]}" in prompt
    assert "Follow-up question: How big is it?" in prompt
    assert second.question == "How big is it?" and second.standalone_question == standalone
    assert f"Question: {standalone}" in answer_request.content("user")
    assert [t.question for t in store.chats.turns(chat)] == ["What is S2ORC?", "How big is it?"]
    store.close()


def test_rewrite_keeps_the_question_when_the_reply_is_empty(llm_store: Store, llm: ChatServer) -> None:
    llm.script.append(Reply("  \n"))
    answerer = OpenAIAnswerer(llm_store.settings, llm_store.embedder)
    assert answerer.rewrite("And its licence?", [Turn("What is S2ORC?", "A corpus [1].")]) == "And its licence?"
    assert "User: What is S2ORC?\nAssistant: A corpus [1]." in llm.requests[0].content("user")


def test_model_name_and_generation_settings_reach_the_server(
    llm_store: Store, llm: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in {"MODEL": "qwen2.5-7b-instruct-local", "TEMPERATURE": "0.3", "MAX_TOKENS": "123"}.items():
        monkeypatch.setenv(f"PAPERTALK_LLM__{key}", value)
    llm.script.append(Reply(NOT_ANSWERED))
    answer = OpenAIAnswerer(Settings(), llm_store.embedder).answer("q", "q", sources_for(llm_store)[:2])
    (request,) = llm.requests
    assert request.body["model"] == "qwen2.5-7b-instruct-local"
    assert request.body["temperature"] == 0.3 and request.body["max_tokens"] == 123
    assert request.headers["Authorization"] == "Bearer test"
    assert answer.abstained and all(s.supported for s in answer.sentences)


def test_no_sources_means_no_call(llm_store: Store, llm: ChatServer) -> None:
    answerer = OpenAIAnswerer(llm_store.settings, llm_store.embedder)
    answer = answerer.answer("q", "q", [])
    streamed = list(answerer.stream("q", "q", []))
    assert answer.abstained and streamed[-1].answer is not None and streamed[-1].answer.abstained
    assert llm.requests == []


def test_server_error_is_retried_then_explained(llm_store: Store, llm: ChatServer) -> None:
    llm.script += [Reply(status=500, text="CUDA out of memory")] * 2
    settings = llm_store.settings.model_copy(
        update={"llm": llm_store.settings.llm.model_copy(update={"max_retries": 1})}
    )
    answerer = OpenAIAnswerer(settings, llm_store.embedder)
    with pytest.raises(LLMUnavailable) as caught:
        list(answerer.stream(QUESTION, QUESTION, sources_for(llm_store)))
    message = str(caught.value)
    assert "HTTP 500" in message and "CUDA out of memory" in message and llm.url in message
    assert "PAPERTALK_LLM__BACKEND=extractive" in message
    assert len(llm.requests) == 2 and isinstance(caught.value, NetworkError)


def test_timeout_is_explained(llm_store: Store, llm: ChatServer) -> None:
    llm.script.append(Reply("too late", delay=5))
    settings = llm_store.settings.model_copy(
        update={"llm": llm_store.settings.llm.model_copy(update={"timeout_s": 0.5})}
    )
    answerer, sources = OpenAIAnswerer(settings, llm_store.embedder), sources_for(llm_store)
    started = time.monotonic()  # only the wait for the server is timed (retrieval is slow on a busy machine)
    with pytest.raises(LLMUnavailable, match=r"did not answer within 0.5 s.*PAPERTALK_LLM__TIMEOUT_S"):
        answerer.answer(QUESTION, QUESTION, sources)
    assert time.monotonic() - started < 3


def test_refused_connection_and_bad_key_are_explained(
    llm_store: Store, llm: ChatServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    sources = sources_for(llm_store)
    llm.script.append(Reply(status=401, text="invalid api key"))
    with pytest.raises(LLMUnavailable, match=r"refused the API key \(HTTP 401\).*OPENAI_API_KEY"):
        OpenAIAnswerer(llm_store.settings, llm_store.embedder).answer(QUESTION, QUESTION, sources)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", closed)
    with pytest.raises(
        LLMUnavailable, match=rf"could not connect to the LLM server at {closed}: check OPENAI_BASE_URL"
    ):
        OpenAIAnswerer(Settings(), llm_store.embedder).rewrite("And then?", [Turn("What is S2ORC?", "A corpus.")])


def test_missing_key_and_server_is_a_configuration_error(llm_store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        OpenAIAnswerer(Settings(), llm_store.embedder)


def test_cli_reports_a_server_failure_in_one_line(llm: ChatServer, corpus_dir: Path) -> None:
    llm.script.append(Reply(status=503, text="model is loading"))
    result = run_cli("ask", QUESTION, PAPERTALK_DATA_DIR=str(corpus_dir))
    assert result.returncode == 2, result.stderr
    assert "HTTP 503" in result.stderr and "model is loading" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    assert len(llm.requests) == 1


def test_rewrite_prompt_stays_bounded_however_long_the_chat(llm: ChatServer, corpus_dir: Path, tmp_path: Path) -> None:
    from assistant.generative import HISTORY_ANSWER_CHARS
    from assistant.service import HISTORY_CHARS, HISTORY_TURNS
    from prompts import load_prompt

    data = tmp_path / "copy"
    shutil.copytree(corpus_dir, data)
    store = Store(Settings(data_dir=data))
    assistant = Assistant(store)

    def respond(request: Request) -> Reply:
        if "Follow-up question:" in request.content("user"):
            return Reply("What does S2ORC contain?")
        return quoting(1, extra=" " + "More words. " * 200)(request)  # long answers, too

    llm.responder = respond
    chat = assistant.start_chat(Scope())
    padding = " ".join(["and what about its licence and its size"] * 40)  # ~1,600 characters
    for n in range(6):
        assistant.ask(f"Question {n} about S2ORC {padding}?", chat_id=chat)
    rewrites = [r.content("user") for r in llm.requests if "Follow-up question:" in r.content("user")]
    assert len(rewrites) == 5
    template = len(load_prompt("rewrite").render(history="", question=""))
    per_turn = HISTORY_CHARS + HISTORY_ANSWER_CHARS + 40  # the "User: " and "Assistant: " labels, " ..."
    bound = template + len(f"Question 5 about S2ORC {padding}?") + HISTORY_TURNS * per_turn
    for prompt in rewrites:
        history = prompt.split("Conversation so far:")[1].split("Follow-up question:")[0]
        assert history.count("User: ") <= HISTORY_TURNS
        assert len(prompt) <= bound, (len(prompt), bound)
    assert rewrites[-1].count("User: ") == HISTORY_TURNS
    store.close()
