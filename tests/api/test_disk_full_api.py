"""A full disk under the API is a 507 problem that says what to do, not a generic 500."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

import pytest

from api.deps import get_store
from papertalk.errors import is_disk_full
from tests.api.conftest import assert_problem, client_for


def test_errors_that_mean_a_full_disk_are_recognised() -> None:
    assert is_disk_full(sqlite3.OperationalError("database or disk is full"))
    assert is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    try:
        try:
            raise OSError(errno.EDQUOT, "Disk quota exceeded")
        except OSError as inner:
            raise RuntimeError("writing the segment failed") from inner
    except RuntimeError as outer:
        assert is_disk_full(outer)
    assert not is_disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not is_disk_full(ValueError("a full stop is missing"))


@pytest.mark.parametrize(
    "error",
    [sqlite3.OperationalError("database or disk is full"), OSError(errno.ENOSPC, "No space left on device")],
)
def test_a_full_disk_is_a_507_problem(tmp_path: Path, error: Exception) -> None:
    def full() -> None:
        raise error

    with client_for(tmp_path / "data") as client:
        client.app.dependency_overrides[get_store] = full  # type: ignore[attr-defined]
        body = assert_problem(client.get("/api/health"), 507, "is full")
        assert "free some space" in str(body["detail"]) and str(tmp_path) not in str(body["detail"])
