"""A question's scope is resolved once and kept (with the keyword mask and the chunk vectors derived from it)
until the catalog's papers or topic memberships change, in this process or another: never served stale."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from assistant.retrieval import HybridRetriever
from assistant.types import Scope
from ingest.pipeline import Ingestor
from ingest.sources import arxiv_papers
from papertalk.settings import Settings
from storage.catalog import Catalog
from storage.store import Store
from storage.topics import Topics
from tests.assistant.conftest import TOPIC
from tests.conftest import demo_records

NEW = 3  # demo records beyond the corpus's 30


@pytest.fixture
def copied(corpus_dir: Path, tmp_path: Path) -> Iterator[Store]:
    """A copy of the session corpus that a test may write to."""
    store = Store(Settings(data_dir=Path(shutil.copytree(corpus_dir, tmp_path / "copy"))))
    yield store
    store.close()


def new_records(tmp_path: Path) -> tuple[Path, list[dict]]:
    records = demo_records(30 + NEW)[30:]
    path = tmp_path / "new.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path, records


def found(retriever: HybridRetriever, question: str, scope: Scope) -> dict[str, tuple[bool, bool]]:
    """Paper id -> (found by dense search, found by keyword search) among the scope's top passages."""
    out: dict[str, tuple[bool, bool]] = {}
    for p in retriever.retrieve(question, scope, k=8):
        dense, keyword = out.get(p.paper_id, (False, False))
        out[p.paper_id] = (dense or p.dense_score is not None, keyword or p.keyword_score is not None)
    return out


def test_a_paper_tagged_with_the_topic_joins_its_cached_scope(copied: Store, tmp_path: Path) -> None:
    path, records = new_records(tmp_path)
    new_ids = Ingestor(copied).run(arxiv_papers(path)).paper_ids  # indexed, but not in the topic
    retriever, scope = HybridRetriever(copied), Scope(topic=TOPIC)
    question = records[0]["title"]
    before = retriever.resolve(scope)
    assert not set(new_ids) & set(before.paper_ids or [])
    assert not set(new_ids) & set(found(retriever, question, scope))  # mask and scope vectors now kept
    assert retriever.resolve(scope) is before  # kept: nothing changed

    copied.topics.assign(copied.topics.get(TOPIC).slug, new_ids[:1])  # a write to memberships only

    after = retriever.resolve(scope)
    assert after is not before and new_ids[0] in (after.paper_ids or [])
    assert found(retriever, question, scope).get(new_ids[0]) == (True, True)  # both halves see it


def test_a_new_dated_paper_joins_a_cached_date_scope(copied: Store, tmp_path: Path) -> None:
    path, records = new_records(tmp_path)
    newest = max(r.published for r in copied.catalog.list_papers(limit=100) if r.published)
    retriever, scope = HybridRetriever(copied), Scope(since=newest)
    question = records[0]["title"]
    before = found(retriever, question, scope)
    new_ids = Ingestor(copied).run(arxiv_papers(path)).paper_ids
    row = copied.catalog.get(new_ids[0])
    assert row is not None and row.published is not None
    if row.published < newest:  # the demo's next record is older: give it a date inside the scope
        copied.catalog.transaction(
            [("UPDATE papers SET published = ? WHERE paper_id = ?", (newest.isoformat(), row.paper_id))]
        )
    assert new_ids[0] not in before
    assert new_ids[0] in (retriever.resolve(scope).paper_ids or [])
    assert found(retriever, question, scope).get(new_ids[0]) == (True, True)
    copied.catalog.transaction([("UPDATE papers SET published = ? WHERE paper_id = ?", ("1999-01-01", new_ids[0]))])
    assert new_ids[0] not in found(retriever, question, scope)  # moved out of the scope: gone from it at once


def test_writes_elsewhere_keep_the_scope_and_another_process_s_untagging_does_not(copied: Store) -> None:
    retriever, scope = HybridRetriever(copied), Scope(topic=TOPIC, since=date(2000, 1, 1))
    before = retriever.resolve(scope)
    changes, scopes = copied.catalog.changes_version, copied.catalog.scopes_version
    chat = copied.chats.create({"topic": TOPIC}, "a chat in the topic")
    copied.chats.append(chat.chat_id, "q", "q", "a", {})
    assert copied.catalog.changes_version > changes and copied.catalog.scopes_version == scopes
    assert retriever.resolve(scope) is before  # a chat turn leaves the resolved scope alone

    member = sorted(before.paper_ids or [])[0]
    other = Catalog(copied.catalog.path)  # another process's connection to the same catalog
    try:
        Topics(other).untag(copied.topics.get(TOPIC).slug, [member])
    finally:
        other.close()
    assert member not in (retriever.resolve(scope).paper_ids or [])


def test_only_writes_to_papers_and_topic_memberships_move_the_scopes_version(tmp_path: Path) -> None:
    catalog = Catalog(tmp_path / "catalog.sqlite3")
    try:
        start = catalog.scopes_version
        catalog.set_meta("something", "else")
        assert catalog.scopes_version == start
        Topics(catalog).ensure("A topic")
        assert catalog.scopes_version == start + 1
        catalog.transaction([("UPDATE papers SET status = 'pending' WHERE paper_id = ?", ("none",))])
        assert catalog.scopes_version == start + 2
    finally:
        catalog.close()
