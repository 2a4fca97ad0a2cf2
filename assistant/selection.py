"""Question-aware sentence selection: which sentences of the retrieved passages answer the question, best first.

Every usable sentence of the passages gets the cheap features of `assistant.sentence_features` and a linear
score over them; the best few are embedded and scored again by a second linear model that starts from the
support score (embedding similarity mixed with keyword overlap) and adds what the question asks for. Both are
pairwise logistic regressions (a sentence of the gold evidence against one that is not, of the same question)
learned from public labelled data by bench/train_selection.py (docs/benchmarks.md) and shipped as
`selection_model.json` next to this module.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from assistant.question_type import QuestionType, classify
from assistant.scoring import idf_weights, mix
from assistant.sentence_features import CHEAP, FULL, Context, Query, bigrams, cheap_features, full_row, make_query
from assistant.types import Passage
from ingest.sentences import Sentence, split_sentences
from storage.keyword import KeywordTokenizer

MODEL_PATH = Path(__file__).with_name("selection_model.json")
LEXICAL = CHEAP.index("lexical")
_tokenize = KeywordTokenizer()


@dataclass
class Candidate:
    """A sentence of source `source` (an index into the sources) with its features and scores."""

    source: int
    sentence: Sentence
    context: Context
    features: list[float]
    score: float = 0.0  # the learned score: higher is likelier to answer the question (a logit, any sign)
    support: float = 0.0  # semantic_weight x embedding similarity + the rest x keyword overlap
    dense: float | None = None  # cosine to the question, for the sentences that were embedded
    vector: np.ndarray | None = field(default=None, repr=False)


@dataclass(frozen=True)
class LinearModel:
    """A linear score over standardised features: ((x - mean) / scale) . coef + intercept."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LinearModel:
        mean, scale, coef = (np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "coef"))
        return cls(tuple(data["features"]), mean, scale, coef, float(data["intercept"]))

    def to_dict(self) -> dict[str, Any]:
        return {
            "features": list(self.features),
            "mean": self.mean.round(6).tolist(),
            "scale": self.scale.round(6).tolist(),
            "coef": self.coef.round(6).tolist(),
            "intercept": round(self.intercept, 6),
        }

    def predict(self, rows: Sequence[Sequence[float]]) -> np.ndarray:
        if not rows:
            return np.zeros(0)
        x = (np.asarray(rows, dtype=np.float64) - self.mean) / self.scale
        return np.asarray(x @ self.coef + self.intercept)


@dataclass(frozen=True)
class SelectionModel:
    cheap: LinearModel
    full: LinearModel


@cache
def load_model(path: Path = MODEL_PATH) -> SelectionModel:
    data = json.loads(path.read_text(encoding="utf-8"))
    cheap, full = LinearModel.from_dict(data["cheap"]), LinearModel.from_dict(data["full"])
    if cheap.features != CHEAP or full.features != FULL:
        raise ValueError(f"{path} was trained on other features: retrain it with `python -m bench.train_selection`")
    return SelectionModel(cheap, full)


def _contexts(passages: Sequence[Sequence[Sentence]], sections: Sequence[str]) -> list[list[Context]]:
    """Each sentence's place in its passage (all sentences tokenized at once: one call is much cheaper)."""
    flat = [s.text for sentences in passages for s in sentences]
    tokens = iter(_tokenize(flat) if flat else [])
    out = []
    for rank, (sentences, section) in enumerate(zip(passages, sections, strict=True)):
        words = [next(tokens) for _ in sentences]
        sets = [frozenset(w) for w in words]
        out.append([
            Context(s.text, sets[i], bigrams(words[i]), rank, i, len(sentences),
                    sets[i - 1] if i else frozenset(), sets[i + 1] if i + 1 < len(sets) else frozenset(), section)
            for i, s in enumerate(sentences)
        ])  # fmt: skip
    return out


def question_query(question: str, idf: dict[str, float]) -> Query:
    words = _tokenize([question])[0]
    return make_query(frozenset(words), words, classify(question), idf)


def featurize(
    question: str, sources: Sequence[Passage], usable: Callable[[Sentence], bool]
) -> tuple[QuestionType, list[Candidate]]:
    """Every usable sentence of `sources` with its cheap features, in passage order."""
    split = [split_sentences(p.text) for p in sources]
    sections = [str(getattr(p, "section", "") or "") for p in sources]
    found = [
        Candidate(rank, sentence, context, [])
        for rank, (sentences, contexts) in enumerate(zip(split, _contexts(split, sections), strict=True))
        for sentence, context in zip(sentences, contexts, strict=True)
        if usable(sentence)
    ]
    if not found:
        return classify(question), []
    idf = idf_weights([set(c.context.terms) for c in found])
    query = question_query(question, idf)
    for cand in found:
        cand.features = cheap_features(query, cand.context, idf)
    return query.kind, found


def candidates(
    question: str, sources: Sequence[Passage], usable: Callable[[Sentence], bool]
) -> tuple[QuestionType, list[Candidate]]:
    """`featurize`, scored by the cheap model, best first."""
    kind, found = featurize(question, sources, usable)
    scores = load_model().cheap.predict([c.features for c in found])
    for cand, score in zip(found, scores, strict=True):
        cand.score = float(score)
    found.sort(key=lambda c: -c.score)
    return kind, found


def lexical(cand: Candidate) -> float:
    return cand.features[LEXICAL]


def rescore(
    cands: Sequence[Candidate], dense: Sequence[float], vectors: np.ndarray, semantic_weight: float
) -> list[Candidate]:
    """`cands` scored again by the full model, with their embedding similarity to the question, best first."""
    for cand, sim, vec in zip(cands, dense, vectors, strict=True):
        cand.dense, cand.vector = float(sim), vec
        cand.support = float(mix(cand.dense, lexical(cand), semantic_weight))
    scores = load_model().full.predict([full_row(c.features, c.support) for c in cands])
    for cand, score in zip(cands, scores, strict=True):
        cand.score = float(score)
    return sorted(cands, key=lambda c: -c.score)
