"""Per-client rate limits on chat and uploads: 429 problems with `Retry-After`, other routes and clients free."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from api.app import create_app
from api.limits import limited_route
from papertalk.settings import Settings
from storage.catalog import Catalog
from storage.rate_limits import SharedRates
from tests.api.conftest import assert_problem, client_for, with_api
from tests.helpers.pdfs import text_pdf


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_allowance_gives_a_burst_then_refills_at_its_rate(tmp_path: Path) -> None:
    clock = Clock()
    rates = SharedRates(Catalog(tmp_path / "catalog.sqlite3"), clock)
    assert [rates.take("chat", "a", 6) for _ in range(6)] == [0.0] * 6  # 6 a minute: one every 10 s
    assert rates.take("chat", "a", 6) == 10.0
    assert rates.take("chat", "b", 6) == 0.0  # clients have their own allowances
    assert rates.take("uploads", "a", 6) == 0.0  # and so do routes
    clock.now += 5
    assert rates.take("chat", "a", 6) == 5.0
    clock.now += 5
    assert rates.take("chat", "a", 6) == 0.0 and rates.take("chat", "a", 6) > 0


def test_two_catalog_handles_share_one_allowance(tmp_path: Path) -> None:
    """Two workers (two handles on one catalog file) spend the same allowance."""
    one, two = (SharedRates(Catalog(tmp_path / "catalog.sqlite3")) for _ in range(2))
    granted = [rates.take("chat", "a", 4) == 0.0 for rates in (one, two) * 4]
    assert granted == [True] * 4 + [False] * 4


def test_rows_of_whole_allowances_are_pruned_without_moving_the_changes_version(tmp_path: Path) -> None:
    assert_stale_rows_pruned(Catalog(tmp_path / "catalog.sqlite3"))


def assert_stale_rows_pruned(catalog: Catalog) -> None:
    """A process's first take clears what earlier processes left; the sweep is no catalog change (also run on
    PostgreSQL: tests/scaleout/test_pg_rate_limit_rows.py)."""
    clock = Clock()
    before = catalog.changes_version
    first = SharedRates(catalog, clock)
    for client in ("a", "b", "c"):
        first.take("chat", client, 6)
    first.take("chat", "a", 6)  # "a" has spent 2 of 6: its allowance is whole 20 s from now
    clock.now += 15
    SharedRates(catalog, clock).take("uploads", "d", 6)  # another process, started later
    rows = catalog.query("SELECT route, client FROM rate_limits ORDER BY client")
    assert [(r["route"], r["client"]) for r in rows] == [("chat", "a"), ("uploads", "d")]
    assert catalog.changes_version == before


def test_only_chat_and_upload_posts_are_limited() -> None:
    assert limited_route("POST", "/api/chat") == "chat"
    assert limited_route("POST", "/api/chat/stream") == "chat"
    assert limited_route("POST", "/api/uploads/") == "uploads"
    assert limited_route("GET", "/api/uploads/abc") is None
    assert limited_route("POST", "/api/conversations") is None
    assert limited_route("POST", "/api/chatter") is None


def test_chat_past_the_limit_is_429_with_retry_after(tmp_path: Path) -> None:
    with client_for(tmp_path / "data", chat_per_minute=3) as client:
        codes = [client.post("/api/chat", json={"question": "What is S2ORC?"}).status_code for _ in range(3)]
        assert 429 not in codes  # 409: nothing indexed yet, but each one passed the limit
        refused = client.post("/api/chat/stream", json={"question": "What is S2ORC?"})
        body = assert_problem(refused, 429, "too many chat requests")
        assert "PAPERTALK_API__CHAT_PER_MINUTE" in str(body["detail"])
        assert 1 <= int(refused.headers["Retry-After"]) <= 20
        assert client.get("/api/health").status_code == 200  # reads are not limited
        assert client.post("/api/conversations", json={}).status_code != 429


def test_another_client_keeps_its_own_allowance(tmp_path: Path) -> None:
    settings = with_api(Settings(data_dir=tmp_path / "data"), chat_per_minute=1)
    app = create_app(settings)
    with TestClient(app, client=("10.0.0.1", 1)) as one, TestClient(app, client=("10.0.0.2", 1)) as two:
        assert one.post("/api/chat", json={"question": "q?"}).status_code != 429
        assert_problem(one.post("/api/chat", json={"question": "q?"}), 429)
        assert two.post("/api/chat", json={"question": "q?"}).status_code != 429


def test_uploads_past_the_limit_are_429_before_the_file_is_read(tmp_path: Path) -> None:
    pdf = text_pdf(tmp_path / "a.pdf", [["One line of text about lanterns and larvae."]]).read_bytes()
    with client_for(tmp_path / "data", uploads_per_minute=2) as client:
        files = {"file": ("a.pdf", pdf, "application/pdf")}
        assert [client.post("/api/uploads", files=files).status_code for _ in range(2)] == [202, 202]
        body = assert_problem(client.post("/api/uploads", files=files), 429, "too many uploads")
        assert "PAPERTALK_API__UPLOADS_PER_MINUTE" in str(body["detail"])


def test_zero_means_no_limit(tmp_path: Path) -> None:
    with client_for(tmp_path / "data", chat_per_minute=0) as client:
        codes = {client.post("/api/chat", json={"question": "q?"}).status_code for _ in range(80)}
        assert 429 not in codes
