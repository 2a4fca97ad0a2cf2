"""PDFs parsed under a budget enforced from outside the parser: a worker process with a memory limit,
stopped by its parent when a file takes too long.

The worker is a plain Python child (`python -c`, not `multiprocessing`: spawning that would re-run the
CLI's imports in every worker, and forking a process that runs onnxruntime and Chroma threads is
unsafe). It speaks JSON lines: it says `ready` once started, then answers each request (a path) with
one line (a paper and its warnings, or why the file can't be used). One worker serves file after file,
so the normal path costs a pipe round trip per file; it is replaced when it is killed for running over
the time limit, or when it exits after running out of memory (its address space is capped with
RLIMIT_AS, so pypdf gets a `MemoryError` instead of the machine's memory). A file over the size limit is
refused by the parent before the worker sees it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import select
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path
from typing import IO, Any

from ingest.pdf import MB, check_size, over_limit, parse_pdf
from papertalk.errors import SourceError
from papertalk.settings import PdfSettings, Settings
from storage.records import Paper, Problem

_PACKAGE_ROOT = Path(__file__).resolve().parents[1]
_START_TIMEOUT_S = 120.0  # a worker that cannot import pypdf in this long will not parse anything either
_WORKER_CODE = "from ingest.parse_worker import serve; serve()"


class _Overtime(Exception):
    """The worker did not answer before the deadline."""


class _Ended(Exception):
    """The worker's output ended: it exited or was killed."""


class PdfParser:
    """Parses PDFs one at a time in a reusable worker process, within `limits`. Not thread-safe.

    Use it as a context manager (or call `close`) so the worker ends with it.
    """

    def __init__(self, limits: PdfSettings | None = None) -> None:
        self.limits = limits or PdfSettings()
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> PdfParser:
        from ingest.chunking import warm_up  # imported here: the worker side needs no llama-index

        warm_up()  # the chunker's sentence tokenizer loads while the worker parses
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The running worker's process id (None before the first file and after `close`)."""
        return self._proc.pid if self._proc and self._proc.poll() is None else None

    def parse(self, path: Path) -> tuple[Paper, list[Problem]]:
        """The paper in the PDF at `path` and its warnings; raises `SourceError` saying why it can't be used."""
        check_size(path, self.limits)  # a huge file is never handed to the worker
        answer = self._ask(str(path.absolute()))
        if "error" in answer:
            raise SourceError(str(path), answer["error"])
        paper = dataclasses.replace(paper_from_json(answer["paper"]), path=str(path))
        return paper, [Problem(str(path), why, fatal=False) for why in answer["warnings"]]

    def close(self) -> None:
        if self._proc is not None:
            self._stop()

    def _ask(self, path: str) -> dict[str, Any]:
        try:
            proc = self._worker()
        except _Ended as exc:
            return {"error": f"the PDF parser process did not start ({exc})"}
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(json.dumps({"path": path}).encode() + b"\n")
            proc.stdin.flush()
            answer: dict[str, Any] = json.loads(_read_line(proc.stdout, time.monotonic() + self.limits.timeout_s))
        except _Overtime:
            self._stop()
            return {"error": self._time_reason()}
        except (_Ended, BrokenPipeError):
            return {"error": self._ended_reason(self._stop())}
        if answer.get("exit"):  # it ran out of memory: the next file gets a fresh worker
            self._stop()
        return answer

    def _worker(self) -> subprocess.Popen[bytes]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _WORKER_CODE, self.limits.model_dump_json()],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=_PACKAGE_ROOT,  # the worker imports the same papertalk code as this process
        )
        assert self._proc.stdout is not None
        try:
            if json.loads(_read_line(self._proc.stdout, time.monotonic() + _START_TIMEOUT_S)) != "ready":
                raise _Ended
        except (_Overtime, _Ended) as exc:
            raise _Ended(f"exit code {self._stop()}") from exc
        return self._proc

    def _stop(self) -> int | None:
        """Kill the worker (if it still runs) and reap it; its exit code, negative for a signal."""
        proc, self._proc = self._proc, None
        if proc is None:
            return None
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        return proc.wait()

    def _time_reason(self) -> str:
        return over_limit(f"{self.limits.timeout_s:g} s parse time", "timeout_s")

    def _ended_reason(self, code: int | None) -> str:
        if code == -signal.SIGXCPU:  # the worker's own CPU backstop
            return self._time_reason()
        how = f"signal {signal.Signals(-code).name}" if code and code < 0 else f"exit code {code}"
        return f"the parser process crashed on it ({how}): the file is probably damaged"


def _read_line(stream: IO[bytes], deadline: float) -> bytes:
    """One line from the worker, or `_Overtime` at the deadline, or `_Ended` when its output ends."""
    fd = stream.fileno()
    buffer = bytearray()
    while not buffer.endswith(b"\n"):
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            raise _Overtime
        block = os.read(fd, 1 << 20)
        if not block:
            raise _Ended
        buffer += block
    return bytes(buffer)


def parse_isolated(path: Path, limits: PdfSettings | None = None) -> Paper:
    """One PDF through a worker of its own (Ask PDF, a download); raises `SourceError`."""
    with PdfParser(limits or Settings().pdf) as parser:
        return parser.parse(path)[0]


def paper_to_json(paper: Paper) -> dict[str, Any]:
    data = dataclasses.asdict(paper)
    data["published"] = paper.published.isoformat() if paper.published else None
    return data


def paper_from_json(data: dict[str, Any]) -> Paper:
    published = data.get("published")
    return Paper(**{**data, "published": date.fromisoformat(published) if published else None})


# --- the worker side --------------------------------------------------------------------------------
def serve() -> None:
    """The worker's loop: limits from argv, requests on stdin, one JSON line per answer on stdout."""
    limits = PdfSettings.model_validate_json(sys.argv[1])
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # nothing a library prints can garble the answers
    _cap_memory(limits.max_memory_mb)
    _send(out, "ready")
    for line in sys.stdin.buffer:
        _cap_cpu(limits.timeout_s)
        answer = _answer(Path(json.loads(line)["path"]), limits)
        _send(out, answer)
        if answer.get("exit"):
            return


def _answer(path: Path, limits: PdfSettings) -> dict[str, Any]:
    try:
        paper, warnings = parse_pdf(path, limits)
    except SourceError as exc:
        return {"error": exc.why}
    except MemoryError:
        why = over_limit(f"{limits.max_memory_mb:,} MB parse memory", "max_memory_mb")
        return {"error": why, "exit": True}
    except Exception as exc:  # a parser bug on one file must not end the run
        return {"error": f"could not be parsed ({type(exc).__name__}: {exc})"}
    return {"paper": paper_to_json(paper), "warnings": [w.why for w in warnings]}


def _send(out: IO[bytes], answer: object) -> None:
    out.write(json.dumps(answer).encode() + b"\n")
    out.flush()


def _cap_memory(max_mb: int) -> None:
    import resource

    limit = max_mb * MB
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    with contextlib.suppress(ValueError, OSError):  # a platform that refuses (macOS) keeps the time limit only
        resource.setrlimit(resource.RLIMIT_AS, (limit if hard < 0 else min(limit, hard), hard))


def _cap_cpu(timeout_s: float) -> None:
    """A backstop should the parent die mid-file: the kernel stops this worker soon after its time is up."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(usage.ru_utime + usage.ru_stime + timeout_s) + 5
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(resource.RLIMIT_CPU, (soft if hard < 0 else min(soft, hard), hard))
