"""The topic service keeps built pages while the catalog's `changes_version` stays put: a repeated page
costs one catalog query (the version), and any write transaction, from any connection, makes it rebuild."""

from __future__ import annotations

from pathlib import Path

import pytest

from assistant.topics import TopicService
from assistant.versioned_cache import VersionedCache
from papertalk.settings import Settings
from storage.store import Store
from tests.assistant.conftest import TOPIC


def count_queries(store: Store, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every SQL statement the store's catalog reads from now on."""
    seen: list[str] = []
    real = store.catalog.query

    def query(sql: str, params: tuple | list = ()) -> list:  # type: ignore[type-arg]
        seen.append(sql)
        return real(sql, params)

    monkeypatch.setattr(store.catalog, "query", query)
    return seen


def test_a_repeated_page_reads_only_the_version(corpus: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    service = TopicService(corpus)
    first = service.page(TOPIC).to_dict()
    queries = count_queries(corpus, monkeypatch)
    assert service.page(TOPIC).to_dict() == first
    assert len(queries) == 1 and "meta" in queries[0]
    uncached = TopicService(corpus, page_cache=0)
    queries.clear()
    assert uncached.page(TOPIC).to_dict() == first
    assert len(queries) > 10  # what the cache saves: the page's own queries


def test_a_write_from_another_connection_rebuilds_the_page(corpus_dir: Path, tmp_path: Path) -> None:
    import shutil

    data = tmp_path / "own"
    shutil.copytree(corpus_dir, data)
    reader, writer = Store(Settings(data_dir=data)), Store(Settings(data_dir=data))
    service = TopicService(reader)
    slug = service.get(TOPIC).slug
    before = reader.catalog.changes_version
    assert service.page(TOPIC).followed is False
    writer.library.follow(slug)
    assert reader.catalog.changes_version == before + 1
    assert service.page(TOPIC).followed is True
    reader.close()
    writer.close()


def test_the_cache_keeps_the_most_recently_used_entries() -> None:
    cache: VersionedCache[str] = VersionedCache(2)
    built: list[str] = []

    def build(name: str) -> str:
        built.append(name)
        return name.upper()

    assert cache.get_or_build("a", 1, lambda: build("a")) == "A"
    assert cache.get_or_build("b", 1, lambda: build("b")) == "B"
    assert cache.get_or_build("a", 1, lambda: build("a")) == "A"  # kept; "a" now the most recent
    cache.get_or_build("c", 1, lambda: build("c"))  # drops "b"
    cache.get_or_build("b", 1, lambda: build("b"))
    cache.get_or_build("a", 2, lambda: build("a"))  # a newer version: built again
    assert built == ["a", "b", "c", "b", "a"] and len(cache) == 2
    none: VersionedCache[str] = VersionedCache(0)
    none.get_or_build("a", 1, lambda: build("a"))
    none.get_or_build("a", 1, lambda: build("a"))
    assert built[-2:] == ["a", "a"] and len(none) == 0
