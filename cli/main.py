"""The `papertalk` command line: thin commands over the assistant and storage services (the HTTP API in `api/`
is the other front door over the same services)."""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from cli.answers import register_answer_commands
from cli.console import console, err_console, progress_bar, setup_logging
from cli.overview import register_overview_commands
from cli.serve import register_serve_command
from cli.topics import print_assigned, register_topic_commands
from ingest.arxiv_metadata import RecordFilter
from ingest.sources import arxiv_papers, count_lines, count_pdfs, is_metadata_file, pdf_papers
from papertalk.errors import PapertalkError, disk_full_message, is_disk_full
from papertalk.settings import Settings
from storage.records import Paper, Problem
from storage.store import Store

if TYPE_CHECKING:
    from ingest.pipeline import IngestReport

app = typer.Typer(help="papertalk: talk to the literature of a field, every claim cited.", no_args_is_help=True)
papers_app = typer.Typer(help="Browse the catalog of papers.", no_args_is_help=True)
app.add_typer(papers_app, name="papers")


class _State:
    settings: Settings | None = None
    store: Store | None = None
    data_dir: Path | None = None  # --data-dir, over PAPERTALK_DATA_DIR


state = _State()


def get_settings() -> Settings:
    """Settings built on first use (so `--help` works whatever the environment holds)."""
    if state.settings is None:
        settings = Settings()
        if state.data_dir is not None:
            settings = settings.model_copy(update={"data_dir": state.data_dir})
        state.settings = settings
    return state.settings


def get_store() -> Store:
    if state.store is None:
        state.store = Store(get_settings())
    return state.store


@app.callback()
def _main(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Log what happens.")] = False,
    data_dir: Annotated[Optional[Path], typer.Option(help="Data directory (PAPERTALK_DATA_DIR).")] = None,  # noqa: UP045
) -> None:
    setup_logging(verbose)
    state.settings, state.store, state.data_dir = None, None, data_dir


def _run_ingest(
    description: str,
    total: int | None,
    items: Iterable[Paper | Problem],
    topic: str | None = None,
    replace: bool = False,
) -> IngestReport:
    """Ingest with a progress bar through the ingest service (topics assigned to the papers it added or
    changed), then print what it did."""
    from ingest.service import ingest_papers

    store = get_store()
    with progress_bar(description, total, every_s=store.settings.progress_every_s) as advance:
        done = ingest_papers(store, items, progress=advance, replace=replace, topic=topic)
    print_assigned(done.topics)
    _print_report(done.report)
    return done.report


MAX_ERRORS_PER_FILE = 10


def _print_report(report: IngestReport) -> None:
    _print_errors(report.errors)
    for problem in report.warnings[:20]:
        err_console.print(f"[yellow]warning[/yellow] {escape(str(problem))}", highlight=False, soft_wrap=True)
    if len(report.warnings) > 20:
        err_console.print(f"[yellow]… and {len(report.warnings) - 20} more warnings[/yellow]")
    for path, paper_id in report.files:  # which paper each file became
        console.print(f"{escape(path)} → {escape(paper_id)}", highlight=False, soft_wrap=True)
    console.print(report.summary(), soft_wrap=True)  # one line, however long, for scripts that read it


def _print_errors(errors: list[Problem]) -> None:
    """One line each, the file name verbatim (no markup, no wrapping); at most 10 bad lines of one file."""
    per_file: Counter[str] = Counter()
    for problem in errors:
        file = re.sub(r":\d+$", "", problem.where)
        per_file[file] += 1
        if per_file[file] <= MAX_ERRORS_PER_FILE:
            err_console.print(f"[red]failed[/red] {escape(str(problem))}", highlight=False, soft_wrap=True)
    for file, count in per_file.items():
        if count > MAX_ERRORS_PER_FILE:
            more = count - MAX_ERRORS_PER_FILE
            err_console.print(f"… and {more} more malformed lines in {escape(file)}", highlight=False, soft_wrap=True)


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="PDF files, folders of PDFs, or arXiv .jsonl[.gz] files.")],
    replace: Annotated[
        bool, typer.Option("--replace", help="Let a file replace its stored paper's text even when it has less.")
    ] = False,
) -> None:
    """Ingest PDFs (and arXiv metadata files) into the catalog and vector store."""
    metadata = [p for p in paths if is_metadata_file(p)]
    pdfs = [p for p in paths if not is_metadata_file(p)]
    failed = False
    if pdfs:
        failed |= _run_ingest("PDFs", count_pdfs(pdfs), pdf_papers(pdfs), replace=replace).failed
    for path in metadata:
        failed |= _run_ingest(path.name, count_lines(path), arxiv_papers(path)).failed
    raise typer.Exit(1 if failed else 0)


@app.command("embed-sentences")
def embed_sentences() -> None:
    """Embed the sentences of stored chunks that have none yet (a store made before sentence vectors, or a demo
    loaded before its sentence vectors shipped), so that offline answers over them embed nothing while you wait."""
    from ingest.sentence_vectors import fill, missing_chunks

    store = get_store()
    missing = missing_chunks(store)
    with progress_bar("chunks", len(missing), every_s=store.settings.progress_every_s) as advance:
        added = fill(store, missing, progress=advance)
    console.print(f"{added} sentence vectors stored for {len(missing)} chunks that had none")


@app.command("ingest-arxiv")
def ingest_arxiv(
    file: Annotated[Path, typer.Argument(help="arXiv metadata, JSON lines in the bulk-snapshot layout (.gz ok).")],
    since: Annotated[Optional[str], typer.Option(help="Only papers first listed on or after YYYY-MM-DD.")] = None,  # noqa: UP045
    until: Annotated[Optional[str], typer.Option(help="Only papers first listed on or before YYYY-MM-DD.")] = None,  # noqa: UP045
    category: Annotated[Optional[list[str]], typer.Option(help="Keep papers in this category (repeatable).")] = None,  # noqa: UP045
    limit: Annotated[Optional[int], typer.Option(help="Stop after this many papers.")] = None,  # noqa: UP045
    topic: Annotated[Optional[str], typer.Option(help="Tag the ingested papers with this topic.")] = None,  # noqa: UP045
) -> None:
    """Ingest arXiv metadata records (abstract-level papers)."""
    keep = RecordFilter(
        since=_date(since, "--since"), until=_date(until, "--until"), categories=tuple(category or ()), limit=limit
    )
    total = count_lines(file)
    if total is not None and limit is not None and not (since or until or category):
        total = min(total, limit)
    report = _run_ingest(file.name, total, arxiv_papers(file, keep), topic=topic)
    raise typer.Exit(1 if report.failed else 0)


def _date(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise typer.BadParameter(f"{value!r} is not a date: use YYYY-MM-DD", param_hint=option) from None


@app.command()
def add(
    ids: Annotated[list[str], typer.Argument(help="arXiv ids, e.g. arxiv:2501.10120 (needs the network).")],
) -> None:
    """Fetch papers from arXiv by id (metadata and PDF) and ingest them."""
    from ingest.arxiv_api import fetch_papers

    settings = get_settings()
    report = _run_ingest("arXiv", len(ids), fetch_papers(ids, settings.arxiv, pdf_dir=settings.data_dir / "pdfs"))
    raise typer.Exit(1 if report.failed else 0)


@papers_app.command("list")
def papers_list(
    limit: Annotated[int, typer.Option(help="How many to show.")] = 20,
    offset: Annotated[int, typer.Option(help="How many to skip.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """List papers, newest first."""
    rows = get_store().catalog.list_papers(limit=limit, offset=offset)
    if as_json:
        console.print_json(json.dumps([r.to_dict() for r in rows]))
        return
    table = Table("id", "date", "title", "pages", "chunks")
    for r in rows:
        table.add_row(
            Text(r.paper_id),
            r.published.isoformat() if r.published else "",
            Text(r.title[:90]),
            str(r.n_pages or ""),
            str(r.n_chunks),
        )
    console.print(table)


@papers_app.command("show")
def papers_show(
    paper_id: Annotated[str, typer.Argument(help="Paper id (an arXiv id, or pdf-… for other PDFs).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Show one paper's record."""
    from storage.queries import get_paper

    row = get_paper(get_store(), paper_id)
    if as_json:
        console.print_json(json.dumps(row.to_dict()))
        return
    console.print(Text(row.title, style="bold"), Text(", ".join(row.authors)), sep="\n")
    facts = f"{row.paper_id} · {row.published or 'no date'} · {' '.join(row.categories)} · {row.source}"
    console.print(facts, markup=False, highlight=False)
    link = f" · {row.link}" if row.link else ""
    console.print(f"{row.n_pages} pages, {row.n_chunks} chunks, {row.status}{link}", markup=False, highlight=False)
    if row.abstract:
        console.print(Text(f"\n{row.abstract}"))


@app.command()
def stats(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    """Counts of papers, chunks and vectors, and where they are stored."""
    from storage.queries import store_stats

    data = store_stats(get_store())
    if as_json:
        console.print_json(json.dumps(data))
    else:
        for key, value in data.items():
            console.print(f"{key:16} {value}", markup=False, highlight=False)


register_answer_commands(app)
register_overview_commands(app)
register_topic_commands(app, papers_app)
register_serve_command(app)


def main() -> None:
    """Entry point: domain errors become one readable line and exit code 2, never a traceback.

    Click's standalone mode prints usage errors and passes `typer.Exit(n)` codes to the shell.
    """
    try:
        app()
    except PapertalkError as exc:
        _fail(str(exc))
    except Exception as exc:  # the machine said no (disk full, permission denied): what and where, not a traceback
        if is_disk_full(exc):
            _fail(disk_full_message(state.settings.data_dir if state.settings else "the data directory"))
        if not isinstance(exc, OSError):
            raise
        where = f": {exc.filename}" if exc.filename else ""
        _fail(f"{exc.strerror or exc}{where}")


def _fail(message: str) -> None:
    err_console.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    sys.exit(2)


def _load_demo(store: Store) -> None:
    """Load the demo corpus through the ingest service (first run only), printing what it did."""
    from ingest.demo import demo_loaded, load_demo_corpus

    if demo_loaded(store):
        return
    console.print("Loading the demo corpus (first run only; later runs reuse it)…")
    every_s = store.settings.progress_every_s
    load = load_demo_corpus(
        store,
        progress=lambda name, total: progress_bar(name, total, every_s=every_s),
        say=lambda line: console.print(line, highlight=False),
    )
    if load is not None:
        for _, report in load.reports:
            _print_report(report)
        if load.vectors:
            console.print(load.vectors, highlight=False)
        if load.sentences_kept:
            console.print(
                f"{load.sentences_kept:,} sentence vectors stored from the shipped file for papers an earlier "
                "demo load kept",
                highlight=False,
            )
        print_assigned(load.topics)


@app.command()
def demo(
    load_only: Annotated[bool, typer.Option("--load-only", help="Load the corpus, then stop.")] = False,
    chat: Annotated[bool, typer.Option("--chat", help="Chat in the terminal instead of serving the web page.")] = False,
    port: Annotated[int, typer.Option(help="Port of the web page.")] = 8000,
) -> None:
    """Load the bundled demo corpus (first run only), then serve the web page on its topic (or `--chat`)."""
    from papertalk.demo import DEMO_TOPIC

    store = get_store()
    _load_demo(store)
    console.print(f"{store.catalog.count_papers('indexed')} papers ready in {store.settings.data_dir}.", markup=False)
    if load_only:
        console.print(f'Try: papertalk serve · papertalk chat --topic "{DEMO_TOPIC}" · papertalk papers list')
        return
    if chat:
        from assistant.service import Assistant
        from assistant.types import Scope
        from cli.answers import run_chat

        run_chat(Assistant(store), Scope(topic=DEMO_TOPIC))
        return
    from cli.serve import serve
    from storage.topics import slugify

    console.print(f"Demo topic page: http://127.0.0.1:{port}/#/topic/{slugify(DEMO_TOPIC)}", highlight=False)
    store.close()
    serve(port=port)
