"""Questions that count papers ("How many papers use GRPO?") at 2k, 20k and 112k papers: latency and accuracy.

A count needs no embedding and no dense search: the keyword index gives every chunk whose words include all of the
asked name's, the catalog gives their text, and the answer counts the papers whose text names it, reading all of
those chunks up to `EXACT_CHUNKS`, else a random sample of `SAMPLE_PAPERS` of their papers (`assistant.counts`).
So the stores here hold what a count reads and nothing else: the catalog's papers and chunks, from the shared arXiv
file chunked by papertalk's own `Chunker` (`bench.latency_stores.chunk_all`, its cached chunks.pkl reused), and the
BM25 index built over them by `storage.keyword`; no vectors. Each size is the first papers of the latency bench's
seeded order.

Each question is asked through `Assistant.ask` as a user asks it (over every paper, and over papers first listed
since a date), after warm-up questions; p50 / p95 / max over the questions of each size, taking turns. Baseline in
the same run: the count as first shipped (the keyword index's best 2,000 passages read, "at least" when all 2,000
were taken). Accuracy at the largest size: each name's exact count (every candidate chunk read) against the answer
and the baseline.

    nice -n 5 python -m bench.bench_count_latency [--sizes 2k 20k 112k]
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.counts import EXACT_CHUNKS, SAMPLE_PAPERS, mentions
from assistant.service import Assistant
from assistant.types import Scope
from bench.common import Stopwatch, add_common_args, markdown_table, percentile, publish, quiet_logs
from bench.latency_stores import CACHE, SIZES, chunk_all, load_papers, make_plan
from papertalk.settings import Settings
from storage.records import Chunk, Paper
from storage.store import Store

MODULE = "bench.bench_count_latency"
STORES = CACHE / "counts"
# names and phrases of every frequency in the arXiv file: rare names, common methods, words in most abstracts
THINGS = ("GRPO", "PPO", "LoRA", "BERT", "diffusion models", "graph neural networks", "reinforcement learning",
          "transformers", "large language models", "Mamba", "WebArena", "reward hacking", "knowledge distillation",
          "contrastive learning", "federated learning", "Qwen2.5")  # fmt: skip
ASKED = ("How many papers use {}?", "How many papers mention {}?")
SINCE = date(2026, 2, 22)  # the latency bench's wide window
WARM_UP = 5
BATCH = 5000  # papers written to the catalog per transaction
FIRST_CAP = 2000  # the passages the count as first shipped read


def build(label: str, papers: dict[str, Paper], order: list[str], chunks: list[Chunk]) -> Path:
    """The catalog of the first papers of `order` with their chunks, and its keyword index; built once."""
    data = STORES / label
    marker = data / "bench-built"
    if marker.exists():
        return data
    ids = order[: SIZES[label]]
    wanted = set(ids)
    by_paper: dict[str, list[Chunk]] = {}
    for chunk in chunks:
        if chunk.paper_id in wanted:
            by_paper.setdefault(chunk.paper_id, []).append(chunk)
    store = Store(Settings(data_dir=data))
    try:
        for start in range(0, len(ids), BATCH):
            batch = [papers[pid] for pid in ids[start : start + BATCH]]
            hashes = {p.paper_id: hashlib.sha1(p.paper_id.encode()).hexdigest() for p in batch}
            store.catalog.mark_pending(batch, hashes)
            store.catalog.mark_indexed([p.paper_id for p in batch], [c for p in batch for c in by_paper[p.paper_id]])
        store.keywords.refresh()
    finally:
        store.close()
    marker.touch()
    return data


def questions() -> list[tuple[str, Scope]]:
    asked = [(template.format(thing), Scope()) for thing in THINGS for template in ASKED]
    return asked + [(f"How many papers use {thing}?", Scope(since=SINCE)) for thing in THINGS]


def first_count(assistant: Assistant, thing: str, scope: Scope) -> tuple[int, bool]:
    """The count as first shipped: the papers among the keyword index's best 2,000 passages that name `thing`
    (a lower bound when all 2,000 were taken)."""
    found = assistant.retriever.keyword_passages(thing, scope, k=FIRST_CAP)
    return len({p.paper_id for p in found if mentions(p.text, thing)}), len(found) >= FIRST_CAP


def exact_count(store: Store, thing: str) -> int:
    """Every paper whose chunks name `thing`, every candidate chunk read: the truth the answers are held to."""
    holding = store.keywords.holding(thing)
    texts = store.catalog.chunks_by_id([c for ids in holding.values() for c in ids])
    return sum(any(mentions(texts[c].text, thing) for c in ids if c in texts) for ids in holding.values())


def measure(stores: dict[str, Store]) -> tuple[dict[str, dict[str, list[float]]], dict[str, str]]:
    """ms per question and scope kind, per size (the sizes take turns question by question), for the shipped count
    and the first one; and the largest size's answers over every paper, by name."""
    assistants = {label: Assistant(store) for label, store in stores.items()}
    for assistant in assistants.values():
        for question, scope in questions()[:WARM_UP]:
            assistant.ask(question, scope)
            first_count(assistant, question.split()[-1].rstrip("?"), scope)
    times: dict[str, dict[str, list[float]]] = {label: {} for label in stores}
    said: dict[str, str] = {}
    for question, scope in questions():
        thing = question.split(" use ", 1)[-1].split(" mention ", 1)[-1].rstrip("?")
        kind = "since a date" if scope.since else "every paper"
        for label, assistant in assistants.items():
            start = time.perf_counter()
            answer = assistant.ask(question, scope)
            times[label].setdefault(kind, []).append((time.perf_counter() - start) * 1000)
            assert "papers" in answer.text, answer.text  # a count, not an answer from passages
            start = time.perf_counter()
            first_count(assistant, thing, scope)
            times[label].setdefault(f"{kind}, first", []).append((time.perf_counter() - start) * 1000)
            if kind == "every paper" and "use" in question:
                said[thing] = answer.sentences[0].text
    return times, said


def accuracy(store: Store, said: dict[str, str]) -> str:
    """Per name, at the largest size: the exact count, the answer's count and the first shipped one."""
    assistant = Assistant(store)
    rows = []
    for thing, lead in said.items():
        exact = exact_count(store, thing)
        first, capped = first_count(assistant, thing, Scope())
        shipped = lead.split(" of the ")[0]
        rows.append([thing, f"{exact:,}", shipped, f"{'at least ' if capped else ''}{first:,}"])
    return markdown_table(["name", "papers that name it (every chunk read)", "the answer", "as first shipped"], rows)


def body(
    times: dict[str, dict[str, list[float]]], counts: dict[str, tuple[int, int]], table: str, built_s: float
) -> str:
    rows = []
    for label, kinds in times.items():
        for kind in ("every paper", "since a date"):
            ms, first = kinds[kind], kinds[f"{kind}, first"]
            rows.append([label, f"{counts[label][0]:,}", f"{counts[label][1]:,}", kind, len(ms),
                         percentile(ms, 50), percentile(ms, 95), max(ms), percentile(first, 50),
                         percentile(first, 95)])  # fmt: skip
    latency = markdown_table(["size", "papers", "chunks", "scope", "questions", "p50 ms", "p95 ms", "max ms",
                              "first shipped p50 ms", "first shipped p95 ms"], rows)  # fmt: skip
    largest = next(reversed(times))
    return (
        f"Stores: the catalog (papers and chunks, papertalk's `Chunker` over the shared arXiv file) and the BM25 "
        f"index, no vectors: a count reads nothing else. Questions: {len(THINGS)} names and phrases "
        f"({', '.join(THINGS)}) asked as {' and '.join(repr(a.format('X')) for a in ASKED)} over every paper, and "
        f"the first form over papers first listed since {SINCE} ({len(questions())} in all, after {WARM_UP} warm-up "
        f"questions), through `Assistant.ask`; the sizes take turns question by question. The answer reads every "
        f"chunk whose words include all of the name's up to {EXACT_CHUNKS:,} of them, else {SAMPLE_PAPERS} of their "
        f"papers at random (seeded). 'First shipped': the count as first shipped, timed on the same questions "
        f"(the keyword index's best {FIRST_CAP:,} passages read). Stores built in {built_s:.0f} s (0 when already "
        f"built).\n\n{latency}\n\nAccuracy at {largest}, over every paper:\n\n{table}\n"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Latency of questions that count papers, at 2k, 20k and 112k.")
    parser.add_argument("--sizes", nargs="+", choices=tuple(SIZES), default=list(SIZES))
    add_common_args(parser)
    args = parser.parse_args(argv)
    with quiet_logs():
        with Stopwatch() as sw:
            papers = load_papers()
            plan = make_plan(papers)
            needed = [label for label in args.sizes if not (STORES / label / "bench-built").exists()]
            chunks = chunk_all(papers, plan["order"]) if needed else []
            dirs = {label: build(label, papers, plan["order"], chunks) for label in args.sizes}
        stores = {label: Store(Settings(data_dir=d)) for label, d in dirs.items()}
        counts = {label: (s.catalog.count_papers("indexed"), s.catalog.count_chunks()) for label, s in stores.items()}
        times, said = measure(stores)
        table = accuracy(stores[args.sizes[-1]], said)
        for store in stores.values():
            store.close()
    built_s = sw.seconds if needed else 0.0
    publish(args, "count_latency", "Questions that count papers at 2k, 20k and 112k (bench_count_latency)",
            MODULE, body(times, counts, table, built_s))  # fmt: skip


if __name__ == "__main__":
    main()
