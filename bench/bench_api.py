"""The HTTP API under load: requests/s and p50/p95 of POST /api/chat (extractive) and GET /api/topics/{slug}
with 16 concurrent clients on loopback, errors counted, the server's peak RSS, and time to the first
streamed `delta` event of POST /api/chat/stream.

The store is the bundled demo corpus's two PDFs plus its first `--records` arXiv records in the demo topic,
built through the real pipeline once under bench/.cache/api/ (reused by later runs). The server is
`papertalk serve` in its own process (one worker); the clients are one httpx async client here. The
same-run baseline is the same questions answered in-process by `Assistant.ask`, one at a time, so the
table shows what HTTP, JSON and the threadpool add per answer; the topic page's baseline is a second server
started with its page cache off (`PAPERTALK_API__TOPIC_PAGE_CACHE=0`), loaded the same way.

    nice -n 10 python -m bench.bench_api                 # ~5-10 min on the shared 2-core machine
    python -m bench.bench_api --requests 64 --no-record  # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from bench.common import ROOT, add_common_args, markdown_table, percentile, publish, quiet_logs

MODULE = "bench.bench_api"
CACHE = ROOT / "bench" / ".cache" / "api"
QUESTIONS = [
    "How many papers and full texts does S2ORC contain?",
    "What is reinforcement learning for LLM agents?",
    "How are reward models used to train language model agents?",
    "Which benchmarks evaluate web agents?",
    "How does LongEval evaluate long text summarization?",
    "What is the role of human evaluation in summarization?",
    "How do agents use tools with reinforcement learning?",
    "What is policy optimization for multi-turn dialogue?",
]


def build_store(data_dir: Path, records: int) -> None:
    """The bundled PDFs and the first `records` demo records (in the demo topic), unless already built."""
    from ingest.arxiv_metadata import RecordFilter
    from ingest.pipeline import Ingestor
    from ingest.sources import arxiv_papers, pdf_papers
    from papertalk.demo import DEMO_METADATA, DEMO_PDFS, DEMO_TOPIC
    from papertalk.settings import Settings
    from storage.store import Store

    store = Store(Settings(data_dir=data_dir))
    try:
        if store.catalog.get_meta("bench_api_records") != str(records):
            Ingestor(store).run(pdf_papers([DEMO_PDFS]))
            report = Ingestor(store).run(arxiv_papers(DEMO_METADATA, RecordFilter(limit=records)))
            store.topics.assign(store.topics.ensure(DEMO_TOPIC), report.paper_ids)
            store.catalog.set_meta("bench_api_records", str(records))
        if store.catalog.get_meta("bench_api_topic_page") != str(records):
            build_topic_page(store, DEMO_TOPIC)
            store.catalog.set_meta("bench_api_topic_page", str(records))
    finally:
        store.close()


def build_topic_page(store: Any, topic: str) -> None:
    """What a full topic page shows: every paper scored against the bundled topics (tags, related topics)
    and the topic's stored cited overview."""
    from assistant.overview import OverviewService
    from ingest.topic_assign import TopicAssigner

    TopicAssigner(store).assign_all()
    OverviewService(store).build(topic)


def in_process_p50(data_dir: Path, repeats: int) -> tuple[float, float]:
    """Median seconds of `Assistant.ask` over the questions and of the demo topic's page
    (`TopicService.page(...).to_dict()`), in this process, one at a time, after one warm-up each."""
    from assistant.service import Assistant
    from assistant.topics import TopicService
    from papertalk.demo import DEMO_TOPIC
    from papertalk.settings import Settings
    from storage.store import Store

    store = Store(Settings(data_dir=data_dir))
    assistant, topics = Assistant(store), TopicService(store, page_cache=0)  # built every time
    assistant.ask(QUESTIONS[0])
    topics.page(DEMO_TOPIC).to_dict()
    asks, pages = [], []
    for i in range(repeats):
        start = time.perf_counter()
        assistant.ask(QUESTIONS[i % len(QUESTIONS)])
        asks.append(time.perf_counter() - start)
        start = time.perf_counter()
        topics.page(DEMO_TOPIC).to_dict()
        pages.append(time.perf_counter() - start)
    store.close()
    return percentile(asks, 50), percentile(pages, 50)


# --- the server -----------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    data_dir: Path, port: int, workers: int = 1, env: dict[str, str] | None = None, log: Path | None = None
) -> subprocess.Popen[bytes]:
    """`papertalk serve` on `port`, its output in `log` when given (else dropped), once it answers."""
    cmd = [sys.executable, "-m", "cli", "--data-dir", str(data_dir), "serve", "--port", str(port)]
    cmd += ["--workers", str(workers)]
    out = log.open("ab") if log else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                return proc
        except httpx.TransportError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError("papertalk serve did not start")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


# --- the clients ----------------------------------------------------------------------------------
async def load(base: str, requests: list[tuple[str, str, dict | None]], clients: int) -> dict[str, Any]:
    """Send `requests` (method, path, json) from `clients` concurrent workers; latencies and errors."""
    queue: asyncio.Queue[tuple[str, str, dict | None]] = asyncio.Queue()
    for r in requests:
        queue.put_nowait(r)
    latencies: list[float] = []
    errors: list[str] = []

    async def worker(http: httpx.AsyncClient) -> None:
        while not queue.empty():
            method, path, body = queue.get_nowait()
            start = time.perf_counter()
            try:
                response = await http.request(method, path, json=body)
                if response.status_code != 200:
                    errors.append(f"{response.status_code} {response.text[:200]}")
            except httpx.HTTPError as exc:
                errors.append(repr(exc))
            latencies.append(time.perf_counter() - start)

    limits = httpx.Limits(max_connections=clients)
    async with httpx.AsyncClient(base_url=base, timeout=300, limits=limits) as http:
        start = time.perf_counter()
        await asyncio.gather(*(worker(http) for _ in range(clients)))
        wall = time.perf_counter() - start
    return {
        "n": len(requests),
        "rps": len(requests) / wall,
        "p50": percentile(latencies, 50),
        "p95": percentile(latencies, 95),
        "errors": errors,
    }


def first_delta_times(base: str, repeats: int) -> tuple[list[float], list[float]]:
    """Seconds to the first `delta` event and to `done`, one streamed question at a time."""
    first, total = [], []
    with httpx.Client(base_url=base, timeout=300) as http:
        for i in range(repeats):
            start = time.perf_counter()
            seen = None
            with http.stream("POST", "/api/chat/stream", json={"question": QUESTIONS[i % len(QUESTIONS)]}) as r:
                for line in r.iter_lines():
                    if seen is None and line == "event: delta":
                        seen = time.perf_counter() - start
            first.append(seen if seen is not None else float("nan"))
            total.append(time.perf_counter() - start)
    return first, total


# --- main -----------------------------------------------------------------------------------------
def measure(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    from papertalk.demo import DEMO_TOPIC
    from storage.topics import slugify

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    unlimited = {**os.environ, "PAPERTALK_API__CHAT_PER_MINUTE": "0"}  # one client sends them all: no 429s
    server = start_server(data_dir, port, env=unlimited)
    try:
        chat = [("POST", "/api/chat", {"question": QUESTIONS[i % len(QUESTIONS)]}) for i in range(8)]
        asyncio.run(load(base, chat, 2))  # warm-up: model, Chroma, BM25 loaded
        slug = slugify(DEMO_TOPIC)
        topic = [("GET", f"/api/topics/{slug}", None)] * args.topic_requests
        results = {
            "chat": asyncio.run(load(base, chat * (args.requests // len(chat)), args.clients)),
            "topic": asyncio.run(load(base, topic, args.clients)),
            "chat_single": asyncio.run(load(base, chat, 1)),
        }
        results["first_delta"], results["stream_total"] = first_delta_times(base, args.stream_repeats)
        results["rss_mb"] = peak_rss_mb(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=60)
    results["topic_uncached"] = topic_page_uncached(args, data_dir, f"/api/topics/{slug}")
    return results


def topic_page_uncached(args: argparse.Namespace, data_dir: Path, path: str) -> dict[str, Any]:
    """The same-run baseline of the topic page: a server that builds it for every request
    (`PAPERTALK_API__TOPIC_PAGE_CACHE=0`), under the same load."""
    port = free_port()
    server = start_server(data_dir, port, env={**os.environ, "PAPERTALK_API__TOPIC_PAGE_CACHE": "0"})
    try:
        return asyncio.run(load(f"http://127.0.0.1:{port}", [("GET", path, None)] * args.topic_requests, args.clients))
    finally:
        server.terminate()
        server.wait(timeout=60)


def _row(label: str, run: dict[str, Any]) -> list[object]:
    return [label, run["n"], run["rps"], run["p50"] * 1000, run["p95"] * 1000, len(run["errors"])]


def report(
    args: argparse.Namespace, r: dict[str, Any], in_process: tuple[float, float], papers: int, chunks: int
) -> str:
    labels = {
        "chat": f"POST /api/chat, {args.clients} clients",
        "topic": f"GET /api/topics/{{slug}}, {args.clients} clients",
        "topic_uncached": f"GET /api/topics/{{slug}}, {args.clients} clients, page cache off (baseline)",
        "chat_single": "POST /api/chat, 1 client",
    }
    rows = [_row(label, r[name]) for name, label in labels.items()]
    table = markdown_table(["route", "requests", "requests/s", "p50 ms", "p95 ms", "errors"], rows)
    first = [t for t in r["first_delta"] if t == t]
    topic_speedup = r["topic"]["rps"] / r["topic_uncached"]["rps"]
    ask, page = in_process
    overhead = r["chat_single"]["p50"] / ask if ask else 0.0
    return f"""Store: the two bundled PDFs and the first {args.records} demo records ({papers} papers,
{chunks:,} chunks) scored against the bundled topics, the demo topic's cited overview stored (so
`GET /api/topics/{{slug}}` is the whole topic page: momentum, weekly counts, latest papers with tags, related
topics, overview), extractive backend, bundled embedding model; server `papertalk serve` (uvicorn, 1 worker)
on 127.0.0.1, clients one httpx async client in another process.

{table}

- Server peak RSS: {r["rss_mb"]:,.0f} MiB.
- Time to the first streamed `delta` (POST /api/chat/stream, one at a time, {len(r["first_delta"])} questions):
  p50 {percentile(first, 50) * 1000:,.0f} ms, p95 {percentile(first, 95) * 1000:,.0f} ms; whole stream p50
  {percentile(r["stream_total"], 50) * 1000:,.0f} ms. The extractive answerer produces its text once the
  answer is composed and checked, so the first delta comes when retrieval and composition are done.
- Same-run baseline: `Assistant.ask` in-process, one at a time, p50 {ask * 1000:,.0f} ms; over HTTP with one
  client p50 {r["chat_single"]["p50"] * 1000:,.0f} ms ({overhead:.2f}x). The topic page built in-process
  (`TopicService.page(...).to_dict()`, no page cache), one at a time, p50 {page * 1000:,.0f} ms. Both in-process
  figures are taken while the machine is shared, so they move with its load.
- The topic page is kept built per server process until the catalog's `changes_version` moves (any write
  transaction, from any process: ingest, follow, overview); the baseline row is a second server started with
  `PAPERTALK_API__TOPIC_PAGE_CACHE=0`, which builds the page (about 20 catalog queries) for every request.
  Topic page p95 {r["topic_uncached"]["p95"] * 1000:,.0f} ms without the cache, {r["topic"]["p95"] * 1000:,.0f} ms
  with it ({topic_speedup:.1f}x the requests/s).
- With {args.clients} clients the answers share the machine's cores, so each waits longer while the total
  rate is what the cores give; errors must be 0.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", type=int, default=300, help="demo arXiv records in the store")
    parser.add_argument("--requests", type=int, default=160, help="chat requests under load")
    parser.add_argument("--topic-requests", type=int, default=800, help="topic page requests under load")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients")
    parser.add_argument("--stream-repeats", type=int, default=8, help="streamed questions for the first delta")
    add_common_args(parser)
    args = parser.parse_args()
    data_dir = CACHE / f"store-{args.records}"
    with quiet_logs():
        build_store(data_dir, args.records)
        in_process = in_process_p50(data_dir, 16)
    results = measure(args, data_dir)
    from papertalk.settings import Settings
    from storage.store import Store

    store = Store(Settings(data_dir=data_dir))
    papers, chunks = store.catalog.count_papers("indexed"), store.catalog.count_chunks()
    store.close()
    for name in ("chat", "topic", "topic_uncached", "chat_single"):
        for err in results[name]["errors"][:3]:
            print(f"error ({name}): {err}")
    print(json.dumps({k: v for k, v in results.items() if not k.startswith(("chat", "topic"))}, default=str)[:500])
    publish(args, "api", "HTTP API under load", MODULE, report(args, results, in_process, papers, chunks))


if __name__ == "__main__":
    main()
