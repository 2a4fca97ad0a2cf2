"""`scripts/setup.sh` on a fresh copy of the project: it makes a venv in which papertalk chunks text (llama-index's
sentence splitter loads nltk data, which nltk refuses to open when the file is hard-linked, as uv links files
from its cache by default), installed by uv or, when uv fails, by pip."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHUNK = (
    "from ingest.chunking import Chunker; from papertalk.settings import ChunkSettings; "
    "from storage.records import Paper; "
    "paper = Paper(paper_id='x', title='T', abstract='A sentence. ' * 300); "
    "print(len(Chunker(ChunkSettings()).chunk(paper, 'h' * 12)))"
)
pytestmark = [pytest.mark.slow, pytest.mark.network]  # installs every dependency (from uv's cache when warm)


def fresh_copy(tmp_path: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    project = tmp_path / "project"
    for name in filter(None, files.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (project / name).parent.mkdir(parents=True, exist_ok=True)
            (project / name).write_bytes(source.read_bytes())
    (project / "scripts" / "setup.sh").chmod(0o755)
    return project


def test_setup_makes_a_venv_whose_files_are_not_hard_linked_and_papertalk_chunks(tmp_path: Path) -> None:
    project = fresh_copy(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    setup = subprocess.run(
        ["bash", "scripts/setup.sh"], cwd=project, env=env, capture_output=True, text=True, timeout=900
    )
    assert setup.returncode == 0, setup.stderr
    assert "installing with pip instead" not in setup.stderr  # uv did it
    static = next((project / ".venv").glob("lib/python*/site-packages/llama_index/core/_static"))
    linked = [p for p in static.rglob("*") if p.is_file() and p.stat().st_nlink > 1]
    assert not linked, linked[:3]
    chunked = subprocess.run(
        [str(project / ".venv" / "bin" / "python"), "-c", CHUNK], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert chunked.returncode == 0, chunked.stderr
    assert int(chunked.stdout) > 1
