"""The catalog's `changes_version` on PostgreSQL: every write transaction moves it on by one, whichever
process writes, so caches keyed on it (the topic page) see writes from every server worker."""

from __future__ import annotations

import pytest

from storage.pg_catalog import PgCatalog
from tests.helpers.stack import PgServer, run_in_processes

pytestmark = pytest.mark.scaleout
WRITES = 15


def _writer(url: str, prefix: str) -> None:
    catalog = PgCatalog(url)
    for i in range(WRITES):
        catalog.set_meta(f"{prefix}{i}", str(i))
    catalog.close()


def test_writes_from_several_processes_each_move_the_version_once(pg: PgServer) -> None:
    url = pg.create_database("changes")
    reader = PgCatalog(url)
    before = reader.changes_version
    assert run_in_processes(_writer, [(url, p) for p in ("a", "b", "c")]) == [0, 0, 0]
    assert reader.changes_version == before + 3 * WRITES  # no bump lost between concurrent writers
    reader.close()
