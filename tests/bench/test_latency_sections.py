"""A reduced latency run records its own section and never replaces the full run's rows."""

from __future__ import annotations

from bench.bench_latency import section_name
from bench.latency_stores import GIST, SIZES


def test_only_the_full_default_run_writes_the_latency_section() -> None:
    assert section_name(list(SIZES), GIST) == "latency"
    assert section_name(["112k"], 16) == "latency-gist16-112k"
    assert section_name(["112k"], GIST) == f"latency-gist{GIST}-112k"
    assert section_name(list(SIZES), 16) != "latency"
