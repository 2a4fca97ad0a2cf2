"""CLI commands for overviews: `overview TOPIC [--refresh]` and `summarize PAPER`. Registered by `cli.main`."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from cli.answers import print_sources
from cli.console import console

if TYPE_CHECKING:
    from assistant.overview import OverviewService
    from assistant.overview_types import Changes, Overview

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the overview, its citations and sources as JSON.")]
SHOWN_NEW = 15  # new papers listed by name after a refresh


def _service() -> OverviewService:
    from assistant.overview import OverviewService
    from cli.main import get_store

    return OverviewService(get_store())


def overview(
    topic: Annotated[str, typer.Argument(help="Topic name or slug (see `papertalk topics`).")],
    refresh: Annotated[bool, typer.Option("--refresh", help="Update it with papers added since it was built.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """A cited overview of a topic: what the field studies, its main themes, its challenges (stored; --refresh)."""
    service = _service()
    changes: Changes | None = None
    stored = None if refresh else service.stored(topic)
    if refresh:
        shown, changes = service.refresh(topic)
    else:
        shown = stored or service.build(topic)
    pending = service.new_since(shown) if stored is not None else []
    if as_json:
        data = shown.to_dict()
        data["changes"] = changes.to_dict() if changes else None
        data["new_since_built"] = pending
        console.print_json(json.dumps(data))
        return
    print_overview(shown)
    if changes is not None:
        print_changes(changes, service)
    elif pending:
        console.print(f"\n[yellow]{len(pending)} papers added since it was built:[/yellow] run with --refresh")


def summarize(
    paper: Annotated[str, typer.Argument(help="Paper id (an arXiv id, or pdf-… for other PDFs).")],
    as_json: JsonOpt = False,
) -> None:
    """A cited one-paper overview: what it is about, its method, results and limitations, with pages."""
    shown = _service().summarize(paper)
    if as_json:
        console.print_json(json.dumps(shown.to_dict()))
        return
    print_overview(shown)


def print_overview(ov: Overview) -> None:
    what = f"{len(ov.paper_ids):,} papers" if ov.kind == "topic" else ov.key
    when = ov.built_at.strftime("%Y-%m-%d %H:%M UTC")
    console.print(f"[bold]{escape(ov.subject)}[/bold] · {what} · built {when} · {ov.backend}", highlight=False)
    console.print()
    console.print(escape(ov.answer.text), highlight=False, soft_wrap=True)
    if ov.themes:
        console.print("\n[bold]Themes[/bold]")
        cited = ov.cited_papers()
        for t in ov.themes:
            mark = "" if cited & set(t.paper_ids) else " [dim](not cited)[/dim]"
            console.print(f"  {t.theme_id}. {escape(t.label)}: {t.size} papers{mark}", highlight=False)
    print_sources(ov.answer)


def print_changes(changes: Changes, service: OverviewService) -> None:
    console.print("\n[bold]What changed[/bold]")
    if changes.previous_built_at is None:
        console.print("  no earlier overview of this topic: this is the first build")
        return
    since = changes.previous_built_at.strftime("%Y-%m-%d %H:%M UTC")
    if changes.nothing:
        console.print(f"  nothing: no paper was added to or removed from the topic since {since}")
        return
    console.print(f"  since {since}: {len(changes.new_papers)} new papers, {len(changes.removed_papers)} removed")
    papers = service.store.catalog.get_many(changes.new_papers[:SHOWN_NEW])
    for pid in changes.new_papers[:SHOWN_NEW]:
        title = papers[pid].title if pid in papers else ""
        console.print(f"  + {pid} {escape(title)}", highlight=False)
    if len(changes.new_papers) > SHOWN_NEW:
        console.print(f"  … and {len(changes.new_papers) - SHOWN_NEW} more")
    if changes.reclustered:
        console.print("  themes were found afresh: the topic changed a lot")
    for t in changes.new_themes:
        console.print(f"  new theme: {escape(t.label)} ({t.size} papers)", highlight=False)
    for t in changes.grown_themes:
        console.print(f"  grew: {escape(t.label)} {t.before} → {t.size} (+{len(t.added)} new)", highlight=False)
    for text in changes.sentences_added:
        console.print(f"  [green]+ {escape(text)}[/green]", highlight=False)
    for text in changes.sentences_removed:
        console.print(f"  [red]- {escape(text)}[/red]", highlight=False)


def register_overview_commands(app: typer.Typer) -> None:
    app.command()(overview)
    app.command()(summarize)
