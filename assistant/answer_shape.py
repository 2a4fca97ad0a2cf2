"""The shape of an extractive answer: the answering sentence first, then the rest grouped by paper.

A number question leads with a sentence that holds a number when one was picked; the other sentences follow
their paper (the lead's paper first), in reading order within a passage, and a run of sentences quoting the
same passage carries its [n] once, after the run's last sentence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from assistant.question_type import classify
from assistant.sentence_features import gives_number
from assistant.types import AnswerSentence
from ingest.sentences import Sentence


class Picked(Protocol):
    source: int  # index of the passage in the sources
    sentence: Sentence


P = TypeVar("P", bound=Picked)


def lead(question: str, picked: Sequence[P]) -> int:
    """Index of the sentence to put first: the best, or for a number question the best that shows a number."""
    if classify(question).answer == "number":
        for i, p in enumerate(picked):
            if gives_number(question, p.sentence.text):
                return i
    return 0


def arrange(question: str, picked: Sequence[P], papers: Sequence[str] | None = None) -> list[P]:
    """`picked` (best first) in answer order: the lead, then by paper in the order papers first appear, the
    lead's paper first; sentences of one passage in reading order. `papers[i]` is source i's paper."""
    if not picked:
        return []
    first = lead(question, picked)
    ordered = [picked[first], *(p for i, p in enumerate(picked) if i != first)]

    def paper(p: P) -> str:
        return papers[p.source] if papers is not None and p.source < len(papers) else str(p.source)

    order = list(dict.fromkeys(paper(p) for p in ordered))
    rest = sorted(ordered[1:], key=lambda p: (order.index(paper(p)), p.source, p.sentence.start))
    return [ordered[0], *rest]


def _number(s: AnswerSentence | None) -> int:
    return s.citations[0].number if s is not None and s.citations else 0


def pieces(sentences: Sequence[AnswerSentence]) -> list[str]:
    """The answer text piece by piece (one per sentence): a sentence's [n] comes after the last sentence of the
    run of sentences that quote passage n, so a passage is named once per run."""
    out = []
    for i, s in enumerate(sentences):
        number = _number(s)
        following = _number(sentences[i + 1]) if i + 1 < len(sentences) else 0
        text = s.text if not number or number == following else f"{s.text} [{number}]"
        out.append(text if i == 0 else " " + text)
    return out


def compose(sentences: Sequence[AnswerSentence]) -> str:
    return "".join(pieces(sentences))
