"""arXiv metadata ingest at scale: throughput, the full-file projection, and peak memory against input size.

Every measurement runs in a fresh `python` process so that each peak RSS is its own:
  * the full pipeline (`Ingestor.run` over `arxiv_papers`: chunking, embedding, Chroma, SQLite, BM25)
    on the first `--small` and the first `--limit` records, each into a new temporary data dir;
  * the streaming reader + chunker alone (no embedding) on the first `--stream-small` records and on the
    whole file.
Embedding all 111,997 records takes hours on this machine, so the full-file time is projected from the
`--limit` run.

    nice -n 10 python -m bench.bench_ingest_arxiv --limit 3000 --small 1000
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    Stopwatch,
    add_common_args,
    arxiv_file,
    emit_result,
    markdown_table,
    peak_rss_mb,
    publish,
    quiet_logs,
    require,
    run_child,
)

MODULE = "bench.bench_ingest_arxiv"
RSS_TARGET_MB = 1536


# --- children -------------------------------------------------------------------------------------
def child_pipeline(limit: int) -> dict[str, Any]:
    """Ingest the first `limit` records into a new data dir; what it took and the process's peak RSS."""
    from ingest.arxiv_metadata import RecordFilter
    from ingest.pipeline import Ingestor
    from ingest.sources import arxiv_papers
    from papertalk.settings import Settings
    from storage.store import Store

    with tempfile.TemporaryDirectory(prefix="papertalk-bench-ingest-") as tmp:
        with Stopwatch() as setup:
            store = Store(Settings(data_dir=Path(tmp)))
            store.embedder.get_text_embedding("warm up")
            _ = store.vectors, store.keywords
        rss_setup = peak_rss_mb()
        with Stopwatch() as run:
            report = Ingestor(store).run(arxiv_papers(arxiv_file(), RecordFilter(limit=limit)))
        store.close()
    records = report.added + report.updated + report.unchanged
    return {
        "kind": "pipeline",
        "records": records,
        "chunks": report.chunks,
        "problems": len(report.problems),
        "batch_size": store.settings.embedding.batch_size,
        "setup_s": setup.seconds,
        "wall_s": run.seconds,
        "cpu_s": run.cpu,
        "rss_setup_mb": rss_setup,
        "rss_mb": peak_rss_mb(),
    }


def child_stream(limit: int | None) -> dict[str, Any]:
    """Read and chunk the first `limit` records (all when None) without embedding; counts and peak RSS."""
    from ingest.arxiv_metadata import RecordFilter
    from ingest.chunking import Chunker
    from ingest.sources import arxiv_papers
    from papertalk.settings import ChunkSettings
    from storage.records import Paper

    chunker = Chunker(ChunkSettings())
    records = chunks = problems = 0
    with Stopwatch() as run:
        for item in arxiv_papers(arxiv_file(), RecordFilter(limit=limit)):
            if isinstance(item, Paper):
                records += 1
                chunks += len(chunker.chunk(item, item.content_hash()))
            elif item.fatal:
                problems += 1
    return {"kind": "stream", "records": records, "chunks": chunks, "problems": problems, "setup_s": 0.0,
            "wall_s": run.seconds, "cpu_s": run.cpu, "rss_setup_mb": 0.0, "rss_mb": peak_rss_mb()}  # fmt: skip


def run_as_child(kind: str, limit: int) -> int:
    with quiet_logs():
        result = child_pipeline(limit) if kind == "pipeline" else child_stream(limit or None)
    emit_result(result)
    return 0


# --- report ---------------------------------------------------------------------------------------
def _label(result: dict[str, Any], whole: bool) -> str:
    what = "pipeline (embed + store)" if result["kind"] == "pipeline" else "read + chunk only"
    size = "whole file" if whole else f"first {result['records']:,}"
    return f"{what}, {size}"


def runs_table(results: list[tuple[dict[str, Any], bool]]) -> str:
    rows = []
    for r, whole in results:
        rows.append(
            [
                _label(r, whole),
                r["records"],
                r["chunks"],
                r["wall_s"],
                r["records"] / r["wall_s"],
                r["chunks"] / r["wall_s"],
                r["cpu_s"],
                r["records"] / r["cpu_s"],
                round(r["rss_setup_mb"]) if r["rss_setup_mb"] else "-",
                round(r["rss_mb"]),
            ]
        )
    headers = ["run (fresh process)", "records", "chunks", "wall s", "records/s", "chunks/s", "CPU s"]
    headers += ["records/CPU-s", "RSS after setup MiB", "peak RSS MiB"]
    return markdown_table(headers, rows, digits=1)


def projection(main_run: dict[str, Any], total_records: int) -> str:
    """Full-file ingest time projected from the `--limit` run, at the measured wall rate and on idle cores."""
    per_record_wall = main_run["wall_s"] / main_run["records"]
    per_record_cpu = main_run["cpu_s"] / main_run["records"]
    cores = len(os.sched_getaffinity(0))
    wall_h = per_record_wall * total_records / 3600
    idle_h = per_record_cpu * total_records / cores / 3600
    return (
        f"**Projection for all {total_records:,} records:** {wall_h:.1f} h at the wall rate measured here "
        f"({main_run['records'] / main_run['wall_s']:.1f} records/s, with the cores shared), or about {idle_h:.1f} h "
        f"on {cores} idle cores ({per_record_cpu * 1000:.0f} CPU-ms per record, spread over {cores} cores). "
        "Embedding is nearly all of it; reading and chunking the whole file alone takes the time in the "
        "'read + chunk only, whole file' row. The BM25 rebuild at the end grows with the corpus and is not "
        "in the projection (it is measured in the latency benchmark)."
    )


def memory_summary(results: list[tuple[dict[str, Any], bool]]) -> str:
    pipe = [r for r, _ in results if r["kind"] == "pipeline"]
    stream = [r for r, _ in results if r["kind"] == "stream"]
    peak = max(r["rss_mb"] for r, _ in results)
    verdict = "under" if peak < RSS_TARGET_MB else "OVER"
    parts = [f"**Memory:** the highest peak RSS is {peak:.0f} MiB, {verdict} the {RSS_TARGET_MB} MiB target."]
    if len(pipe) >= 2:
        parts.append(
            f"The pipeline peaks at {pipe[0]['rss_mb']:.0f} MiB for {pipe[0]['records']:,} records and "
            f"{pipe[1]['rss_mb']:.0f} MiB for {pipe[1]['records']:,}: memory follows the batch "
            "(256 chunks), the loaded model and Chroma, not the input."
        )
    if len(stream) >= 2:
        parts.append(
            f"Reading and chunking peaks at {stream[0]['rss_mb']:.0f} MiB for {stream[0]['records']:,} records "
            f"and {stream[-1]['rss_mb']:.0f} MiB for all {stream[-1]['records']:,}: the reader streams."
        )
    return " ".join(parts)


def measure(args: argparse.Namespace) -> list[tuple[dict[str, Any], bool]]:
    plan: list[tuple[str, int, bool]] = [("pipeline", args.small, False), ("pipeline", args.limit, False)]
    if not args.skip_stream:
        plan += [("stream", args.stream_small, False), ("stream", 0, True)]
    results = []
    for kind, limit, whole in plan:
        print(f"  {kind} {'whole file' if whole else limit} ...", file=sys.stderr, flush=True)
        result = run_child(MODULE, ["--child", kind, "--limit", str(limit)])
        print(f"    {result}", file=sys.stderr, flush=True)
        results.append((result, whole))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, default=3000, help="records ingested for the throughput and projection")
    parser.add_argument("--small", type=int, default=1000, help="records of the second, smaller pipeline run")
    parser.add_argument("--stream-small", type=int, default=10000, help="records of the partial read + chunk run")
    parser.add_argument("--skip-stream", action="store_true", help="skip the read + chunk runs")
    parser.add_argument("--child", choices=["pipeline", "stream"], help=argparse.SUPPRESS)
    add_common_args(parser)
    args = parser.parse_args(argv)
    require(arxiv_file(), "the shared arXiv metadata file")
    if args.child:
        return run_as_child(args.child, args.limit)
    results = measure(args)
    whole = [r for r, is_whole in results if is_whole]
    total = whole[0]["records"] if whole else 111_997
    body = (
        f"Input: shared/data/arxiv/{arxiv_file().name} ({arxiv_file().stat().st_size / 2**20:.0f} MiB gzipped). "
        "Each row is its own process; the pipeline writes into a new temporary data dir with the default "
        f"settings (chunks of 200 pieces, {results[0][0].get('batch_size')} texts per model call, all cores). "
        "Setup (loading the model, opening Chroma) is "
        "not in the wall/CPU seconds; 'RSS after setup' is the peak before the first record.\n\n"
        f"{runs_table(results)}\n\n{projection(results[1][0], total)}\n\n{memory_summary(results)}"
    )
    publish(args, "ingest-arxiv", "arXiv metadata ingest (bench_ingest_arxiv)", MODULE, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
