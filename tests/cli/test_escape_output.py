"""Text from papers is printed as it is: never read as rich markup (tags, links, styles, :emoji: codes).

A catalog holding hostile titles, authors, abstracts, categories, file names and topic names is printed
through every command that shows them, each run through the CLI's entry point (in this process).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers.cli import invoke_cli
from tests.helpers.pdfs import text_pdf

TITLE = "[/bold] Reward shaping for web agents [bold red]loud[/bold red] :thumbs_up:"
AUTHORS = ["[link=file:///etc/passwd]Mallory Markup[/link]", "Eve [/] Brackets"]
CATEGORY = "[/bold]"
ABSTRACT = (
    "Web agents learn from sparse rewards [bold]only at the end[/bold] of an episode. We shape the reward "
    "per turn with a learned critic [/], and agents complete more tasks. \\[escaped] stays too."
)
PDF_TITLE = "[/italic] Turn rewards [red]for[/red] language agents"
TOPIC = "[/bold] agents [blink]topic[/blink]"
WIDE = "400"  # COLUMNS: no wrapping, so that each text can be found on one line


@pytest.fixture(scope="module")
def catalog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory (with brackets in its own name) holding the hostile records and a hostile PDF."""
    root = tmp_path_factory.mktemp("escape")
    data = root / "data [red]dir[/red]"
    records = root / "records.jsonl"
    record = {
        "id": "2501.00042",
        "title": TITLE,
        "authors": ", ".join(AUTHORS),
        "abstract": ABSTRACT,
        "categories": f"cs.CL {CATEGORY}",
        "update_date": "2025-01-15",
    }
    records.write_text(json.dumps(record) + "\n")
    first = invoke_cli("--data-dir", data, "ingest-arxiv", records, "--topic", TOPIC)
    assert first.returncode == 0, first.stderr
    lines = [["Turn rewards for language agents: each turn of a web episode gets its own reward."] * 4] * 2
    text_pdf(root / "paper.pdf", lines, title=PDF_TITLE)
    second = invoke_cli("--data-dir", data, "ingest", root / "paper.pdf")
    assert second.returncode == 0, second.stderr
    return data


def _ok(result_args: list[str | Path], data: Path) -> str:
    result = invoke_cli("--data-dir", data, *result_args, COLUMNS=WIDE)
    assert "Traceback" not in result.stderr and "MarkupError" not in result.stderr, result.stderr
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_papers_list_prints_titles_verbatim(catalog: Path) -> None:
    out = _ok(["papers", "list"], catalog)
    assert TITLE in out and PDF_TITLE in out, out


def test_papers_show_prints_every_field_verbatim(catalog: Path) -> None:
    out = _ok(["papers", "show", "2501.00042"], catalog)
    for text in (TITLE, ", ".join(AUTHORS), ABSTRACT, f"cs.CL {CATEGORY}"):
        assert text in out, f"{text!r} not in:\n{out}"


def test_ask_sources_and_quotes_are_verbatim(catalog: Path) -> None:
    out = _ok(["ask", "How are web agents rewarded per turn?", "--paper", "2501.00042"], catalog)
    assert f"{TITLE} (2025)" in out, out
    assert "[bold]only at the end[/bold]" in out or "critic [/]" in out, out  # a quoted sentence of the abstract


def test_topics_prints_names_verbatim(catalog: Path) -> None:
    assert TOPIC in _ok(["topics", "list"], catalog)


def test_stats_prints_the_data_dir_verbatim(catalog: Path) -> None:
    assert str(catalog) in _ok(["stats"], catalog)


def test_ingest_report_lines_print_file_names_verbatim(catalog: Path, tmp_path: Path) -> None:
    bad = tmp_path / "in[" / "bold]bad [red]name[" / "red] :smile: [link=file:" / "etc]x.pdf"
    bad.parent.mkdir(parents=True)
    bad.write_text("<html>not a pdf</html>")
    assert str(bad).endswith("in[/bold]bad [red]name[/red] :smile: [link=file:/etc]x.pdf")
    result = invoke_cli("--data-dir", catalog, "ingest", bad, COLUMNS=WIDE)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"failed {bad}: not a PDF" in result.stderr, result.stderr
