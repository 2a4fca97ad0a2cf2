"""Questions of two parts, made from pairs of labelled Ask PDF questions on one paper.

A user often asks two things at once: "What RL algorithm trains MiroThinker and what is its reward function?".
No public set labels such questions, but the four Ask PDF sets of bench/answer_sets.py label single questions
with the sentences that answer them. Two questions on the same paper, one after the other in the set, are joined
with "and" ("What RL algorithm is used to train MiroThinker and what is MiroThinker's reward function?"): where
the second starts with a question word and `assistant.compound.parts` splits the joined question back into the
two. Each joined question is asked of its paper twice in one run, on the stores bench/answer_sets.py built:
`answer.compound` off (the question searched and answered whole) and on (the default: searched part by part,
the lead sentences of each part's answer quoted in turn). Each part asked alone is the reference.

Measured: the answer quotes an evidence sentence of the first part; of the second; of both; abstained.

    python -m bench.answer_sets build      # once
    python -m bench.bench_compound
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.compound import parts
from assistant.service import Assistant
from assistant.types import Answer, Scope
from bench.answer_sets import SETS, _store, labelled
from bench.common import add_common_args, markdown_table, publish, quiet_logs
from bench.qa_harness import Question, covers, shingles
from papertalk.settings import Settings

MODULE = "bench.bench_compound"
_QUESTION_WORD = re.compile(r"^(?:how|what|which|why|when|where|who|whose)\b", re.IGNORECASE)


@dataclass
class Pair:
    set: str
    paper_id: str
    text: str  # the joined question
    first: Question
    second: Question


def pairs(name: str, questions: Sequence[Question]) -> list[Pair]:
    """Each question joined with the next one on the same paper, where the joined question splits back into them."""
    out = []
    for a, b in itertools.pairwise(questions):
        if a.paper_id != b.paper_id or not _QUESTION_WORD.match(b.text):
            continue
        text = f"{a.text.rstrip(' ?')} and {b.text[0].lower()}{b.text[1:]}"
        if parts(text)[0] == f"{a.text.rstrip(' ?')}?":  # split back where they were joined
            out.append(Pair(name, a.paper_id, text, a, b))
    return out


def quotes(answer: Answer, question: Question) -> bool:
    """Some sentence of `answer` quotes an evidence sentence of `question`."""
    evidence = [e for e in (shingles(t) for r in question.references for t in r.evidence) if e]
    return any(covers(shingles(s.text), e) for s in answer.sentences for e in evidence)


@dataclass
class Tally:
    n: int = 0
    first: int = 0
    second: int = 0
    both: int = 0
    abstained: int = 0
    sentences: int = 0

    def add(self, answer: Answer, pair: Pair) -> None:
        one, two = quotes(answer, pair.first), quotes(answer, pair.second)
        self.n += 1
        self.first += one
        self.second += two
        self.both += one and two
        self.abstained += answer.abstained
        self.sentences += len(answer.sentences)

    def row(self, label: str) -> list[str]:
        counts = [f"{v}/{self.n}" for v in (self.first, self.second, self.both, self.abstained)]
        return [label, str(self.n), *counts, f"{self.sentences / max(1, self.n):.1f}"]


def run(names: Sequence[str]) -> dict[str, dict[str, Tally]]:
    """Per set: the joined questions answered whole and in parts, and each part alone."""
    out: dict[str, dict[str, Tally]] = {}
    for name in names:
        settings = Settings()
        _, questions = labelled(name, settings)
        tallies = {"whole": Tally(), "parts": Tally(), "alone": Tally()}
        store = _store(name, settings)
        try:
            on = Assistant(store)
            off_settings = store.settings.model_copy(deep=True)
            off_settings.answer.compound = False
            off = Assistant(store)
            off.settings = off_settings
            for pair in pairs(name, questions):
                scope = Scope(paper_id=pair.paper_id)
                tallies["whole"].add(off.ask(pair.text, scope), pair)
                tallies["parts"].add(on.ask(pair.text, scope), pair)
                alone = tallies["alone"]
                one, two = on.ask(pair.first.text, scope), on.ask(pair.second.text, scope)
                alone.n += 1
                alone.first += quotes(one, pair.first)
                alone.second += quotes(two, pair.second)
                alone.both += quotes(one, pair.first) and quotes(two, pair.second)
                alone.abstained += one.abstained and two.abstained
                alone.sentences += len(one.sentences) + len(two.sentences)
        finally:
            store.close()
        out[name] = tallies
    return out


LABELS = {
    "whole": "off: searched and answered whole",
    "parts": "on (default): part by part",
    "alone": "each part asked alone (reference)",
}


def report(results: dict[str, dict[str, Tally]]) -> str:
    rows = [[name, *t.row(LABELS[k])] for name, tallies in results.items() for k, t in tallies.items()]
    head = [
        "set",
        "answer.compound",
        "questions",
        "quotes part 1",
        "quotes part 2",
        "quotes both",
        "abstained",
        "sentences quoted (mean)",
    ]
    intro = (
        'Two labelled Ask PDF questions on one paper, one after the other in their set, joined with "and" where '
        "the second starts with a question word; asked of their paper (extractive backend, stores of "
        "bench/answer_sets.py). Quotes part n: some sentence of the answer quotes an evidence sentence of the "
        'n-th question. For "each part asked alone", abstained counts pairs where both parts abstained, and the '
        "sentences are those of both answers. An answer quotes at most `max_sentences` (4) sentences, shared out "
        "between the parts when they are answered in turn.\n\n"
    )
    return intro + markdown_table(head, rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_common_args(parser)
    args = parser.parse_args(argv)
    with quiet_logs():
        body = report(run(SETS))
    publish(args, "compound", "Questions of two parts (bench_compound)", MODULE, body)


if __name__ == "__main__":
    main()
