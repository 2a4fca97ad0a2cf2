"""CLI commands that answer: `ask`, `chat`. Registered on the main app by `cli.main`."""

from __future__ import annotations

import json
import re
import shlex
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape

from assistant.types import Answer, Scope, pages_label
from cli.console import console, err_console

if TYPE_CHECKING:
    from assistant.service import Assistant

TopicOpt = Annotated[Optional[str], typer.Option("--topic", "-t", help="Only this topic's papers.")]  # noqa: UP045
PaperOpt = Annotated[Optional[str], typer.Option("--paper", "-p", help="Only this paper (Ask PDF).")]  # noqa: UP045
PdfOpt = Annotated[Optional[Path], typer.Option("--pdf", help="A PDF to ask about (ingested first if new).")]  # noqa: UP045
SinceOpt = Annotated[Optional[str], typer.Option(help="Only papers first listed on/after YYYY-MM-DD.")]  # noqa: UP045
UntilOpt = Annotated[Optional[str], typer.Option(help="Only papers first listed on/before YYYY-MM-DD.")]  # noqa: UP045


def _assistant() -> Assistant:
    from assistant.service import Assistant
    from cli.main import get_store

    return Assistant(get_store())


def _date(value: str | None, option: str) -> date | None:
    if not value:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not a date: use YYYY-MM-DD", param_hint=option) from None


def build_scope(
    assistant: Assistant, topic: str | None, paper: str | None, pdf: Path | None, since: str | None, until: str | None
) -> Scope:
    if sum(x is not None for x in (topic, paper, pdf)) > 1:
        raise typer.BadParameter("give at most one of --topic, --paper, --pdf")
    if pdf is not None:
        paper = use_pdf(assistant, pdf)
    return Scope(topic=topic, paper_id=paper, since=_date(since, "--since"), until=_date(until, "--until"))


def use_pdf(assistant: Assistant, pdf: Path) -> str:
    """The paper id of `pdf` (ingested first if new), said on stderr so that `--json` output stays JSON."""
    from ingest.uploads import add_pdf

    result = add_pdf(assistant.store, pdf)
    for warning in result.warnings:
        err_console.print(f"[yellow]warning[/yellow] {escape(str(warning))}", highlight=False, soft_wrap=True)
    how = "parsed and stored" if result.parsed else "already stored, not parsed again"
    err_console.print(f"{escape(str(pdf))}: paper {escape(result.paper_id)} ({how})", highlight=False, soft_wrap=True)
    return result.paper_id


def print_items(answer: Answer) -> None:
    """A list answer's quotes: for each named item, the sentence of each paper that names it."""
    if not answer.items:
        return
    console.print("\n[bold]Where each is named[/bold]")
    for item in answer.items:
        console.print(f"  [bold]{escape(item.name)}[/bold] ({item.kind})", highlight=False)
        for c in item.citations:
            page = f", p. {c.page_start}" if c.page_start else ""
            console.print(f"    [{c.number}]{page}: \u201c{escape(c.quote)}\u201d", highlight=False)


def print_elsewhere(answer: Answer) -> None:
    """For a question that names a paper outside its scope, the command that asks that paper (the question as it
    stands alone: a chat's follow-up with its subject)."""
    for ref in answer.elsewhere:
        ask = f"papertalk ask --paper {shlex.quote(ref.paper_id)} {shlex.quote(answer.standalone_question)}"
        console.print(f"\n[bold]Ask {escape(ref.name)}'s paper:[/bold] {escape(ask)}", highlight=False, soft_wrap=True)


def print_sources(answer: Answer) -> None:
    cited = {c.number for s in answer.sentences for c in s.citations}
    print_elsewhere(answer)
    print_items(answer)
    if not answer.sources:
        return
    console.print("\n[bold]Sources[/bold]")
    print_paper_sources(answer, cited)
    for sentence in answer.sentences:
        if not sentence.supported:
            console.print(f"[yellow]unsupported by its sources:[/yellow] {escape(sentence.text)}", highlight=False)
    if answer.removed_citations:
        console.print(f"[yellow]removed citations to sources that were not given:[/yellow] {answer.removed_citations}")


def quoted_pages(answer: Answer) -> dict[int, str]:
    """For each source whose quotes are on fewer pages than it spans, those pages: "quoted from p. 5" for a
    passage over pp. 4-5 whose quoted sentences are all on p. 5."""
    spans = {
        s.number: set(range(s.page_start, (s.page_end or s.page_start) + 1)) for s in answer.sources if s.page_start
    }
    pages: dict[int, set[int]] = {}
    for sentence in answer.sentences:
        for c in sentence.citations:
            if c.number in spans and c.page_start:
                pages.setdefault(c.number, set()).update(range(c.page_start, (c.page_end or c.page_start) + 1))
    return {
        number: f"quoted from {pages_label(min(found), max(found))}"
        for number, found in pages.items()
        if found != spans[number]
    }


def print_paper_sources(answer: Answer, cited: set[int]) -> None:
    """Each paper once, "[1][3] Title (2020) link", with its cited places under it ("[3] §3 Data, p. 4"), and
    the page a quote is on where its passage runs over more ("[2] §2 Survey, pp. 2-3, quoted from p. 3")."""
    quoted = quoted_pages(answer)
    for paper in answer.papers():
        places = [p for p in paper.places if not cited or p.number in cited]
        if not places:
            continue
        numbers = "".join(f"[{p.number}]" for p in places)
        year = f" ({paper.year})" if paper.year else ""
        link = f" {paper.link}" if paper.link else ""
        console.print(f"  {numbers} {escape(paper.title + year + link)}", highlight=False)
        for place in places:
            where = ", ".join(x for x in (place.place, quoted.get(place.number, "")) if x)
            if where:
                console.print(f"      [{place.number}] {escape(where)}", highlight=False)


class WordWrap:
    """Prints streamed text so that lines break between words, never inside one.

    Pieces may end in the middle of a word (LLM tokens do): the unfinished word waits for the next piece.
    """

    def __init__(self, out: Console, column: int = 0) -> None:
        self.out = out
        self.column = column  # cells already used on the current line
        self.pending = ""  # the last word, perhaps unfinished
        self.space = False  # blanks came before the next word

    def write(self, text: str) -> None:
        parts = re.split(r"(\s+)", self.pending + text)
        self.pending = parts.pop()  # "" when the text ended in blanks
        for part in parts:
            if part.isspace():
                self._blank(part)
            else:
                self._word(part)

    def close(self) -> None:
        """Print the last word and end the line."""
        if self.pending:
            self._word(self.pending)
        self.pending = ""
        self._emit("\n")
        self.column, self.space = 0, False

    def _blank(self, blank: str) -> None:
        if "\n" in blank:
            self._emit("\n" * blank.count("\n"))
            self.column, self.space = 0, False
        else:
            self.space = True

    def _word(self, word: str) -> None:
        if not word:
            return
        gap = 1 if self.space and self.column else 0
        if self.column and self.column + gap + cell_len(word) > self.out.width:
            self._emit("\n")
            self.column, gap = 0, 0
        self._emit(" " * gap + word)
        self.column += gap + cell_len(word)
        self.space = False

    def _emit(self, text: str) -> None:
        self.out.print(text, end="", markup=False, highlight=False, soft_wrap=True)


def _stream_answer(
    assistant: Assistant, question: str, scope: Scope | None, chat_id: str | None, column: int = 0
) -> Answer:
    answer = None
    wrap = WordWrap(console, column)
    for chunk in assistant.stream(question, scope, chat_id):
        if chunk.text:
            wrap.write(chunk.text)
        answer = chunk.answer or answer
    wrap.close()
    assert answer is not None
    return answer


def ask(
    question: Annotated[str, typer.Argument(help="Your question.")],
    topic: TopicOpt = None,
    paper: PaperOpt = None,
    pdf: PdfOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the answer, citations and sources as JSON.")] = False,
) -> None:
    """Ask one question; the answer cites its numbered sources with title, year and page."""
    assistant = _assistant()
    question = assistant.clean_question(question)
    scope = build_scope(assistant, topic, paper, pdf, since, until)
    if as_json:
        console.print_json(json.dumps(assistant.ask(question, scope).to_dict()))
        return
    print_sources(_stream_answer(assistant, question, scope, None))


def chat(
    topic: TopicOpt = None,
    paper: PaperOpt = None,
    pdf: PdfOpt = None,
    since: SinceOpt = None,
    until: UntilOpt = None,
) -> None:
    """An interactive conversation: follow-ups keep the context. /new starts afresh; empty line or /quit ends it."""
    assistant = _assistant()
    run_chat(assistant, build_scope(assistant, topic, paper, pdf, since, until))


NEW_CHAT = {"/new", "/reset"}
PROMPT = "papertalk> "


def run_chat(assistant: Assistant, scope: Scope) -> None:
    """The chat loop; the scope is checked (and the chat started) before the first prompt."""
    chat_id = assistant.start_chat(scope)
    console.print(
        f"Asking about {escape(scope.describe())} ({assistant.settings.llm.backend} answers). "
        "/new starts a fresh conversation; an empty line or /quit stops.",
        highlight=False,
    )
    while True:
        try:
            question = console.input("[bold cyan]you>[/bold cyan] ").strip()
        except (EOFError, KeyboardInterrupt):
            console.print()
            return
        if not question or question in {"/quit", "/exit"}:
            return
        if question in NEW_CHAT:
            chat_id = assistant.start_chat(scope)
            console.print("New conversation: earlier questions no longer count as context.")
            continue
        console.print(f"[bold green]{PROMPT}[/bold green]", end="")
        print_sources(_stream_answer(assistant, question, None, chat_id, column=cell_len(PROMPT)))


def register_answer_commands(app: typer.Typer) -> None:
    app.command()(ask)
    app.command()(chat)
