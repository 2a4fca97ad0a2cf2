"""Passages that rarely answer a question: captions, text drawn from figures, tables and algorithms, and back
matter (references, acknowledgments). Retrieval weighs their fused score down (`furniture_weight`).

Every chunk of a paper carries its title, so a short caption or a block of axis labels embeds and matches
as little more than that title and can outrank the passage that answers a question about the paper.
"""

from __future__ import annotations

from dataclasses import replace

from assistant.types import Passage
from ingest.cleanup import is_prose
from ingest.sections import is_back_matter


def is_furniture(passage: Passage) -> bool:
    """A caption, text that is not prose, or a passage of the back matter."""
    return passage.caption or is_back_matter(passage.section) or not is_prose(passage.text)


def weigh_furniture(passages: list[Passage], weight: float) -> list[Passage]:
    """`passages` with furniture's score times `weight`, best first (ties keep their order)."""
    if weight >= 1:
        return passages
    weighed = [replace(p, score=p.score * weight) if is_furniture(p) else p for p in passages]
    return sorted(weighed, key=lambda p: -p.score)
