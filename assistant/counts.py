"""Questions that count papers: "How many papers use GRPO?", "How many papers in this topic mention reward hacking?".

No passage answers such a question: its answer is a count over the papers in scope. The keyword index gives every
chunk whose words include all of the asked term's, their texts are read for the term as written, and the answer
says how many of the scope's papers have one (estimated from a random sample of them when the chunks to read are
many), quoting where a few of them say it, each cited like any other answer.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable
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
EXACT_CHUNKS = 3000  # chunks read to count exactly; above, a sample of the papers is read (docs/benchmarks.md)
SAMPLE_PAPERS = 800  # papers read to estimate a larger count: a 95% margin of at most 3.5% of the candidates
EXAMPLE_POOL = 50  # the keyword index's best passages for the name, read for the quoted examples
EXAMPLES = 3  # papers quoted as examples
SEED = 0  # of the sample: the same question over the same store gets the same answer


@dataclass(frozen=True)
class Count:
    thing: str
    papers: int  # papers in scope whose text names it (estimated when `sampled`)
    total: int  # papers in scope
    where: str = ""  # the scope as said after "papers": "in topic 'RL for LLM Agents'"; "" for every paper
    candidates: int = 0  # papers whose title or text has every word of it (the keyword index)
    sampled: int = 0  # papers read to estimate `papers`; 0: every candidate was read, the count is exact
    margin: int = 0  # the estimate's 95% half-width


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


def count_of(
    thing: str, holding: dict[str, list[str]], read: Callable[[list[str]], dict[str, str]], total: int, where: str = ""
) -> Count:
    """The papers that name `thing`, from the keyword index's `holding` (paper id -> the chunk ids whose words
    include all of its) and `read` (chunk ids -> their texts): exactly, every such chunk read, up to `EXACT_CHUNKS`
    of them; above, estimated from `SAMPLE_PAPERS` of those papers drawn at random (seeded), with a 95% margin."""
    papers = sorted(holding)
    chunks = sum(map(len, holding.values()))
    sample = papers if chunks <= EXACT_CHUNKS else random.Random(SEED).sample(papers, min(SAMPLE_PAPERS, len(papers)))
    texts = read([c for pid in sample for c in holding[pid]])
    named = sum(any(mentions(texts.get(c, ""), thing) for c in holding[pid]) for pid in sample)
    if len(sample) == len(papers):
        return Count(thing, named, total, where, len(papers))
    share = named / len(sample)
    finite = math.sqrt((len(papers) - len(sample)) / (len(papers) - 1))  # the sample is a share of the candidates
    margin = 1.96 * math.sqrt(share * (1 - share) / len(sample)) * finite * len(papers)
    return Count(thing, round(share * len(papers)), total, where, len(papers), len(sample), math.ceil(margin))


def _about(n: int) -> int:
    """`n` to three significant digits: an estimate says no more than it knows (31,406 -> 31,400)."""
    step = 10 ** max(0, len(str(n)) - 3)
    return round(n / step) * step


def count_answer(question: str, standalone: str, count: Count, sources: list[Passage], backend: str) -> Answer:
    """The count said in a sentence of its own, then where `EXAMPLES` of the papers name the thing, quoted and
    cited (`sources`: numbered passages that name it, best first)."""
    plural = "s" if count.total != 1 else ""
    where = f"{count.total:,} paper{plural} {count.where}" if count.where else f"{count.total:,} indexed paper{plural}"
    named = f"mention “{count.thing}” in their indexed text"
    if count.sampled:
        sample = f"{count.sampled:,} of the {count.candidates:,} papers whose words include all of it"
        said = (
            f"About {_about(count.papers):,} (± {count.margin:,}) of the {where} {named} (read in {sample}, at random)"
        )
    else:
        said = f"{count.papers:,} of the {where} {named}"
    quotes = [q for q in (_quote(p, count.thing) for p in _one_per_paper(sources)) if q is not None][:EXAMPLES]
    lead = AnswerSentence(said + ("; for example:" if quotes else "."), supported=True)
    text = " ".join([lead.text, *(f"{q.text} [{q.citations[0].number}]" for q in quotes)])
    how = f"estimated from {count.sampled} of {count.candidates} papers" if count.sampled else "every candidate read"
    note = f"counted: {count.papers} papers name {count.thing!r} ({how})"
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
