"""A small cache of things built from the catalog, each kept with the catalog's `changes_version` it was
read at and served only while the catalog is still at that version.

The version lives in the catalog (every write transaction moves it on, storage/catalog.py), so a write by
any process, another server worker or a CLI ingest, makes every process's entries stale at once.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import Future
from typing import Generic, TypeVar

T = TypeVar("T")


class VersionedCache(Generic[T]):
    """At most `size` entries, the least recently used dropped first; `size` 0 keeps nothing.

    Concurrent misses of one key at one version share one build (single flight): the first caller builds,
    the others wait for its value (or its error) instead of each building the same thing again.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, tuple[int, T]] = OrderedDict()
        self._flights: dict[tuple[Hashable, int], Future[T]] = {}
        self._lock = threading.Lock()

    def get_or_build(self, key: Hashable, version: int, build: Callable[[], T]) -> T:
        """The entry for `key` read at `version`, or `build()` (kept under `version`). The version must be
        read before building: a write landing during the build then moves it on and the entry is not
        served again."""
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None and hit[0] == version:
                self._entries.move_to_end(key)
                return hit[1]
            flight = self._flights.get((key, version))
            if flight is None:
                flight = self._flights[(key, version)] = Future()
                leader = True
            else:
                leader = False
        if not leader:
            return flight.result()
        return self._build(key, version, build, flight)

    def _build(self, key: Hashable, version: int, build: Callable[[], T], flight: Future[T]) -> T:
        """Build as the leader of a flight: keep the value, then hand it (or the error) to the waiters."""
        try:
            value = build()
        except BaseException as exc:
            with self._lock:
                del self._flights[(key, version)]
            flight.set_exception(exc)
            raise
        with self._lock:
            if self.size > 0:
                self._entries[key] = (version, value)
                self._entries.move_to_end(key)
                while len(self._entries) > self.size:
                    self._entries.popitem(last=False)
            del self._flights[(key, version)]
        flight.set_result(value)
        return value

    def __len__(self) -> int:
        return len(self._entries)
