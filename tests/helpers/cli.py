"""The `papertalk` command run as a real subprocess (`run_cli`) or in this process (`invoke_cli`: the same
entry point, streams and exit code, without paying the imports again), and the catalog read back with plain
sqlite3."""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import sqlite3
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

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


def invoke_cli(
    *args: str | Path, cwd: Path | None = None, stdin: str = "", **env: str
) -> subprocess.CompletedProcess[str]:
    """`papertalk ARGS` through the entry point `cli.main:main`, in this process: the environment of
    `run_cli` (this test's plus `env`), `cwd` (default: the current one, the test's tmp_path), `stdin` then
    its end, stdout and stderr captured as text (not a terminal unless `env` says TTY_COMPATIBLE=1).

    Returns what `run_cli` would: the exit code (2 for the domain errors `main` turns into one line), stdout
    and stderr. Anything `main` lets through (a bug) propagates with its traceback. Error paths that must
    show "no Traceback in stderr" of a real process, signals and the installed command stay with `run_cli`.
    """
    from cli import main as cli_main

    argv = [str(PAPERTALK), *map(str, args)]
    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = 0
    with _process_like(argv, cli_env(**env), cwd, (io.StringIO(stdin), out, err)):
        try:
            cli_main.main()
        except SystemExit as exit_:
            code = exit_.code
        finally:
            _close_state(cli_main.state)
    if isinstance(code, str):  # sys.exit("message"): Python prints it and exits 1
        err.write(code + "\n")
    returncode = code if isinstance(code, int) else 0 if code is None else 1
    return subprocess.CompletedProcess(argv, returncode, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _process_like(
    argv: list[str], env: dict[str, str], cwd: Path | None, streams: tuple[io.StringIO, io.StringIO, io.StringIO]
) -> Iterator[None]:
    """argv, environment, working directory and standard streams as a fresh `papertalk` process has them;
    the CLI's consoles re-read them (terminal, colours, width) and logging is put back afterwards."""
    root = logging.getLogger()
    saved_logging = (root.handlers[:], root.level, _library_levels())
    with contextlib.ExitStack() as stack:
        stack.enter_context(mock.patch.dict(os.environ, env, clear=True))
        stack.enter_context(mock.patch.object(sys, "argv", argv))
        stack.enter_context(_main_module_of_a_script())
        if cwd is not None:
            stack.enter_context(contextlib.chdir(cwd))
        stack.enter_context(mock.patch.multiple(sys, stdin=streams[0], stdout=streams[1], stderr=streams[2]))
        stack.callback(_restore_logging, *saved_logging)
        stack.callback(_fresh_consoles)  # last out: back to this process's own streams and environment
        _fresh_consoles()
        yield


@contextlib.contextmanager
def _main_module_of_a_script() -> Iterator[None]:
    """`__main__` as the installed script has it (no package), so usage lines name `papertalk`, not pytest."""
    saved = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = saved


def _fresh_consoles() -> None:
    """Re-detect the CLI consoles' terminal, colours and width from the current streams and environment,
    as at a process start (they are module globals, detected once at import)."""
    from rich.console import Console

    from cli.console import console, err_console

    for shown in (console, err_console):
        Console.__init__(shown, stderr=shown.stderr, emoji=False)


def _library_levels() -> dict[str, int]:
    return {name: logging.getLogger(name).level for name in ("httpx", "chromadb", "pypdf", "bm25s", "llama_index")}


def _restore_logging(handlers: list[logging.Handler], level: int, levels: dict[str, int]) -> None:
    root = logging.getLogger()
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, was in levels.items():
        logging.getLogger(name).setLevel(was)


def _close_state(state: Any) -> None:
    """Close the catalog the command opened (a process would at its exit) and forget it."""
    if state.store is not None:
        state.store.close()
    state.settings, state.store, state.data_dir = None, None, None


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
