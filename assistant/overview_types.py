"""What an overview hands to the CLI and the API: cited sentences in sections, themes, and what changed.

An overview's text and citations are an `Answer` (the same type chat answers use), so it renders and
serialises like one; `sections` say which of its sentences frame the field, describe a theme, or name a
challenge (for one paper: framing, method, results, limitations).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from assistant.themes import Theme
from assistant.types import Answer, AnswerSentence, Citation, Passage


@dataclass
class Section:
    kind: str  # framing | theme | challenges | overview | method | results | limitations
    title: str
    sentences: list[int]  # indices into answer.sentences
    theme_id: int | None = None


@dataclass
class Overview:
    """A cited overview of a topic (`kind="topic"`, key = slug) or of one paper (`kind="paper"`)."""

    kind: str
    key: str
    subject: str
    backend: str
    built_at: datetime
    paper_ids: list[str]
    answer: Answer
    sections: list[Section]
    themes: list[Theme] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def cited_papers(self) -> set[str]:
        return {c.paper_id for s in self.answer.sentences for c in s.citations}

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "key": self.key,
            "subject": self.subject,
            "backend": self.backend,
            "built_at": self.built_at.isoformat(timespec="seconds"),
            "papers": len(self.paper_ids),
            "answer": self.answer.to_dict(),
            "sections": [asdict(s) for s in self.sections],
            "themes": [t.to_dict(with_centre=False) for t in self.themes],
            "notes": self.notes,
        }


@dataclass
class ThemeChange:
    theme_id: int
    label: str
    size: int
    before: int  # 0 for a new theme
    added: list[str]  # new papers in it


@dataclass
class Changes:
    """What a refresh changed since the stored build."""

    previous_built_at: datetime | None
    new_papers: list[str] = field(default_factory=list)
    removed_papers: list[str] = field(default_factory=list)
    new_themes: list[ThemeChange] = field(default_factory=list)
    grown_themes: list[ThemeChange] = field(default_factory=list)
    sentences_added: list[str] = field(default_factory=list)
    sentences_removed: list[str] = field(default_factory=list)
    reclustered: bool = False

    @property
    def nothing(self) -> bool:
        return not (self.new_papers or self.removed_papers or self.sentences_added or self.sentences_removed)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        built = self.previous_built_at
        data["previous_built_at"] = built.isoformat(timespec="seconds") if built else None
        return data


def answer_from_dict(data: dict[str, Any]) -> Answer:
    """An `Answer` read back from `Answer.to_dict()`."""
    sources = [_passage(p) for p in data["sources"]]
    sentences = [
        AnswerSentence(s["text"], [Citation(**c) for c in s["citations"]], s["support"], s["supported"])
        for s in data["sentences"]
    ]
    return Answer(
        question=data["question"],
        standalone_question=data["standalone_question"],
        text=data["text"],
        sentences=sentences,
        sources=sources,
        backend=data["backend"],
        abstained=data["abstained"],
        removed_citations=list(data["removed_citations"]),
        notes=list(data["notes"]),
    )


def sections_from_dicts(items: list[dict[str, Any]]) -> list[Section]:
    return [Section(**item) for item in items]


def _passage(data: dict[str, Any]) -> Passage:
    """A source read back from `Passage`'s fields as JSON keeps them (page marks were lists there)."""
    fields = {k: v for k, v in data.items() if k != "pages"}
    fields["page_marks"] = tuple((int(o), int(p)) for o, p in fields.get("page_marks") or ())
    return Passage(**fields)
