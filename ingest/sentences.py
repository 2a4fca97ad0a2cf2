"""Sentence splitting with character spans, tuned for scientific prose (e.g., et al., Fig. 3, 0.5).

Ingest splits each chunk with it to embed every sentence once (ingest/sentence_vectors.py); the offline answer
splits the retrieved passages with it and finds those vectors by (chunk id, sentence start).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_ABBREV = {
    "e.g",
    "i.e",
    "et al",
    "al",
    "fig",
    "figs",
    "eq",
    "eqs",
    "sec",
    "tab",
    "ref",
    "refs",
    "vs",
    "cf",
    "etc",
    "approx",
    "resp",
    "no",
    "vol",
    "pp",
    "ch",
    "dr",
    "mr",
    "ms",
    "st",
    "inc",
    "ltd",
    "jr",
    "sr",
}
# A sentence ends at . ! ? before a capital, at a blank line, or where a list item's bullet starts the next
# ("... as follows: • We introduce X ... • We develop Y ..."): each item is a sentence of its own. BULLETS are
# those marks; storage/migrations.py (m011) drops the sentence vectors stored before for chunks holding one.
_BOUNDARY = re.compile(r"[.!?](?:[\"')\]]*)\s+(?=[A-Z0-9\[(\"'])|\n\s*\n|\s*[\u2022\u25cf\u25aa]\s+")
BULLETS = "\u2022\u25cf\u25aa"  # • ● ▪ (not ◦, which PDF text also uses for function composition)
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")


@dataclass(frozen=True)
class Sentence:
    text: str
    start: int  # character offsets in the source text: source[start:end] == text
    end: int


def _is_abbreviation(text: str, dot: int) -> bool:
    m = _WORD_BEFORE.search(text[max(0, dot - 12) : dot])
    if not m:
        return False
    word = m.group(1).lower().rstrip(".")
    return word in _ABBREV or len(word) == 1  # single initials: "J. Smith"


def split_sentences(text: str) -> list[Sentence]:
    """Sentences of `text` with exact spans; whitespace around them is not part of the span.

    An answer splits each passage several times (scoring, stored vectors, abstention, lists): the last few
    thousand texts' splits are kept."""
    return list(_split(text))


@lru_cache(maxsize=4096)
def _split(text: str) -> tuple[Sentence, ...]:
    out: list[Sentence] = []
    start = 0
    for m in _BOUNDARY.finditer(text):
        if text[m.start()] == "." and _is_abbreviation(text, m.start()):
            continue
        _append(out, text, start, m.start() + 1 if text[m.start()] in ".!?" else m.start())
        start = m.end()
    _append(out, text, start, len(text))
    return tuple(out)


_LEADING_JUNK = set(" \t\n\u2022\u25cf\u25aa\u2013\u2014-*\u00b7")


def _append(out: list[Sentence], text: str, start: int, end: int) -> None:
    while start < end and text[start] in _LEADING_JUNK:
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        out.append(Sentence(text[start:end], start, end))


MIN_CHARS, MAX_CHARS = 25, 600


def usable(sentence: Sentence) -> bool:
    """A sentence an answer may quote: prose of a quotable length, not a table row, equation or reference."""
    text = sentence.text
    if not MIN_CHARS <= len(text) <= MAX_CHARS:
        return False
    letters = sum(map(str.isalpha, text))
    return letters >= 0.55 * len(text)  # tables, equations and reference lists are mostly not letters
