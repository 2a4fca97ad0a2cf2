"""Choosing the catalog: a wrong URL or an unreachable PostgreSQL is one line, with no password echoed."""

from __future__ import annotations

from tests.helpers.chroma_server import free_port
from tests.helpers.cli import one_error_line, run_cli


def test_a_catalog_url_that_is_not_postgresql_is_refused_without_echoing_it() -> None:
    message = one_error_line(run_cli("stats", PAPERTALK_CATALOG__URL="mysql://me:hunter2@db/papers"))
    assert message == (
        "PAPERTALK_CATALOG__URL='…' is not allowed: use a postgresql://user:password@host:port/database URL, "
        "or unset it for SQLite"
    )


def test_an_unreachable_postgresql_is_one_line_naming_it_without_the_password() -> None:
    port = free_port()  # nothing listens there
    url = f"postgresql://me:hunter2@127.0.0.1:{port}/papers"
    message = one_error_line(run_cli("stats", PAPERTALK_CATALOG__URL=url))
    assert message.startswith(f"cannot reach the PostgreSQL catalog at 127.0.0.1:{port}/papers (")
    assert message.endswith("start PostgreSQL or fix PAPERTALK_CATALOG__URL, then retry")
    assert "hunter2" not in message
