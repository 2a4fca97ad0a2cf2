"""`papertalk topics …`, `whatsnew` and `papers save|saved` through the CLI's entry point (in this process)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.helpers.cli import catalog_rows, invoke_cli
from tests.helpers.topics import demo_records_by_id

RAG = ["2604.09666", "2501.15228"]
GUI = ["2504.10458"]
LATER = ["2604.09508", "2603.17441"]  # one RAG paper, one GUI paper


def _write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def _ok(*args: str) -> str:
    result = invoke_cli(*args)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout


def _fails(*args: str, message: str) -> None:
    result = invoke_cli(*args)
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("error:") and message in result.stderr.replace("\n", " "), result.stderr


def test_ingest_assigns_topics_then_show_add_assign(tmp_path: Path, _isolated_data_dir: Path) -> None:
    records = demo_records_by_id(set(RAG + GUI))
    rag = next(r for r in records if r["id"] == RAG[0])
    sneaky = {**rag, "id": "2601.99999", "title": "[bold]Sneaky[/bold] retrieval-augmented generation [red]"}
    ingest = invoke_cli("ingest-arxiv", _write(tmp_path / "a.jsonl", [*records, sneaky]))
    assert ingest.returncode == 0 and "topics: 4 papers scored" in ingest.stderr, ingest.stderr

    listed = json.loads(_ok("topics", "list", "--json"))
    counts = {t["slug"]: t["papers"] for t in listed}
    assert counts["retrieval-augmented-generation"] == 3 and counts["web-and-gui-agents"] == 1

    page = _ok("topics", "show", "Retrieval-Augmented Generation")
    assert "RAG: Retrieval-Augmented Generation · LLM: Large Language Model" in page
    assert "papertalk overview" in page  # no stored overview: the hint
    assert "in the last four weeks" in page and "█" in page and "Week of" in page
    assert "Latest papers 3" in page and "[bold]Sneaky[/bold] retrieval-augmented generation [red]" in page
    assert "Related topics" in page and "papertalk topics follow retrieval-augmented-generation" in page
    data = json.loads(_ok("topics", "show", "retrieval-augmented-generation", "--json", "--limit", "1"))
    assert data["latest"]["total"] == 3 and len(data["latest"]["items"]) == 1

    added = _ok(
        "topics",
        "add",
        "GUI Grounding",
        "--description",
        "Locating screen elements for GUI agents.",
        "--keywords",
        "GUI grounding, screenshot",
        "--abbreviation",
        "GUI=Graphical User Interface",
        "--example-paper",
        f"arxiv:{GUI[0]}",
    )
    assert "Topic GUI Grounding (gui-grounding) saved." in added
    rows = catalog_rows(
        _isolated_data_dir, "SELECT origin, keywords, examples FROM topic_defs WHERE slug = 'gui-grounding'"
    )
    assert rows == [("user", '["GUI grounding", "screenshot"]', f'["{GUI[0]}"]')]
    assert "GUI: Graphical User Interface" in _ok("topics", "show", "gui-grounding")
    members = json.loads(_ok("topics", "show", "gui-grounding", "--json"))["latest"]
    assert f"{members['total']} paper" in added and [p["paper_id"] for p in members["items"]] == GUI
    assigned = _ok("topics", "assign")
    assert assigned.startswith("4 papers scored against 20 topics")


def test_follow_whatsnew_and_reading_list(tmp_path: Path) -> None:
    invoke_cli("ingest-arxiv", _write(tmp_path / "a.jsonl", demo_records_by_id(set(RAG + GUI))))
    assert "You follow no topics yet" in _ok("whatsnew")
    assert "Now following Retrieval-Augmented Generation" in _ok("topics", "follow", "retrieval-augmented-generation")
    assert "0 new papers since" in _ok("whatsnew")
    invoke_cli("ingest-arxiv", _write(tmp_path / "b.jsonl", demo_records_by_id(set(LATER))))
    news = json.loads(_ok("whatsnew", "--json", "--keep"))
    assert [[p["paper_id"] for p in n["papers"]] for n in news] == [["2604.09508"]]
    assert "1 new paper since" in _ok("whatsnew")
    assert "0 new papers since" in _ok("whatsnew")

    assert "Saved:" in _ok("papers", "save", f"arxiv:{RAG[0]}")
    assert "Already saved" in _ok("papers", "save", RAG[0])
    saved = json.loads(_ok("papers", "saved", "--json"))
    assert [p["paper_id"] for p in saved] == [RAG[0]] and saved[0]["tags"]
    assert "Removed" in _ok("papers", "unsave", RAG[0])
    assert "reading list is empty" in _ok("papers", "saved")


def test_errors_are_one_line_without_traceback(tmp_path: Path) -> None:
    _fails("topics", "show", "no such topic", message="no topic 'no such topic'")
    _fails("topics", "add", "Nothing", message="needs a --description or at least one --example-paper")
    _fails("topics", "add", "X", "--example-paper", "2501.00001", message="'2501.00001' is not in the catalog")
    _fails("topics", "follow", "nope", message="no topic 'nope'")
    _fails("papers", "save", "9999.99999", message="no paper '9999.99999'")
    bad = invoke_cli("topics", "add", "X", "--description", "d", "--abbreviation", "RL")
    assert bad.returncode == 2 and "SHORT=Long" in bad.stderr and "Traceback" not in bad.stderr
    bad_date = invoke_cli("topics", "show", "rl-for-llm-agents", "--as-of", "yesterday")
    assert bad_date.returncode == 2 and "use YYYY-MM-DD" in bad_date.stderr
