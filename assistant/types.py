"""What the assistant hands to the CLI and the HTTP API: scopes, passages, citations, answers."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any

from storage.records import PageMarks, pages_of_span


@dataclass(frozen=True)
class Scope:
    """Where to look: the whole corpus, a topic, one paper, and/or a first-listed date range."""

    topic: str | None = None
    paper_id: str | None = None
    since: date | None = None
    until: date | None = None

    def describe(self) -> str:
        parts = [
            f"topic {self.topic!r}" if self.topic else "",
            f"paper {self.paper_id}" if self.paper_id else "",
            f"since {self.since}" if self.since else "",
            f"until {self.until}" if self.until else "",
        ]
        return ", ".join(p for p in parts if p) or "all papers"


def section_mark(section: str, short: bool = True) -> str:
    """ "4.2 Reward design" → "§4.2" (short) or "§4.2 Reward design"; an unnumbered section by its name."""
    number, _, name = section.partition(" ")
    if not number or not (number[0].isdigit() or (len(number) > 1 and number[1] == ".")):
        return section
    return f"§{number}" if short or not name else f"§{section}"


def pages_label(start: int | None, end: int | None) -> str:
    """ "p. 3" or "pp. 3-4", as people read pages ("" without a page)."""
    if not start:
        return ""
    return f"pp. {start}-{end}" if end and end != start else f"p. {start}"


@dataclass
class Passage:
    """A retrieved chunk with everything needed to cite it."""

    chunk_id: str
    paper_id: str
    title: str
    authors: list[str]
    year: int | None
    link: str | None
    page_start: int | None
    page_end: int | None
    text: str
    score: float = 0.0
    dense_score: float | None = None
    keyword_score: float | None = None
    number: int = 0  # [n] in the answer, assigned when passages become sources
    part: str = ""  # tells sources of one paper apart: "passage 7 of 52"
    chunk_ids: list[str] = field(default_factory=list)  # every chunk `text` covers, when more than `chunk_id`
    section: str = ""  # the section of the paper it is from, e.g. "4.2 Reward design" ("" when unknown)
    caption: bool = False  # a figure or table caption rather than body text
    page_marks: PageMarks = ()  # where each page's text starts in `text` (`storage.records.pages_of_span`)

    @property
    def pages(self) -> str:
        return pages_label(self.page_start, self.page_end)

    def pages_of(self, start: int, end: int) -> tuple[int | None, int | None]:
        """The first and last page of the quote at [start, end) of `text`: its own page where the passage
        knows where its pages start, else the passage's page range."""
        return pages_of_span(self.page_marks, start, end, (self.page_start, self.page_end))

    def label(self) -> str:
        """ "Title (2025), p. 3" — how a source is shown to people."""
        year = f" ({self.year})" if self.year else ""
        place = self.place()
        return f"{self.title}{year}{f', {place}' if place else ''}"

    def place(self) -> str:
        """ "§4.2 Reward design, p. 10, passage 7 of 52": where in its paper the passage is ("" when unknown)."""
        return ", ".join(x for x in (section_mark(self.section, short=False), self.pages, self.part) if x)


@dataclass
class Citation:
    """[n] in a sentence, resolved to the passage and the span of its text that supports the sentence."""

    number: int
    chunk_id: str
    paper_id: str
    page_start: int | None
    page_end: int | None
    span_start: int
    span_end: int
    quote: str
    support: float
    section: str = ""  # the section of the paper the quote is from ("" when unknown)

    @property
    def where(self) -> str:
        """ "§4.2, p. 10": the quote's section and pages, as a citation shows them."""
        pages = pages_label(self.page_start, self.page_end)
        return ", ".join(x for x in (section_mark(self.section), pages) if x)


@dataclass
class AnswerSentence:
    text: str
    citations: list[Citation] = field(default_factory=list)
    support: float | None = None
    supported: bool = True


@dataclass
class ListItem:
    """One named thing of a list answer (a method, dataset, benchmark...), with the papers that name it.

    `citations` holds one citation per paper, each quoting the sentence of that paper that names the item."""

    name: str
    kind: str
    papers: int
    citations: list[Citation] = field(default_factory=list)

    @property
    def quote(self) -> str:
        return self.citations[0].quote if self.citations else ""


@dataclass(frozen=True)
class PaperRef:
    """A paper of the library outside the question's scope, with the name the question gave for it."""

    paper_id: str
    title: str
    name: str


@dataclass
class Answer:
    """A cited answer. `text` carries [n] markers that refer to `sources[n-1]`."""

    question: str
    standalone_question: str
    text: str
    sentences: list[AnswerSentence]
    sources: list[Passage]
    backend: str
    abstained: bool = False
    removed_citations: list[int] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    items: list[ListItem] = field(default_factory=list)  # a list answer's named things, most papers first
    # Papers outside the scope that the question names and no passage in scope does (`assistant.elsewhere`)
    elsewhere: list[PaperRef] = field(default_factory=list)
    # The catalog's `changes_version` read before retrieval and again once the answer was made (Assistant.stream):
    # equal, the answer rests on that one state of the store; different, a write landed while it was made.
    changes_version: int | None = None
    changes_version_after: int | None = None

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for src, passage in zip(data["sources"], self.sources, strict=True):
            src["pages"] = passage.pages
        for item, listed in zip(data["items"], self.items, strict=True):
            item["quote"] = listed.quote
        data["papers"] = [asdict(group) for group in self.papers()]
        return data

    def papers(self) -> list[PaperSources]:
        """The sources grouped by paper, each paper once, in the order of its first source's number."""
        return group_sources(self.sources)


@dataclass
class SourcePlace:
    """One numbered source under its paper: [number] and where in the paper it is."""

    number: int
    place: str
    chunk_id: str


@dataclass
class PaperSources:
    """An answer's sources from one paper: the paper once, with each cited place in it under it."""

    paper_id: str
    title: str
    authors: list[str]
    year: int | None
    link: str | None
    places: list[SourcePlace] = field(default_factory=list)

    @property
    def numbers(self) -> list[int]:
        return [p.number for p in self.places]


def group_sources(sources: list[Passage]) -> list[PaperSources]:
    """`sources` grouped by paper; a group keeps its sources' numbers, so [n] in the text still finds them."""
    groups: dict[str, PaperSources] = {}
    for s in sorted(sources, key=lambda s: s.number):
        group = groups.setdefault(s.paper_id, PaperSources(s.paper_id, s.title, s.authors, s.year, s.link))
        group.places.append(SourcePlace(s.number, s.place(), s.chunk_id))
    return list(groups.values())
