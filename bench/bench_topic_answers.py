"""Topic questions over the demo corpus: does the answer cite the papers that answer the question?

`bench/topic_qa.json` holds 60 questions a reader of the demo topic page might ask ("How are rewards designed for
web search agents?", "Which benchmarks are used to evaluate GUI agents trained with RL?", "What is ARPO?"), each
with the demo papers whose title or abstract answers it, found by keyword search over all 2,212 records and then
read (the file's `about` says how it was made). Half are `dev` (read while changing the answerer), half `test`
(reported, not read).

Each question is asked in the demo topic's scope ("RL for LLM Agents"), offline, as `papertalk demo` loads it.
Measured per question: a gold paper is among the sources; a gold paper is cited; the first citation is a gold
paper; the answer abstained; the share of the papers it cites that are gold (a question marked `more_exist` has
more answering papers than were labelled, so its share is a floor). A gold paper the assigner left out of the
topic cannot be found in its scope: the table counts the questions whose gold is in the topic at all.

    python -m bench.bench_topic_answers [--out answers.json] [--split dev|test|all]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.service import Assistant
from assistant.types import Answer, Scope
from bench.common import ROOT, add_common_args, markdown_table, percentile, publish, quiet_logs
from ingest.demo import load_demo_corpus
from papertalk.demo import DEMO_TOPIC
from papertalk.settings import Settings
from storage.store import Store
from storage.topics import slugify

MODULE = "bench.bench_topic_answers"
QUESTIONS = ROOT / "bench" / "topic_qa.json"
DATA = ROOT / "bench" / ".cache" / "topic_answers" / "data"


@dataclass
class Tally:
    asked: int = 0
    reachable: int = 0  # a gold paper is in the topic
    in_sources: int = 0
    cited: int = 0
    first: int = 0
    abstained: int = 0
    precision: list[float] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)

    def add(self, row: dict[str, Any]) -> None:
        self.asked += 1
        self.reachable += row["reachable"]
        self.in_sources += row["in_sources"]
        self.cited += row["cited"]
        self.first += row["first"]
        self.abstained += row["abstained"]
        if row["cited_papers"]:
            self.precision.append(row["precision"])
        self.ms.append(row["ms"])


def load_questions(split: str, path: Path = QUESTIONS) -> list[dict[str, Any]]:
    rows = json.loads(path.read_text(encoding="utf-8"))["questions"]
    return [q for q in rows if split == "all" or q["split"] == split]


def cited_papers(answer: Answer) -> list[str]:
    """The papers the answer cites, in the order first cited."""
    out: list[str] = []
    for sentence in answer.sentences:
        for citation in sentence.citations:
            if citation.paper_id not in out:
                out.append(citation.paper_id)
    return out


def judge(question: dict[str, Any], answer: Answer, in_topic: set[str], ms: float) -> dict[str, Any]:
    gold = {g["paper_id"] for g in question["gold"]}
    cited = [] if answer.abstained else cited_papers(answer)
    hits = [p for p in cited if p in gold]
    return {
        "id": question["id"],
        "split": question["split"],
        "kind": question["kind"],
        "question": question["question"],
        "reachable": bool(gold & in_topic),
        "in_sources": any(p.paper_id in gold for p in answer.sources),
        "cited": bool(hits),
        "first": bool(cited) and cited[0] in gold,
        "abstained": answer.abstained,
        "cited_papers": cited,
        "precision": len(hits) / len(cited) if cited else 0.0,
        "lead": answer.sentences[0].text if answer.sentences and not answer.abstained else "",
        "list": bool(answer.items),
        "ms": ms,
    }


def ask_all(store: Store, questions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    assistant = Assistant(store)
    in_topic = set(store.topics.paper_ids(slugify(DEMO_TOPIC)))
    rows = []
    for q in questions:
        start = time.perf_counter()
        answer = assistant.ask(q["question"], Scope(topic=DEMO_TOPIC))
        rows.append(judge(q, answer, in_topic, 1000 * (time.perf_counter() - start)))
    return rows


def _rate(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.0f}%)" if total else "-"


def table(rows: Sequence[dict[str, Any]]) -> str:
    groups: dict[str, Tally] = {}
    for row in rows:
        for label in (f"{row['split']}: all", f"{row['split']}: {row['kind']}"):
            groups.setdefault(label, Tally()).add(row)
    out = []
    for label in sorted(groups, key=lambda g: (g.split(":")[0], not g.endswith(": all"), g)):
        t = groups[label]
        precision = sum(t.precision) / len(t.precision) if t.precision else 0.0
        out.append(
            [label, t.asked, t.reachable, _rate(t.in_sources, t.asked), _rate(t.cited, t.asked),
             _rate(t.first, t.asked), _rate(t.abstained, t.asked), f"{precision:.2f}", percentile(t.ms, 50)]
        )  # fmt: skip
    return markdown_table(
        ["split: kind", "questions", "gold in topic", "gold among sources", "gold cited", "first citation gold",
         "abstained", "cited papers that are gold", "p50 ms"],
        out,
        digits=1,
    )  # fmt: skip


def body(rows: Sequence[dict[str, Any]]) -> str:
    return (
        f"{len(rows)} questions of `bench/topic_qa.json` asked in the demo topic's scope ({DEMO_TOPIC!r}), offline "
        f"(extractive backend, top_k {Settings().retrieval.top_k}). Gold: the demo papers whose title or abstract "
        "answers the question, labelled by reading the abstracts a keyword search found (not by running papertalk). "
        "dev questions were read while changing the answerer; test questions were not. A list answer cites the "
        "papers of every named item; its first citation is its first item's first paper.\n\n"
        f"{table(rows)}\n"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Topic questions over the demo corpus: are the right papers cited?")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="all")
    parser.add_argument("--out", type=Path, help="write each question's result here (JSON)")
    add_common_args(parser)
    args = parser.parse_args(argv)
    questions = load_questions(args.split)
    with quiet_logs():
        store = Store(Settings(data_dir=DATA))
        load_demo_corpus(store)
        Assistant(store).ask("What is a warm-up question?", Scope())  # model and indexes loaded before timing
        rows = ask_all(store, questions)
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    publish(args, "topic_answers", "Topic questions over the demo corpus (bench_topic_answers)", MODULE, body(rows))


if __name__ == "__main__":
    main()
