"""The API key on write routes, body limits, and problem documents instead of tracebacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from api.deps import get_settings, get_store
from papertalk.settings import Settings
from tests.api.conftest import assert_problem, client_for, with_api

KEY = "s3cret-key"
WRITES = [
    ("post", "/api/chat", {"json": {"question": "What is S2ORC?"}}),
    ("post", "/api/chat/stream", {"json": {"question": "What is S2ORC?"}}),
    ("post", "/api/conversations", {"json": {}}),
    ("delete", "/api/conversations/abc", {}),
    ("post", "/api/uploads", {"files": {"file": ("a.pdf", b"%PDF-1.4", "application/pdf")}}),
]


@pytest.mark.parametrize(("method", "path", "kwargs"), WRITES)
def test_write_routes_need_the_key_when_one_is_set(tmp_path: Path, method: str, path: str, kwargs: dict) -> None:
    with client_for(tmp_path / "data", key=KEY) as client:
        body = assert_problem(getattr(client, method)(path, **kwargs), 401, "api key")
        assert KEY not in str(body)
        wrong = getattr(client, method)(path, headers={"Authorization": "Bearer nope"}, **kwargs)
        assert_problem(wrong, 401)
        for headers in ({"Authorization": f"Bearer {KEY}"}, {"X-API-Key": KEY}):
            assert getattr(client, method)(path, headers=headers, **kwargs).status_code != 401


def test_read_routes_need_no_key(tmp_path: Path) -> None:
    with client_for(tmp_path / "data", key=KEY) as client:
        assert client.get("/api/health").status_code == 200
        assert client.get("/api/papers").status_code == 200


def test_the_short_variable_name_sets_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERTALK_API_KEY", KEY)
    Settings()  # not refused as a misspelt setting
    with client_for(tmp_path / "data") as client:
        assert_problem(client.post("/api/conversations", json={}), 401)
        assert client.post("/api/conversations", json={}, headers={"X-API-Key": KEY}).status_code == 409


def test_settings_reach_routes_through_a_dependency(tmp_path: Path) -> None:
    with client_for(tmp_path / "data") as client:
        assert client.post("/api/conversations", json={}).status_code == 409  # no key: nothing indexed yet
        keyed = with_api(Settings(data_dir=tmp_path / "data"), key=KEY)
        client.app.dependency_overrides[get_settings] = lambda: keyed  # type: ignore[attr-defined]
        assert_problem(client.post("/api/conversations", json={}), 401)


def test_a_json_body_over_the_limit_is_413(tmp_path: Path) -> None:
    with client_for(tmp_path / "data", max_body_kb=1) as client:
        assert_problem(client.post("/api/chat", json={"question": "x" * 2000}), 413, "larger than")


def test_an_unexpected_error_is_a_generic_500_problem(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    def broken() -> None:
        raise RuntimeError("internal detail /secret/path")

    with client_for(tmp_path / "data") as client:
        client.app.dependency_overrides[get_store] = broken  # type: ignore[attr-defined]
        body = assert_problem(client.get("/api/health"), 500, "unexpectedly")
        assert "/secret/path" not in str(body)
    assert "internal detail" in caplog.text


def test_unknown_routes_and_methods_are_problems(tmp_path: Path) -> None:
    with client_for(tmp_path / "data") as client:
        assert_problem(client.get("/api/nothing-here"), 404)
        assert_problem(client.put("/api/chat", json={}), 405)


def test_an_error_mid_stream_is_an_error_event(tmp_path: Path) -> None:
    from api.sse import answer_events
    from assistant.base import AnswerChunk
    from papertalk.errors import StoreUnavailable
    from tests.api.test_chat import parse_sse

    def rest():  # type: ignore[no-untyped-def]
        yield AnswerChunk(text=" second")
        raise StoreUnavailable("the Chroma server went away: start it again")

    frames = parse_sse("".join(answer_events(AnswerChunk(text="first"), rest(), None)))
    assert [name for name, _ in frames] == ["delta", "delta", "error"]
    assert frames[-1][1]["status"] == 503 and "went away" in frames[-1][1]["detail"]
