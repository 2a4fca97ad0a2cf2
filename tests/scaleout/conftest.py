"""A PostgreSQL cluster and a Chroma server shared by the scale-out tests; each test gets its own
database and collection (tests/helpers/stack.py). Skipped with the reason when PostgreSQL is missing."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers.stack import ChromaProcess, PgServer, chroma_process, postgres_bin, postgres_server, stack_env


@pytest.fixture(scope="session")
def pg() -> Iterator[PgServer]:
    if postgres_bin() is None:
        pytest.skip("PostgreSQL is not installed (scripts/test.sh installs Debian's postgresql as root)")
    with postgres_server() as server:
        yield server


@pytest.fixture(scope="session")
def chroma(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaProcess]:
    with chroma_process(tmp_path_factory.mktemp("chroma") / "db") as server:
        yield server


@pytest.fixture
def stack(pg: PgServer, chroma: ChromaProcess, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """This test's database and collection, set in the environment (CLI subprocesses inherit it)."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    env = stack_env(pg.create_database(name), chroma, collection=name)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def write_records(path: Path, records: list[dict]) -> Path:
    import json

    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path
