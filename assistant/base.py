"""The answer backend interface: one abstract method; streaming is built on it unless a backend streams."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass

from assistant.followups import listed_item, standalone
from assistant.types import Answer, Passage


@dataclass(frozen=True)
class Turn:
    """One earlier exchange of a conversation."""

    question: str
    answer: str
    standalone: str = ""  # the question as it was rewritten to stand alone
    cited_title: str = ""  # title of the paper its answer cited first ("" when it cited none)
    listed: tuple[str, ...] = ()  # the named items of its answer, when that was a list, in the order shown


@dataclass(frozen=True)
class AnswerChunk:
    """A piece of a streamed answer: text as it comes, then the finished `Answer` once."""

    text: str = ""
    answer: Answer | None = None


class Answerer(ABC):
    """Turns a question and numbered source passages into a cited `Answer`."""

    name: str = "base"

    @abstractmethod
    def answer(self, question: str, standalone: str, sources: list[Passage]) -> Answer:
        """Answer `standalone` (the question rewritten to stand alone) from `sources` only."""

    def stream(self, question: str, standalone: str, sources: list[Passage]) -> Iterator[AnswerChunk]:
        """Yield the answer's text piece by piece, then the `Answer`; by default one sentence at a time."""
        yield from self.stream_answer(self.answer(question, standalone, sources))

    def stream_answer(self, answer: Answer) -> Iterator[AnswerChunk]:
        """An answer already made, piece by piece: one sentence at a time, then the `Answer`."""
        lines = len(answer.sentences) - len(answer.items)  # a list answer shows one named item a line, after
        for i, sentence in enumerate(answer.sentences):  # the quotes that answer another part of its question
            marks = "".join(f" [{n}]" for n in dict.fromkeys(c.number for c in sentence.citations))
            gap = "" if i == 0 else "\n" if i >= lines else " "
            yield AnswerChunk(text=gap + sentence.text + marks)
        if not answer.sentences:
            yield AnswerChunk(text=answer.text)
        yield AnswerChunk(answer=answer)

    def rewrite(self, question: str, history: list[Turn]) -> str:
        """A follow-up made standalone. Default: references resolved to the previous subject, at most one
        short phrase added, and only when the question needs it (`assistant.followups`)."""
        if not history:
            return question
        named = listed_item(question, history[-1].listed)  # "How does the first one work?" after a list answer
        if named != question:
            return named
        earlier = [t.standalone or t.question for t in history]
        return standalone(question, earlier, history[-1].cited_title)
