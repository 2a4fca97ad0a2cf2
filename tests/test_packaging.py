"""Installing papertalk is quiet, and the extras its messages name exist."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ["papertalk", "ingest", "storage", "assistant", "prompts", "api", "cli"]


def test_editable_install_uses_a_plain_path_file_without_warnings(tmp_path: Path) -> None:
    """`pip install -e .` (scripts/setup.sh) builds this wheel; setuptools used to warn about a meta path finder."""
    project = tmp_path / "project"
    project.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, project / name)
    for package in PACKAGES:
        shutil.copytree(ROOT / package, project / package, ignore=shutil.ignore_patterns("__pycache__"))
    build = "from setuptools import build_meta; print(build_meta.build_editable('dist'))"
    result = subprocess.run(
        [sys.executable, "-c", build], cwd=project, capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stderr
    output = result.stdout + result.stderr
    assert "meta path finder" not in output and "Editable installation" not in output, output
    (wheel,) = (project / "dist").glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        (pth,) = [n for n in zf.namelist() if n.endswith(".pth")]
        assert zf.read(pth).decode().strip() == str(project)


def test_every_extra_named_in_a_message_exists() -> None:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"])
    named = {
        extra
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        for extra in re.findall(r"papertalk\[(\w+)\]", path.read_text())
    }
    readme = set(re.findall(r"papertalk\[(\w+)\]", (ROOT / "README.md").read_text()))
    assert named | readme <= extras
