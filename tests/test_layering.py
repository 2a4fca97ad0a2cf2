"""The folders are the architecture: each layer imports only the layers below it.

cli/   api/          the two front doors (the CLI may start the HTTP app by its import string only)
assistant/           answers, chat, topics, overviews: the service layer both doors call
ingest/              parsing, chunking, topic assignment
storage/             catalog, vectors, keyword index
papertalk/ prompts/  the ground: settings, errors, bundled data, prompt templates
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GROUND = {"papertalk", "prompts"}
ALLOWED: dict[str, set[str]] = {
    "papertalk": {"papertalk"},
    "prompts": {"prompts", "papertalk"},
    "storage": {"storage", *GROUND},
    "ingest": {"ingest", "storage", *GROUND},
    "assistant": {"assistant", "ingest", "storage", *GROUND},
    "api": {"api", "assistant", "ingest", "storage", *GROUND},
    "cli": {"cli", "assistant", "ingest", "storage", *GROUND},
}
PROJECT = set(ALLOWED)


def imported_packages(path: Path) -> set[str]:
    """The project packages a module imports, at top level or inside functions."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found & PROJECT


@pytest.mark.parametrize("package", sorted(ALLOWED))
def test_a_package_imports_only_the_layers_below_it(package: str) -> None:
    wrong = {
        f"{path.relative_to(ROOT)} imports {sorted(imported_packages(path) - ALLOWED[package])}"
        for path in (ROOT / package).rglob("*.py")
        if imported_packages(path) - ALLOWED[package]
    }
    assert not wrong, "\n".join(sorted(wrong))


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text("def f():\n    from assistant.service import Assistant\n    import cli.main\n")
    assert imported_packages(module) == {"assistant", "cli"}
