"""The extractive topic overview (offline): the field's framing, then its main themes, then its challenges.

Every sentence is quoted from the abstract of one of the topic's central papers and cites it:
- framing: sentences of the papers closest to the topic's centre, the closest to that centre first,
  problem statements preferred over a paper's own contribution ("we propose ...");
- one or two sentences per theme (largest themes first) from the theme's most central papers, the most
  typical of the theme and least typical of the other themes first;
- challenges: sentences with challenge cues ("remains", "however", "limited", ...) from all those papers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from assistant.overview_cues import (
    ANAPHORA,
    APPROACH,
    CHALLENGE,
    FIRST_PERSON,
    PROBLEM,
    RESULT,
    STRONG_CHALLENGE,
    cue,
    dangling,
)
from assistant.overview_text import Block, Candidate, Picker, SentenceEmbedder, candidates, chunks_for, cited_answer
from assistant.overview_types import Section
from assistant.themes import LABEL_TERMS, Theme, unit
from assistant.types import Answer
from storage.catalog import Catalog

FRAMING_PAPERS = 8  # most central papers of the topic whose abstracts frame it
THEME_PAPERS = 3  # most central papers of each theme quoted for it
CHALLENGE_PAPERS = 16  # most central papers of the topic searched for challenges (with the ones above)
FRAMING_SENTENCES = 2
CHALLENGE_SENTENCES = 2
LARGE_THEME = 0.15  # a theme with this share of the topic's papers gets two sentences
MAX_SENTENCES = 16
ABSTRACT_CHUNKS = 2  # of a full-text paper, the chunks that hold its abstract
OPENING_SENTENCES = 6  # of an abstract, the sentences that frame and describe (later ones mostly report results)


@dataclass
class TopicPlan:
    """What an overview is written from: the topic, its centre, its most central papers and its themes."""

    topic: str
    centre: np.ndarray  # unit length
    central: list[str]
    themes: list[Theme]
    papers: int


def question_for(topic: str) -> str:
    return f"Overview of the topic {topic!r}: what it studies, its main themes and its challenges"


def pool_papers(plan: TopicPlan) -> list[str]:
    ids = plan.central[:CHALLENGE_PAPERS] + [pid for t in plan.themes for pid in t.central(THEME_PAPERS)]
    return list(dict.fromkeys(ids))


def extractive_overview(catalog: Catalog, embedder: SentenceEmbedder, plan: TopicPlan) -> tuple[Answer, list[Section]]:
    ids = pool_papers(plan)
    quoted = set(plan.central[:FRAMING_PAPERS]) | {p for t in plan.themes for p in t.central(THEME_PAPERS)}
    pool = candidates(
        embedder,
        chunks_for(catalog, ids, ABSTRACT_CHUNKS),
        wanted=lambda pid, position, text: (
            (pid in quoted and position < OPENING_SENTENCES) or bool(CHALLENGE.search(text))
        ),
    )
    picker = Picker(per_paper=1)
    blocks = [_framing(plan, pool, picker)]
    blocks += _themes(plan, pool, picker, MAX_SENTENCES - FRAMING_SENTENCES - CHALLENGE_SENTENCES)
    blocks.append(_challenges(plan, pool, picker))
    answer = cited_answer(question_for(plan.topic), blocks, catalog.get_many(ids), "extractive")
    return answer, [b.section for b in blocks if b.section.sentences]


def _framing(plan: TopicPlan, pool: Sequence[Candidate], picker: Picker) -> Block:
    def score(c: Candidate) -> float:
        early = 1.0 if c.position == 0 else 0.0
        text = c.sentence.text
        bonus = 0.06 * cue(PROBLEM, text) + 0.04 * early - 0.08 * cue(FIRST_PERSON, text) - 0.1 * dangling(text)
        return float(c.vector @ plan.centre) + bonus

    picks = picker.pick(pool, score, FRAMING_SENTENCES, keep=_of_papers(plan.central[:FRAMING_PAPERS]))
    return Block(Section("framing", "What the field studies", []), picks)


def _themes(plan: TopicPlan, pool: Sequence[Candidate], picker: Picker, budget: int) -> list[Block]:
    centres = unit(np.vstack([t.centre for t in plan.themes])) if plan.themes else np.zeros((0, len(plan.centre)))
    blocks: list[Block] = []
    for j, theme in enumerate(plan.themes):
        n = 2 if theme.size >= LARGE_THEME * plan.papers else 1
        n = min(n, budget)
        if n <= 0:
            break
        score = _theme_score(centres, j, theme.terms[:LABEL_TERMS])
        picks = picker.pick(pool, score, n, keep=_of_papers(theme.central(THEME_PAPERS)))
        budget -= len(picks)
        heading = "Main themes:" if not blocks else ""
        section = Section("theme", f"{theme.label} ({theme.size} papers)", [], theme.theme_id)
        blocks.append(Block(section, picks, prefix=f"- {theme.label}: ", heading=heading))
    return blocks


def _of_papers(paper_ids: Sequence[str]) -> Callable[[Candidate], bool]:
    wanted = set(paper_ids)
    return lambda c: c.paper_id in wanted


def _theme_score(centres: np.ndarray, j: int, names: list[str]) -> Callable[[Candidate], float]:
    """Typical of the theme, untypical of the others, naming its distinctive terms, saying what is done."""
    others = np.delete(centres, j, axis=0)
    named = [re.compile(rf"\b{re.escape(term)}", re.IGNORECASE) for term in names]

    def score(c: Candidate) -> float:
        own = float(c.vector @ centres[j])
        rival = float(np.max(others @ c.vector)) if len(others) else 0.0
        text = c.sentence.text
        bonus = 0.04 * sum(cue(p, text) for p in named) + 0.04 * cue(APPROACH, text) - 0.06 * cue(RESULT, text)
        return own + (own - rival) + bonus - 0.1 * dangling(text)

    return score


def _challenges(plan: TopicPlan, pool: Sequence[Candidate], picker: Picker) -> Block:
    def score(c: Candidate) -> float:
        text = c.sentence.text
        bonus = 0.05 * cue(STRONG_CHALLENGE, text) - 0.06 * cue(RESULT, text) - 0.1 * cue(ANAPHORA, text)
        return float(c.vector @ plan.centre) + bonus

    picks = picker.pick(pool, score, CHALLENGE_SENTENCES, keep=lambda c: bool(CHALLENGE.search(c.sentence.text)))
    return Block(Section("challenges", "Challenges", []), picks, prefix="Challenges: ")
