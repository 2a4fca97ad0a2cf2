"""List answers on real papers: the demo corpus's papers on multi-turn tool use, read for named algorithms."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator

import pytest

from assistant.entities import _HEAD, _NAME, HEAD_KIND, _expansion_kind, evidence, kind_of, names, vocabulary
from assistant.followups import listed_item
from assistant.lists import asked_kinds, item_line
from assistant.service import Assistant
from assistant.types import Answer
from papertalk.demo import DEMO_METADATA, DEMO_TOPIC
from storage.store import Store
from tests.helpers.cli import invoke_cli

QUESTION = "Which RL algorithms are used to train LLM agents for multi-turn tool use?"
FRAMEWORKS = {"RAGEN", "AGILE", "ReAct", "verl", "OpenRLHF", "ToolRL", "SkyRL"}  # named in these papers as frameworks


def test_list_questions_are_told_from_other_questions() -> None:
    assert asked_kinds(QUESTION) == ("algorithm",)
    assert "benchmark" in asked_kinds("What benchmarks are used to evaluate web agents?")
    assert asked_kinds("Which datasets do they use?")[0] == "dataset"
    assert asked_kinds("What RL algorithm is used to train MiroThinker?") == ()  # one thing, not a list
    assert asked_kinds("How are rewards designed for web search agents?") == ()


def test_names_and_their_kinds_are_read_from_the_sentence() -> None:
    text = (
        "We train the agent with Group Relative Policy Optimization (GRPO) and compare it with the PPO "
        "algorithm on benchmarks such as WebShop and ALFWorld. We build on RAGEN, a modular framework."
    )
    assert names(text) == ["GRPO", "PPO", "WebShop", "ALFWorld", "RAGEN"]
    found = set(evidence(text))
    assert {("GRPO", "algorithm"), ("PPO", "algorithm"), ("WebShop", "benchmark"), ("RAGEN", "framework")} <= found


def _searched(text: str) -> Iterator[tuple[str, str]]:
    """evidence() as plain pattern searches over the whole text: slow, and obviously what is meant."""
    after = re.compile(rf"(?<![\w\-])({_NAME})\s+(?:[a-z\-]+\s+)?({_HEAD})\b(?!-)")
    listed = re.compile(
        rf"\b({_HEAD})\b(?!-)\s*(?:,|\()?\s*(?:such as|like|including|e\.g\.,?|namely|called|named|dubbed)\s+"
        rf"((?:{_NAME}(?:\s*\([^)]{{0,40}}\))?(?:,\s*|\s+and\s+|\s+or\s+|,\s*and\s+)?){{1,8}})"
    )
    apposition = re.compile(
        rf"(?<![\w\-])({_NAME})(?:\s*\([^)]{{0,80}}\))?,?\s+(?:an?|the)\s+(?:[\w\-]+\s+){{0,5}}?({_HEAD})\b(?!-)"
    )
    for m in after.finditer(text):
        yield m.group(1).rstrip(".-"), HEAD_KIND[m.group(2)]
    for m in listed.finditer(text):
        yield from ((name, HEAD_KIND[m.group(1)]) for name in names(re.sub(r"\([^)]*\)", " ", m.group(2))))
    for m in apposition.finditer(text):
        yield m.group(1).rstrip(".-"), HEAD_KIND[m.group(2)]
    for m in re.finditer(rf"\(({_NAME})\)", text):
        before = re.search(r"((?:[A-Za-z][\w\-]*\s+){1,7})$", text[max(0, m.start() - 120) : m.start()])
        if before and (kind := _expansion_kind(before.group(1), m.group(1))):
            yield m.group(1).rstrip(".-"), kind


def test_the_fast_name_reading_finds_what_plain_searches_find() -> None:
    """evidence() scans names once and matches what follows them; over 2,000 real abstracts it must read the
    same (name, kind) pairs, in the same order, as searching each pattern through the text."""
    with gzip.open(DEMO_METADATA, "rt", encoding="utf-8") as f:
        abstracts = [json.loads(line)["abstract"] for line in f]
    assert len(abstracts) > 2000
    read = [list(evidence(text)) for text in abstracts]
    assert read == [list(_searched(text)) for text in abstracts]
    assert sum(map(len, read)) > 2000  # the abstracts do name things


def test_the_bundled_vocabulary_knows_algorithms_from_frameworks() -> None:
    assert len(vocabulary()) > 1000
    assert kind_of("GRPO") == kind_of("PPO") == kind_of("DPO") == "algorithm"
    assert kind_of("WebArena") == "benchmark"
    assert kind_of("ReAct") != "algorithm"


def assert_list_answer(answer: Answer) -> None:
    """Named algorithms, none twice, each with the papers that name it and a quote that names it."""
    assert answer.items and not answer.abstained
    keys = [item.name.lower() for item in answer.items]
    assert len(keys) == len(set(keys))
    assert all(item.kind == "algorithm" for item in answer.items)
    assert not {item.name for item in answer.items} & FRAMEWORKS
    assert {"GRPO", "PPO"} & {item.name for item in answer.items}
    papers = [item.papers for item in answer.items]
    assert papers == sorted(papers, reverse=True)
    for item in answer.items:
        assert len(item.citations) == item.papers == len({c.paper_id for c in item.citations})
        for c in item.citations:
            source = answer.sources[c.number - 1]
            assert source.paper_id == c.paper_id and source.text[c.span_start : c.span_end] == c.quote
            assert item.name in c.quote
    top = answer.items[0]
    assert f"{top.name} — {top.papers} paper" in answer.text


def test_a_list_question_over_a_topic_returns_named_algorithms_with_their_papers(tool_use: Store) -> None:
    from assistant.types import Scope

    answer = Assistant(tool_use).ask(QUESTION, Scope(topic=DEMO_TOPIC))
    assert_list_answer(answer)
    assert answer.items[0].papers >= 2  # counted across papers


def test_the_cli_shows_the_list_and_its_quotes(tool_use: Store) -> None:
    shown = invoke_cli("ask", QUESTION)
    assert shown.returncode == 0, shown.stderr
    assert "Traceback" not in shown.stderr
    assert re.search(r"^(GRPO|PPO) — \d+ papers? \[\d+\]", shown.stdout, re.M), shown.stdout
    assert "Where each is named" in shown.stdout
    as_json = json.loads(invoke_cli("ask", QUESTION, "--json").stdout)
    assert as_json["items"] and {"name", "kind", "papers", "citations", "quote"} <= as_json["items"][0].keys()


def test_a_question_of_two_parts_quotes_one_part_then_lists_the_other(tool_use: Store) -> None:
    """ "What is GRPO and which benchmarks ...": the sentence that says what GRPO is, then the named benchmarks;
    read whole, the question was answered with the list alone."""
    from assistant.types import Scope

    question = "What is GRPO and which benchmarks is it evaluated on?"
    assistant = Assistant(tool_use)
    answer = assistant.ask(question, Scope(topic=DEMO_TOPIC))
    said = answer.sentences[: len(answer.sentences) - len(answer.items)]
    assert answer.items and said, answer.text
    assert all(item.kind == "benchmark" for item in answer.items)
    assert "GRPO" in said[0].text and said[0].citations
    assert answer.text.startswith(said[0].text)  # the quote first, then the list
    assert answer.sentences[len(said)].text == item_line(answer.items[0])
    streamed = "".join(c.text for c in assistant.stream(question, Scope(topic=DEMO_TOPIC)) if c.text)
    assert "\n" not in streamed.split(answer.items[0].name)[0].strip()  # the quotes run as prose
    assert streamed.count("\n") == len(answer.items)  # then one named item a line
    whole_asker = Assistant(tool_use)  # a new one: an assistant builds its answerer from its settings once
    whole_asker.settings = whole_asker.settings.model_copy(deep=True)
    whole_asker.settings.answer.compound = False
    whole = whole_asker.ask(question, Scope(topic=DEMO_TOPIC))
    assert whole.items and len(whole.sentences) == len(whole.items)


def test_a_list_reads_a_name_by_its_own_last_part_and_short_letters_only_by_the_text_at_hand() -> None:
    from collections import Counter

    from assistant.entities import listed_kind

    assert listed_kind("Tau2-Bench") == listed_kind("WebArena") == "benchmark"  # not in the vocabulary
    assert listed_kind("SWE-agent") == "framework"
    assert listed_kind("Search-R1") is None  # a last part that is no head word says nothing
    assert listed_kind("EI") is None  # "the EI ability of LLMs": some abstracts call an "EI" benchmark
    assert listed_kind("EI", Counter(benchmark=1)) == "benchmark"  # this text does
    assert listed_kind("BFCL") == "benchmark" and listed_kind("PPO") == "algorithm"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("How does the first one work?", "How does GRPO work?"),
        ("What are the second algorithm's weaknesses?", "What are PPO's weaknesses?"),
        ("How does the last of them differ from PPO?", "How does DAPO differ from PPO?"),
        ("How does the fifth one work?", "How does the fifth one work?"),  # the list has three
        ("What is the first paper about?", "What is the first paper about?"),  # a paper, not an item
        ("First, what is GRPO?", "First, what is GRPO?"),
        # two or more items at once: both named, not only the last ordinal
        ("Compare the first and the second one", "Compare GRPO and PPO"),
        ("Compare the first one with the last", "Compare GRPO with DAPO"),
        ("How do the first and third algorithms differ?", "How do GRPO and DAPO differ?"),
        ("What is the difference between the first and the last?", "What is the difference between GRPO and DAPO?"),
        ("Compare the first two", "Compare GRPO and PPO"),
        ("How do the top three differ?", "How do GRPO, PPO and DAPO differ?"),
        ("Compare the first and the fifth", "Compare the first and the fifth"),  # the list has three
        ("How do the first four differ?", "How do the first four differ?"),
    ],
)
def test_an_ordinal_follow_up_names_that_item_of_the_list(question: str, expected: str) -> None:
    assert listed_item(question, ["GRPO", "PPO", "DAPO"]) == expected


def test_after_a_list_answer_the_first_one_is_its_first_item(tool_use: Store) -> None:
    from assistant.types import Scope

    assistant = Assistant(tool_use)
    chat = assistant.start_chat(Scope(topic=DEMO_TOPIC))
    listed = assistant.ask(QUESTION, chat_id=chat)
    assert listed.items
    follow = assistant.ask("How does the first one work?", chat_id=chat)
    assert follow.standalone_question == f"How does {listed.items[0].name} work?"
    again = assistant.ask("What are its weaknesses?", chat_id=chat)  # the item is now the subject
    assert listed.items[0].name in again.standalone_question
