"""Questions about a paper outside the topic they are asked in: pointed to that paper, or answered from others?

Over the demo corpus (`papertalk demo`: 2,214 papers, the topic "RL for LLM Agents" holds 1,298 of them), each
paper whose title starts with a name ("MiroThinker: ...", `assistant.focus.title_names`) gives two questions,
"What is NAME?" and "How was NAME evaluated?", asked in the topic's scope. Truth by a full scan: a name that no
chunk of the topic's papers writes (`assistant.focus.mentions_name`) belongs to a paper outside the topic, and the
answer should name that paper (`assistant.elsewhere`); a name some topic chunk writes should be answered as before.
Papers are sampled (seeded) from the demo's named papers in and out of the topic.

Measured: of the questions whose name the topic never writes, how many the answer points to the named paper (and
what the answer was without the rule: abstained, or quoted other papers); of the questions whose name the topic
writes, how many got a pointer anyway (a false one); the time of the rule's check per question.

    python -m bench.bench_elsewhere [--per-side 100]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.elsewhere import named_elsewhere
from assistant.focus import mentions_name, title_names
from assistant.service import Assistant
from assistant.types import Scope
from bench.bench_topic_answers import DATA
from bench.common import add_common_args, markdown_table, percentile, publish, quiet_logs
from ingest.demo import load_demo_corpus
from papertalk.demo import DEMO_TOPIC
from papertalk.settings import Settings
from storage.store import Store
from storage.topics import slugify

MODULE = "bench.bench_elsewhere"
VERBOSE = False
QUESTIONS = ("What is {}?", "How was {} evaluated?")


def named(store: Store, topic: set[str]) -> tuple[list[tuple[str, str]], list[tuple[str, str]], str]:
    """(paper id, name) for the named papers outside and inside the topic, and the topic's text (every chunk and
    title)."""
    rows = store.catalog.query("SELECT paper_id, title FROM papers WHERE status = 'indexed' ORDER BY paper_id", ())
    chunks = store.catalog.query("SELECT paper_id, text FROM chunks", ())
    titles = [r["title"] for r in rows if r["paper_id"] in topic]
    text = " ".join([*(r["text"] for r in chunks if r["paper_id"] in topic), *titles])
    out, inside = [], []
    for r in rows:
        names = title_names(r["title"])
        if names:
            (inside if r["paper_id"] in topic else out).append((r["paper_id"], names[0]))
    return out, inside, text


def run(store: Store, per_side: int) -> str:
    assistant = Assistant(store)
    scope = Scope(topic=slugify(DEMO_TOPIC))
    topic = set(store.topics.paper_ids(slugify(DEMO_TOPIC)))
    outside, inside, text = named(store, topic)
    rng = random.Random(7)
    picked = [("outside", *p) for p in rng.sample(outside, min(per_side, len(outside)))]
    picked += [("inside", *p) for p in rng.sample(inside, min(per_side, len(inside)))]
    rows: dict[str, list[int]] = {}
    ms: list[float] = []
    for side, paper_id, name in picked:
        written = mentions_name(name, text)  # the truth: does any topic chunk write the name?
        group = f"{side} the topic, " + ("written in it" if written else "never written in it")
        for template in QUESTIONS:
            question = template.format(name)
            sources = assistant.sources(question, scope)
            start = time.perf_counter()
            refs = named_elsewhere(question, scope, sources, assistant.retriever)
            ms.append((time.perf_counter() - start) * 1000)
            pointed = paper_id in [r.paper_id for r in refs]
            if VERBOSE and written != (not refs):
                print(
                    f"{'written' if written else 'not written'}: {question!r} {paper_id} refs={refs}", file=sys.stderr
                )
            before = assistant.answerer.answer(question, question, sources)  # the answer without the rule
            tally = rows.setdefault(group, [0, 0, 0, 0, 0])
            tally[0] += 1
            tally[1] += pointed
            tally[2] += bool(refs) and not pointed
            tally[3] += before.abstained
            tally[4] += not before.abstained and not any(
                c.paper_id == paper_id for s in before.sentences for c in s.citations
            )
    table = markdown_table(
        ["questions", "n", "pointed to the named paper", "pointed elsewhere", "without the rule: abstained",
         "without the rule: quoted other papers"],
        [[g, t[0], t[1], t[2], t[3], t[4]] for g, t in sorted(rows.items())],
    )  # fmt: skip
    return (
        f"Demo corpus; topic {DEMO_TOPIC!r} ({len(topic)} papers). Named papers (title starts with a name): "
        f"{len(outside)} outside the topic, {len(inside)} inside; {per_side} sampled from each (seed 7), each asked "
        f"{' and '.join(repr(q.format('NAME')) for q in QUESTIONS)} in the topic's scope, offline. Groups by a full "
        "scan of the topic's chunks for the name (a paper outside the topic whose name a topic paper writes is "
        "answered from the topic, as before).\n\n"
        f"{table}\n\nThe rule's check (`named_elsewhere`, after retrieval): p50 {percentile(ms, 50):.1f} ms, p95 "
        f"{percentile(ms, 95):.1f} ms per question.\n"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Questions about a paper outside the topic they are asked in.")
    parser.add_argument("--per-side", type=int, default=100, help="named papers sampled in and out of the topic")
    add_common_args(parser)
    parser.add_argument("--verbose", action="store_true", help="print each question whose answer missed the pointer")
    args = parser.parse_args(argv)
    global VERBOSE
    VERBOSE = args.verbose
    with quiet_logs():
        store = Store(Settings(data_dir=DATA))
        load_demo_corpus(store)
        Assistant(store).ask("What is a warm-up question?", Scope())
        body = run(store, args.per_side)
    publish(args, "elsewhere", "Questions about a paper outside their topic (bench_elsewhere)", MODULE, body)


if __name__ == "__main__":
    main()
