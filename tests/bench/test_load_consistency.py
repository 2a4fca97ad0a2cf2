"""The load bench's consistency check: answers to one question at one catalog version must be identical;
answers during which the version moved rest on no single version and are not compared."""

from __future__ import annotations

from bench.bench_load import Seen, consistency


def seen(question: str, before: int, after: int, text: str) -> Seen:
    return Seen(question, before, after, text, (("p#0", 0.5, None),))


def test_different_answers_at_one_version_are_counted_and_other_versions_are_not() -> None:
    answers = [
        seen("q [topic]", 3, 3, "A"),
        seen("q [topic]", 3, 3, "A"),
        seen("q [topic]", 4, 4, "B"),  # another version may answer otherwise
        seen("q [topic]", 4, 5, "C"),  # the version moved: not compared
        seen("q [all papers]", 4, 4, "D"),
        seen("q [all papers]", 4, 4, "E"),  # same version, another answer: inconsistent
    ]
    result = consistency(answers)
    assert (result["stable"], result["moved"], result["groups"], result["versions"]) == (5, 1, 3, 2)
    assert [[s.text for s in group] for group in result["inconsistent"]] == [["D", "E"]]


def test_no_answers_is_no_inconsistency() -> None:
    assert consistency([])["inconsistent"] == []
