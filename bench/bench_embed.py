"""Embedding throughput: the raw ONNX model, the model with tokenization, and the full ingest pipeline.

On the same ~600 real chunks (a few shared PDFs, topped up with arXiv records), in one run, best of
`--repeats` interleaved rounds:
  (a) raw       onnxruntime `session.run` on pre-tokenized, length-sorted batches (tokenization excluded);
  (b) model     `LocalMiniLMEmbedding.embed_texts` → `OnnxMiniLM.embed` (tokenize, run, mean-pool, normalise);
  (c) pipeline  `Ingestor(store).run(papers)` into a fresh data dir: chunking, embedding, Chroma add,
                SQLite catalog, BM25 refresh (model and Chroma client loaded beforehand).
Then one profiled pipeline run says where its time goes, and the chunk-length measurement shows that the
default chunk sizes fit the model's 256-piece window (20 PDFs + 2,000 records).

    nice -n 10 python -m bench.bench_embed
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (
    Stopwatch,
    add_common_args,
    arxiv_file,
    markdown_table,
    pdf_folder,
    percentile,
    publish,
    quiet_logs,
    require,
)
from ingest.arxiv_metadata import RecordFilter
from ingest.chunking import Chunker
from ingest.pdf import read_pdf
from ingest.sources import arxiv_papers
from papertalk.errors import SourceError
from papertalk.settings import Settings
from storage.records import Chunk, Paper

MODULE = "bench.bench_embed"
SAMPLE_PDFS = (  # long, typical papers; their chunks are the ~200-piece kind that dominates full-text ingest
    "papermage/2020.acl-main.447.pdf",
    "papermage/2023.eacl-main.121.pdf",
    "paper-qa/pasa.pdf",
)


@dataclass
class Sample:
    papers: list[Paper]
    chunks: list[Chunk]

    @property
    def texts(self) -> list[str]:
        return [c.embed_text for c in self.chunks]


def build_sample(target: int, settings: Settings) -> Sample:
    """Chunks of the sample PDFs (up to about 60% of `target`), topped up with arXiv records."""
    chunker = Chunker(settings.chunking)
    papers: list[Paper] = []
    chunks: list[Chunk] = []
    for name in SAMPLE_PDFS:
        if len(chunks) >= 0.6 * target:
            break
        paper = read_pdf(pdf_folder() / name)
        papers.append(paper)
        chunks += chunker.chunk(paper, paper.content_hash())
    for item in arxiv_papers(arxiv_file()):
        if len(chunks) >= target:
            break
        if isinstance(item, Paper):
            papers.append(item)
            chunks += chunker.chunk(item, item.content_hash())
    return Sample(papers, chunks)


# --- the three measurements -----------------------------------------------------------------------
def raw_batches(texts: list[str], batch_size: int) -> list[dict[str, Any]]:
    """Pre-tokenized model feeds, sorted by length, each padded to its longest."""
    import numpy as np

    from storage.embeddings import load_tokenizer

    tok = load_tokenizer()
    tok.no_padding()
    encs = sorted(tok.encode_batch(texts), key=lambda e: len(e.ids))
    feeds = []
    for start in range(0, len(encs), batch_size):
        batch = encs[start : start + batch_size]
        width = max(len(e.ids) for e in batch)
        ids = np.zeros((len(batch), width), dtype=np.int64)
        mask = np.zeros_like(ids)
        for row, enc in enumerate(batch):
            ids[row, : len(enc.ids)] = enc.ids
            mask[row, : len(enc.ids)] = 1
        feeds.append({"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})
    return feeds


def time_raw(session: Any, feeds: list[dict[str, Any]]) -> Stopwatch:
    with Stopwatch() as sw:
        for feed in feeds:
            session.run(None, feed)
    return sw


def time_model(model: Any, texts: list[str]) -> Stopwatch:
    with Stopwatch() as sw:
        model.embed_texts(texts)
    return sw


def padded_pieces(lengths: list[int], order: list[int], batch_size: int) -> int:
    """Pieces the model processes when batches of `batch_size` in `order` are each padded to their longest."""
    batches = [order[i : i + batch_size] for i in range(0, len(order), batch_size)]
    return sum(len(b) * max(lengths[i] for i in b) for b in batches)


def padding_note(texts: list[str], batch_size: int) -> str:
    from storage.embeddings import OnnxMiniLM

    lengths = OnnxMiniLM().piece_counts(texts)
    by_pieces = padded_pieces(lengths, sorted(range(len(texts)), key=lengths.__getitem__), batch_size)
    by_chars = padded_pieces(lengths, sorted(range(len(texts)), key=lambda i: len(texts[i])), batch_size)
    return (
        f"Padding: the chunks hold {sum(lengths):,} word pieces; batches sorted by piece count (what "
        f"`embed_texts` does now) run {by_pieces:,} padded pieces, batches sorted by characters (what it did "
        f"before this benchmark) would run {by_chars:,} ({100 * (by_chars / by_pieces - 1):+.0f}%)."
    )


def fresh_store(settings: Settings, root: Path) -> Any:
    """A store in a new data dir, with model, Chroma client and keyword index opened and warm."""
    from storage.store import Store

    data = Path(tempfile.mkdtemp(dir=root))
    store = Store(settings.model_copy(update={"data_dir": data}))
    store.embedder.get_text_embedding("warm up")
    _ = store.vectors, store.keywords
    return store


def time_pipeline(settings: Settings, papers: list[Paper], root: Path) -> tuple[Stopwatch, int]:
    from ingest.pipeline import Ingestor

    store = fresh_store(settings, root)
    try:
        with Stopwatch() as sw:
            report = Ingestor(store).run(papers)
    finally:
        store.close()
    return sw, report.chunks


# --- profile of one pipeline run ------------------------------------------------------------------
PROFILE_PARTS = (  # (label, file suffix, function name); cumulative time of each
    ("chunking (Chunker.chunk)", "ingest/chunking.py", "chunk"),
    ("tokenization (tokenizers encode_batch)", "~", "<method 'encode_batch' of 'tokenizers.Tokenizer' objects>"),
    ("ONNX inference (session.run)", "onnxruntime_inference_collection.py", "run"),
    ("Chroma add (VectorIndex.add)", "storage/vectors.py", "add"),
    ("catalog: mark_pending", "storage/catalog.py", "mark_pending"),
    ("catalog: mark_indexed", "storage/catalog.py", "mark_indexed"),
    ("BM25 refresh (KeywordIndex.refresh)", "storage/keyword.py", "refresh"),
)


def profile_pipeline(settings: Settings, papers: list[Paper], root: Path) -> tuple[float, list[tuple[str, float]]]:
    """Total seconds of one profiled pipeline run and the cumulative seconds of its main parts."""
    from ingest.pipeline import Ingestor

    store = fresh_store(settings, root)
    profiler = cProfile.Profile()
    try:
        profiler.runcall(Ingestor(store).run, papers)
    finally:
        store.close()
    stats: dict[tuple[str, int, str], tuple[Any, ...]] = pstats.Stats(profiler).stats  # type: ignore[attr-defined]
    total = max(entry[3] for entry in stats.values())
    parts = []
    for label, suffix, func in PROFILE_PARTS:
        seconds = sum(v[3] for (f, _, name), v in stats.items() if name == func and f.endswith(suffix))
        parts.append((label, seconds))
    return total, parts


# --- report ---------------------------------------------------------------------------------------
@dataclass
class Timings:
    raw: list[Stopwatch] = field(default_factory=list)
    model: list[Stopwatch] = field(default_factory=list)
    pipeline: list[Stopwatch] = field(default_factory=list)
    pipeline_chunks: int = 0

    def overhead(self, cpu: bool) -> float:
        """Percent more time the pipeline takes than the raw model (best runs)."""
        return 100 * (best(self.pipeline, cpu) / best(self.raw, cpu) - 1)


def best(runs: list[Stopwatch], cpu: bool) -> float:
    return min(sw.cpu if cpu else sw.seconds for sw in runs)


def run_rounds(sample: Sample, settings: Settings, repeats: int, root: Path) -> Timings:
    from storage.embeddings import LocalMiniLMEmbedding, OnnxMiniLM

    cfg = settings.embedding
    model = LocalMiniLMEmbedding(threads=cfg.threads, batch_size=cfg.batch_size)
    session = OnnxMiniLM(threads=cfg.threads).session  # same options as the model's own session
    feeds = raw_batches(sample.texts, cfg.batch_size)
    model.embed_texts(sample.texts[:8])
    t = Timings()
    for round_no in range(repeats):
        t.raw.append(time_raw(session, feeds))
        t.model.append(time_model(model, sample.texts))
        sw, t.pipeline_chunks = time_pipeline(settings, sample.papers, root)
        t.pipeline.append(sw)
        print(f"  round {round_no + 1} (wall/cpu s): raw {t.raw[-1].seconds:.1f}/{t.raw[-1].cpu:.1f}, "
              f"model {t.model[-1].seconds:.1f}/{t.model[-1].cpu:.1f}, pipeline {sw.seconds:.1f}/{sw.cpu:.1f}",
              file=sys.stderr)  # fmt: skip
    return t


def throughput_table(n: int, t: Timings) -> str:
    rows = []
    for label, runs, chunks in (
        ("(a) raw: ONNX session.run, pre-tokenized", t.raw, n),
        ("(b) model: embed_texts (tokenize, run, pool)", t.model, n),
        ("(c) pipeline: Ingestor.run, fresh store", t.pipeline, t.pipeline_chunks),
    ):
        wall, cpu = best(runs, False), best(runs, True)
        rows.append(
            [
                label,
                chunks,
                wall,
                chunks / wall,
                cpu,
                chunks / cpu,
                f"{100 * (wall / best(t.raw, False) - 1):+.0f}%",
                f"{100 * (cpu / best(t.raw, True) - 1):+.0f}%",
            ]
        )
    headers = ["measurement", "chunks", "wall s", "chunks/s", "CPU s", "chunks/CPU-s", "wall vs raw", "CPU vs raw"]
    return markdown_table(headers, rows, digits=1)


def profile_table(total: float, parts: list[tuple[str, float]]) -> str:
    rows: list[list[object]] = [[label, s, f"{100 * s / total:.0f}%"] for label, s in parts]
    rows.append(["**whole Ingestor.run (profiled)**", total, "100%"])
    return markdown_table(["part (cumulative)", "seconds", "share"], rows, digits=2)


def embed_section(sample: Sample, t: Timings, settings: Settings, notes: tuple[str, str]) -> str:
    padding, profile = notes
    n, n_pdf = len(sample.chunks), sum(1 for p in sample.papers if p.has_full_text)
    cpu, wall = t.overhead(cpu=True), t.overhead(cpu=False)
    verdict = "meets" if max(cpu, wall) < 20 else ("meets by CPU time" if cpu < 20 else "misses")
    return (
        f"{n} chunks: {n_pdf} PDFs ({', '.join(SAMPLE_PDFS[:n_pdf])}) and the first "
        f"{len(sample.papers) - n_pdf} arXiv records, {sum(len(x) for x in sample.texts):,} characters embedded; "
        f"{len(t.raw)} interleaved rounds of (a), (b), (c), best of each kept. Default settings: "
        f"{settings.embedding.batch_size} texts per model call, {settings.embedding.threads or 'all'} threads. "
        "CPU s counts every thread of the process (ONNX, tokenizers, Chroma).\n\n"
        f"{throughput_table(n, t)}\n\n"
        f"**Result:** the full pipeline takes {cpu:+.0f}% CPU time ({wall:+.0f}% wall time) over the raw model "
        f"on the same chunks; target under 20%: it {verdict}.{wall_caution(cpu, wall)}\n\n"
        f"{rounds_line(t)}\n\n{padding}\n\n{profile}"
    )


def rounds_line(t: Timings) -> str:
    def runs(label: str, sws: list[Stopwatch]) -> str:
        return f"{label} " + ", ".join(f"{sw.seconds:.0f}/{sw.cpu:.0f}" for sw in sws)

    parts = [runs("raw", t.raw), runs("model", t.model), runs("pipeline", t.pipeline)]
    return "Each round, wall/CPU seconds: " + "; ".join(parts) + "."


def wall_caution(cpu: float, wall: float) -> str:
    if abs(cpu - wall) <= 10:
        return ""
    return (
        " Wall and CPU disagree because the other processes' load changed during the run (per-round seconds "
        "below): on shared cores the CPU comparison is the one to read."
    )


def profile_note(settings: Settings, sample: Sample, root: Path) -> str:
    total, parts = profile_pipeline(settings, sample.papers, root)
    return (
        "Where one pipeline run spends its time (cProfile, cumulative; tokenization and ONNX inference are "
        "parts of embedding, profiling slows the Python parts a little):\n\n"
        f"{profile_table(total, parts)}\n"
    )


# --- chunk lengths in word pieces -----------------------------------------------------------------
def _length_row(label: str, counts: list[int]) -> list[object]:
    over128, over256 = sum(c > 128 for c in counts), sum(c > 256 for c in counts)
    n = max(len(counts), 1)
    return [
        label,
        len(counts),
        int(percentile(counts, 50)),
        int(percentile(counts, 95)),
        max(counts, default=0),
        f"{over128:,} ({100 * over128 / n:.1f}%)",
        f"{over256:,} ({100 * over256 / n:.1f}%)",
    ]


def pdf_chunk_counts(chunker: Chunker) -> tuple[list[int], int]:
    """Pieces (with the 2 specials) of every embedded chunk of the shared PDFs, and how many PDFs were read."""
    counts, read = [], 0
    for path in sorted(p for p in pdf_folder().rglob("*") if p.suffix.lower() == ".pdf"):
        try:
            paper = read_pdf(path)
        except SourceError:
            continue
        read += 1
        counts += [chunker.counter.count(c.embed_text) + 2 for c in chunker.chunk(paper, paper.content_hash())]
    return counts, read


def record_counts(chunker: Chunker, records: int) -> tuple[list[int], list[int]]:
    """Pieces per embedded chunk of the first `records` arXiv records, and per whole title + abstract."""
    chunks, naive = [], []
    for item in arxiv_papers(arxiv_file(), RecordFilter(limit=records)):
        if isinstance(item, Paper):
            chunks += [chunker.counter.count(c.embed_text) + 2 for c in chunker.chunk(item, item.content_hash())]
            naive.append(chunker.counter.count(f"{item.title}\n{item.abstract}") + 2)
    return chunks, naive


def length_section(settings: Settings, records: int) -> str:
    cfg = settings.chunking
    chunker = Chunker(cfg)
    pdf, n_pdf = pdf_chunk_counts(chunker)
    rec, naive = record_counts(chunker, records)
    rows = [
        _length_row(f"chunks of {n_pdf} PDFs", pdf),
        _length_row(f"chunks of {len(naive):,} records", rec),
        _length_row("all chunks", pdf + rec),
        _length_row(f"naive: whole title + abstract ({len(naive):,} records)", naive),
    ]
    longest = max(pdf + rec, default=0)
    naive_over = 100 * sum(c > 256 for c in naive) / max(len(naive), 1)
    table = markdown_table(["embedded text", "n", "p50", "p95", "max", "> 128 pieces", "> 256 pieces"], rows)
    return (
        'Word pieces per embedded text (title + "\\n" + body, plus the 2 special pieces), counted with the '
        f"model's own tokenizer, untruncated. Defaults: chunk_tokens={cfg.chunk_tokens}, "
        f"overlap_tokens={cfg.overlap_tokens}, title_tokens={cfg.title_tokens}.\n\n"
        f"{table}\n\n"
        f"**Result:** the longest embedded chunk has {longest} pieces, "
        f"{'within' if longest <= 256 else 'OVER'} the model's 256-piece window, so nothing is cut off. "
        f"Embedding whole abstracts instead would cut {naive_over:.1f}% of them at 256 pieces, and the "
        "tokenizer file as shipped (truncation at 128) would cut most chunks and abstracts (column '> 128 pieces')."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chunks", type=int, default=600, help="how many chunks to embed (about)")
    parser.add_argument("--repeats", type=int, default=3, help="interleaved rounds of (a), (b), (c)")
    parser.add_argument("--records", type=int, default=2000, help="arXiv records for the chunk-length measurement")
    parser.add_argument("--profile", action="store_true", help="profile a pipeline run even under 20%% overhead")
    parser.add_argument("--skip-lengths", action="store_true", help="skip the chunk-length measurement")
    add_common_args(parser)
    args = parser.parse_args(argv)
    require(pdf_folder(), "the shared PDFs (shared/data/pdfs)")
    require(arxiv_file(), "the shared arXiv metadata file")
    settings = Settings(data_dir=Path(tempfile.gettempdir()) / "papertalk-bench-unused")
    with quiet_logs(), tempfile.TemporaryDirectory(prefix="papertalk-bench-embed-") as tmp:
        sample = build_sample(args.chunks, settings)
        timings = run_rounds(sample, settings, args.repeats, Path(tmp))
        overhead = max(timings.overhead(cpu=True), timings.overhead(cpu=False))
        profile = profile_note(settings, sample, Path(tmp)) if args.profile or overhead > 20 else ""
        padding = padding_note(sample.texts, settings.embedding.batch_size)
    body = embed_section(sample, timings, settings, (padding, profile))
    publish(args, "embed", "Embedding throughput (bench_embed)", MODULE, body)
    if not args.skip_lengths:
        with quiet_logs():
            lengths = length_section(settings, args.records)
        publish(args, "chunk-lengths", "Chunk lengths in word pieces (bench_embed)", MODULE, lengths)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
