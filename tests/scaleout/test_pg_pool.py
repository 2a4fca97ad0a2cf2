"""The PostgreSQL catalog's connection pool under concurrent calls: as many at once as the pool holds, on
that many server connections and no more, each snapshot on one connection throughout."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from papertalk.errors import StoreUnavailable
from storage.pg_catalog import PgCatalog
from tests.helpers.stack import PgServer

pytestmark = [pytest.mark.scaleout, pytest.mark.slow]
POOL, CALLS, SLEEP_S = 3, 12, 0.5


def test_concurrent_calls_share_the_pool_and_run_side_by_side(pg: PgServer) -> None:
    catalog = PgCatalog(pg.create_database("pool"), pool_size=POOL)
    try:
        started = time.monotonic()
        with ThreadPoolExecutor(CALLS) as threads:
            pids = list(
                threads.map(lambda _: catalog.query("SELECT pg_backend_pid(), pg_sleep(?)", (SLEEP_S,)), range(CALLS))
            )
        took = time.monotonic() - started
        backends = {rows[0][0] for rows in pids}
        assert len(backends) == POOL  # every connection of the pool used, none beyond it
        assert took < CALLS * SLEEP_S * 0.6, took  # one connection would have taken 6 s, the pool ~2 s
        opened = catalog.query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        assert opened[0][0] <= POOL
    finally:
        catalog.close()


def test_a_snapshot_keeps_its_connection_while_other_threads_write(pg: PgServer) -> None:
    catalog = PgCatalog(pg.create_database("pool_snapshot"), pool_size=POOL)
    catalog.set_meta("k", "before")
    seen: list[str | None] = []
    inside, written = threading.Event(), threading.Event()

    def reader() -> None:
        with catalog.snapshot():
            seen.append(catalog.get_meta("k"))
            inside.set()
            assert written.wait(30)
            seen.append(catalog.get_meta("k"))  # the same state as at the snapshot's start

    thread = threading.Thread(target=reader)
    thread.start()
    assert inside.wait(30)
    catalog.set_meta("k", "after")  # another thread, another connection of the pool
    written.set()
    thread.join(30)
    assert seen == ["before", "before"] and catalog.get_meta("k") == "after"
    catalog.close()


def test_a_pool_held_by_stuck_calls_is_a_clear_error_not_a_hang(pg: PgServer) -> None:
    catalog = PgCatalog(pg.create_database("pool_busy"), connect_timeout_s=1, pool_size=1)
    try:
        with ThreadPoolExecutor(1) as other:
            busy = other.submit(catalog.query, "SELECT pg_sleep(?)", (6,))
            time.sleep(0.5)
            started = time.monotonic()
            with pytest.raises(StoreUnavailable, match="PAPERTALK_CATALOG__POOL_SIZE"):
                catalog.count_papers()
            assert time.monotonic() - started < 5
            busy.result(30)
        assert catalog.count_papers() == 0  # the connection is back in the pool
    finally:
        catalog.close()
