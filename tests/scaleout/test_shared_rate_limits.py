"""Rate limits over `papertalk serve --workers 2` on PostgreSQL: the workers spend one allowance per client,
so a client gets the configured number of chat requests a minute, not that number per worker."""

from __future__ import annotations

import time
from collections import Counter

import httpx
import pytest

from tests.helpers.stack import serve_workers

pytestmark = [pytest.mark.scaleout, pytest.mark.slow]
PER_MINUTE = 3  # one request every 20 s after a burst of 3
WORKER = "X-Papertalk-Worker"


def test_two_workers_enforce_one_combined_chat_limit(stack: dict[str, str], tmp_path) -> None:
    env = {**stack, "PAPERTALK_DATA_DIR": str(tmp_path / "data"), "PAPERTALK_API__CHAT_PER_MINUTE": str(PER_MINUTE)}
    with serve_workers(env, workers=2) as url:
        served: Counter[str] = Counter()
        codes: Counter[int] = Counter()
        started = time.monotonic()
        for _ in range(200):  # new connections, until each worker has answered more than the limit
            with httpx.Client(base_url=url, timeout=60) as client:
                response = client.post("/api/chat", json={"question": "What is S2ORC?"})
            served[response.headers[WORKER]] += 1
            codes[response.status_code] += 1
            if len(served) == 2 and min(served.values()) > PER_MINUTE:
                break
        elapsed = time.monotonic() - started
    assert len(served) == 2 and min(served.values()) > PER_MINUTE, served  # each alone would allow 3
    allowed = sum(n for code, n in codes.items() if code != 429)
    refilled = int(elapsed * PER_MINUTE / 60)  # requests the allowance regained while the test ran
    assert PER_MINUTE <= allowed <= PER_MINUTE + refilled, (codes, served, elapsed)
    assert allowed < 2 * PER_MINUTE, (codes, elapsed)  # per-worker limits would have let 6 through
