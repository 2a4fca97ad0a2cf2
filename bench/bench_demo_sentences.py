"""The demo corpus loaded with and without its shipped sentence vectors: what the load costs, what answers gain.

Two stores are loaded from scratch with `load_demo_corpus`, as the first run does: one as before the sentence
file shipped (its sentences left to the answers, which embed the six they weigh first while the user waits),
one storing every quotable sentence's vector from papertalk/demo/sentence_vectors.npz. Then both answer the
same questions, taking turns question by question: the 685 "What is X?" questions of bench_definitions (X the
name that starts exactly one demo title) and 120 whole-corpus questions made from demo titles with the latency
bench's templates. No ../shared is needed.

    nice -n 10 python -m bench.bench_demo_sentences
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from unittest import mock

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.service import Assistant
from assistant.types import Answer, Scope
from bench.bench_definitions import Case, cases
from bench.common import ROOT, add_common_args, markdown_table, percentile, publish, quiet_logs
from bench.latency_stores import question
from ingest.demo import load_demo_corpus
from ingest.demo_vectors import ShippedVectors
from ingest.sources import arxiv_papers
from papertalk.demo import DEMO_METADATA
from papertalk.settings import Settings
from storage.records import Paper
from storage.store import Store

MODULE = "bench.bench_demo_sentences"
CACHE = ROOT / "bench" / ".cache" / "demo-sentences"
WAYS = ("without (before)", "with the shipped sentence vectors")
CORPUS_QUESTIONS = 120


def load(data: Path, sentences: bool) -> tuple[Store, float, int]:
    """A demo store loaded from scratch; the load's wall seconds and the sentence vectors it stored."""
    shutil.rmtree(data, ignore_errors=True)
    store = Store(Settings(data_dir=data))
    withheld = mock.patch.object(ShippedVectors, "serves_sentences", new=property(lambda self: False))
    started = time.perf_counter()
    if sentences:
        load_demo_corpus(store)
    else:
        with withheld:
            load_demo_corpus(store)
    seconds = time.perf_counter() - started
    stored = int(store.catalog.query("SELECT COUNT(*) AS n FROM sentence_vectors")[0]["n"])
    return store, seconds, stored


def corpus_questions(n: int = CORPUS_QUESTIONS) -> list[str]:
    papers = [p for p in arxiv_papers(DEMO_METADATA) if isinstance(p, Paper)]
    return [question(p, i) for i, p in enumerate(papers[:: max(1, len(papers) // n)][:n])]


Asked = dict[str, tuple[list[Answer], list[float]]]  # per store: the answers and their ms, question by question


def taking_turns(assistants: dict[str, Assistant], questions: Sequence[str]) -> Asked:
    """Every question asked of every store, the first to be asked alternating; answers and ms per question."""
    out: Asked = {name: ([], []) for name in assistants}
    for i, q in enumerate(questions):
        for name in sorted(assistants, reverse=bool(i % 2)):
            started = time.perf_counter()
            answer = assistants[name].ask(q, Scope())
            out[name][1].append(1000 * (time.perf_counter() - started))
            out[name][0].append(answer)
    return out


def _first_cites(named: Sequence[Case], answers: Sequence[Answer]) -> int:
    """Answers whose lead sentence cites the paper its question's name titles."""
    leads = [a.sentences[0].citations if a.sentences and not a.abstained else [] for a in answers]
    return sum(bool(c) and c[0].paper_id == case.gold for case, c in zip(named, leads, strict=True))


def _rate(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.0f}%)" if total else "-"


def report(
    loads: dict[str, tuple[float, int]],
    named: Sequence[Case],
    defs: Asked,
    corpus: Asked,
) -> str:
    rows = []
    for name in WAYS:
        seconds, stored = loads[name]
        d_answers, d_ms = defs[name]
        _, c_ms = corpus[name]
        rows.append([name, f"{seconds:.1f}", f"{stored:,}", _rate(_first_cites(named, d_answers), len(named)),
                     _rate(sum(a.abstained for a in d_answers), len(named)), percentile(d_ms, 50),
                     percentile(d_ms, 95), percentile(c_ms, 50), percentile(c_ms, 95)])  # fmt: skip
    headers = ["demo load", "load s", "sentence vectors stored", "what is X: first citation on the titled paper",
               "what is X: abstained", "what is X p50 ms", "what is X p95 ms", "whole corpus p50 ms",
               "whole corpus p95 ms"]  # fmt: skip
    before, after = (defs[w][0] + corpus[w][0] for w in WAYS)
    same = sum(a.text == b.text for a, b in zip(before, after, strict=True))
    total = len(named) + len(corpus[WAYS[0]][0])
    return (
        f'{len(named)} "What is X?" questions (bench_definitions\' names) and {len(corpus[WAYS[0]][0])} whole-corpus '
        "questions from demo titles in the latency bench's templates, asked of two demo stores loaded from scratch "
        "in this run, taking turns question by question.\n\n"
        + markdown_table(headers, rows, digits=1)
        + f"\n\nThe two stores gave the same answer text for {same} of the {total} questions. Without stored "
        "vectors an answer scores the six sentences its keyword pre-filter picks (embedding them while the user "
        "waits); with them it scores every retrieved sentence and embeds none. Load s: `load_demo_corpus` wall "
        "time, chunk vectors served from the shipped file in both, after a first load into a scratch store (the "
        "process's imports and model). The questions are asked of the stores reopened, as `papertalk serve` "
        "opens a loaded store: the bundled model embeds what is not stored."
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    args = parser.parse_args(argv)
    with quiet_logs():
        load(CACHE / "warm-up", True)[0].close()  # the first load in a process pays for imports and the model
        loads = {}
        for name, sentences in zip(WAYS, (False, True), strict=True):
            store, seconds, stored = load(CACHE / ("on" if sentences else "off"), sentences)
            store.close()
            loads[name] = (seconds, stored)
        # reopened, as `papertalk serve` opens a loaded store: questions and sentences embedded by the model
        stores = {name: Store(Settings(data_dir=CACHE / ("on" if i else "off"))) for i, name in enumerate(WAYS)}
        assistants = {name: Assistant(store) for name, store in stores.items()}
        for a in assistants.values():
            a.ask("What is a warm-up question?", Scope())  # model, indexes and answerer built before timing
        named = cases()
        defs = taking_turns(assistants, [f"What is {case.name}?" for case in named])
        corpus = taking_turns(assistants, corpus_questions())
    text = report(loads, named, defs, corpus)
    publish(args, "demo-sentences", "The demo with its sentence vectors shipped (bench_demo_sentences)", MODULE, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
