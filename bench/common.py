"""Shared helpers for the benchmarks: where the data is, what machine ran, timing, memory, tables, the results doc.

Each benchmark records its results as a named section of docs/benchmarks.md, between
`<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, so that benchmarks can rewrite their own section
without touching the others'.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import fcntl
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from papertalk.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DOC_PATH = ROOT / "docs" / "benchmarks.md"
RESULT_PREFIX = "BENCH_RESULT "
DEFAULT_PACKAGES = ("onnxruntime", "chromadb")
ARXIV_FILE_NAME = "arxiv-cs-ai-cl-ir-2024-12-to-2026-08.jsonl.gz"

DOC_INTRO = """# Benchmarks

Measured numbers for papertalk, each section written by the script named in it (`bench/`, see
bench/README.md). Every section says the machine, the date and the exact command, so it can be rerun.

The development machine is small and shared: 2 CPU cores that other developers use for their test runs
while benchmarks run. Absolute numbers are therefore noisy; whenever a claim is a comparison (overhead
against a baseline), both sides are measured in the same run, interleaved, and the best of the repeats is
kept. Speed targets are checked here, never in timed tests.
"""


# --- data ----------------------------------------------------------------------------------------
def shared_dir() -> Path:
    """The shared data folder: `PAPERTALK_SHARED`, else `shared/` next to the project's root."""
    env = os.environ.get("PAPERTALK_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


def pdf_folder() -> Path:
    return shared_dir() / "data" / "pdfs"


def pdf_bench_args(doc: str | None, argv: list[str] | None) -> argparse.Namespace | None:
    """The common arguments of a bench over shared/data/pdfs, read after checking the settings (a misspelt
    PAPERTALK_ variable fails here, before minutes of indexing); None, said, when the PDFs are not there."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    args = parser.parse_args(argv)
    Settings()
    if not pdf_folder().exists():
        print(f"shared/data/pdfs not found at {pdf_folder()}: nothing to measure (set PAPERTALK_SHARED)")
        return None
    return args


def arxiv_file() -> Path:
    return shared_dir() / "data" / "arxiv" / ARXIV_FILE_NAME


def require(path: Path, what: str) -> Path:
    """`path` if it exists; otherwise say the benchmark is skipped and exit 0."""
    if not path.exists():
        print(f"skipped: {what} not found at {path} (set PAPERTALK_SHARED to the shared data folder)")
        sys.exit(0)
    return path


# --- machine -------------------------------------------------------------------------------------
def _cpu_model() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or platform.machine()


def _ram_gib() -> float:
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / (1024 * 1024)
    return 0.0


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 0


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _load() -> float:
    """The 1-minute load average (0 where the system does not tell)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0


START_LOAD = _load()  # taken when a bench imports this module, before it measures anything


def machine_line(packages: Sequence[str] = DEFAULT_PACKAGES, start_load: float | None = None) -> str:
    """One line describing the machine and the software versions that matter for the numbers, with the load
    average at the start of the run (`start_load`, default: when this module was imported) and at its end."""
    start = START_LOAD if start_load is None else start_load
    versions = ", ".join(f"{p} {_version(p)}" for p in packages)
    return (
        f"{_cpu_model()}, {_cores()} cores, {_ram_gib():.0f} GiB RAM; Python {platform.python_version()}, "
        f"{versions}; load average {start:.2f} at start, {_load():.2f} at the end"
    )


# --- timing and memory ---------------------------------------------------------------------------
class Stopwatch:
    """`with Stopwatch() as sw: ...` then `sw.seconds` (wall clock) and `sw.cpu` (CPU seconds, all threads).

    On a shared machine CPU time is the steadier measure: it barely moves when other processes take
    the cores, while wall time does.
    """

    def __init__(self) -> None:
        self.seconds = 0.0
        self.cpu = 0.0
        self._start = (0.0, 0.0)

    def __enter__(self) -> Stopwatch:
        self._start = (time.perf_counter(), time.process_time())
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self._start[0]
        self.cpu = time.process_time() - self._start[1]


def peak_rss_mb() -> float:
    """This process's peak resident set size so far, in MiB (VmHWM, else getrusage)."""
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by nearest rank; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return float(ordered[min(int(rank), len(ordered)) - 1])


# --- child processes (fresh process = its own peak RSS) ------------------------------------------
def emit_result(result: dict[str, Any]) -> None:
    """Print a child's result as the one line `run_child` looks for."""
    print(RESULT_PREFIX + json.dumps(result), flush=True)


def run_child(module: str, args: Sequence[str]) -> dict[str, Any]:
    """Run `python -m module args` from the project root and return the result it emitted."""
    cmd = [sys.executable, "-m", module, *args]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(RESULT_PREFIX):
            result: dict[str, Any] = json.loads(line[len(RESULT_PREFIX) :])
            return result
    raise RuntimeError(f"{' '.join(cmd)} exited {proc.returncode} without a result:\n{proc.stderr[-3000:]}")


# --- tables and the results doc ------------------------------------------------------------------
def fmt(value: object, digits: int = 1) -> str:
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]], digits: int = 1) -> str:
    """A GitHub markdown table; numbers right-aligned and formatted with `digits` decimals."""
    cells = [[fmt(v, digits) for v in row] for row in rows]
    numeric = [
        bool(rows) and all(isinstance(row[i], int | float) or str(row[i]) in ("", "-") for row in rows)
        for i in range(len(headers))
    ]
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---:" if n else "---" for n in numeric) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in cells]
    return "\n".join(lines)


def command_line(module: str) -> str:
    """The command that is running, as someone would type it again."""
    niceness = os.nice(0)
    prefix = f"nice -n {niceness} " if niceness > 0 else ""
    return f"{prefix}python -m {module} {' '.join(sys.argv[1:])}".rstrip()


def section_text(title: str, module: str, body: str, packages: Sequence[str] = DEFAULT_PACKAGES) -> str:
    """A results section: heading, when/where/how it ran, then `body`."""
    today = dt.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    return (
        f"## {title}\n\n"
        f"Run {today} on: {machine_line(packages)}.\n\n"
        f"Command (from the project root): `{command_line(module)}`\n\n"
        f"{body.strip()}\n"
    )


def replace_section(doc: str, name: str, text: str) -> str:
    """`doc` with the section `name` replaced by `text` (appended when it is not there yet)."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{text.strip()}\n{end}"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(doc):
        return pattern.sub(lambda _: block, doc, count=1)
    return doc.rstrip() + "\n\n" + block + "\n"


def write_section(name: str, text: str, doc_path: Path = DOC_PATH) -> None:
    """Write section `name` into the results doc, creating it with its intro if needed (file-locked)."""
    doc_path.parent.mkdir(parents=True, exist_ok=True)
    with doc_path.open("a+", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        doc = fh.read() or DOC_INTRO
        fh.seek(0)
        fh.truncate()
        fh.write(replace_section(doc, name, text))


def add_common_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-record", action="store_true", help="print the results without writing the doc")


def publish(args: argparse.Namespace, name: str, title: str, module: str, body: str) -> None:
    """Print the section and, unless `--no-record`, write it into docs/benchmarks.md."""
    text = section_text(title, module, body)
    print(text)
    if not args.no_record:
        write_section(name, text)
        print(f"recorded in {DOC_PATH.relative_to(ROOT)} (section '{name}')")


@contextlib.contextmanager
def quiet_logs() -> Iterator[None]:
    """Silence library warnings (pypdf's per-font complaints) while measuring."""
    import logging

    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    try:
        yield
    finally:
        logging.disable(previous)


RELIABILITY_PATH = ROOT / "docs" / "reliability.md"


def publish_reliability(args: argparse.Namespace, name: str, title: str, module: str, body: str) -> None:
    """`publish`, and the same section in docs/reliability.md (fault and load runs are recorded in both)."""
    publish(args, name, title, module, body)
    if not args.no_record:
        write_section(name, section_text(title, module, body), RELIABILITY_PATH)
