"""What storing every sentence's vector costs at ingest: the same papers ingested with and without it.

Each run is a fresh process ingesting the same papers into a new data dir through `Ingestor` (real chunking,
model, Chroma, SQLite, keyword index): the first `--records` records of the shared arXiv file, then the two
bundled CC BY PDFs, with `embedding.sentence_vectors` on or off. The two settings take turns (`--rounds`
pairs, alternating which goes first) so that a shared machine's load falls on both alike; the table gives
each run and the median ratio on/off.

    nice -n 10 python -m bench.bench_sentence_ingest --records 300 --rounds 2
"""

from __future__ import annotations

import argparse
import statistics
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
    publish,
    quiet_logs,
    require,
    run_child,
)

MODULE = "bench.bench_sentence_ingest"


def child(records: int, sentence_vectors: bool) -> dict[str, Any]:
    """Ingest the papers into a new data dir with `sentence_vectors` on or off; what it took."""
    from ingest.arxiv_metadata import RecordFilter
    from ingest.pipeline import Ingestor
    from ingest.sources import arxiv_papers, pdf_papers
    from papertalk.demo import DEMO_PDFS
    from papertalk.settings import EmbeddingSettings, Settings
    from storage.store import Store

    with tempfile.TemporaryDirectory(prefix="papertalk-bench-sentences-") as tmp:
        settings = Settings(data_dir=Path(tmp), embedding=EmbeddingSettings(sentence_vectors=sentence_vectors))
        store = Store(settings)
        store.embedder.get_text_embedding("warm up")
        _ = store.vectors, store.keywords
        source = require(arxiv_file(), "the shared arXiv metadata file")
        with quiet_logs(), Stopwatch() as run:
            first = Ingestor(store).run(arxiv_papers(source, RecordFilter(limit=records)))
            second = Ingestor(store).run(pdf_papers(sorted(DEMO_PDFS.glob("*.pdf"))))
        vectors = store.catalog.query("SELECT count(*) FROM sentence_vectors")[0][0]
        store.close()
        catalog_mib = (Path(tmp) / "catalog.sqlite3").stat().st_size / 2**20
    return {
        "on": sentence_vectors,
        "papers": first.added + second.added,
        "chunks": first.chunks + second.chunks,
        "vectors": vectors,
        "wall_s": run.seconds,
        "cpu_s": run.cpu,
        "catalog_mib": catalog_mib,
    }


def measure(records: int, rounds: int) -> list[dict[str, Any]]:
    results = []
    for i in range(rounds):
        for on in (True, False) if i % 2 == 0 else (False, True):
            results.append(run_child(MODULE, ["--child", "on" if on else "off", "--records", str(records)]))
    return results


def table(results: list[dict[str, Any]]) -> str:
    headers = ["run", "sentence vectors", "papers", "chunks", "vectors stored", "wall s", "CPU s", "catalog MiB"]
    keys = ("papers", "chunks", "vectors", "wall_s", "cpu_s", "catalog_mib")
    rows = [[n, "on" if r["on"] else "off", *[r[k] for k in keys]] for n, r in enumerate(results, start=1)]
    return markdown_table(headers, rows)


def ratio(results: list[dict[str, Any]], key: str) -> float:
    on = statistics.median(r[key] for r in results if r["on"])
    off = statistics.median(r[key] for r in results if not r["on"])
    return float(on / off)


def body(results: list[dict[str, Any]]) -> str:
    on = next(r for r in results if r["on"])
    per_chunk = on["vectors"] / max(1, on["chunks"])
    return (
        f"{table(results)}\n\nMedian ratio, on / off: wall time {ratio(results, 'wall_s'):.2f}x, CPU time "
        f"{ratio(results, 'cpu_s'):.2f}x, catalog size {ratio(results, 'catalog_mib'):.2f}x "
        f"({per_chunk:.1f} stored sentences per chunk, 768 bytes each). With them on, an offline answer embeds "
        "no sentence at question time (docs/benchmarks.md, latency-gist16-112k and answer-embed)."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=300, help="arXiv records ingested per run (then 2 PDFs)")
    parser.add_argument("--rounds", type=int, default=2, help="pairs of runs (on and off, taking turns)")
    parser.add_argument("--child", choices=["on", "off"], help=argparse.SUPPRESS)
    add_common_args(parser)
    args = parser.parse_args(argv)
    if args.child:
        emit_result(child(args.records, args.child == "on"))
        return 0
    results = measure(args.records, args.rounds)
    title = "Ingest with and without stored sentence vectors (bench_sentence_ingest)"
    publish(args, "sentence-ingest", title, MODULE, body(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
