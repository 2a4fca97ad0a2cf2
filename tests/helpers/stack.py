"""A throwaway scale-out stack: a local PostgreSQL cluster, a `chroma run` server, `papertalk serve` workers.

Everything runs as ordinary local processes (no Docker). PostgreSQL comes from Debian's `postgresql`
package (`/usr/lib/postgresql/<version>/bin`); it refuses to run as root, so under root the cluster is
initialised and run as the `postgres` system user in a temporary folder that user owns.

    with postgres_server() as pg, chroma_process(tmp / "chroma") as chroma:
        env = stack_env(pg.create_database("t1"), chroma, collection="t1")
        with serve_workers(env, workers=4) as url:
            ...  # http://127.0.0.1:PORT, 4 uvicorn workers on PostgreSQL + the Chroma server

`PgServer.stop()`/`start()` and `ChromaProcess.stop()`/`start()` restart a server on the same port and
data, for fault tests.
"""

from __future__ import annotations

import glob
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.helpers.chroma_server import CHROMA, free_port, wait_for_heartbeat

PG_USER = "papertalk"
RUN_AS = "postgres"  # the system user PostgreSQL runs as when the tests run as root


def postgres_bin() -> Path | None:
    """The newest installed PostgreSQL's bin folder, or None when the package is not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    return Path(found[-1]).parent if found else None


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", RUN_AS, "--", *cmd] if os.geteuid() == 0 else cmd


@dataclass
class PgServer:
    """One PostgreSQL cluster on 127.0.0.1:port, trust authentication for the `papertalk` role."""

    bin: Path
    root: Path  # owned by the server's user: data/ and server.log
    port: int = field(default_factory=free_port)

    @property
    def data(self) -> Path:
        return self.root / "data"

    @property
    def log(self) -> Path:
        return self.root / "server.log"

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{PG_USER}@127.0.0.1:{self.port}/{database}"

    def _ctl(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = _as_owner([str(self.bin / "pg_ctl"), "-D", str(self.data), *args])
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if check and result.returncode != 0:
            raise RuntimeError(f"pg_ctl {args[0]} failed: {result.stderr}{self._log_tail()}")
        return result

    def _log_tail(self) -> str:
        try:
            return self.log.read_text()[-2000:]
        except OSError:
            return ""

    def init(self) -> None:
        cmd = [str(self.bin / "initdb"), "-D", str(self.data), "-U", PG_USER, "-A", "trust", "-E", "UTF8"]
        result = subprocess.run(_as_owner([*cmd, "--locale=C", "--no-sync"]), capture_output=True, text=True)
        if result.returncode != 0:
            raise RuntimeError(f"initdb failed: {result.stderr}")

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c fsync=off"
        self._ctl("-o", options, "-l", str(self.log), "-w", "-t", "60", "start")

    def stop(self, mode: str = "fast") -> None:
        self._ctl("-m", mode, "-w", "stop", check=False)

    def create_database(self, name: str) -> str:
        """Create a database (a test's own) and return its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)


@contextmanager
def postgres_server() -> Iterator[PgServer]:
    """Initialise and start a throwaway cluster on a free port; always stop it and remove its files."""
    bin_dir = postgres_bin()
    if bin_dir is None:
        raise RuntimeError("PostgreSQL is not installed: `apt-get install postgresql` (scripts/test.sh does)")
    root = Path(tempfile.mkdtemp(prefix="papertalk-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, RUN_AS, RUN_AS)
    server = PgServer(bin_dir, root)
    try:
        server.init()
        server.start()
        yield server
    finally:
        server.stop("immediate")
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class ChromaProcess:
    """`chroma run --path PATH` on a fixed port, which `stop()` and `start()` keep."""

    path: Path
    host: str = "127.0.0.1"
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def log(self) -> Path:
        return self.path.parent / f"{self.path.name}-server.log"

    def start(self, timeout: float = 60) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        cmd = [str(CHROMA), "run", "--path", str(self.path), "--port", str(self.port), "--host", self.host]
        with self.log.open("ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wait_for_heartbeat(self.proc, self.url, self.log, timeout)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.proc = None


@contextmanager
def chroma_process(path: Path) -> Iterator[ChromaProcess]:
    server = ChromaProcess(path)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def stack_env(catalog_url: str, chroma: ChromaProcess, collection: str) -> dict[str, str]:
    """The variables that point papertalk at this PostgreSQL database and Chroma collection."""
    return {
        "PAPERTALK_CATALOG__URL": catalog_url,
        "PAPERTALK_CHROMA__HOST": chroma.host,
        "PAPERTALK_CHROMA__PORT": str(chroma.port),
        "PAPERTALK_CHROMA__COLLECTION": collection,
    }


@contextmanager
def serve_workers(env: dict[str, str], workers: int, timeout: float = 120) -> Iterator[str]:
    """`papertalk serve --workers N` on a free port with `env` on top of the environment; yields its URL.

    Waits until every worker has answered `/api/health` (each worker loads its own models on start).
    """
    port = free_port()
    log = Path(tempfile.mkstemp(prefix="papertalk-serve-", suffix=".log")[1])
    cmd = [sys.executable, "-m", "cli", "serve", "--port", str(port), "--workers", str(workers)]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for_workers(proc, url, workers, log, timeout)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.unlink(missing_ok=True)


def _wait_for_workers(proc: subprocess.Popen[bytes], url: str, workers: int, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"papertalk serve exited with {proc.returncode}: {log.read_text()[-3000:]}")
        if log.read_text(errors="replace").count("Application startup complete") >= workers:
            return
        time.sleep(0.2)
    raise RuntimeError(f"papertalk serve did not start {workers} workers in {timeout:.0f} s: {log.read_text()[-3000:]}")


def run_in_processes(
    target: Callable[..., None], args: list[tuple[Any, ...]], timeout: float = 180
) -> list[int | None]:
    """Run `target(*a)` for each `a` in its own spawned process, all at once; their exit codes."""
    spawn = multiprocessing.get_context("spawn")
    processes = [spawn.Process(target=target, args=a) for a in args]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout)
    return [process.exitcode for process in processes]


def migrate_database(url: str) -> None:
    """Create (or bring up to date) papertalk's schema in a PostgreSQL database, as a starting worker does."""
    from storage.pg_catalog import PgCatalog

    PgCatalog(url).close()
