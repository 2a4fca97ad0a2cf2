"""A one-paper overview ("summarise this paper"): its framing, method, results and limitations, cited with pages.

The same machinery as a topic overview, on one paper's chunks: every prose sentence of the paper is a
candidate, scored by closeness to the paper's centre (the mean of its chunk vectors) plus the cues of
the section it could fill; the framing comes from the opening (abstract, introduction), limitations
prefer a "Limitations" section. Each sentence cites the chunk it is quoted from, with its pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timezone

import numpy as np

from assistant.asked_section import in_section
from assistant.overview_cues import FIRST_PERSON, LIMITATION, LIMITATIONS_HEADING, METHOD, PROBLEM, RESULT, cue
from assistant.overview_text import Block, Candidate, Picker, SentenceEmbedder, candidates, cited_answer
from assistant.overview_types import Overview, Section
from assistant.themes import unit
from papertalk.errors import NotFound
from storage.paper_vectors import paper_vectors
from storage.store import Store

OPENING = 0.08  # share of a paper's sentences that count as its opening (abstract, introduction) ...
OPENING_MIN = 8  # ... and at least this many
PER_SECTION = {"framing": 2, "method": 2, "results": 2, "limitations": 2}
TITLES = {"framing": "What it is about", "method": "Method", "results": "Results", "limitations": "Limitations"}


def summarize_paper(store: Store, embedder: SentenceEmbedder, paper_id: str) -> Overview:
    paper = store.catalog.get(paper_id.removeprefix("arxiv:"))
    if paper is None or paper.status != "indexed":
        raise NotFound(f"no indexed paper {paper_id!r}: see `papertalk papers list`, or ingest it first")
    chunks = store.catalog.chunks_of(paper.paper_id)
    pool = candidates(embedder, chunks)
    if not pool:
        raise NotFound(f"paper {paper.paper_id} has no sentences to summarise (no text was extracted from it)")
    _, vectors = paper_vectors(store.catalog, store.vectors, [paper.paper_id])
    centre = unit(vectors[0]) if len(vectors) else unit(np.mean([c.vector for c in pool], axis=0))
    last = max(c.position for c in pool) or 1
    limits = {c.chunk.chunk_id for c in pool if _in_limitations(c)}
    picker = Picker(per_paper=sum(PER_SECTION.values()))
    blocks = []
    for kind, (keep, bonus) in _sections(last, limits).items():
        picks = picker.pick(pool, _scored(centre, bonus), PER_SECTION[kind], keep, one_per_paper=False)
        picks.sort(key=lambda p: (p[0].chunk.ordinal, p[0].sentence.start))
        blocks.append(Block(Section(kind, TITLES[kind], []), picks, prefix=f"{TITLES[kind]}: "))
    answer = cited_answer(f"Summary of {paper.title!r}", blocks, {paper.paper_id: paper}, "extractive")
    sections = [b.section for b in blocks if b.section.sentences]
    built = datetime.now(timezone.utc).replace(microsecond=0)
    return Overview("paper", paper.paper_id, paper.title, "extractive", built, [paper.paper_id], answer, sections)


def _in_limitations(cand: Candidate) -> bool:
    """The sentence's chunk is in the paper's Limitations section: by the section ingest recorded for it, or (text
    read without cleanup, which keeps headings in the text) by the heading in its text."""
    return in_section("limitations", cand.chunk.section) or bool(LIMITATIONS_HEADING.search(cand.chunk.text))


Keep = Callable[[Candidate], bool]
Bonus = Callable[[Candidate], float]


def _sections(last: int, limits: set[str]) -> dict[str, tuple[Keep, Bonus]]:
    """For each section: which sentences may fill it, and what they score on top of centrality."""

    def opening(c: Candidate) -> bool:
        return c.position < max(OPENING_MIN, OPENING * last)

    def first(c: Candidate) -> float:
        return 0.12 / (1.0 + c.position / 4)

    def early(c: Candidate) -> float:
        return 0.1 * (1.0 - c.position / last)

    return {
        "framing": (opening, lambda c: 0.08 * cue(PROBLEM, c.sentence.text) + first(c)),
        "method": (_has(METHOD), lambda c: 0.05 * cue(FIRST_PERSON, c.sentence.text) + early(c)),
        "results": (_has(RESULT), early),
        "limitations": (_has(LIMITATION), lambda c: 0.15 * (c.chunk.chunk_id in limits)),
    }


def _has(pattern: re.Pattern[str]) -> Keep:
    return lambda c: bool(pattern.search(c.sentence.text))


def _scored(centre: np.ndarray, bonus: Bonus) -> Callable[[Candidate], float]:
    return lambda c: float(c.vector @ centre) + bonus(c)
