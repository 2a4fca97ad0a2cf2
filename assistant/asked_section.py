"""Questions answered by a section of the paper's own: "What are the limitations of X?" is answered by its
Limitations section, "What future work do the authors plan?" by its future-work section (or, when it has none, by
the sentences of its conclusion that say what comes next), "What is the main contribution?" by its abstract.

Such a section's sentences rarely repeat the question's words ("First, the current 128K context length remains
insufficient ..."), so neither retriever nor the sentence scores find them; its heading says what it holds. A
question asks for a section when it names what the section is called, about the paper itself: "What limitations of
prior methods does X address?" asks about other work, which a paper's Limitations section does not discuss.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, TypeVar

IN_CONCLUSION = "future work in the conclusion"

_ASKS: dict[str, re.Pattern[str]] = {
    "limitations": re.compile(r"\b(?:limitations?|weakness(?:es)?|shortcomings?|drawbacks?)\b", re.IGNORECASE),
    "future work": re.compile(
        r"\bfuture (?:work|research|directions?|studies|plans?)\b|\bnext steps?\b|\bopen (?:problems|questions)\b",
        re.IGNORECASE,
    ),
    # what the paper itself brings, which its abstract says: "What is the main contribution?"
    "contributions": re.compile(
        r"\b(?:main|key|primary|core)\s+contributions?\b|\bcontributions?\s+of\s+(?:the|this)\s+(?:paper|work|study)\b"
        r"|^\s*what\s+(?:is|are)\s+(?:the\s+|its\s+)?contributions?\b|\bwhat\s+(?:does|do|did)\s+(?:the|this)\s+"
        r"(?:paper|work|study|article)\s+(?:propose|present|introduce|contribute)\b",
        re.IGNORECASE,
    ),
}
_HEADINGS: dict[str, re.Pattern[str]] = {
    "limitations": re.compile(r"\b(?:limitations?|weakness(?:es)?|shortcomings?)\b", re.IGNORECASE),
    "future work": re.compile(r"\bfuture\b|\boutlook\b|\bopen (?:problems|questions|challenges)\b", re.IGNORECASE),
    IN_CONCLUSION: re.compile(r"\bconclu(?:sions?|ding)\b", re.IGNORECASE),
    "contributions": re.compile(r"^\s*abstract\b", re.IGNORECASE),
}
# a paper without a future-work section of its own says what comes next in its conclusion, in sentences like these
_SAYS_NEXT = re.compile(
    r"\bfuture\b|\bwe (?:will|plan|hope|intend|aim)\b|\bnext steps?\b|\bremains? (?:open|to be)\b|\bleave\b.{0,40}"
    r"\bto\b|\bopen (?:problems|questions|challenges)\b|\bfurther (?:work|research|stud(?:y|ies))\b",
    re.IGNORECASE,
)
# the limitations asked about are other work's, which the paper addresses: no section of the paper's own answers
_OTHERS = re.compile(
    r"\b(?:prior|previous|existing|earlier|other|baselines?|related|current (?:methods|approaches|systems|models))\b"
    r"|\b(?:address|overcome|solve|tackle|motivate|fix|mitigate)[sd]?\b",
    re.IGNORECASE,
)
SECTION_PASSAGES = 2  # the asked section's passages a search inside one paper puts first


_CONTENTS_LINE = re.compile(r"\s\d{1,3}\s*$")  # "H Limitations and Discussions 62": a table of contents' line


class _Sectioned(Protocol):
    @property
    def section(self) -> str | None: ...


class _Chunk(_Sectioned, Protocol):
    @property
    def chunk_id(self) -> str: ...

    @property
    def ordinal(self) -> int: ...


S = TypeVar("S", bound=_Sectioned)
C = TypeVar("C", bound=_Chunk)


def asked_section(question: str) -> str | None:
    """The section of the paper's own that `question` asks for ("limitations", "future work"), or None."""
    for name, asks in _ASKS.items():
        if asks.search(question) and not (name == "limitations" and _OTHERS.search(question)):
            return name
    return None


def settle(asked: str | None, headings: Iterable[str | None]) -> str | None:
    """The asked section as these headings have it: future work asked of a paper without a future-work heading is
    read in its conclusion (`IN_CONCLUSION`), when it has one."""
    seen = [h for h in headings if h]
    if asked != "future work" or any(_HEADINGS[asked].search(h) for h in seen):
        return asked
    return IN_CONCLUSION if any(_HEADINGS[IN_CONCLUSION].search(h) for h in seen) else asked


def in_section(asked: str | None, heading: str | None, text: str | None = None) -> bool:
    """`heading` is a section of the kind asked for ("7 Limitations And Future Work" for either); in a conclusion
    read for future work, `text` (when given) must also say what comes next ("In future work, we plan to ...")."""
    if not (asked and heading and _HEADINGS[asked].search(heading)):
        return False
    return asked != IN_CONCLUSION or text is None or bool(_SAYS_NEXT.search(text))


def of_section(asked: str | None, items: Iterable[S]) -> list[S]:
    """The items (chunks, passages) under a heading of the asked section, in the order given."""
    return [item for item in items if in_section(asked, item.section, getattr(item, "text", None))]


def section_start(asked: str, chunks: Iterable[C], rank: dict[str, int]) -> list[C]:
    """The first `SECTION_PASSAGES` chunks, in reading order, of the paper's section of the asked kind: where a
    paper has several ("5.1 Study 1 Limitations", "7 Limitations And Future Work"), the one whose chunks the
    search ranks best (`rank`: chunk id -> fused rank); a heading read from a table of contents (it ends in a
    page number, and the pages after it took its name) comes last."""
    chunks = list(chunks)
    asked = settle(asked, (c.section for c in chunks)) or asked
    groups: dict[str, list[C]] = {}
    for chunk in of_section(asked, chunks):
        groups.setdefault(chunk.section or "", []).append(chunk)
    if not groups:
        return []

    def order(heading: str) -> tuple[bool, int]:
        return bool(_CONTENTS_LINE.search(heading)), min(rank.get(c.chunk_id, len(rank)) for c in groups[heading])

    best = min(groups, key=order)
    return sorted(groups[best], key=lambda c: c.ordinal)[:SECTION_PASSAGES]
