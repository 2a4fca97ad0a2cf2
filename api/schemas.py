"""Request and response bodies of the HTTP API."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assistant.types import AnswerSentence, Citation, PaperRef, PaperSources, Passage, Scope
from storage.uploads import Upload


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScopeIn(_Body):
    """Where to look: a topic (name or slug), one paper, or the whole corpus; optionally a date range."""

    topic: str | None = Field(None, max_length=200, description="Topic name or slug.")
    paper_id: str | None = Field(None, max_length=200, description="One paper (Ask PDF).")
    since: date | None = Field(None, description="Only papers first listed on or after this day.")
    until: date | None = Field(None, description="Only papers first listed on or before this day.")

    def to_scope(self) -> Scope:
        return Scope(topic=self.topic, paper_id=self.paper_id, since=self.since, until=self.until)


class ChatIn(_Body):
    question: str = Field(..., min_length=1, description="The question, in plain words.")
    scope: ScopeIn = Field(default_factory=ScopeIn, description="Where to look (ignored for a conversation's turn).")
    conversation_id: str | None = Field(None, max_length=64, description="Continue this conversation.")


@dataclass
class SourceOut(Passage):
    """A numbered source of an answer: the passage, and its pages as people read them ("p. 3")."""

    pages: str = ""  # a field here, where `Passage` computes it


class ListItemOut(BaseModel):
    """One named thing of a list answer, with the papers that name it (one citation and quote per paper)."""

    name: str
    kind: str = Field(description="algorithm, dataset, benchmark, model or framework.")
    papers: int = Field(description="How many of the sources' papers name it.")
    citations: list[Citation]
    quote: str = Field(description="The sentence of the first citation that names it.")


class AnswerOut(BaseModel):
    """A cited answer: `text` carries [n] markers that refer to `sources[n-1]`."""

    question: str
    standalone_question: str
    text: str
    sentences: list[AnswerSentence] = Field(description="Each sentence with its citations and the quoted spans.")
    sources: list[SourceOut]
    papers: list[PaperSources] = Field(
        default_factory=list,
        description="The sources grouped by paper: each paper once, with the numbered places cited in it.",
    )
    backend: str
    abstained: bool
    removed_citations: list[int]
    notes: list[str]
    items: list[ListItemOut] = Field(
        default_factory=list, description="For a list question: the named things found, most papers first."
    )
    elsewhere: list[PaperRef] = Field(
        default_factory=list,
        description="Papers of the library outside the scope that the question names and no passage in scope does: "
        "the answer abstains and points to them (ask one with its paper_id as the scope).",
    )
    conversation_id: str | None = None
    changes_version: int | None = Field(
        None,
        description="The catalog's changes_version read before the answer was made (any write to the store, by "
        "any worker or ingest, moves it on). Two answers to the same question and scope at the same version, with "
        "`changes_version_after` equal to it, are the same answer, whichever worker made them.",
    )
    changes_version_after: int | None = Field(
        None, description="The version read again once the answer was made: different, a write landed meanwhile."
    )


class ConversationIn(_Body):
    scope: ScopeIn = Field(default_factory=ScopeIn)
    title: str = Field("", max_length=200)


class ConversationOut(BaseModel):
    conversation_id: str
    scope: dict[str, Any]
    title: str
    created_at: str


class TurnOut(BaseModel):
    question: str
    standalone_question: str
    answer: AnswerOut


class ConversationTurns(ConversationOut):
    turns: list[TurnOut]


class PaperOut(BaseModel):
    paper_id: str
    title: str
    authors: list[str]
    abstract: str
    categories: list[str]
    published: date | None
    source: str
    arxiv_id: str | None
    link: str | None
    pages: int
    chunks: int
    status: str
    topics: list[str] = Field(default_factory=list)
    pdf_url: str | None = Field(None, description="The stored PDF, when papertalk keeps one (open it at #page=N).")


class PaperPage(BaseModel):
    total: int
    limit: int
    offset: int
    papers: list[PaperOut]


@dataclass(frozen=True)
class UploadOut(Upload):
    """An upload's state: queued, parsing, ready (`paper_id` is set) or failed (`reason` says why)."""

    known: bool = False  # these bytes were uploaded (or ingested) before: not parsed again


class HealthOut(BaseModel):
    status: str
    papers: int
    papers_indexed: int
    chunks: int
    vectors: int | None = None
    embedding_model: str | None = None
    chroma: str | None = None


# --- topics ----------------------------------------------------------------------------------------
class TopicOut(BaseModel):
    slug: str
    name: str
    description: str
    papers: int = Field(description="Indexed papers in the topic.")


class TagOut(BaseModel):
    slug: str
    name: str
    score: float | None = Field(description="Assignment score; null for a tag given at ingest.")


class PaperItemOut(BaseModel):
    """A paper as a listing shows it: date, title, first authors and its top two topics."""

    paper_id: str
    title: str
    authors: list[str]
    authors_short: str = Field(description='The first authors, then how many more ("A, B, C +6").')
    published: date | None
    link: str | None
    tags: list[TagOut]


class ListingOut(BaseModel):
    total: int
    offset: int
    items: list[PaperItemOut]


class WeekOut(BaseModel):
    start: date
    label: str
    count: int


class MomentumOut(BaseModel):
    """Papers in the last four weeks up to `as_of`, against the four weeks before, and the weekly counts."""

    as_of: date
    historical: bool = Field(description="True: the corpus ends before today, so its newest paper's date is used.")
    note: str
    recent: int
    previous: int
    change_pct: float | None = Field(description="Change on the four weeks before; null when there were none.")
    change: float | str | None
    share_pct: float | None = Field(description="Share of all the corpus's papers in the last four weeks.")
    corpus_recent: int
    weeks: list[WeekOut]
    sentence: str


class RelatedOut(BaseModel):
    slug: str
    name: str
    shared: int = Field(description="Papers in both topics.")
    overlap: float
    jaccard: float
    similarity: float | None = Field(description="Cosine of the two topics' centres.")
    strength: float = Field(description="Mean of the overlap and the centre similarity.")


class SectionOut(BaseModel):
    kind: str
    title: str
    sentences: list[int] = Field(description="Indices into `answer.sentences`.")
    theme_id: int | None = None


class ThemeOut(BaseModel):
    theme_id: int
    label: str
    terms: list[str]
    size: int
    paper_ids: list[str]
    scores: list[float]


class OverviewOut(BaseModel):
    """A cited overview of a topic or of one paper: `answer.text` carries [n] markers into `answer.sources`."""

    kind: str = Field(description="topic or paper")
    key: str
    subject: str
    backend: str
    built_at: str
    papers: int = Field(description="Papers it was built from.")
    answer: AnswerOut
    sections: list[SectionOut]
    themes: list[ThemeOut]
    notes: list[str]
    new_since_built: list[str] = Field(default_factory=list, description="The topic's papers added since.")


class TopicPageOut(BaseModel):
    slug: str
    name: str
    description: str
    abbreviations: dict[str, str]
    papers: int
    momentum: MomentumOut
    latest: ListingOut
    related: list[RelatedOut]
    followed: bool
    unscored: int = Field(description="Indexed papers not scored against the topics yet.")
    stale: bool = Field(description="Topics changed since papers were scored.")
    overview: OverviewOut | None = Field(description="The stored cited overview; null until one is built.")


class FollowOut(TopicOut):
    followed: bool
    changed: bool = Field(description="False when the topic was already (un)followed.")


class WhatsNewOut(BaseModel):
    slug: str
    name: str
    since: str = Field(description="The last look at the topic.")
    papers: list[PaperItemOut]


class SavedOut(BaseModel):
    paper: PaperItemOut
    saved: bool
    changed: bool = Field(description="False when the paper already was (or was not) on the reading list.")


class OverviewBuiltOut(OverviewOut):
    changes: dict[str, Any] = Field(
        description="What changed since the stored build: new and removed papers, new and grown themes, sentences."
    )
