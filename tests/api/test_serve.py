"""`papertalk serve` as a real process on a free loopback port, called over real HTTP."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx
import pytest

from tests.api.test_chat import QUESTION, parse_sse
from tests.api.test_uploads import lantern_pdf
from tests.helpers.cli import PAPERTALK, cli_env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_up(base: str, proc: subprocess.Popen[str], log: IO[str], timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            log.seek(0)
            raise AssertionError(f"papertalk serve exited {proc.returncode}: {log.read()[-3000:]}")
        try:
            if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.3)
    raise AssertionError("papertalk serve did not answer in time")


@contextmanager
def serving(args: list[str], env: dict[str, str]) -> Iterator[str]:
    """`papertalk ARGS serve` on a free port, up; its base URL. Its output must hold no traceback.

    The output goes to a file, not a pipe: a pipe nobody reads until the end fills after 64 KiB of log
    lines, and the server then stalls on its next log line.
    """
    port = free_port()
    with tempfile.TemporaryFile("w+") as log:
        proc = subprocess.Popen(
            [str(PAPERTALK), *args, "serve", "--port", str(port)],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            wait_until_up(base, proc, log)
            yield base
        finally:
            stop(proc)
            log.seek(0)
            output = log.read()
        assert "Traceback" not in output, output[-3000:]


def stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:  # still finishing background work: stop it
        proc.kill()
        proc.wait()


@pytest.fixture
def server(corpus_dir: Path, tmp_path: Path) -> Iterator[str]:
    """The server over a copy of the answer corpus (this test's upload must not change the shared one)."""
    data = shutil.copytree(corpus_dir, tmp_path / "served")
    with serving(["--data-dir", str(data)], cli_env()) as base:
        yield base


@pytest.mark.slow
def test_serve_answers_streams_and_takes_uploads_over_http(server: str, tmp_path: Path) -> None:
    with httpx.Client(base_url=server, timeout=120) as http:
        plain = http.post("/api/chat", json={"question": QUESTION}).json()
        frames = []
        with http.stream(
            "POST", "/api/chat", json={"question": QUESTION}, headers={"Accept": "text/event-stream"}
        ) as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            frames = parse_sse(r.read().decode())
        assert [n for n, _ in frames][-2:] == ["answer", "done"] and frames[0][0] == "delta"
        assert frames[-2][1]["sentences"] == plain["sentences"]
        sent = http.post("/api/uploads", files={"file": ("x.pdf", lantern_pdf(tmp_path), "application/pdf")}).json()
        states = [sent["status"]]
        while states[-1] in ("queued", "parsing"):
            time.sleep(0.2)
            states.append(http.get(f"/api/uploads/{sent['upload_id']}").json()["status"])
        assert states[-1] == "ready", states
        assert http.get("/docs").status_code == 200
