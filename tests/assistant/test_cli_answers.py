"""`papertalk ask` and `papertalk chat` as a user runs them (subprocesses over a real corpus)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from storage.store import Store
from tests.assistant.conftest import TOPIC
from tests.conftest import LONGEVAL_PDF

PAPERTALK = [sys.executable, "-m", "papertalk"]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*PAPERTALK, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_ask_prints_cited_answer_and_sources(corpus: Store) -> None:
    out = run("ask", "How many papers does S2ORC contain?")
    assert out.returncode == 0, out.stderr
    assert "[" in out.stdout and "Sources" in out.stdout and "S2ORC" in out.stdout
    assert "p. " in out.stdout  # page of the cited passage


def test_ask_json_has_citations_with_spans(corpus: Store) -> None:
    out = run("ask", "reinforcement learning for language model agents", "--topic", TOPIC, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["sources"] and data["backend"] == "extractive"
    for sentence in data["sentences"]:
        for c in sentence["citations"]:
            src = data["sources"][c["number"] - 1]
            assert src["text"][c["span_start"] : c["span_end"]] == c["quote"]


def test_ask_about_a_pdf_not_yet_indexed_ingests_it_once(corpus: Store, tmp_path: Path) -> None:
    pdf = tmp_path / "copy-of-longeval.pdf"
    shutil.copy(LONGEVAL_PDF, pdf)
    before = corpus.catalog.count_papers()
    out = run("ask", "What is LongEval?", "--pdf", str(pdf), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert {s["paper_id"] for s in data["sources"]} == {data["sources"][0]["paper_id"]}
    assert corpus.catalog.count_papers() == before  # same content as the indexed PDF: deduplicated


def test_bad_scope_is_one_clear_line(corpus: Store, tmp_path: Path) -> None:
    out = run("ask", "x", "--paper", "0000.00000")
    assert out.returncode == 2 and "papertalk papers list" in out.stderr and "Traceback" not in out.stderr
    broken = tmp_path / "broken.pdf"
    broken.write_text("not a pdf")
    out = run("ask", "x", "--pdf", str(broken))
    assert out.returncode == 2 and "broken.pdf" in out.stderr and "not a PDF" in out.stderr


def test_chat_keeps_context_between_questions(corpus: Store) -> None:
    out = run("chat", stdin="What is the S2ORC corpus?\nHow many papers does it contain?\n/quit\n")
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("Sources") == 2
    chats = corpus.chats.recent()
    turns = corpus.chats.turns(chats[0].chat_id)
    assert len(turns) == 2 and "S2ORC" in turns[1].standalone
