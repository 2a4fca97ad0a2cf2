"""Momentum arithmetic at the window edges, the as-of date, and related-topic strength (pure functions)."""

from datetime import date, timedelta

import numpy as np

from assistant.topic_stats import AsOf, centred, momentum, related_topics, resolve_as_of

D = date(2025, 9, 30)
AS_OF = AsOf(D, False, D)


def _days(*offsets: int) -> dict[date, int]:
    daily: dict[date, int] = {}
    for k in offsets:
        day = D - timedelta(days=k)
        daily[day] = daily.get(day, 0) + 1
    return daily


def test_a_paper_exactly_28_days_before_is_in_the_previous_window() -> None:
    m = momentum(_days(0, 27, 28, 55, 56), corpus_recent=10, as_of=AS_OF)
    assert (m.recent, m.previous) == (2, 2)  # 0 and 27 now; 28 and 55 before; 56 in neither
    assert m.change_pct == 0.0 and "about the same" in m.sentence()


def test_change_share_and_sentence() -> None:
    m = momentum(_days(*([1] * 12), *([40] * 5)), corpus_recent=400, as_of=AS_OF)
    assert (m.recent, m.previous) == (12, 5)
    assert m.change_pct is not None and round(m.change_pct) == 140
    assert m.share_pct == 3.0
    assert m.sentence() == "12 papers in the last four weeks, up 140% on the four weeks before. 3.0% of all new papers."
    down = momentum(_days(1, *([30] * 4)), corpus_recent=10, as_of=AS_OF)
    assert down.change_pct == -75.0 and "down 75%" in down.sentence()


def test_zero_previous_window_is_new_not_a_division_by_zero() -> None:
    m = momentum(_days(3, 4), corpus_recent=2, as_of=AS_OF)
    assert m.previous == 0 and m.change_pct is None
    assert m.to_dict()["change"] == "new" and "new: none in the four weeks before" in m.sentence()
    assert m.share_pct == 100.0


def test_empty_windows() -> None:
    m = momentum({}, corpus_recent=0, as_of=AS_OF)
    assert (m.recent, m.previous, m.change_pct, m.share_pct) == (0, 0, None, None)
    assert m.sentence() == "0 papers in the last four weeks, none in the four weeks before either."
    assert m.to_dict()["change"] is None
    assert [w.count for w in m.weeks] == [0] * 13


def test_weeks_end_on_the_as_of_date_and_the_last_four_add_up_to_the_window() -> None:
    daily = _days(0, 6, 7, 13, 27, 28, 90, 91)
    m = momentum(daily, corpus_recent=8, as_of=AS_OF, weeks=13)
    assert len(m.weeks) == 13
    assert m.weeks[-1].start == D - timedelta(days=6) and m.weeks[0].start == D - timedelta(days=90)
    assert [w.count for w in m.weeks[-4:]] == [1, 0, 2, 2]
    assert sum(w.count for w in m.weeks[-4:]) == m.recent == 5
    assert m.weeks[0].count == 1  # day 90 is the first day of the chart, day 91 is before it
    assert m.weeks[-1].label == "Sep 24"


def test_as_of_today_historical_corpus_or_asked_for() -> None:
    today = date(2026, 1, 10)
    assert resolve_as_of(date(2026, 1, 2), today=today) == AsOf(today, False, date(2026, 1, 2))
    old = resolve_as_of(date(2025, 9, 30), today=today)
    assert old.day == date(2025, 9, 30) and old.historical and "newest paper" in old.note()
    edge = resolve_as_of(today - timedelta(days=30), today=today)
    assert edge.day == today and not edge.historical  # 30 days old is still current
    asked = resolve_as_of(date(2025, 9, 30), requested=date(2025, 6, 1), today=today)
    assert asked.day == date(2025, 6, 1) and not asked.historical
    assert resolve_as_of(None, today=today).day == today


def test_related_topics_rank_by_shared_papers_and_centre_similarity() -> None:
    sizes = {"a": 10, "b": 4, "c": 20, "d": 5}
    names = {"a": "A", "b": "B", "c": "C", "d": "D"}
    centres = {"a": np.array([1.0, 0.0]), "b": np.array([1.0, 1.0]), "c": np.array([0.0, 1.0])}
    related = related_topics("a", sizes, names, {"b": 4, "c": 2}, centres)
    assert [r.slug for r in related] == ["b", "c"]  # d shares nothing and has no centre
    b, c = related
    assert b.overlap == 1.0 and round(b.jaccard, 2) == 0.4 and round(b.similarity or 0, 3) == 0.707
    assert round(b.strength, 3) == round((1.0 + 0.7071) / 2, 3)
    assert c.overlap == 0.2 and c.similarity == 0.0 and c.strength == 0.1


def test_centred_centres_tell_topics_of_one_field_apart() -> None:
    shared = np.array([10.0, 0.0, 0.0])
    centres = {"a": shared + np.array([0, 1, 0]), "b": shared + np.array([0, 1.2, 0.1]), "c": shared - [0, 1, 0]}
    raw = related_topics("a", {"a": 5, "b": 5, "c": 5}, {}, {}, centres)
    assert all((r.similarity or 0) > 0.98 for r in raw)  # one field: every centre looks alike
    moved = {r.slug: r.similarity for r in related_topics("a", {"a": 5, "b": 5, "c": 5}, {}, {}, centred(centres))}
    assert (moved["b"] or 0) > 0.9 and (moved["c"] or 0) < -0.9
    assert centred({"a": shared}) == {"a": shared}
