"""The machine line of a recorded bench run: the load average at its start and at its end, each named so."""

from __future__ import annotations

import re

from bench import common


def test_the_load_at_start_is_the_one_taken_before_the_run() -> None:
    line = common.machine_line(start_load=123.25)
    assert "load average 123.25 at start, " in line
    end = re.search(r"([\d.]+) at the end$", line)
    assert end is not None and float(end.group(1)) != 123.25


def test_the_start_figure_defaults_to_the_load_when_bench_common_was_imported() -> None:
    assert f"load average {common.START_LOAD:.2f} at start, " in common.machine_line()
