"""Spaces restored in words that PDF text extraction ran together: "Tosustainsuchdeep" → "To sustain such deep".

Some PDFs place each word with its own positioning command and no space character; pypdf then returns the
words of a line glued into one token. A token is split only when it is long, alphabetic, lowercase (or
capitalised), absent from the vocabulary, and splits entirely into known words; the split chosen is the
most probable under a unigram model (counts of words in arXiv titles and abstracts, built by
`scripts/build_word_counts.py`). "Long" is 9 letters or more, except on a line that ran its words together (one
was split, and its runs of text are long on average): there short glued words are split from 5 letters
("Toensure"), and a comma, semicolon or full stop gets back the space after it ("quality,we").
"""

from __future__ import annotations

import gzip
import math
import re
from functools import cache
from importlib import resources

MIN_LENGTH = 9  # shorter tokens are left as they are, except on a line that ran its words together:
GLUED_LINE_MIN_LENGTH = 5  # there "Toensure" and "suchas" are glued as well, and a comma lost its space
GLUED_LINE_CHARS = 12  # a line is run together when its runs of non-space text average this many characters
MAX_WORD = 24  # the longest piece looked for
_TOKEN = re.compile(rf"\b[A-Za-z]{{{MIN_LENGTH},}}\b")
# not in an address: "allenai.org/blog", "name@domain"
_SHORT_TOKEN = re.compile(rf"(?<![/@])\b[A-Za-z]{{{GLUED_LINE_MIN_LENGTH},}}\b(?![./@]\w)")
_GLUED_PUNCTUATION = re.compile(r"(?<=[a-z])([,;])(?=[a-z])|(?<=[a-z]{2})(\.)(?=[A-Z][a-z])")  # "quality,we", "it.The"
_LOWER_WORD = re.compile(r"[A-Z]?[a-z]+")
_CASE_RUNS = re.compile(r"[A-Z]{2,}|[A-Z]?[a-z]+|[A-Z]")  # acronyms, words, stray capitals
# word pieces that are really suffixes or prefixes of one word: "bibliometric ally", "non linear"
_AFFIX_WORDS = (
    "ally ly ness less ing ings ion ions able ably ment ments ity ities ize ized izes ise ised al ed er ers "
    "ic ics ism ist ists ful ive ively ous ously ant ance ence ency wise ward wards un re non pre sub co de dis"
)
_AFFIXES = frozenset(_AFFIX_WORDS.split())
_SINGLE_LETTERS = frozenset({"a"})


SHORT_WORD = 3  # pieces this short must be common words: "imm uno modulatory" is not a split
SHORT_WORD_MIN_SHARE = 5e-5


class Vocabulary:
    """The known words, and the cost (negative log probability) of each word a split may use."""

    def __init__(self, counts: dict[str, int]) -> None:
        total = sum(counts.values()) or 1
        self.words = frozenset(counts)
        self.cost = {
            w: math.log(total / n)
            for w, n in counts.items()
            if len(w) > SHORT_WORD or n >= SHORT_WORD_MIN_SHARE * total
        }

    def __contains__(self, word: str) -> bool:
        return word in self.words

    def segment(self, word: str) -> list[str] | None:
        """The cheapest split of lowercase `word` into known words, or None when there is none."""
        n = len(word)
        best: list[tuple[float, int]] = [(0.0, 0)] + [(math.inf, 0)] * n
        for end in range(1, n + 1):
            for start in range(max(0, end - MAX_WORD), end):
                piece_cost = self.cost.get(word[start:end])
                if piece_cost is not None and best[start][0] + piece_cost < best[end][0]:
                    best[end] = (best[start][0] + piece_cost, start)
        if best[n][0] == math.inf:
            return None
        pieces, end = [], n
        while end > 0:
            start = best[end][1]
            pieces.append(word[start:end])
            end = start
        return pieces[::-1]


@cache
def vocabulary() -> Vocabulary:
    """The shipped word counts (ingest/data/word_counts.txt.gz), loaded once."""
    data = resources.files("ingest").joinpath("data/word_counts.txt.gz").read_bytes()
    counts = {}
    for line in gzip.decompress(data).decode("utf-8").splitlines():
        word, _, count = line.partition(" ")
        counts[word] = int(count)
    return Vocabulary(counts)


def _plausible(pieces: list[str]) -> bool:
    """A split into real words, not into a word and its suffix or into stray letters."""
    if len(pieces) < 2:
        return False
    if any(len(p) == 1 and p not in _SINGLE_LETTERS for p in pieces):
        return False
    return pieces[-1] not in _AFFIXES and pieces[0] not in _AFFIXES


def split_token(token: str, vocab: Vocabulary) -> str:
    """`token` with spaces restored, or unchanged when it is a known word or no split is plausible."""
    if not _LOWER_WORD.fullmatch(token):
        return token
    lower = token.lower()
    if lower in vocab:
        return token
    pieces = vocab.segment(lower)
    if pieces is None or not _plausible(pieces):
        return token
    if token[0].isupper():
        pieces[0] = pieces[0].capitalize()
    return " ".join(pieces)


def split_mixed(token: str, vocab: Vocabulary, min_length: int = MIN_LENGTH) -> str:
    """`token`, or its glued lowercase runs of at least `min_length` letters split and set apart from the
    acronyms between them ("methodssuchasDMCNN" → "methods such as DMCNN"); a name like "AutoScholarQuery"
    stays as it is."""
    if _LOWER_WORD.fullmatch(token):
        return split_token(token, vocab)
    pieces = _CASE_RUNS.findall(token)
    if "".join(pieces) != token:
        return token
    split = [split_token(p, vocab) if len(p) >= min_length else p for p in pieces]
    if split == pieces:
        return token
    return " ".join(split)


def restore_spaces(text: str, vocab: Vocabulary | None = None) -> str:
    """Every long glued token of `text` split into words; on a line that ran its words together, the shorter
    glued tokens too and the spaces after its punctuation (see the module docstring)."""
    vocab = vocab or vocabulary()
    return "\n".join(_restore_line(line, vocab) for line in text.split("\n"))


def _restore_line(line: str, vocab: Vocabulary) -> str:
    fixed = _TOKEN.sub(lambda m: split_mixed(m.group(), vocab), line)
    if fixed == line:  # nothing glued: most lines, and no need to measure them
        return line
    runs = line.split()
    if sum(map(len, runs)) < GLUED_LINE_CHARS * len(runs):
        return fixed
    fixed = _SHORT_TOKEN.sub(lambda m: split_mixed(m.group(), vocab, GLUED_LINE_MIN_LENGTH), fixed)
    return _GLUED_PUNCTUATION.sub(lambda m: m.group() + " ", fixed)
