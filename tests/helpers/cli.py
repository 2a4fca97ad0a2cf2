"""The `papertalk` command run as a real subprocess, and the catalog read back with plain sqlite3."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

PAPERTALK = Path(sys.executable).parent / "papertalk"


def cli_env(**extra: str) -> dict[str, str]:
    """The test's environment (PAPERTALK_DATA_DIR comes from the autouse fixture) plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("COLUMNS", "FORCE_COLOR", "TTY_"))}
    env.update(extra)
    return env


def run_cli(
    *args: str | Path, timeout: float = 120, cwd: Path | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    """Run `papertalk ARGS` to the end in `cwd` (default: the test's tmp_path, where a `.env` may be);
    stdout and stderr are captured as text (not a terminal)."""
    return subprocess.run(
        [str(PAPERTALK), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=cli_env(**env),
        cwd=cwd,
        check=False,
    )


PROGRESS_LINE = re.compile(r"^.+: \d+(/\d+ \(\d+%\)| done) · ")


def one_error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The message of the CLI's one `error:` line, after checking exit code 2, no traceback, and nothing
    else on stderr but progress lines (stderr is a pipe here)."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    *before, last = result.stderr.strip().splitlines()
    assert last.startswith("error: ") and all(PROGRESS_LINE.match(line) for line in before), result.stderr
    return last.removeprefix("error: ")


def catalog_rows(data_dir: Path, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Rows from the catalog database, read-only, without papertalk's own code."""
    db = data_dir / "catalog.sqlite3"
    if not db.exists():
        return []
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("failed ")]
