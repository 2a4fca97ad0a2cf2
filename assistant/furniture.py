"""Passages that rarely answer a question: captions, text drawn from figures, tables and algorithms, and back
matter (references, acknowledgments). Retrieval weighs their fused score down (`furniture_weight`).

Every chunk of a paper carries its title, so a short caption or a block of axis labels embeds and matches
as little more than that title and can outrank the passage that answers a question about the paper.
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache

from assistant.types import Passage
from ingest.sections import is_back_matter

MIN_LINE_WORDS = 4  # a line of prose has at least this many tokens; axis labels and table cells fewer
MIN_WORD_SHARE = 0.6  # and mostly words; numbers and symbols fill table rows and algorithms
MIN_PROSE_SHARE = 0.5  # prose: at least this share of a passage's tokens on lines of prose
MIN_PROSE_TOKENS = 20  # or a sentence's worth of them: a paragraph cut off by the table after it is still read
_WORD = re.compile(r"(?<!\S)[^\W\d_]{2,}[.,;:]?(?!\S)")  # a whole token that is a word (one scan per line)


@lru_cache(maxsize=4096)  # a scope's questions weigh the same passages again and again
def is_prose(text: str) -> bool:
    """Whether `text` reads as sentences rather than figure, table or algorithm text: at least
    `MIN_PROSE_SHARE` of its tokens, or `MIN_PROSE_TOKENS` of them, on lines of prose (`MIN_LINE_WORDS`
    tokens or more, mostly words). A chunk that opens with the paragraph before a table and goes on with the
    table's rows holds that paragraph's sentences, which may answer a question ("The resulting corpus
    consists of 81.1M papers." before S2ORC's Table 1)."""
    tokens = 0
    in_prose = 0
    for line in text.splitlines():
        parts = line.split()
        tokens += len(parts)
        words = len(_WORD.findall(line))
        if len(parts) >= MIN_LINE_WORDS and words >= MIN_WORD_SHARE * len(parts):
            in_prose += len(parts)
            if in_prose >= MIN_PROSE_TOKENS:  # prose whatever follows (most chunks: decided on the first lines)
                return True
    return tokens > 0 and in_prose >= min(MIN_PROSE_SHARE * tokens, MIN_PROSE_TOKENS)


def is_furniture(passage: Passage) -> bool:
    """A caption, text that is not prose, or a passage of the back matter."""
    return passage.caption or is_back_matter(passage.section) or not is_prose(passage.text)


def weigh_furniture(passages: list[Passage], weight: float) -> list[Passage]:
    """`passages` with furniture's score times `weight`, best first (ties keep their order)."""
    if weight >= 1:
        return passages
    weighed = [replace(p, score=p.score * weight) if is_furniture(p) else p for p in passages]
    return sorted(weighed, key=lambda p: -p.score)
