"""Choosing a threshold on scored samples: rates, balanced accuracy, precision/recall, a grid search."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

GRID = [i / 100 for i in range(101)]
MAX_MISS = 0.10  # at most 10% false abstentions / false "unsupported" flags on the calibration half


@dataclass(frozen=True)
class Sample:
    score: float
    positive: bool  # should answer / is a supporting sentence
    group: str
    split: str


def rates(samples: Sequence[Sample], t: float) -> tuple[float, float]:
    """(share of positives at or above t, share of negatives below t)."""
    pos = [s for s in samples if s.positive]
    neg = [s for s in samples if not s.positive]
    tpr = sum(s.score >= t for s in pos) / len(pos) if pos else 0.0
    tnr = sum(s.score < t for s in neg) / len(neg) if neg else 0.0
    return tpr, tnr


def balanced_accuracy(samples: Sequence[Sample], t: float) -> float:
    return sum(rates(samples, t)) / 2


def prf(samples: Sequence[Sample], t: float) -> tuple[float, float, float]:
    """Precision, recall and F1 of "score >= t" for the positives."""
    flagged = [s for s in samples if s.score >= t]
    tp = sum(s.positive for s in flagged)
    positives = sum(s.positive for s in samples)
    precision = tp / len(flagged) if flagged else 0.0
    recall = tp / positives if positives else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def choose(samples: Sequence[Sample], max_miss: float = MAX_MISS) -> float:
    """The middle of the grid thresholds with the best balanced accuracy on `samples`, among those that keep
    at least 1 - `max_miss` of the positives (all thresholds when none does)."""
    allowed = [t for t in GRID if rates(samples, t)[0] >= 1 - max_miss] or GRID
    values = [balanced_accuracy(samples, t) for t in allowed]
    top = max(values)
    best = [t for t, v in zip(allowed, values, strict=True) if v >= top - 1e-12]
    return best[len(best) // 2]


def split(samples: Sequence[Sample], name: str) -> list[Sample]:
    return [s for s in samples if s.split == name]
