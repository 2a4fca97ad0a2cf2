"""bench_first_run says where the install's uv came from as this machine has it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.bench_first_run import uv_source


def test_the_uv_on_path_is_named_when_there_is_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    assert "no uv is on this machine's PATH" in uv_source()
    uv = tmp_path / "uv"
    uv.write_text("#!/bin/sh\n")
    uv.chmod(0o755)
    assert uv_source() == "the uv on this machine's PATH"
