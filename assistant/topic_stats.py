"""A topic's numbers: momentum over four-week windows, weekly counts, and related topics. Pure functions.

Windows are counted in first-listed days, both ends included. For an as-of date D, the last four weeks are
D-27 … D and the four weeks before are D-55 … D-28 (a paper listed exactly 28 days before D is in the
earlier window). Week k of the chart covers seven days, the last one ending on D, so the last four weeks
of the chart add up to the last-four-weeks count.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import numpy as np

WINDOW_DAYS = 28
CHART_WEEKS = 13
HISTORICAL_AFTER_DAYS = 30  # a corpus whose newest paper is older than this is read as of that paper's date


@dataclass(frozen=True)
class AsOf:
    day: date
    historical: bool  # True: the corpus stops before today, so its newest paper's date is used
    newest: date | None

    def note(self) -> str:
        if self.historical:
            return f"as of {self.day.isoformat()}, the date of the newest paper (a historical corpus: it ends there)"
        return f"as of {self.day.isoformat()}"


def resolve_as_of(newest: date | None, requested: date | None = None, today: date | None = None) -> AsOf:
    """The date momentum is measured at: the one asked for, else today, else (for a corpus that ended more than
    `HISTORICAL_AFTER_DAYS` ago) the newest paper's date."""
    if requested is not None:
        return AsOf(requested, False, newest)
    today = today or date.today()
    if newest is not None and (today - newest).days > HISTORICAL_AFTER_DAYS:
        return AsOf(newest, True, newest)
    return AsOf(today, False, newest)


@dataclass(frozen=True)
class Week:
    start: date
    count: int

    @property
    def label(self) -> str:
        return f"{self.start:%b} {self.start.day}"


@dataclass(frozen=True)
class Momentum:
    as_of: AsOf
    recent: int  # papers in the last four weeks
    previous: int  # papers in the four weeks before
    corpus_recent: int  # all papers in the last four weeks
    weeks: list[Week]

    @property
    def change_pct(self) -> float | None:
        """Percent change on the previous four weeks; None when there were none then."""
        if self.previous == 0:
            return None
        return 100.0 * (self.recent - self.previous) / self.previous

    @property
    def share_pct(self) -> float | None:
        """Percent of all papers of the last four weeks; None when the corpus has none in that window."""
        return 100.0 * self.recent / self.corpus_recent if self.corpus_recent else None

    def change_text(self) -> str:
        pct = self.change_pct
        if pct is None:
            return "new: none in the four weeks before" if self.recent else "none in the four weeks before either"
        if round(pct) == 0:
            return "about the same as the four weeks before"
        return f"{'up' if pct > 0 else 'down'} {abs(pct):.0f}% on the four weeks before"

    def sentence(self) -> str:
        noun = "paper" if self.recent == 1 else "papers"
        share = f" {self.share_pct:.1f}% of all new papers." if self.share_pct is not None else ""
        return f"{self.recent} {noun} in the last four weeks, {self.change_text()}.{share}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "as_of": self.as_of.day.isoformat(),
            "historical": self.as_of.historical,
            "note": self.as_of.note(),
            "recent": self.recent,
            "previous": self.previous,
            "change_pct": self.change_pct,
            "change": "new" if self.change_pct is None and self.recent else self.change_pct,
            "share_pct": self.share_pct,
            "corpus_recent": self.corpus_recent,
            "weeks": [{"start": w.start.isoformat(), "label": w.label, "count": w.count} for w in self.weeks],
            "sentence": self.sentence(),
        }


def days_needed(weeks: int = CHART_WEEKS) -> int:
    """How many days before the as-of date (included) the counts must reach back."""
    return max(weeks * 7, 2 * WINDOW_DAYS)


def count_between(daily: Mapping[date, int], first: date, last: date) -> int:
    return sum(n for d, n in daily.items() if first <= d <= last)


def momentum(daily: Mapping[date, int], corpus_recent: int, as_of: AsOf, weeks: int = CHART_WEEKS) -> Momentum:
    """Momentum from the topic's papers per first-listed day (at least `days_needed` days up to the as-of date)
    and the number of all papers in the last four weeks."""
    end = as_of.day
    recent = count_between(daily, end - timedelta(days=WINDOW_DAYS - 1), end)
    previous = count_between(daily, end - timedelta(days=2 * WINDOW_DAYS - 1), end - timedelta(days=WINDOW_DAYS))
    chart = []
    for k in range(weeks - 1, -1, -1):
        last = end - timedelta(days=7 * k)
        first = last - timedelta(days=6)
        chart.append(Week(first, count_between(daily, first, last)))
    return Momentum(as_of, recent, previous, corpus_recent, chart)


@dataclass(frozen=True)
class Related:
    slug: str
    name: str
    shared: int  # papers in both topics
    overlap: float  # shared / size of the smaller topic
    jaccard: float
    similarity: float | None  # cosine of the two topics' centres (None: a topic has no scored papers)
    strength: float

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def related_topics(
    slug: str,
    sizes: Mapping[str, int],
    names: Mapping[str, str],
    shared: Mapping[str, int],
    centres: Mapping[str, np.ndarray],
    limit: int = 5,
) -> list[Related]:
    """Topics related to `slug`, strongest first: strength is the mean of the overlap coefficient of their
    papers and the cosine of their centres (0 when either is unknown)."""
    mine = sizes.get(slug, 0)
    out = []
    for other, size in sizes.items():
        if other == slug:
            continue
        n = shared.get(other, 0)
        overlap = n / min(mine, size) if n else 0.0
        jaccard = n / (mine + size - n) if n else 0.0
        similarity = _cosine(centres.get(slug), centres.get(other))
        strength = (overlap + max(similarity or 0.0, 0.0)) / 2
        if n or similarity is not None:
            out.append(Related(other, names.get(other, other), n, overlap, jaccard, similarity, strength))
    out.sort(key=lambda r: (-r.strength, r.name))
    return out[:limit]


def centred(centres: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Topic centres minus their mean: in one field every centre points the same way (cosines of 0.9 and
    more), and what tells topics apart is how each differs from the others."""
    if len(centres) < 2:
        return dict(centres)
    units = {slug: c / max(float(np.linalg.norm(c)), 1e-12) for slug, c in centres.items()}
    mean = np.mean(list(units.values()), axis=0)
    return {slug: u - mean for slug, u in units.items()}


def _cosine(a: np.ndarray | None, b: np.ndarray | None) -> float | None:
    if a is None or b is None:
        return None
    na, nb = float(np.linalg.norm(a)), float(np.linalg.norm(b))
    return float(a @ b) / (na * nb) if na and nb else None
