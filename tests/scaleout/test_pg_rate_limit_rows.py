"""Rate-limit rows on PostgreSQL: those whose allowance is whole again are pruned from a process's first take,
without moving the catalog's `changes_version` (the topic page caches key on it)."""

from __future__ import annotations

import pytest

from storage.pg_catalog import PgCatalog
from tests.api.test_rate_limits import assert_stale_rows_pruned
from tests.helpers.stack import PgServer

pytestmark = pytest.mark.scaleout


def test_stale_rows_are_pruned_without_a_catalog_change(pg: PgServer) -> None:
    catalog = PgCatalog(pg.create_database("rate_rows"))
    try:
        assert_stale_rows_pruned(catalog)
    finally:
        catalog.close()
