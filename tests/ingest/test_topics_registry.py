"""The topic registry: the bundled file is valid and covers the demo's field; bad entries name file and field."""

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ingest.topic_registry import BUNDLED_TOPICS, load_registry, sync_bundled
from papertalk.demo import DEMO_TOPIC
from papertalk.errors import ConfigurationError
from storage.store import Store
from storage.topics import slugify

GOOD = {"name": "Agent Memory", "description": "Memory for agents.", "keywords": ["memory"]}


def test_bundled_registry_covers_the_demo_topic_and_its_neighbours() -> None:
    defs = {d.slug: d for d in load_registry()}
    assert len(defs) >= 13
    demo = defs[slugify(DEMO_TOPIC)]
    assert demo.slug == "rl-for-llm-agents" and demo.name == DEMO_TOPIC
    assert demo.abbreviations == {"RL": "Reinforcement Learning", "LLM": "Large Language Model"}
    for slug in ("retrieval-augmented-generation", "multi-agent-systems", "tool-use", "web-and-gui-agents"):
        assert slug in defs
    assert all(d.description and d.keywords and d.origin == "bundled" for d in defs.values())


def _write(tmp_path: Path, topics: Any) -> Path:
    path = tmp_path / "topics.json"
    path.write_text(json.dumps({"topics": topics}))
    return path


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"name": "X"}, "topic #2 ('X'): field 'description' must be a non-empty string"),
        ({**GOOD, "name": "Y", "keywords": "memory"}, "topic #2 ('Y'): field 'keywords' must be a list"),
        ({**GOOD, "name": "Y", "slug": "Not A Slug"}, "topic #2 ('Y'): field 'slug' must be lower-case"),
        ({**GOOD, "name": "Y", "keyword": ["a"]}, "topic #2 ('Y'): unknown field(s) keyword"),
        ({**GOOD, "name": "Y", "abbreviations": ["RL"]}, "topic #2 ('Y'): field 'abbreviations' must map"),
        ({**GOOD, "name": "Y", "categories": ["computer science"]}, "field 'categories' holds 'computer science'"),
        ({**GOOD, "name": "Y", "examples": ["not-an-id"]}, "field 'examples' holds 'not-an-id'"),
        ({**GOOD, "name": "Y", "threshold": 1.5}, "field 'threshold' must be a number between 0 and 1"),
        ({**GOOD, "name": "Y", "threshold": "high"}, "field 'threshold' must be a number between 0 and 1"),
        ({**GOOD}, "share the slug 'agent-memory'"),
        ({"description": "no name"}, "topic #2: field 'name' must be a non-empty string"),
        ("just a string", "topic #2: must be an object"),
    ],
)
def test_a_bad_entry_names_the_file_the_entry_and_the_field(tmp_path: Path, entry: Any, message: str) -> None:
    path = _write(tmp_path, [GOOD, entry])
    with pytest.raises(ConfigurationError) as err:
        load_registry(path)
    assert str(path) in str(err.value) and message in str(err.value)


def test_a_file_that_is_not_a_registry(tmp_path: Path) -> None:
    path = tmp_path / "topics.json"
    path.write_text('{"topics": [')
    with pytest.raises(ConfigurationError, match=r"topics\.json: not valid JSON \(line 1"):
        load_registry(path)
    path.write_text("[]")
    with pytest.raises(ConfigurationError, match='"topics" list'):
        load_registry(path)


def test_sync_puts_bundled_topics_in_the_catalog_once_and_keeps_user_topics(store: Store, tmp_path: Path) -> None:
    path = _write(tmp_path, [GOOD, {**GOOD, "name": "Tools", "description": "Tool use."}])
    assert sync_bundled(store.topics, path) is True
    assert {d.slug for d in store.topics.definitions()} == {"agent-memory", "tools"}
    assert sync_bundled(store.topics, path) is False  # unchanged file: nothing to do
    user = store.topics.definition("tools")
    assert user is not None
    store.topics.define([replace(user, description="My own tools topic.", origin="user")])
    path.write_text(json.dumps({"topics": [{**GOOD, "description": "Changed."}, GOOD | {"name": "Tools"}]}))
    assert sync_bundled(store.topics, path) is True
    memory, tools = store.topics.definition("agent-memory"), store.topics.definition("tools")
    assert memory is not None and memory.description == "Changed."
    assert tools is not None and tools.description == "My own tools topic." and tools.origin == "user"
    assert BUNDLED_TOPICS.is_file()
