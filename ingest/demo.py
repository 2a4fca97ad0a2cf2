"""Loading the bundled demo corpus into a store (first run only), for the CLI's `papertalk demo` or any other door.

The corpus goes through the same ingest as any other (`ingest.service`), its chunk vectors read from the
shipped file when they match, and the vector of every quotable sentence too (the shipped sentence file), so
offline answers over the demo score every retrieved sentence and embed none while the user waits. Without
shipped sentence vectors (another model) the sentences are not embedded at load (that would add minutes to
the first run): answers embed the few sentences they weigh at question time, as with
`embedding.sentence_vectors` off. No paper is tagged by hand: the topic assigner scores every paper against the
bundled registry (which covers the corpus's field), so the demo topic holds the papers the assigner puts
there and the neighbouring topics theirs. Loading a newer demo version into a store that holds an older one
ingests again (unchanged papers are kept as they are) and stores the shipped sentence vectors of the papers it
kept, so an upgraded store answers as fast as a fresh one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field

from ingest.demo_vectors import shipped_outcome, use_shipped_vectors
from ingest.pipeline import IngestReport, ProgressFn
from ingest.sentence_vectors import fill, missing_chunks
from ingest.service import assign_topics, ingest_papers
from ingest.sources import arxiv_papers, count_lines, count_pdfs, pdf_papers
from ingest.topic_assign import AssignReport
from papertalk.demo import DEMO_METADATA, DEMO_PDFS, DEMO_TOPIC, DEMO_VERSION
from storage.store import Store
from storage.topics import slugify

log = logging.getLogger(__name__)

DEMO_META = "demo_loaded"  # catalog meta key: the DEMO_VERSION loaded into this store
HAND_TAGGED = "1"  # the demo version that tagged every record with the demo topic by hand

# (what is being ingested, how many items or None) -> a context that yields `advance(n)`
ProgressFactory = Callable[[str, int | None], AbstractContextManager[ProgressFn]]
SayFn = Callable[[str], None]


@dataclass
class DemoLoad:
    """What a demo load did: one ingest report per part (records, PDFs), the topic assignment, and where the
    chunk vectors came from."""

    reports: list[tuple[str, IngestReport]] = field(default_factory=list)
    topics: AssignReport = field(default_factory=AssignReport)
    vectors: str = ""
    sentences_kept: int = 0  # sentence vectors stored for papers an earlier load kept (from the shipped file)

    @property
    def failed(self) -> bool:
        return any(report.failed for _, report in self.reports)

    @property
    def paper_ids(self) -> list[str]:
        return [pid for _, report in self.reports for pid in report.paper_ids]


def _without_sentences(store: Store, paper_ids: list[str]) -> list[str]:
    """The stored chunks of these papers that have no sentence vector (a chunk id starts with its paper's id)."""
    papers = set(paper_ids)
    return [cid for cid in missing_chunks(store) if cid.rsplit("#", 2)[0] in papers]


def demo_loaded(store: Store) -> bool:
    """True when this store holds the current demo corpus already."""
    return store.catalog.get_meta(DEMO_META) == DEMO_VERSION


@contextmanager
def _no_progress(description: str, total: int | None) -> Iterator[ProgressFn]:
    yield lambda n: None


def load_demo_corpus(store: Store, progress: ProgressFactory = _no_progress, say: SayFn = log.info) -> DemoLoad | None:
    """Ingest the demo corpus (records, then PDFs), then assign topics to all its papers in one pass; None when
    the store has it already. `say` is told before the long part starts when every chunk has to be embedded;
    `DemoLoad.vectors` says afterwards how the shipped vectors served."""
    if demo_loaded(store):
        return None
    shipped, why = use_shipped_vectors(store)
    if shipped is None:
        say(f"Embedding every chunk (a few minutes): {why}.")
    sentences = shipped is not None and shipped.serves_sentences  # stored at no cost, else left to answers
    load = DemoLoad()
    parts = [
        ("demo papers", count_lines(DEMO_METADATA), lambda: arxiv_papers(DEMO_METADATA)),
        ("demo PDFs", count_pdfs([DEMO_PDFS]), lambda: pdf_papers([DEMO_PDFS])),
    ]
    for name, total, items in parts:
        with progress(name, total) as advance:
            ingested = ingest_papers(store, items(), progress=advance, topics=False, sentence_vectors=sentences)
            load.reports.append((name, ingested.report))
    if sentences:  # papers an earlier demo version stored (kept unchanged) may have none yet
        load.sentences_kept = fill(store, _without_sentences(store, load.paper_ids))
    if store.catalog.get_meta(DEMO_META) == HAND_TAGGED:  # a store loaded before: the assigner decides now
        store.topics.untag(slugify(DEMO_TOPIC), load.reports[0][1].paper_ids)
    if shipped is not None and shipped.asked:  # before topics are scored: their descriptions are no chunk misses
        load.vectors = shipped_outcome(shipped)
    load.topics = assign_topics(store, load.paper_ids)
    if not load.failed:
        store.catalog.set_meta(DEMO_META, DEMO_VERSION)
    return load
