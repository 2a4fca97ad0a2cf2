"""CLI commands for topics: `topics list|show|add|assign|follow|unfollow`, `whatsnew`, `papers save|unsave|saved`.

Registered on the main app by `cli.main`; the logic is in `assistant.topics` (shared with the HTTP API).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.markup import escape

from cli.console import console, err_console, progress_bar

if TYPE_CHECKING:
    from assistant.topic_stats import Momentum, Related
    from assistant.topics import PaperItem, TopicPage, TopicService, WhatsNew
    from storage.store import Store

topics_app = typer.Typer(help="Topics: pages with momentum, latest papers and related topics.", no_args_is_help=True)
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON.")]
KeywordsOpt = Annotated[
    list[str] | None, typer.Option("--keywords", "-k", help="Keywords (repeatable, or comma-separated).")
]
ExamplesOpt = Annotated[
    list[str] | None, typer.Option("--example-paper", "-e", help="A paper id that defines the topic (repeatable).")
]
AbbreviationOpt = Annotated[
    list[str] | None, typer.Option(help="SHORT=Long, e.g. RL=Reinforcement Learning (repeatable).")
]
CategoryOpt = Annotated[list[str] | None, typer.Option(help="An arXiv category, e.g. cs.CL (repeatable).")]
ThresholdOpt = Annotated[
    float | None, typer.Option(help="Score a paper needs to join the topic (default: the calibrated one).")
]


BLOCKS = " ▏▎▍▌▋▊▉█"
BAR_WIDTH = 30


def _service() -> TopicService:
    from assistant.topics import TopicService
    from cli.main import get_store

    return TopicService(get_store())


def papers(n: int, what: str = "papers") -> str:
    """ "1 paper", "3 papers" (`what` is the plural)."""
    return f"{n} {what[:-1] if n == 1 else what}"


def _print_json(data: object) -> None:
    console.print_json(json.dumps(data))


def assign_after_ingest(store: Store, paper_ids: Sequence[str]) -> None:
    """Score the papers an ingest added or changed against every topic (one line on stderr)."""
    from ingest.topic_assign import TopicAssigner

    report = TopicAssigner(store).assign_new(paper_ids)
    if report.papers:
        err_console.print(f"topics: {report.summary()}", highlight=False)


# --- topics list / show ------------------------------------------------------------------------------
@topics_app.command("list")
def topics_list(as_json: JsonOpt = False) -> None:
    """List topics and how many papers each has."""
    topics = _service().all()
    if as_json:
        _print_json([{"slug": t.slug, "name": t.name, "papers": t.papers} for t in topics])
        return
    for t in topics:
        console.print(f"{escape(t.name)} ({t.slug}): {papers(t.papers)}", highlight=False)


@topics_app.command("show")
def topics_show(
    topic: Annotated[str, typer.Argument(help="Topic name or slug.")],
    as_of: Annotated[Optional[str], typer.Option(help="Measure momentum as of YYYY-MM-DD.")] = None,  # noqa: UP045
    limit: Annotated[int, typer.Option(help="Latest papers to show.")] = 10,
    offset: Annotated[int, typer.Option(help="Latest papers to skip (paging).")] = 0,
    as_json: JsonOpt = False,
) -> None:
    """A topic's page: abbreviations, overview, momentum with a weekly chart, latest papers, related topics."""
    from cli.answers import _date

    service = _service()
    page = service.page(topic, as_of=_date(as_of, "--as-of"), limit=limit, offset=offset)
    if as_json:
        _print_json(page.to_dict())
        return
    print_page(page, service.store)


def print_stored_overview(store: Store, slug: str) -> bool:
    """Print the topic's stored overview (built by `papertalk overview`); False when there is none."""
    try:
        from assistant.overview import OverviewService  # type: ignore[import-not-found,unused-ignore]
        from cli.overview import print_overview  # type: ignore[import-not-found,unused-ignore]
    except ImportError:  # a build without topic overviews
        return False
    stored = OverviewService(store).stored(slug)
    if stored is None:
        return False
    print_overview(stored)
    return True


def print_page(page: TopicPage, store: Store) -> None:
    topic = page.topic
    console.print(f"[bold]{escape(topic.name)}[/bold] ({topic.slug}) · {papers(topic.papers)}", highlight=False)
    if page.abbreviations_text():
        console.print(escape(page.abbreviations_text()), highlight=False)
    if topic.description:
        console.print(escape(topic.description), highlight=False)
    console.print("\n[bold]Overview[/bold]")
    if not print_stored_overview(store, topic.slug):
        console.print(f'No overview yet: `papertalk overview "{escape(topic.name)}"` builds one.', highlight=False)
    print_momentum(page.momentum)
    print_latest(page)
    print_related(page.related)
    _print_footer(page)


def bar(count: int, top: int, width: int = BAR_WIDTH) -> str:
    """A horizontal bar in eighths of a character, `width` characters for `top`."""
    if top <= 0 or count <= 0:
        return ""
    eighths = max(1, round(8 * width * count / top))
    return BLOCKS[-1] * (eighths // 8) + (BLOCKS[eighths % 8] if eighths % 8 else "")


def print_momentum(momentum: Momentum) -> None:
    console.print(f"\n[bold]Momentum[/bold] ({escape(momentum.as_of.note())})")
    console.print(momentum.sentence(), highlight=False)
    top = max((w.count for w in momentum.weeks), default=0)
    for i, week in enumerate(momentum.weeks):
        label = f"Week of {week.label}" if i == len(momentum.weeks) - 1 else week.label
        console.print(f"  {label:>14} {bar(week.count, top):<{BAR_WIDTH}} {week.count}", highlight=False)


def print_papers(items: Sequence[PaperItem]) -> None:
    for p in items:
        day = p.published.isoformat() if p.published else "no date"
        tags = ", ".join(t.name for t in p.tags)
        console.print(f"  {day}  [bold]{escape(p.title)}[/bold] ({p.paper_id})", highlight=False)
        console.print(
            f"              {escape(p.authors_short)}" + (f" · {escape(tags)}" if tags else ""), highlight=False
        )


def print_latest(page: TopicPage) -> None:
    listing = page.latest
    shown = f"{listing.offset + 1}–{listing.offset + len(listing.items)}" if listing.items else "none"
    console.print(f"\n[bold]Latest papers[/bold] {listing.total} (showing {shown}, newest first)", highlight=False)
    print_papers(listing.items)


def print_related(related: Sequence[Related]) -> None:
    console.print("\n[bold]Related topics[/bold]")
    if not related:
        console.print("  none yet")
    for r in related:
        sim = f", centre similarity {r.similarity:.2f}" if r.similarity is not None else ""
        console.print(
            f"  {escape(r.name)} ({r.slug}): strength {r.strength:.2f} "
            f"({papers(r.shared, 'shared papers')}, overlap {r.overlap:.2f}{sim})",
            highlight=False,
        )


def _print_footer(page: TopicPage) -> None:
    slug = page.topic.slug
    if page.unscored:
        n = papers(page.unscored)
        console.print(f"\n{n} not scored against the topics yet: run `papertalk topics assign`.", highlight=False)
    elif page.stale:
        console.print("\nTopics changed since papers were scored: run `papertalk topics assign`.")
    follow = "Following this topic" if page.followed else f"Follow this topic: `papertalk topics follow {slug}`"
    console.print(f'\n{follow} · Ask about it: `papertalk ask "…" --topic {slug}`', highlight=False)


# --- topics add / assign -----------------------------------------------------------------------------
def _abbreviations(values: Sequence[str]) -> dict[str, str]:
    out = {}
    for value in values:
        short, sep, long = value.partition("=")
        if not sep or not short.strip() or not long.strip():
            raise typer.BadParameter(
                f"{value!r} is not SHORT=Long, e.g. RL=Reinforcement Learning", param_hint="--abbreviation"
            )
        out[short.strip()] = long.strip()
    return out


def _split(values: Sequence[str] | None) -> list[str]:
    return [part.strip() for value in values or () for part in value.split(",") if part.strip()]


@topics_app.command("add")
def topics_add(
    name: Annotated[str, typer.Argument(help="The topic's name.")],
    description: Annotated[str, typer.Option(help="What the topic is about, in a sentence or two.")] = "",
    keywords: KeywordsOpt = None,
    example_paper: ExamplesOpt = None,
    abbreviation: AbbreviationOpt = None,
    category: CategoryOpt = None,
    threshold: ThresholdOpt = None,
    assign: Annotated[bool, typer.Option(help="Score every paper against the topics afterwards.")] = True,
) -> None:
    """Add (or redefine) your own topic, by a description and/or example papers."""
    service = _service()
    definition = service.add(
        name,
        description,
        keywords=_split(keywords),
        examples=_split(example_paper),
        abbreviations=_abbreviations(abbreviation or []),
        categories=_split(category),
        threshold=threshold,
    )
    console.print(f"Topic {escape(definition.name)} ({definition.slug}) saved.", highlight=False)
    if assign:
        _assign_all(service.store)
        console.print(f"{papers(service.get(definition.slug).papers)} in {escape(definition.name)}.", highlight=False)
    else:
        console.print("Run `papertalk topics assign` to tag papers with it.")


@topics_app.command("assign")
def topics_assign() -> None:
    """Score every paper against every topic again (after topics were added or changed)."""
    from cli.main import get_store

    _assign_all(get_store())


def _assign_all(store: Store) -> None:
    from ingest.topic_assign import TopicAssigner

    assigner = TopicAssigner(store)
    total = store.catalog.count_papers("indexed")
    with progress_bar("scoring papers", total) as advance:
        report = assigner.assign_all(progress=advance)
    console.print(report.summary(), highlight=False)


# --- follow, whatsnew, reading list -------------------------------------------------------------------
@topics_app.command("follow")
def topics_follow(topic: Annotated[str, typer.Argument(help="Topic name or slug.")]) -> None:
    """Follow a topic: `papertalk whatsnew` then shows its new papers."""
    found, new = _service().follow(topic)
    state = "Now following" if new else "Already following"
    console.print(f"{state} {escape(found.name)}; see what is new with `papertalk whatsnew`.", highlight=False)


@topics_app.command("unfollow")
def topics_unfollow(topic: Annotated[str, typer.Argument(help="Topic name or slug.")]) -> None:
    """Stop following a topic."""
    found, was = _service().unfollow(topic)
    console.print(f"{'Stopped following' if was else 'Was not following'} {escape(found.name)}.", highlight=False)


def whatsnew(
    keep: Annotated[
        bool, typer.Option("--keep", help="Do not move the last look on (show the same next time).")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """New papers in the topics you follow since you last looked; then the last look moves to now."""
    news = _service().whatsnew(mark_seen=not keep)
    if as_json:
        _print_json([n.to_dict() for n in news])
        return
    if not news:
        console.print("You follow no topics yet: `papertalk topics follow TOPIC`.")
    for n in news:
        _print_news(n)


def _print_news(news: WhatsNew) -> None:
    count = papers(len(news.papers), "new papers")
    console.print(f"[bold]{escape(news.topic.name)}[/bold]: {count} since {news.since}", highlight=False)
    print_papers(news.papers)


def papers_save(paper_id: Annotated[str, typer.Argument(help="Paper id to add to the reading list.")]) -> None:
    """Save a paper to your reading list."""
    item, new = _service().save(paper_id)
    console.print(f"{'Saved' if new else 'Already saved'}: {escape(item.title)} ({item.paper_id})", highlight=False)


def papers_unsave(paper_id: Annotated[str, typer.Argument(help="Paper id to remove from the reading list.")]) -> None:
    """Remove a paper from your reading list."""
    item, was = _service().unsave(paper_id)
    console.print(f"{'Removed' if was else 'Was not saved'}: {escape(item.title)} ({item.paper_id})", highlight=False)


def papers_saved(as_json: JsonOpt = False) -> None:
    """Your reading list, most recently saved first."""
    items = _service().saved()
    if as_json:
        _print_json([p.to_dict() for p in items])
        return
    if not items:
        console.print("Your reading list is empty: `papertalk papers save ID`.")
    print_papers(items)


def register_topic_commands(app: typer.Typer, papers_app: typer.Typer) -> None:
    app.add_typer(topics_app, name="topics")
    app.command()(whatsnew)
    papers_app.command("save")(papers_save)
    papers_app.command("unsave")(papers_unsave)
    papers_app.command("saved")(papers_saved)
