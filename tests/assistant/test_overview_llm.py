"""The generative topic overview through a real OpenAI-compatible HTTP server on 127.0.0.1, with the real
`openai` client: the prompt carries the themes and numbered abstracts, the reply is citation-checked."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant.overview import OverviewService
from papertalk.settings import Settings
from prompts import load_prompt
from storage.store import Store
from tests.assistant.conftest import TOPIC
from tests.assistant.test_generative import first_sentence, prompt_sources
from tests.helpers.cli import invoke_cli
from tests.helpers.openai_server import ChatServer, Reply, Request, serve

INVENTED = "The surveyed agents were all trained on lunar soil samples returned by the Apollo missions"


@pytest.fixture(scope="module")
def server() -> Iterator[ChatServer]:
    with serve() as running:
        yield running


@pytest.fixture
def llm_corpus(
    server: ChatServer, corpus_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Store]:
    """A private copy of the corpus, with papertalk's `openai` backend pointed at the test server."""
    server.reset()
    for key, value in {
        "PAPERTALK_LLM__BACKEND": "openai",
        "OPENAI_BASE_URL": server.url,
        "OPENAI_API_KEY": "test",
        "PAPERTALK_LLM__MAX_RETRIES": "0",
    }.items():
        monkeypatch.setenv(key, value)
    data = tmp_path / "own"
    shutil.copytree(corpus_dir, data)
    monkeypatch.setenv("PAPERTALK_DATA_DIR", str(data))
    store = Store(Settings())
    yield store
    store.close()


def theme_lines(request: Request) -> list[tuple[str, list[int]]]:
    """(theme name, its source numbers) as the prompt listed them."""
    found = re.findall(r"^- (.+?) \(\d+ papers\): sources ((?:\[\d+\](?:, )?)+)$", request.content("user"), re.M)
    return [(name, [int(n) for n in re.findall(r"\d+", numbers)]) for name, numbers in found]


def overview_reply(request: Request) -> Reply:
    """An overview quoting the sources it was sent, one invented number, one invented claim."""
    sources = prompt_sources(request)
    opening = f"{first_sentence(sources[1])} [1]. {first_sentence(sources[2])} [2, 99]. {INVENTED} [3]."
    lines = [opening, "", "Main themes:"]
    for name, numbers in theme_lines(request):
        lines.append(f"- {name}: {first_sentence(sources[numbers[0]])} [{numbers[0]}].")
    return Reply("\n".join(lines))


def test_generative_overview_is_citation_checked(llm_corpus: Store, server: ChatServer) -> None:
    server.responder = overview_reply
    overview = OverviewService(llm_corpus).build(TOPIC)
    (request,) = server.requests
    assert "Main themes:" in request.content("system") and "Cite every sentence" in request.content("system")
    user = request.content("user")
    assert f"Topic: {TOPIC}" in user and user.rstrip().endswith("with citations:")
    listed = theme_lines(request)
    assert [name for name, _ in listed] == [t.label for t in overview.themes]
    answer = overview.answer
    assert answer.backend == overview.backend == "openai"
    assert answer.removed_citations == [99] and "99" not in answer.text
    topic_ids = set(llm_corpus.topics.paper_ids(overview.key))
    for source in answer.sources:
        assert f"[{source.number}] {source.label()}\n" in user and source.paper_id in topic_ids
    invented = next(s for s in answer.sentences if s.text.startswith(INVENTED))
    assert not invented.supported
    quoted = [s for s in answer.sentences if s.citations and not s.text.startswith(INVENTED)]
    assert len(quoted) == 2 + len(listed) and all(s.supported for s in quoted)
    kinds = [s.kind for s in overview.sections]
    assert kinds == ["overview"] + ["theme"] * len(listed)
    assert [s.theme_id for s in overview.sections[1:]] == [t.theme_id for t in overview.themes]
    stored = OverviewService(llm_corpus).stored(TOPIC)
    assert stored is not None and stored.answer.text == answer.text and stored.backend == "openai"


def test_overview_prompts_take_the_values_the_builder_gives() -> None:
    assert load_prompt("overview_user").placeholders == {"topic", "themes", "sources"}
    assert load_prompt("overview_system").placeholders == frozenset()
    assert "cite" in load_prompt("overview_system").render().lower()


def test_llm_server_down_is_one_line_through_the_cli(llm_corpus: Store, server: ChatServer) -> None:
    out = invoke_cli("overview", TOPIC, OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "could not connect to the LLM server" in out.stderr and "PAPERTALK_LLM__BACKEND=extractive" in out.stderr
