"""Progress: rate and ETA from a moving window, and plain lines when output is not a terminal."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cli.console import MovingRate, final_line, status_line
from tests.helpers.cli import run_cli


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def test_a_fast_burst_does_not_inflate_the_rate_once_it_leaves_the_window(clock: FakeClock) -> None:
    """135/200: 100 lines failed in the first 0.1 s, then 1 item/s. The average since the start says
    3.9 items/s and 17 s left; the last 30 s say 1 item/s and 65 s left, which is what happens."""
    meter = MovingRate(total=200, clock=clock)
    for _ in range(100):
        clock.t += 0.001
        meter.advance(1)
    for _ in range(35):
        clock.t += 1.0
        meter.advance(1)
    elapsed = meter.elapsed()
    assert meter.completed / elapsed == pytest.approx(3.85, abs=0.01)  # the cumulative average
    assert meter.rate() == pytest.approx(1.0, rel=0.05)
    assert meter.eta() == pytest.approx(65.0, rel=0.05)


def test_before_the_window_fills_the_rate_is_since_the_start(clock: FakeClock) -> None:
    meter = MovingRate(total=100, clock=clock)
    assert meter.rate() is None and meter.eta() is None  # nothing done yet
    clock.t += 4.0
    meter.advance(10)
    clock.t += 1.0
    assert meter.rate() == pytest.approx(10 / 5)
    assert meter.eta() == pytest.approx(90 / 2)


def test_a_stall_shows_as_a_falling_rate_and_no_eta(clock: FakeClock) -> None:
    """A long embedding batch: no item for a while. The rate counts up to now, not to the last item."""
    meter = MovingRate(total=100, clock=clock)
    for _ in range(60):
        clock.t += 0.5
        meter.advance(1)  # 2 items/s for 30 s
    assert meter.rate() == pytest.approx(2.0)
    clock.t += 15.0
    assert meter.rate() == pytest.approx(30 / 30)  # half the window had no progress
    clock.t += 20.0
    assert meter.rate() == 0.0 and meter.eta() is None


def test_the_window_slides_and_its_samples_stay_few(clock: FakeClock) -> None:
    meter = MovingRate(total=None, window_s=30.0, clock=clock)
    for _ in range(20_000):
        clock.t += 0.005
        meter.advance(1)  # 200 items/s for 100 s
    for _ in range(100):
        clock.t += 0.2
        meter.advance(1)  # then 5 items/s for 20 s
    # window: the last 30 s = 10 s at 200/s and 20 s at 5/s
    assert meter.rate() == pytest.approx((2000 + 100) / 30, rel=0.02)
    assert meter.eta() is None  # no total
    assert len(meter._samples) <= 30 / 0.1 + 3  # advances within 0.1 s share a sample


def test_plain_lines_say_count_percent_rate_and_eta(clock: FakeClock) -> None:
    meter = MovingRate(total=200, clock=clock)
    clock.t += 10.0
    meter.advance(50)
    assert status_line("records.jsonl", meter) == "records.jsonl: 50/200 (25%) · 5.0 items/s · ETA 0:00:30"
    unknown = MovingRate(total=None, clock=clock)
    assert status_line("arXiv", unknown) == "arXiv: 0 done · – items/s"
    clock.t += 30.0
    meter.advance(150)
    assert final_line("records.jsonl", meter) == "records.jsonl: 200/200 done in 0:00:40 (5.0 items/s on average)"


LINE = re.compile(r"^records\.jsonl: (\d+)/30 \((\d+)%\) · (– items/s|[\d.,]+ items/s) · ETA (-:--:--|\d+:\d\d:\d\d)$")
FINAL = re.compile(r"^records\.jsonl: 30/30 done in \d+:\d\d:\d\d \([\d.,]+ items/s on average\)$")


def test_piped_ingest_prints_plain_progress_lines(metadata_file: Path) -> None:
    result = run_cli("ingest-arxiv", metadata_file, PAPERTALK_PROGRESS_EVERY_S="0.2")  # stderr is a pipe
    assert result.returncode == 0, result.stderr
    assert "\x1b" not in result.stderr and "\r" not in result.stderr  # no bar, no colours: a log file reads it
    lines = [line for line in result.stderr.splitlines() if line.startswith("records.jsonl:")]
    *progress, last = lines
    assert FINAL.match(last), result.stderr
    assert progress, result.stderr  # the run takes seconds (model, store), far longer than 0.2 s
    matches = [LINE.match(line) for line in progress]
    assert all(matches), progress
    counts = [int(m.group(1)) for m in matches if m]
    assert counts == sorted(counts) and counts[-1] <= 30
    for m in filter(None, matches):
        assert int(m.group(2)) == 100 * int(m.group(1)) // 30
        rate = m.group(3).split()[0]
        assert (rate == "–") == (m.group(1) == "0")  # a rate as soon as an item is done
        if rate not in ("–", "0.0"):
            assert m.group(4) != "-:--:--", m.group(0)  # a rate gives an ETA
