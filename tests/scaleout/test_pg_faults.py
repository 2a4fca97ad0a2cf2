"""PostgreSQL going away under an open catalog: a clear `StoreUnavailable` while it is down, and the
catalog reconnecting by itself (a read or a write whose connection died before its commit is retried)."""

from __future__ import annotations

import threading

import pytest

from papertalk.errors import StoreUnavailable
from storage.pg_catalog import PgCatalog
from tests.helpers.stack import PgServer

pytestmark = pytest.mark.scaleout


def test_a_restart_between_calls_is_invisible_to_reads_and_writes(pg: PgServer) -> None:
    catalog = PgCatalog(pg.create_database("restart"))
    catalog.set_meta("k", "1")
    pg.stop()
    pg.start()
    assert catalog.get_meta("k") == "1"  # the dead connection is replaced, the read retried
    pg.stop()
    pg.start()
    catalog.set_meta("k", "2")  # the write found its connection dead before sending anything: retried once
    assert catalog.get_meta("k") == "2"
    catalog.close()


def test_a_restart_between_calls_is_invisible_to_snapshots_on_every_pooled_connection(pg: PgServer) -> None:
    """Each connection the pool kept idle died with the server: each snapshot taking one replaces it."""
    catalog = PgCatalog(pg.create_database("restart_pool"), pool_size=2)
    catalog.set_meta("k", "1")
    with catalog.snapshot():  # a second thread's call meanwhile: the pool keeps two connections
        other = threading.Thread(target=catalog.count_papers)
        other.start()
        other.join()
    pg.stop()
    pg.start()
    for _ in range(2):
        with catalog.snapshot():
            assert catalog.get_meta("k") == "1"
    catalog.close()


def test_while_down_every_call_is_store_unavailable_naming_postgresql(pg: PgServer) -> None:
    catalog = PgCatalog(pg.create_database("down"))
    pg.stop()
    try:
        with pytest.raises(StoreUnavailable, match=r"^cannot reach the PostgreSQL catalog at 127\.0\.0\.1:\d+/down \("):
            catalog.count_papers()
        with pytest.raises(StoreUnavailable, match=r"start PostgreSQL or fix PAPERTALK_CATALOG__URL, then retry$"):
            catalog.set_meta("k", "v")
        with pytest.raises(StoreUnavailable), catalog.snapshot():
            pass
    finally:
        pg.start()
    assert catalog.count_papers() == 0 and catalog.get_meta("k") is None  # nothing half-written
    catalog.set_meta("k", "v")
    assert catalog.get_meta("k") == "v"
    catalog.close()
