"""Ingest as both front doors run it: papers in, chunks stored, then topics assigned to the papers it added or
changed, so that a paper uploaded over HTTP is tagged exactly like one ingested from the command line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ingest.pipeline import Ingestor, IngestReport, ProgressFn
from ingest.topic_assign import AssignReport, TopicAssigner
from storage.records import Paper, Problem
from storage.store import Store


@dataclass
class Ingested:
    """What an ingest did (`report`) and what topic assignment did to its papers (`topics`)."""

    report: IngestReport
    topics: AssignReport = field(default_factory=AssignReport)

    @property
    def failed(self) -> bool:
        return self.report.failed


def assign_topics(store: Store, paper_ids: Sequence[str]) -> AssignReport:
    """Score those of `paper_ids` not yet scored at their current content against every topic."""
    if not paper_ids:
        return AssignReport()
    return TopicAssigner(store).assign_new(paper_ids)


def ingest_papers(
    store: Store,
    items: Iterable[Paper | Problem],
    *,
    progress: ProgressFn | None = None,
    replace: bool = False,
    topic: str | None = None,
    topics: bool = True,
    sentence_vectors: bool | None = None,
) -> Ingested:
    """Ingest `items`; tag every paper of the run with `topic` if given (kept whatever assignment scores);
    then, unless `topics` is False (a caller that assigns once after several runs), assign topics to the
    papers the run added or changed. `sentence_vectors` overrides `embedding.sentence_vectors`."""
    report = Ingestor(store, replace=replace, sentence_vectors=sentence_vectors).run(items, progress=progress)
    if topic:
        store.topics.assign(store.topics.ensure(topic), report.paper_ids)
    assigned = assign_topics(store, report.paper_ids) if topics else AssignReport()
    return Ingested(report, assigned)
