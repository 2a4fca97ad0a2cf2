"""The offline answer backend: picks the retrieved sentences that best answer the question and cites each.

No text is generated: every sentence of an answer is a sentence of a passage, quoted with its [n]. When even
the best sentence is a weak match the answer says plainly that the indexed papers don't answer the question.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from assistant.base import Answerer
from assistant.scoring import idf_weights, mix, overlap, similarities, terms
from assistant.sentences import Sentence, split_sentences
from assistant.types import Answer, AnswerSentence, Citation, Passage
from papertalk.settings import AnswerSettings

PREFILTER = 6  # sentences embedded per question; 6 and 10 gave the same Ask PDF scores (docs/benchmarks.md)
MIN_CHARS, MAX_CHARS = 25, 600
NOT_ANSWERED = "The indexed papers don't answer this question."


@dataclass
class _Candidate:
    source: int  # index into sources
    sentence: Sentence
    lexical: float
    prior: float
    score: float = 0.0
    vector: np.ndarray | None = None


def _near_duplicate(a: _Candidate, b: _Candidate) -> bool:
    return a.vector is not None and b.vector is not None and float(a.vector @ b.vector) > 0.9


def _usable(sentence: Sentence) -> bool:
    text = sentence.text
    if not MIN_CHARS <= len(text) <= MAX_CHARS:
        return False
    letters = sum(ch.isalpha() for ch in text)
    return letters >= 0.55 * len(text)  # tables, equations and reference lists are mostly not letters


class ExtractiveAnswerer(Answerer):
    name = "extractive"

    def __init__(self, embedder: BaseEmbedding, settings: AnswerSettings) -> None:
        self.embedder = embedder
        self.settings = settings

    def answer(self, question: str, standalone: str, sources: list[Passage]) -> Answer:
        candidates = self._score(standalone, sources)
        picked = self._select(candidates)
        best = candidates[0].score if candidates else 0.0
        if not picked or best < self.settings.abstain_below:
            return self._abstain(question, standalone, sources, best)
        sentences = [self._cite(c, sources) for c in picked]
        text = " ".join(f"{s.text} [{s.citations[0].number}]" for s in sentences)
        return Answer(
            question, standalone, text, sentences, sources, self.name, notes=[f"best sentence score {best:.2f}"]
        )

    def _score(self, query: str, sources: list[Passage]) -> list[_Candidate]:
        pool = [(i, s) for i, p in enumerate(sources) for s in split_sentences(p.text) if _usable(s)]
        if not pool:
            return []
        pool_terms = terms([s.text for _, s in pool])
        idf = idf_weights(pool_terms)
        q_terms = terms([query])[0]
        cands = [
            _Candidate(i, s, overlap(q_terms, t, idf), 1.0 / (1 + i))
            for (i, s), t in zip(pool, pool_terms, strict=True)
        ]
        cands.sort(key=lambda c: -(c.lexical + 0.3 * c.prior))
        cands = cands[:PREFILTER]
        sims, vectors = similarities(self.embedder, query, [c.sentence.text for c in cands])
        for cand, sim, vec in zip(cands, sims, vectors, strict=True):
            cand.score = float(mix(float(sim), cand.lexical, self.settings.semantic_weight))
            cand.vector = vec
        return sorted(cands, key=lambda c: -c.score)

    def _select(self, cands: list[_Candidate]) -> list[_Candidate]:
        """Greedy: best first, skipping near-duplicates, nudging towards papers not yet quoted."""
        picked: list[_Candidate] = []
        floor = max(self.settings.abstain_below, cands[0].score * 0.8) if cands else 0.0
        for cand in cands:
            if len(picked) >= self.settings.max_sentences or cand.score < floor:
                break
            if any(_near_duplicate(cand, p) for p in picked):
                continue
            picked.append(cand)
        return picked

    def _cite(self, cand: _Candidate, sources: list[Passage]) -> AnswerSentence:
        passage = sources[cand.source]
        citation = Citation(
            number=passage.number,
            chunk_id=passage.chunk_id,
            paper_id=passage.paper_id,
            page_start=passage.page_start,
            page_end=passage.page_end,
            span_start=cand.sentence.start,
            span_end=cand.sentence.end,
            quote=cand.sentence.text,
            support=round(cand.score, 4),
            section=passage.section,
        )
        return AnswerSentence(
            text=" ".join(cand.sentence.text.split()), citations=[citation], support=round(cand.score, 4)
        )

    def _abstain(self, question: str, standalone: str, sources: list[Passage], best: float) -> Answer:
        text = NOT_ANSWERED
        if sources:
            text += " The closest passages are listed below as sources; they may still be useful to read."
        return Answer(
            question,
            standalone,
            text,
            [],
            sources,
            self.name,
            abstained=True,
            notes=[
                f"best sentence score {best:.2f} is below the abstention threshold {self.settings.abstain_below:.2f}"
            ],
        )
