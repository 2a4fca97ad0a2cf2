"""The bundled prompt templates load, render, and refuse missing or unexpected values."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from prompts import Prompt, PromptError, available_prompts, load_prompt


def test_every_bundled_template_renders_with_exactly_its_placeholders() -> None:
    names = available_prompts()
    assert {"answer_system", "answer_user", "rewrite", "source"} <= set(names)
    for name in names:
        prompt = load_prompt(name)
        values = {key: f"<{key.upper()}-VALUE>" for key in prompt.placeholders}
        text = prompt.render(**values)
        for value in values.values():
            assert value in text
        assert not re.search(r"\{\w+\}", text), f"{name}: a placeholder was left in the rendered text"


def test_templates_are_package_data_files() -> None:
    files = {p.name for p in resources.files("prompts").iterdir()}
    assert {f"{name}.txt" for name in available_prompts()} <= files


def test_answer_prompts_take_the_values_the_answerer_gives() -> None:
    assert load_prompt("answer_user").placeholders == {"sources", "question"}
    assert load_prompt("source").placeholders == {"number", "label", "text"}
    assert load_prompt("rewrite").placeholders == {"history", "question"}
    assert "cite" in load_prompt("answer_system").render(not_answered="N/A").lower()


def test_missing_value_is_named() -> None:
    with pytest.raises(PromptError, match=r"missing question"):
        load_prompt("answer_user").render(sources="[1] x")


def test_unknown_value_is_named() -> None:
    with pytest.raises(PromptError, match=r"unknown temperature"):
        load_prompt("rewrite").render(history="", question="q", temperature=0.1)


def test_unknown_template_lists_the_available_ones() -> None:
    with pytest.raises(PromptError, match=r"no prompt named 'nope'.*answer_user"):
        load_prompt("nope")


def test_literal_braces_and_malformed_placeholders() -> None:
    assert Prompt("t", 'JSON like {{"a": {value}}}').render(value=1) == 'JSON like {"a": 1}'
    with pytest.raises(PromptError, match="plain name"):
        _ = Prompt("t", "{sources[0]}").placeholders
    with pytest.raises(PromptError, match="malformed"):
        _ = Prompt("t", "an open { brace").placeholders
