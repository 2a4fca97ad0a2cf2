"""Questions that count papers: "How many papers use GRPO?", "How many papers in this topic mention reward hacking?".

No passage answers such a question: its answer is a count over the papers in scope. The keyword index finds the
passages that hold the asked term, and the answer says how many of the scope's papers have one, quoting where a few
of them say it, each cited like any other answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from assistant.types import Answer, AnswerSentence, Citation, Passage
from ingest.sentences import split_sentences, usable

# "How many papers (in this topic) use / mention / propose ... X?"
_COUNTS = re.compile(
    r"^\s*how\s+many\s+(?:of\s+the\s+)?(?:papers|works|studies|articles|publications|abstracts)\s+"
    r"(?:(?:in|of|on)\s+(?:this|the)\s+(?:topic|corpus|scope|collection|library)\s+|here\s+)?"
    r"(?:(?:use|uses|mention|mentions|discuss|discusses|apply|applies|adopt|adopts|employ|employs|propose|proposes|"
    r"study|studies|cover|covers|cite|cites|train\s+with|are\s+about|talk\s+about|deal\s+with|refer\s+to)\s+|"
    r"(?:are\s+)?(?:using|mentioning|about|on)\s+)(?P<thing>[^?]{1,60}?)\s*\??\s*$",
    re.IGNORECASE,
)
COUNT_PASSAGES = 2000  # the most passages the keyword index is asked for: a count above it is a lower bound
EXAMPLES = 3  # papers quoted as examples


@dataclass(frozen=True)
class Count:
    thing: str
    named: list[Passage]  # the keyword index's passages that name it, best first
    total: int  # papers in scope
    capped: bool  # the keyword index returned COUNT_PASSAGES passages: there may be more
    where: str = ""  # the scope as said after "papers": "in topic 'RL for LLM Agents'"; "" for every paper

    @property
    def papers(self) -> list[str]:
        """The papers that name it, best keyword match first."""
        return list(dict.fromkeys(p.paper_id for p in self.named))


def counted(question: str) -> str | None:
    """The thing `question` asks the number of papers for ("GRPO" of "How many papers use GRPO?"), or None."""
    m = _COUNTS.match(question)
    return m["thing"].strip(" .,;:\"'“”") or None if m else None


def mentions(text: str, thing: str) -> bool:
    """`text` names `thing`: as written for a name in capitals or digits ("GRPO", "Qwen3"), in any case else, as
    whole words ("GRPO-based" names GRPO; "Anchor-GRPO" and "GRPO-OPD" name other things)."""
    words = r"\s+".join(map(re.escape, thing.split()))
    exact = any(c.isupper() or c.isdigit() for c in thing[1:])
    return bool(re.search(rf"(?<![\w\-]){words}(?!\w|-[A-Z0-9])", text, 0 if exact else re.IGNORECASE))


def count_of(thing: str, passages: Sequence[Passage], total: int, where: str = "") -> Count:
    """The papers among `passages` (the keyword index's, best first) that name `thing`, out of `total` in scope."""
    named = [p for p in passages if mentions(p.text, thing)]
    return Count(thing, named, total, len(passages) >= COUNT_PASSAGES, where)


def count_answer(question: str, standalone: str, count: Count, sources: list[Passage], backend: str) -> Answer:
    """The count said in a sentence of its own, then where `EXAMPLES` of the papers name the thing, quoted and
    cited (`sources`: numbered passages that name it, best first)."""
    plural = "s" if count.total != 1 else ""
    where = f"{count.total:,} paper{plural} {count.where}" if count.where else f"{count.total:,} indexed paper{plural}"
    n = len(count.papers)
    said = f"{'At least ' if count.capped else ''}{n:,} of the {where} mention “{count.thing}” in their indexed text"
    quotes = [q for q in (_quote(p, count.thing) for p in _one_per_paper(sources)) if q is not None][:EXAMPLES]
    lead = AnswerSentence(said + ("; for example:" if quotes else "."), supported=True)
    text = " ".join([lead.text, *(f"{q.text} [{q.citations[0].number}]" for q in quotes)])
    note = f"counted: {n} papers name {count.thing!r} in the keyword index's passages"
    return Answer(question, standalone, text, [lead, *quotes], sources, backend, notes=[note])


def _one_per_paper(sources: list[Passage]) -> list[Passage]:
    """Each paper's first source, in order."""
    first: dict[str, Passage] = {}
    for p in sources:
        first.setdefault(p.paper_id, p)
    return list(first.values())


def _quote(passage: Passage, thing: str) -> AnswerSentence | None:
    """The first usable sentence of `passage` that names `thing`, cited."""
    for s in split_sentences(passage.text):
        if usable(s) and mentions(s.text, thing):
            pages = passage.pages_of(s.start, s.end)
            citation = Citation(passage.number, passage.chunk_id, passage.paper_id, *pages, s.start, s.end, s.text, 1.0,
                                passage.section)  # fmt: skip
            return AnswerSentence(s.text, [citation], support=1.0)
    return None
