"""bench/answer_sets.py: comparing two runs of the answerer question by question."""

from __future__ import annotations

import json
from dataclasses import asdict, replace
from pathlib import Path

from bench.answer_sets import Result, diff, load_results, misses, totals


def _result(qid: str, lead: bool, said: str, name: str = "bundled") -> Result:
    return Result(qid, name, f"Question {qid}?", lead, lead, lead, False, 0.5, said, f"gold of {qid}")


def test_diff_lists_only_the_answers_that_changed_and_how() -> None:
    before = [_result("a", False, "old lead"), _result("b", True, "kept"), _result("c", True, "same", "more")]
    after = [_result("a", True, "new lead"), _result("b", True, "kept"), replace(before[2], lead=False)]
    out = diff(before, after, ["lead"])
    assert "[bundled a] lead +" in out and "was: old lead" in out and "now: new lead" in out
    assert "[more c] lead -" in out
    assert "[bundled b]" not in out
    assert diff(before, before, ["lead"]) == "no answer changed on these measures"


def test_totals_count_each_measure_per_set_and_results_round_trip(tmp_path: Path) -> None:
    results = [_result("a", True, "x"), _result("b", False, "y"), _result("c", True, "z", "more")]
    lines = totals(results).splitlines()
    assert lines[1].split()[:3] == ["bundled", "2", "1"]  # two questions, one lead
    assert lines[2].split()[:3] == ["more", "1", "1"]
    path = tmp_path / "run.json"
    path.write_text(json.dumps([asdict(r) for r in results]), encoding="utf-8")
    assert load_results(path) == results
    assert "[bundled b]" in misses(results, "bundled", "lead") and "[bundled a]" not in misses(results, None, "lead")
