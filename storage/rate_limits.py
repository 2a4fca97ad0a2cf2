"""Per-client request allowances kept in the catalog, so that every worker of a server (and every server
on the same catalog) counts against one allowance.

Each (route, client) has one row: its theoretical arrival time `tat` (the generic cell rate algorithm).
With `n` requests a minute, each request moves `tat` on by 60/n s from max(tat, now); a request is
allowed while that lands within a minute of now, so a client gets bursts of up to `n`, then one request
every 60/n s. The check and the update are one statement, so concurrent workers never both spend the
last request.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from storage.catalog import Catalog

WINDOW_S = 60.0
SWEEP_EVERY = 1000  # takes between deletions of the rows whose allowance is whole again (from the first)

_TAKE = (
    "INSERT INTO rate_limits(route, client, tat) VALUES(?, ?, ?) "
    "ON CONFLICT(route, client) DO UPDATE SET tat = MAX(tat, ?) + ? "
    "WHERE MAX(tat, ?) + ? <= ? RETURNING tat"
)


class SharedRates:
    """`take` spends one request of a client's allowance on a route, in the catalog."""

    def __init__(self, catalog: Catalog, clock: Callable[[], float] = time.time) -> None:
        self.catalog = catalog
        self.clock = clock  # wall clock: the workers' monotonic clocks do not agree
        self._takes = 0

    def take(self, route: str, client: str, per_minute: int) -> float:
        """0 when the request may go on (and is counted), else the seconds until it may."""
        now, step = self.clock(), WINDOW_S / per_minute
        granted = self.catalog.query(_TAKE, (route, client, now + step, now, step, now, step, now + WINDOW_S))
        self._sweep(now)
        if granted:
            return 0.0
        rows = self.catalog.query("SELECT tat FROM rate_limits WHERE route = ? AND client = ?", (route, client))
        tat = float(rows[0]["tat"]) if rows else now
        return max(0.001, max(tat, now) + step - WINDOW_S - now)

    def _sweep(self, now: float) -> None:
        """Every `SWEEP_EVERY` takes, from the first (what earlier processes left is cleared too), delete the
        rows whose allowance is whole again: a statement of its own, not a write transaction, so the catalog's
        `changes_version` (and the caches keyed on it) stays where it is."""
        self._takes += 1
        if self._takes % SWEEP_EVERY == 1:
            self.catalog.query("DELETE FROM rate_limits WHERE tat < ? RETURNING route", (now,))
