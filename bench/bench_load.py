"""Load while ingesting: chat and the topic page under concurrent clients while new papers are ingested.

`--clients` async clients (httpx) send, for `--duration` seconds, questions to POST /api/chat (extractive
backend; each question scoped to the demo topic and unscoped, in turn) and GET /api/topics/{slug} +
/api/topics/{slug}/papers, while `--uploads` new PDFs (the smallest of the shared PDFs) are uploaded through
POST /api/uploads and ingested by the server. It counts every error (a transport error or an unexpected
status), checks that answers stay consistent, and records p50/p95 per route. Each answer names the catalog's
`changes_version` it was made from (read before and after answering, `changes_version` /
`changes_version_after`): all answers to one question at one version must be identical, whichever worker made
them; an answer during which the version moved is counted apart (a write landed while it was made, so it rests
on no single version).

It targets any running server (`--url`, e.g. several workers over a Chroma server and PostgreSQL; the
server's rate limits must be off or above the load), or starts `papertalk serve --workers N` itself over
a copy of a store built from the bundled PDFs and the first `--records` demo records (cached under
bench/.cache/load/). Rows are kept per `--label` in docs/benchmarks.md and docs/reliability.md.

    nice -n 10 python -m bench.bench_load                                  # 1 worker, embedded stack
    python -m bench.bench_load --url http://127.0.0.1:8000 --workers 4 --label "4 workers, Chroma server + PostgreSQL"
    nice -n 10 python -m bench.bench_load --stack --workers 4 --label "4 workers, Chroma server + PostgreSQL"
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx

from bench import bench_api
from bench.bench_api import QUESTIONS, build_store, free_port
from bench.common import (
    ROOT,
    add_common_args,
    markdown_table,
    pdf_folder,
    percentile,
    publish_reliability,
    require,
)

MODULE = "bench.bench_load"
CACHE = ROOT / "bench" / ".cache" / "load"


@dataclass(frozen=True)
class Seen:
    """One answer: its question, the catalog versions read before and after it was made, and what it said."""

    question: str
    before: int
    after: int
    text: str
    sources: tuple[tuple[str, float | None, float | None], ...]  # (chunk id, dense score, keyword score)

    @staticmethod
    def of(question: str, answer: dict[str, Any]) -> Seen:
        sources = tuple((s["chunk_id"], s["dense_score"], s["keyword_score"]) for s in answer["sources"])
        before, after = answer["changes_version"], answer["changes_version_after"]
        return Seen(question, before, after, str(answer["text"]), sources)


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: list[str] = field(default_factory=list)
    answers: list[Seen] = field(default_factory=list)

    def error(self, route: str, what: str) -> None:
        self.errors.append(f"{route}: {what[:200]}")


def asks(slug: str) -> list[tuple[str, str | None]]:
    """(question, topic slug or None for all papers): each question in the topic, then over all papers."""
    return [(q, scope) for q in QUESTIONS for scope in (slug, None)]


def chat_body(question: str, slug: str | None) -> dict[str, Any]:
    return {"question": question, "scope": {"topic": slug} if slug else {}}


def label(question: str, slug: str | None) -> str:
    return f"{question} [{'topic' if slug else 'all papers'}]"


async def ask(http: httpx.AsyncClient, question: str, slug: str | None) -> Seen:
    response = await http.post("/api/chat", json=chat_body(question, slug))
    response.raise_for_status()
    return Seen.of(label(question, slug), response.json())


async def timed(tally: Tally, route: str, call: Any) -> httpx.Response | None:
    start = time.perf_counter()
    try:
        response: httpx.Response = await call
    except httpx.HTTPError as exc:
        tally.error(route, repr(exc))
        return None
    finally:
        tally.latencies[route].append(time.perf_counter() - start)
    if response.status_code != 200:
        tally.error(route, f"{response.status_code} {response.text}")
        return None
    return response


async def client_loop(http: httpx.AsyncClient, slug: str, until: float, tally: Tally, offset: int) -> None:
    i, questions = offset, asks(slug)
    while time.monotonic() < until:
        question, scope = questions[i % len(questions)]
        response = await timed(tally, "POST /api/chat", http.post("/api/chat", json=chat_body(question, scope)))
        if response is not None:
            tally.answers.append(Seen.of(label(question, scope), response.json()))
        await timed(tally, "GET /api/topics/{slug}", http.get(f"/api/topics/{slug}"))
        await timed(tally, "GET /api/topics/{slug}/papers", http.get(f"/api/topics/{slug}/papers"))
        i += 1


async def upload_all(http: httpx.AsyncClient, pdfs: list[Path], tally: Tally) -> dict[str, str]:
    """Upload the PDFs one after another, then wait until each is ready or failed: {upload id: state}."""
    ids = []
    for pdf in pdfs:
        response = await http.post("/api/uploads", files={"file": (pdf.name, pdf.read_bytes(), "application/pdf")})
        if response.status_code != 202:
            tally.error("POST /api/uploads", f"{response.status_code} {response.text}")
            continue
        ids.append(str(response.json()["upload_id"]))
    states: dict[str, str] = {}
    while len(states) < len(ids):
        for upload_id in ids:
            state = (await http.get(f"/api/uploads/{upload_id}")).json()
            if state["status"] in ("ready", "failed"):
                states[upload_id] = state["status"] + (
                    f" ({state.get('reason')})" if state["status"] == "failed" else ""
                )
        await asyncio.sleep(1)
    return states


async def run_load(base: str, slug: str, args: argparse.Namespace, pdfs: list[Path]) -> dict[str, Any]:
    tally = Tally()
    limits = httpx.Limits(max_connections=args.clients + 2)
    async with httpx.AsyncClient(base_url=base, timeout=300, limits=limits) as http:
        before = {label(q, s): await ask(http, q, s) for q, s in asks(slug)}
        started = time.monotonic()
        until = started + args.duration
        uploads = asyncio.create_task(upload_all(http, pdfs, tally))
        await asyncio.gather(*(client_loop(http, slug, until, tally, i) for i in range(args.clients)))
        loaded = time.monotonic() - started
        states = await uploads
        wall = time.monotonic() - started
        after = {label(q, s): await ask(http, q, s) for q, s in asks(slug)}
    between = [s for s in tally.answers if s.text not in (before[s.question].text, after[s.question].text)]
    tally.answers += [*before.values(), *after.values()]
    changed = sum(before[q].text != after[q].text for q in before)
    return {
        "tally": tally,
        "wall": wall,
        "ingest_after_load": wall - loaded,
        "uploads": states,
        "changed": changed,
        "between": len(between),
        "between_versions": sorted({s.before for s in between}),
        **consistency(tally.answers),
    }


def consistency(answers: list[Seen]) -> dict[str, Any]:
    """Answers grouped by (question, version) where the version held while they were made: `inconsistent` lists
    the groups holding more than one distinct answer (each group's answers, for the record)."""
    groups: dict[tuple[str, int], list[Seen]] = defaultdict(list)
    for seen in answers:
        if seen.before == seen.after:
            groups[(seen.question, seen.before)].append(seen)
    inconsistent = [g for g in groups.values() if len({s.text for s in g}) > 1]
    return {
        "stable": sum(len(g) for g in groups.values()),
        "moved": sum(s.before != s.after for s in answers),
        "groups": len(groups),
        "versions": len({v for _, v in groups}),
        "inconsistent": inconsistent,
    }


def describe(group: list[Seen]) -> str:
    """How the distinct answers of one (question, version) group differ: their texts and sources."""
    distinct = {s.text: s for s in group}
    lines = [f"{group[0].question!r} at version {group[0].before}: {len(distinct)} distinct answers in {len(group)}"]
    for text, seen in distinct.items():
        lines.append(f"  {sum(s.text == text for s in group)}x {text[:120]!r}")
        lines.append(f"     sources {[(c, d and round(d, 6), k and round(k, 6)) for c, d, k in seen.sources]}")
    return "\n".join(lines)


def start_server(data_dir: Path, port: int, workers: int, log: Path | None = None) -> subprocess.Popen[bytes]:
    """`papertalk serve --workers N` with the rate limits off (the load comes from one address)."""
    env = {**os.environ, "PAPERTALK_API__CHAT_PER_MINUTE": "0", "PAPERTALK_API__UPLOADS_PER_MINUTE": "0"}
    return bench_api.start_server(data_dir, port, workers, env, log)


def new_pdfs(n: int) -> list[Path]:
    """The `n` smallest shared PDFs whose names look like papers (not the hostile test files)."""
    found = [p for p in pdf_folder().rglob("*.pdf") if not re.match(r"(index|key|value)-", p.name)]
    return sorted(found, key=lambda p: p.stat().st_size)[:n]


def report(args: argparse.Namespace, r: dict[str, Any], n_pdfs: int) -> str:
    tally: Tally = r["tally"]
    rows = [
        [route, len(times), percentile(times, 50) * 1000, percentile(times, 95) * 1000]
        for route, times in sorted(tally.latencies.items())
    ]
    ready = sum(s == "ready" for s in r["uploads"].values())
    table = markdown_table(["route", "requests", "p50 (ms)", "p95 (ms)"], rows, digits=0)
    return (
        f"**{args.label}**: {args.clients} clients for {args.duration:g} s against {r['base']} "
        f"({args.workers} worker(s); extractive backend; store: {r['store']}), while {n_pdfs} new PDFs were "
        f"uploaded and ingested ({ready} ready, the last {r['wall']:.0f} s after the load started, "
        f"{r['ingest_after_load']:.0f} s after the clients stopped).\n\n{table}\n\n"
        f"Errors: {len(tally.errors)}. Answers made at one catalog version: {r['stable']} ({r['groups']} "
        f"question-and-version groups over {r['versions']} versions); answers during which the version moved: "
        f"{r['moved']}. Groups holding more than one distinct answer (inconsistent): {len(r['inconsistent'])}. "
        f"Answers neither the one before the run nor the one after it: {r['between']} (made at versions "
        f"{', '.join(map(str, r['between_versions'])) or '-'}, between the ingests' writes). Questions whose "
        f"answer the new papers changed: {r['changed']} of {len(QUESTIONS) * 2}."
    )


def demo_slug() -> str:
    from papertalk.demo import DEMO_TOPIC
    from storage.topics import slugify

    return slugify(DEMO_TOPIC)


def measure(args: argparse.Namespace, pdfs: list[Path]) -> dict[str, Any]:
    if args.url:
        result = asyncio.run(run_load(args.url, demo_slug(), args, pdfs))
        return {**result, "base": args.url, "store": "the server's"}
    if args.stack:
        return measure_on_stack(args, pdfs)
    source = CACHE / f"records-{args.records}"
    build_store(source, args.records)
    with tempfile.TemporaryDirectory(prefix="papertalk-load-") as tmp:
        data_dir = Path(shutil.copytree(source, Path(tmp) / "data"))
        port = free_port()
        proc = start_server(data_dir, port, args.workers)
        base = f"http://127.0.0.1:{port}"
        try:
            result = asyncio.run(run_load(base, demo_slug(), args, pdfs))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    store = f"embedded Chroma + SQLite, the bundled PDFs and {args.records} demo records"
    return {**result, "base": "`papertalk serve` on loopback", "store": store}


def measure_on_stack(args: argparse.Namespace, pdfs: list[Path]) -> dict[str, Any]:
    """A local PostgreSQL and `chroma run` started here (tests/helpers/stack.py), the store built into them
    (not cached: it lives in servers that end with the run), then `papertalk serve --workers N` over them."""
    from tests.helpers.stack import chroma_process, postgres_server, stack_env

    with (
        tempfile.TemporaryDirectory(prefix="papertalk-load-") as tmp,
        postgres_server() as pg,
        chroma_process(Path(tmp) / "chroma") as chroma,
    ):
        env = stack_env(pg.create_database("load"), chroma, collection="load")
        os.environ.update(env)  # the store built here and the server started here both use the stack
        data_dir = Path(tmp) / "data"
        build_store(data_dir, args.records)
        port = free_port()
        proc = start_server(data_dir, port, args.workers, args.server_log)
        try:
            result = asyncio.run(run_load(f"http://127.0.0.1:{port}", demo_slug(), args, pdfs))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    store = f"Chroma server + PostgreSQL, the bundled PDFs and {args.records} demo records"
    return {**result, "base": "`papertalk serve` on loopback", "store": store}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", help="a running server to load (default: start one over a built store)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (of the server started here)")
    parser.add_argument(
        "--stack", action="store_true", help="start PostgreSQL and a Chroma server here and serve over them"
    )
    parser.add_argument("--server-log", type=Path, help="append the server's output (started here) to this file")
    parser.add_argument("--records", type=int, default=300, help="demo records in the store built here")
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument("--uploads", type=int, default=3, help="new PDFs ingested during the load")
    parser.add_argument("--label", default="1 worker, embedded Chroma + SQLite")
    add_common_args(parser)
    args = parser.parse_args()
    require(pdf_folder(), "the shared PDFs (new papers ingested during the load)")
    pdfs = new_pdfs(args.uploads)
    result = measure(args, pdfs)
    for line in result["tally"].errors[:20]:
        print("error:", line)
    for group in result["inconsistent"]:
        print("inconsistent:", describe(group))
    name = "load-" + re.sub(r"[^a-z0-9]+", "-", args.label.lower()).strip("-")
    body = report(args, result, len(pdfs))
    publish_reliability(args, name, f"Load while ingesting: {args.label}", MODULE, body)


if __name__ == "__main__":
    main()
