"""Concurrent misses of one cache key at one catalog version wait for one build (single flight), so a topic
page whose cache the catalog's version just invalidated is rebuilt once per process, not once per request."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from assistant.topics import TopicService
from assistant.versioned_cache import VersionedCache
from storage.store import Store
from tests.assistant.conftest import TOPIC

CALLERS = 8


class Arrivals:
    """Counts callers on their way in; a build waits until all have arrived (so all of them miss)."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()

    def arrive(self) -> None:
        with self.lock:
            self.count += 1

    def wait_for(self, n: int, settle_s: float = 0.3) -> None:
        deadline = time.monotonic() + 10
        while self.count < n and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(settle_s)  # the last arrivals reach the cache's check


def concurrently(call: Callable[[], Any], arrivals: Arrivals, n: int = CALLERS) -> list[Any]:
    def one() -> Any:
        arrivals.arrive()
        return call()

    with ThreadPoolExecutor(n) as pool:
        futures = [pool.submit(one) for _ in range(n)]
        return [f.result(timeout=60) for f in futures]


def misses_together(cache: VersionedCache[object]) -> tuple[list[object], list[int], Callable[[], object]]:
    """Every caller misses "page" at version 7 at once: (the values they got, the builds run, the build)."""
    arrivals, builds = Arrivals(), []

    def build() -> object:
        builds.append(1)
        arrivals.wait_for(CALLERS)
        return object()

    return concurrently(lambda: cache.get_or_build("page", 7, build), arrivals), builds, build


@pytest.mark.parametrize("size", [4, 0])
def test_concurrent_misses_of_one_key_share_one_build(size: int) -> None:
    cache: VersionedCache[object] = VersionedCache(size)
    values, builds, build = misses_together(cache)
    assert len(builds) == 1
    assert all(v is values[0] for v in values)
    again = cache.get_or_build("page", 7, build)
    assert len(builds) == (1 if size else 2)  # kept, or (size 0) built again by the next miss
    assert (again is values[0]) == bool(size)


def test_a_failed_build_fails_its_waiters_and_the_next_miss_builds_again() -> None:
    cache: VersionedCache[str] = VersionedCache(4)
    arrivals, builds = Arrivals(), []

    def failing() -> str:
        builds.append(1)
        arrivals.wait_for(CALLERS)
        raise LookupError("no such topic")

    def call() -> str:
        try:
            return cache.get_or_build("page", 1, failing)
        except LookupError as exc:
            return f"error: {exc}"

    assert concurrently(call, arrivals) == ["error: no such topic"] * CALLERS
    assert len(builds) == 1
    assert cache.get_or_build("page", 1, lambda: "built") == "built"


def test_a_newer_version_does_not_wait_for_an_older_build() -> None:
    cache: VersionedCache[str] = VersionedCache(4)
    release = threading.Event()
    with ThreadPoolExecutor(1) as pool:
        old = pool.submit(cache.get_or_build, "page", 1, lambda: release.wait(10) and "old")
        time.sleep(0.1)
        assert cache.get_or_build("page", 2, lambda: "new") == "new"  # built while the old build still runs
        assert not old.done()
        release.set()
        assert old.result(timeout=10) == "old"


def test_concurrent_requests_for_a_topic_page_build_it_once(corpus: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    service = TopicService(corpus)
    arrivals, builds = Arrivals(), []
    real = service._build_page

    def build_page(*args: Any) -> Any:
        builds.append(args)
        arrivals.wait_for(CALLERS)
        return real(*args)

    monkeypatch.setattr(service, "_build_page", build_page)
    pages = concurrently(lambda: service.page(TOPIC).to_dict(), arrivals)
    assert len(builds) == 1
    assert all(p == pages[0] for p in pages) and pages[0]["slug"] and pages[0]["latest"]["items"]
