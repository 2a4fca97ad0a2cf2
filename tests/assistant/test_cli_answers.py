"""`papertalk ask` and `papertalk chat` as a user runs them over a real corpus: through the CLI's entry point
in this process, and as real processes where a terminal or the one-line errors of a process are the point."""

import json
import os
import shutil
import subprocess
from pathlib import Path

from ingest.pdf import read_pdf
from storage.store import Store
from tests.assistant.conftest import TOPIC
from tests.conftest import LONGEVAL_PDF
from tests.helpers.cli import invoke_cli, run_cli


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return invoke_cli(*args, stdin=stdin, COLUMNS="200")


def test_ask_prints_cited_answer_and_sources(corpus: Store) -> None:
    out = run("ask", "How many papers does S2ORC contain?")
    assert out.returncode == 0, out.stderr
    assert "[" in out.stdout and "Sources" in out.stdout and "S2ORC" in out.stdout
    assert "p. " in out.stdout  # page of the cited passage


def test_ask_in_a_topic_about_a_paper_outside_it_prints_the_command_that_asks_that_paper(corpus: Store) -> None:
    question = "How many papers does S2ORC contain?"
    out = run("ask", question, "--topic", TOPIC)
    assert out.returncode == 0, out.stderr
    assert f"No paper in topic '{TOPIC}' mentions S2ORC" in out.stdout
    s2orc = next(p for p in corpus.catalog.list_papers() if p.title.startswith("S2ORC"))
    command = f"papertalk ask --paper {s2orc.paper_id} '{question}'"
    assert command in out.stdout
    asked = run("ask", question, "--paper", s2orc.paper_id)  # that command answers from the paper
    assert asked.returncode == 0 and "does not mention" not in asked.stdout and "[1]" in asked.stdout


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
    chat_id, standalone = latest_turn(corpus, "How many papers does it contain?")
    turns = corpus.chats.turns(chat_id)
    assert len(turns) == 2 and standalone == "How many papers does the S2ORC corpus contain?"


def no_traceback_one_line(out: subprocess.CompletedProcess[str]) -> str:
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, out.stderr
    return lines[0]


def latest_turn(store: Store, question: str) -> tuple[str, str]:
    """(chat id, standalone question) of the latest turn that asked `question`."""
    rows = store.catalog.query(
        "SELECT chat_id, standalone FROM chat_turns WHERE question = ? ORDER BY turn_id DESC LIMIT 1", (question,)
    )
    assert rows, question
    return rows[0]["chat_id"], rows[0]["standalone"]


def test_an_empty_question_is_one_line_and_exit_2(corpus: Store) -> None:
    for question in ["", "   "]:
        line = no_traceback_one_line(invoke_cli("ask", question))
        assert "the question is empty" in line
    papers = corpus.catalog.count_papers()
    line = no_traceback_one_line(invoke_cli("ask", " ", "--pdf", str(LONGEVAL_PDF)))
    assert "the question is empty" in line and corpus.catalog.count_papers() == papers


def test_chat_with_an_unknown_topic_is_refused_like_ask(corpus: Store) -> None:
    asked = no_traceback_one_line(invoke_cli("ask", "What is S2ORC?", "--topic", "Unknown"))
    chatted = run("chat", "--topic", "Unknown", stdin="What is S2ORC?\n/quit\n")
    assert no_traceback_one_line(chatted) == asked and "no topic 'Unknown'" in asked
    assert "Asking about" not in chatted.stdout and "you>" not in chatted.stdout


def test_an_empty_store_says_what_to_run() -> None:  # real processes: one line, no traceback
    for args in [("ask", "What is S2ORC?"), ("ask", "What is S2ORC?", "--json"), ("chat",)]:
        line = no_traceback_one_line(run_cli(*args))
        assert "nothing is indexed yet" in line and "papertalk demo --load-only" in line
        assert "papertalk ingest" in line and "don't answer" not in line


def test_chat_new_starts_a_fresh_context(corpus: Store) -> None:
    first, follow = "What does the S2ORC corpus hold?", "How many papers does it contain?"
    out = run("chat", stdin=f"{first}\n{follow}\n/new\n{follow}\n/reset\n/quit\n")
    assert out.returncode == 0, out.stderr
    assert "/new starts a fresh conversation" in out.stdout.splitlines()[0]
    assert out.stdout.count("New conversation") == 2 and out.stdout.count("Sources") == 3
    rows = corpus.catalog.query(
        "SELECT chat_id, question, standalone FROM chat_turns WHERE question IN (?, ?) ORDER BY turn_id DESC LIMIT 3",
        (first, follow),
    )
    (fresh_chat, _, fresh), (old_chat, _, resolved), (first_chat, _, _) = (tuple(r) for r in rows)
    assert old_chat == first_chat != fresh_chat
    assert resolved == "How many papers does the S2ORC corpus contain?" and fresh == follow


def test_sources_of_one_paper_are_listed_distinctly(corpus: Store) -> None:
    """Each paper once ("  [1][3] Title"), its cited places under it, told apart ("      [3] p. 4, passage 2 of 9")."""
    out = invoke_cli("ask", "web agents collecting GUI trajectories", COLUMNS="300")
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.split("Sources", 1)[1].splitlines() if "] " in line]
    papers = [line.split("] ", 1)[1] for line in lines if not line.startswith("      ")]
    assert papers and len(papers) == len(set(papers)), papers
    places: list[list[str]] = []
    for line in lines:
        if not line.startswith("      "):
            places.append([])
        else:
            places[-1].append(line.split("] ", 1)[1])
    assert all(len(p) == len(set(p)) for p in places), places


def answer_lines(stdout: str, start: str = "") -> list[str]:
    """The lines of the streamed answer: from the one starting with `start` to the blank before Sources."""
    lines = stdout.split("\nSources")[0].splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith(start)) if start else 0
    return [line for line in lines[first:] if line.strip()]


def test_ask_wraps_the_answer_between_words(corpus: Store) -> None:
    question = "How many papers and full texts does S2ORC contain?"
    data = json.loads(invoke_cli("ask", question, "--json").stdout)
    out = invoke_cli("ask", question, COLUMNS="60")
    assert out.returncode == 0, out.stderr
    lines = answer_lines(out.stdout)
    assert len(lines) > 2 and max(len(line) for line in lines) <= 60
    assert " ".join(lines).split() == data["text"].split()  # no word cut, nothing lost


def run_in_terminal(args: list[str], answers: list[str], columns: int) -> str:
    """Run `papertalk ARGS` on a pseudo-terminal `columns` wide, typing each of `answers` at a prompt."""
    import fcntl
    import pty
    import re
    import select
    import struct
    import termios
    import time

    from tests.helpers.cli import PAPERTALK, cli_env

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = cli_env(COLUMNS=str(columns), NO_COLOR="1")
    proc = subprocess.Popen([str(PAPERTALK), *args], stdin=slave, stdout=slave, stderr=slave, env=env)
    os.close(slave)
    output, typed, deadline = b"", 0, time.monotonic() + 240
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                output += os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
        if output.count(b"you>") > typed and typed < len(answers):
            os.write(master, answers[typed].encode() + b"\n")
            typed += 1
        if proc.poll() is not None and not ready:
            break
    proc.wait(timeout=10)
    os.close(master)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output.decode("utf-8", "replace"))
    return text.replace("\r\n", "\n").replace("\r", "")


def test_chat_in_a_terminal_wraps_between_words(corpus: Store) -> None:
    question = "How many papers and full texts does S2ORC contain?"
    screen = run_in_terminal(["chat"], [question, "/quit"], columns=50)
    assert "Traceback" not in screen
    lines = answer_lines(screen, start="papertalk> ")
    assert len(lines) > 2 and max(len(line) for line in lines) <= 50, lines
    _, standalone = latest_turn(corpus, question)
    stored = corpus.catalog.query(
        "SELECT answer_text FROM chat_turns WHERE question = ? ORDER BY turn_id DESC LIMIT 1", (question,)
    )[0]["answer_text"]
    assert standalone == question
    assert " ".join(lines).removeprefix("papertalk> ").split() == stored.split()


def test_word_wrap_breaks_streamed_pieces_between_words() -> None:
    import io

    from rich.console import Console

    from cli.answers import WordWrap

    text = (
        "S2ORC contains 81.1M papers [1]. Its full-text subset, parsed from PDFs and LaTeX, covers 8.1M papers "
        "across many academic disciplines [2].\n\nA second paragraph follows, with a hyphenated-compound-word "
        "and a https://example.org/a/very/long/address/that/cannot/fit/on/one/line [3]."
    )
    for width, column in [(30, 0), (30, 11), (45, 11), (80, 0)]:
        out = io.StringIO()
        wrap = WordWrap(Console(file=out, width=width, force_terminal=False), column=column)
        for start in range(0, len(text), 7):  # pieces cut inside words, as LLM tokens are
            wrap.write(text[start : start + 7])
        wrap.close()
        lines = out.getvalue().split("\n")
        assert lines[-1] == ""  # ended with one newline
        assert len(lines[0]) + column <= width
        assert all(len(line) <= width for line in lines if "https://" not in line)
        assert out.getvalue().split() == text.split()  # every word whole, in order
        assert "\n\nA second" in out.getvalue()  # paragraph breaks kept


def test_a_source_over_two_pages_says_the_page_its_quote_is_on(corpus: Store) -> None:
    """LongEval's "101 out of 162 papers" is quoted from a passage over pp. 2-3; its source line says p. 3."""
    paper_id = read_pdf(LONGEVAL_PDF).paper_id
    out = run("ask", "How many of the surveyed papers perform no human evaluation?", "--paper", paper_id)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("We find that 101 out of 162 papers"), out.stdout
    sources = out.stdout.split("Sources", 1)[1]
    assert "pp. 2-3, quoted from p. 3" in sources, sources
