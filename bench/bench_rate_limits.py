"""What the shared rate limit costs a chat request on the embedded SQLite catalog.

The limit is one upsert into the catalog's `rate_limits` table per chat request (storage/rate_limits.py),
checked before the body is read. Two measurements, in one run:

1. End to end: two `papertalk serve` processes (1 worker each) over two copies of one store (the bundled
   PDFs and the first `--records` demo records), one with the chat limit on (set far above the load, so
   every request is checked and spent but none refused) and one with it off; one client alternates the same
   questions between them (`--requests` each, after a warm-up), so both see the same machine load.
2. The check alone, in this process: `SharedRates.take` on a copy of the store's SQLite catalog, one
   thread, then `--threads` threads sharing its connection (as a worker's threadpool does), against a
   read of the catalog's `changes_version` (the cheapest catalog query a chat request makes) as baseline.

    nice -n 10 python -m bench.bench_rate_limits
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from bench import bench_api
from bench.bench_api import QUESTIONS, build_store, free_port
from bench.common import ROOT, add_common_args, markdown_table, percentile, publish

MODULE = "bench.bench_rate_limits"
CACHE = ROOT / "bench" / ".cache" / "rate_limits"
ON = "1000000"  # chat requests a minute: every request checked and spent, none refused


def chat_times(bases: dict[str, str], requests: int) -> dict[str, list[float]]:
    """Seconds per POST /api/chat on each server, the servers taking turns on each question (which goes first
    alternating, so neither always runs in the other's wake)."""
    times: dict[str, list[float]] = {name: [] for name in bases}
    with httpx.Client(timeout=300) as http:
        for i in range(requests + len(QUESTIONS)):
            question = QUESTIONS[i % len(QUESTIONS)]
            for name, base in sorted(bases.items(), reverse=i % 2 == 1):
                start = time.perf_counter()
                response = http.post(f"{base}/api/chat", json={"question": question})
                elapsed = time.perf_counter() - start
                response.raise_for_status()
                if i >= len(QUESTIONS):  # the first round of each question warms its caches
                    times[name].append(elapsed)
    return times


def end_to_end(source: Path, tmp: Path, requests: int) -> dict[str, list[float]]:
    servers, bases = [], {}
    try:
        for name, per_minute in (("limit on", ON), ("limit off", "0")):
            data = Path(shutil.copytree(source, tmp / name.replace(" ", "-")))
            env = {**os.environ, "PAPERTALK_API__CHAT_PER_MINUTE": per_minute}
            port = free_port()
            servers.append(bench_api.start_server(data, port, 1, env))
            bases[name] = f"http://127.0.0.1:{port}"
        return chat_times(bases, requests)
    finally:
        for proc in servers:
            proc.terminate()
            proc.wait(timeout=60)


def take_times(catalog_path: Path, takes: int, threads: int) -> dict[str, list[float]]:
    """Seconds per `SharedRates.take` (one thread, then `threads` at once) and per version read."""
    from storage.catalog import Catalog
    from storage.rate_limits import SharedRates

    catalog = Catalog(catalog_path)
    rates = SharedRates(catalog)

    def timed(call: Any, n: int) -> list[float]:
        out = []
        for i in range(n):
            start = time.perf_counter()
            call(i)
            out.append(time.perf_counter() - start)
        return out

    try:
        result = {
            "changes_version read": timed(lambda i: catalog.changes_version, takes),
            "take, 1 thread": timed(lambda i: rates.take("chat", f"client-{i % 50}", int(ON)), takes),
        }
        with ThreadPoolExecutor(threads) as pool:
            parts = pool.map(
                lambda t: timed(lambda i: rates.take("chat", f"c{t}-{i % 50}", int(ON)), takes // threads),
                range(threads),
            )
            result[f"take, {threads} threads sharing the connection"] = [x for part in parts for x in part]
        return result
    finally:
        catalog.close()


def report(args: argparse.Namespace, chats: dict[str, list[float]], takes: dict[str, list[float]]) -> str:
    on, off = percentile(chats["limit on"], 50), percentile(chats["limit off"], 50)
    rows = [[name, len(t), percentile(t, 50) * 1000, percentile(t, 95) * 1000] for name, t in chats.items()]
    table = markdown_table(["POST /api/chat", "requests", "p50 (ms)", "p95 (ms)"], rows, digits=0)
    check_rows = [[name, len(t), percentile(t, 50) * 1e6, percentile(t, 95) * 1e6] for name, t in takes.items()]
    checks = markdown_table(
        ["catalog call (SQLite, in process)", "calls", "p50 (µs)", "p95 (µs)"], check_rows, digits=0
    )
    take = percentile(takes["take, 1 thread"], 50)
    return (
        f"Store: the bundled PDFs and {args.records} demo records, embedded Chroma + SQLite; two servers (1 worker "
        f"each) over two copies of it, the chat limit on ({ON} a minute: checked and spent, never refused) and "
        f"off, one client alternating the same questions between them.\n\n{table}\n\n"
        f"Chat p50 with the limit on / off: {on / off:.3f} ({(on - off) * 1000:+.0f} ms).\n\n{checks}\n\n"
        f"The check itself (one upsert in its own transaction, WAL, synchronous=NORMAL) is {take * 1e3:.2f} ms at "
        f"p50, 1/{off / take:,.0f} of a chat answer's p50 in the same run."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=20, help="demo records in the store built here")
    parser.add_argument("--requests", type=int, default=64, help="timed chat requests per server")
    parser.add_argument("--takes", type=int, default=2000, help="timed rate-limit checks in process")
    parser.add_argument("--threads", type=int, default=4)
    add_common_args(parser)
    args = parser.parse_args()
    source = CACHE / f"records-{args.records}"
    build_store(source, args.records)
    with tempfile.TemporaryDirectory(prefix="papertalk-rates-") as tmp:
        chats = end_to_end(source, Path(tmp), args.requests)
        from papertalk.settings import Settings

        copy = Path(shutil.copytree(source, Path(tmp) / "checks"))
        takes = take_times(Settings(data_dir=copy).catalog_path, args.takes, args.threads)
    body = report(args, chats, takes)
    publish(args, "rate-limits-sqlite", "Shared rate limit: cost per chat request on SQLite", MODULE, body)


if __name__ == "__main__":
    main()
