"""Terminal output for the CLI: logging through rich, and progress with items/s and ETA.

On a terminal, progress is a bar; when output is piped or logged, a plain line every few seconds. Both
take their rate and ETA from a moving window (the last 30 s), not the average since the start: an ingest
is bursty (lines that fail fast, then a long embedding batch), and the average would promise too much.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta

from rich.console import Console
from rich.logging import RichHandler
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.text import Text

console = Console(emoji=False)  # paper text is printed: ":name:" in a title stays as it is
err_console = Console(stderr=True, emoji=False)

WINDOW_S = 30.0
COALESCE_S = 0.1  # advances closer together than this share one sample


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="%(message)s",
        handlers=[RichHandler(console=err_console, show_path=False, show_time=False)],
        force=True,
    )
    for noisy in ("httpx", "chromadb", "pypdf", "bm25s", "llama_index"):
        logging.getLogger(noisy).setLevel(logging.WARNING if verbose else logging.ERROR)


class MovingRate:
    """Items done, and the rate over the last `window_s` seconds (up to now, so a stall shows as a falling rate)."""

    def __init__(
        self, total: int | None = None, window_s: float = WINDOW_S, clock: Callable[[], float] = time.monotonic
    ):
        self.total = total
        self.window_s = window_s
        self._clock = clock
        self.started = clock()
        self.completed = 0
        self._samples: deque[tuple[float, int]] = deque([(self.started, 0)])  # (time, completed by then)
        self._lock = threading.Lock()

    def advance(self, n: int = 1, now: float | None = None) -> None:
        now = self._clock() if now is None else now
        with self._lock:
            self.completed += n
            if len(self._samples) > 1 and now - self._samples[-1][0] < COALESCE_S:
                self._samples[-1] = (self._samples[-1][0], self.completed)
            else:
                self._samples.append((now, self.completed))
            while len(self._samples) > 2 and self._samples[1][0] <= now - self.window_s:
                self._samples.popleft()  # keep one sample at or before the window's start

    def rate(self, now: float | None = None) -> float | None:
        """Items per second over the window ending now; None before the first item or at time zero."""
        now = self._clock() if now is None else now
        with self._lock:
            if self.completed == 0:
                return None
            start = now - self.window_s
            t0, done0 = self._samples[0]
            for t, done in self._samples:
                if t > start:
                    break
                t0, done0 = t, done
            span = min(now - t0, self.window_s) if t0 <= start else now - t0
            return (self.completed - done0) / span if span > 0 else None

    def eta(self, now: float | None = None) -> float | None:
        """Seconds left at the window's rate; None without a total or a rate."""
        rate = self.rate(now)
        if self.total is None or not rate:
            return None
        return max(self.total - self.completed, 0) / rate

    def now(self) -> float:
        return self._clock()

    def elapsed(self, now: float | None = None) -> float:
        return (self._clock() if now is None else now) - self.started


def clock_text(seconds: float | None) -> str:
    """H:MM:SS, or -:--:-- when unknown."""
    return "-:--:--" if seconds is None else str(timedelta(seconds=round(seconds)))


def rate_text(rate: float | None) -> str:
    return f"{rate:,.1f} items/s" if rate is not None else "– items/s"


def status_line(description: str, meter: MovingRate) -> str:
    """One plain progress line: count/total, percent, rate and ETA from the moving window."""
    now = meter.now()
    rate, eta = meter.rate(now), meter.eta(now)
    if meter.total:
        count = f"{meter.completed}/{meter.total} ({100 * meter.completed // meter.total}%)"
        return f"{description}: {count} · {rate_text(rate)} · ETA {clock_text(eta)}"
    return f"{description}: {meter.completed} done · {rate_text(rate)}"


def final_line(description: str, meter: MovingRate) -> str:
    elapsed = meter.elapsed()
    average = meter.completed / elapsed if elapsed > 0 else 0.0
    count = f"{meter.completed}/{meter.total}" if meter.total else str(meter.completed)
    return f"{description}: {count} done in {clock_text(elapsed)} ({average:,.1f} items/s on average)"


class RateColumn(ProgressColumn):
    """Items per second over the moving window."""

    def render(self, task: Task) -> Text:
        meter = task.fields.get("meter")
        rate = meter.rate() if isinstance(meter, MovingRate) else None
        return Text(rate_text(rate), style="progress.data.speed")


class EtaColumn(ProgressColumn):
    """Time left at the moving window's rate."""

    def render(self, task: Task) -> Text:
        meter = task.fields.get("meter")
        eta = 0.0 if task.finished else meter.eta() if isinstance(meter, MovingRate) else None
        return Text(clock_text(eta), style="progress.remaining")


@contextmanager
def progress_bar(description: str, total: int | None, every_s: float = 5.0) -> Iterator[Callable[[int], None]]:
    """Progress for long work; yields `advance(n)`. A bar on a terminal, else a plain line every `every_s`."""
    meter = MovingRate(total)
    if not err_console.is_terminal:
        with _plain_lines(description, meter, every_s):
            yield meter.advance
        return
    columns = [
        SpinnerColumn(),
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        RateColumn(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        EtaColumn(),
    ]
    with Progress(*columns, console=err_console, transient=False) as bar:
        task = bar.add_task(description, total=total, meter=meter)

        def advance(n: int = 1) -> None:
            meter.advance(n)
            bar.advance(task, n)

        yield advance


@contextmanager
def _plain_lines(description: str, meter: MovingRate, every_s: float) -> Iterator[None]:
    """A line every `every_s` seconds from a background thread (so a long batch still shows), then a last one."""
    stop = threading.Event()

    def report() -> None:
        while not stop.wait(every_s):
            _plain(status_line(description, meter))

    thread = threading.Thread(target=report, name="progress-lines", daemon=True)
    thread.start()
    try:
        yield
    finally:  # on an error too: no line may come after the error message
        stop.set()
        thread.join()
    _plain(final_line(description, meter))  # only when the work finished


def _plain(line: str) -> None:
    err_console.print(line, markup=False, highlight=False, soft_wrap=True)
