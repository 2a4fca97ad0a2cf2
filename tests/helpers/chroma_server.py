"""A real Chroma server (`chroma run`, from the chromadb package) on a free port of 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

CHROMA = Path(sys.executable).parent / "chroma"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class ChromaServer:
    host: str
    port: int
    path: Path
    log: Path

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def client(self):  # type: ignore[no-untyped-def]  # a chromadb.HttpClient, separate from papertalk's
        import chromadb
        from chromadb.config import Settings

        return chromadb.HttpClient(host=self.host, port=self.port, settings=Settings(anonymized_telemetry=False))


def wait_for_heartbeat(proc: subprocess.Popen[bytes], url: str, log: Path, timeout: float) -> None:
    """Until `chroma run` at `url` answers its heartbeat; its log's tail in the error if it exits or stays silent."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"chroma run exited with {proc.returncode}: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/api/v2/heartbeat", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"chroma run did not answer its heartbeat in {timeout:.0f} s: {log.read_text()[-2000:]}")


@contextmanager
def chroma_server(path: Path, timeout: float = 60) -> Iterator[ChromaServer]:
    """Start `chroma run --path PATH` on a free port, wait until it answers, always stop it."""
    path.mkdir(parents=True, exist_ok=True)
    server = ChromaServer("127.0.0.1", free_port(), path, path.parent / f"{path.name}-server.log")
    cmd = [str(CHROMA), "run", "--path", str(path), "--port", str(server.port), "--host", server.host]
    with server.log.open("wb") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        wait_for_heartbeat(proc, server.url, server.log, timeout)
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
