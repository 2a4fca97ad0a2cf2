"""The in-process runner the CLI tests use gives what the installed command gives: exit code, stdout, stderr."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.cli import invoke_cli, run_cli


def test_in_process_runs_match_real_processes_byte_for_byte(tmp_path: Path) -> None:
    records = tmp_path / "records.jsonl"
    records.write_text("")
    cases = [
        ("serve", "--help"),  # help names the program `papertalk`, laid out at the same width
        ("papers", "show", "2501.99999"),  # a domain error: one line, exit 2
        ("ingest-arxiv", str(records), "--since", "2025-13-01"),  # a usage error: click's panel, exit 2
    ]
    codes = []
    for args in cases:
        real, here = run_cli(*args), invoke_cli(*args)
        assert (here.returncode, here.stdout, here.stderr) == (real.returncode, real.stdout, real.stderr), args
        codes.append(real.returncode)
    assert codes == [0, 2, 2]
