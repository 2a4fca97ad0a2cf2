"""A list answer on the web page, in headless Chromium: the named items, each with its papers' citations."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from papertalk.demo import DEMO_TOPIC
from storage.topics import slugify
from tests.web.conftest import browser_missing, serve
from tests.web.test_pages import ask, css, open_page, wait_for

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def tool_use_server(tool_use_dir: Path) -> Iterator[str]:
    reason = browser_missing()
    if reason:
        pytest.skip(reason)
    yield from serve(tool_use_dir)


def test_a_list_question_shows_named_items_with_citations(browser: Any, tool_use_server: str) -> None:
    open_page(browser, f"{tool_use_server}/#/topic/{slugify(DEMO_TOPIC)}", "#ask textarea")
    ask(browser, "Which RL algorithms are used to train LLM agents for multi-turn tool use?")
    items = css(browser, "#ask .answer ul.items li.item")
    assert items
    names = [css(item, ".item-name")[0].text for item in items]
    assert len(names) == len(set(names)) and {"GRPO", "PPO"} & set(names)
    assert all(css(item, "button.cite") for item in items)
    css(items[0], "button.cite")[0].click()
    wait_for(browser, "#passage")
    assert names[0] in css(browser, "#passage-text mark")[0].text
