"""Topic overviews as the CLI and the API use them: build, store, read back, refresh with what changed.

A build clusters the topic's papers into themes (`assistant.themes`) and writes the overview with the
configured backend (extractive offline, or an OpenAI-compatible LLM). It is stored with the ids of the
papers it was built from, so a refresh knows exactly which papers are new. A refresh reuses the stored
themes: new papers join their nearest theme (only their vectors are read), and the topic is clustered
again only when it changed a lot (a theme grew by half, or a fifth of the papers are new or gone).
"""

from __future__ import annotations

import logging
from datetime import datetime, timezone
from functools import cached_property
from typing import Any

import numpy as np

from assistant.overview_extractive import TopicPlan, extractive_overview
from assistant.overview_text import SentenceEmbedder
from assistant.overview_types import Changes, Overview, Section, ThemeChange, answer_from_dict, sections_from_dicts
from assistant.themes import Theme, assign, choose_clusters, drop_papers, make_themes, match_themes, unit
from assistant.types import Answer
from papertalk.errors import NotFound
from storage.overviews import Overviews, StoredOverview
from storage.paper_vectors import paper_vectors
from storage.store import Store
from storage.topics import Topic

log = logging.getLogger(__name__)

CENTRAL_KEPT = 40  # most central papers of the topic remembered for refreshes
RECLUSTER_CHANGED = 0.2  # share of the topic's papers new or gone that triggers a new clustering
RECLUSTER_GROWTH = 0.5  # a theme growing by this share of its size triggers a new clustering


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(microsecond=0)


class OverviewService:
    """Cited overviews of topics (stored, refreshable) and of single papers."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.settings = store.settings

    @cached_property
    def overviews(self) -> Overviews:
        return Overviews(self.store.catalog)

    @cached_property
    def sentence_embedder(self) -> SentenceEmbedder:
        return SentenceEmbedder(self.store.embedder, self.store.sentence_vectors)

    # --- topics -------------------------------------------------------------------------------------
    def topic(self, name: str) -> Topic:
        return self.store.topics.get(name)

    def stored(self, name: str) -> Overview | None:
        """The stored overview of a topic, as it was built; None when there is none yet."""
        return self.stored_of(self.topic(name))

    def stored_of(self, topic: Topic) -> Overview | None:
        """The stored overview of a topic already looked up."""
        row = self.overviews.get(topic.slug)
        return _from_stored(row) if row else None

    def new_since(self, overview: Overview) -> list[str]:
        """Papers of the topic that the overview was not built from."""
        built = set(overview.paper_ids)
        return [pid for pid in self.store.topics.paper_ids(overview.key) if pid not in built]

    def build(self, name: str) -> Overview:
        """Cluster the topic's papers afresh, write the overview, store it."""
        topic = self.topic(name)
        ids = self._paper_ids(topic)
        kept, vectors = paper_vectors(self.store.catalog, self.store.vectors, ids)
        if not kept:
            raise NotFound(f"topic {topic.name!r} has no embedded papers: run `papertalk ingest` again")
        labels, clustering = choose_clusters(vectors)
        papers = self.store.catalog.get_many(kept)
        texts = [f"{papers[pid].title}. {papers[pid].abstract}" for pid in kept]
        themes = make_themes(kept, vectors, labels, texts)
        centre = vectors.mean(axis=0)
        scores = vectors @ unit(centre)
        order = np.argsort(-scores)[:CENTRAL_KEPT]
        state = {
            "centre": _floats(centre),
            "count": len(kept),
            "central": [[kept[i], round(float(scores[i]), 4)] for i in order],
            "clustering": {"method": "kmeans", "k": clustering.k, "silhouettes": clustering.silhouettes},
        }
        return self._write(topic, ids, themes, state)

    def refresh(self, name: str) -> tuple[Overview, Changes]:
        """Bring the stored overview up to date with the topic's papers, and say what changed."""
        topic = self.topic(name)
        row = self.overviews.get(topic.slug)
        if row is None:
            return self.build(name), Changes(previous_built_at=None)
        before = _from_stored(row)
        ids = self._paper_ids(topic)
        new = [pid for pid in ids if pid not in set(row.paper_ids)]
        gone = sorted(set(row.paper_ids) - set(ids))
        if not new and not gone:
            return before, Changes(previous_built_at=row.built_at)
        after, reclustered = self._update(topic, row, ids, new, gone)
        changes = _changes(before, after, new, gone)
        changes.reclustered = reclustered
        return after, changes

    def _update(
        self, topic: Topic, row: StoredOverview, ids: list[str], new: list[str], gone: list[str]
    ) -> tuple[Overview, bool]:
        """The overview with the new papers in their nearest themes (True: clustered again instead)."""
        themes = [Theme.from_dict(t) for t in row.themes]
        sizes = {t.theme_id: t.size for t in themes}
        kept, vectors = paper_vectors(self.store.catalog, self.store.vectors, new)
        drop_papers(themes, set(gone))
        added = assign(themes, kept, vectors)
        grew = any(len(a) > RECLUSTER_GROWTH * sizes[t] for t, a in added.items())
        if grew or len(new) + len(gone) > RECLUSTER_CHANGED * len(row.paper_ids):
            log.info("the topic changed a lot since its overview was built: clustering it again")
            return self.build(topic.name), True
        state = _updated_state(row.state, kept, vectors, set(gone))
        return self._write(topic, ids, themes, state), False

    def _paper_ids(self, topic: Topic) -> list[str]:
        ids = self.store.topics.paper_ids(topic.slug)
        if not ids:
            raise NotFound(
                f"topic {topic.name!r} has no indexed papers yet: add some with "
                f"`papertalk ingest-arxiv FILE --topic {topic.name!r}`"
            )
        return ids

    def _write(self, topic: Topic, ids: list[str], themes: list[Theme], state: dict[str, Any]) -> Overview:
        plan = TopicPlan(
            topic=topic.name,
            centre=unit(np.asarray(state["centre"], dtype=np.float32)),
            central=[pid for pid, _ in state["central"]],
            themes=themes,
            papers=len(ids),
        )
        answer, sections = self._text(plan)
        overview = Overview("topic", topic.slug, topic.name, answer.backend, _now(), ids, answer, sections, themes)
        self.overviews.save(_to_stored(overview, state))
        return overview

    def _text(self, plan: TopicPlan) -> tuple[Answer, list[Section]]:
        if self.settings.llm.backend == "openai":
            from assistant.overview_llm import generative_overview

            return generative_overview(self.settings, self.store.embedder, self.store.catalog, plan)
        return extractive_overview(self.store.catalog, self.sentence_embedder, plan)

    # --- one paper ----------------------------------------------------------------------------------
    def summarize(self, paper_id: str) -> Overview:
        from assistant.overview_summary import summarize_paper

        return summarize_paper(self.store, self.sentence_embedder, paper_id)


def _floats(vector: np.ndarray) -> list[float]:
    return [round(float(x), 6) for x in vector]


def _updated_state(state: dict[str, Any], kept: list[str], vectors: np.ndarray, gone: set[str]) -> dict[str, Any]:
    """The topic's centre moved by the new papers, and its central papers merged with theirs."""
    count = int(state["count"])
    centre = np.asarray(state["centre"], dtype=np.float32)
    if len(kept):
        centre = (centre * count + vectors.sum(axis=0)) / (count + len(kept))
    scores = vectors @ unit(centre) if len(kept) else np.zeros(0)
    central = [(pid, s) for pid, s in state["central"] if pid not in gone]
    central += [(pid, round(float(s), 4)) for pid, s in zip(kept, scores, strict=True)]
    central.sort(key=lambda p: -p[1])
    return {
        **state,
        "centre": _floats(centre),
        "count": count + len(kept) - len(gone),
        "central": [list(p) for p in central[:CENTRAL_KEPT]],
    }


def _changes(before: Overview, after: Overview, new: list[str], gone: list[str]) -> Changes:
    changes = Changes(previous_built_at=before.built_at, new_papers=new, removed_papers=gone)
    matched = match_themes(before.themes, after.themes)
    old_sizes = {t.theme_id: t.size for t in before.themes}
    fresh = set(new)
    for theme in after.themes:
        added = [pid for pid in theme.paper_ids if pid in fresh]
        old = matched.get(theme.theme_id)
        change = ThemeChange(theme.theme_id, theme.label, theme.size, old_sizes.get(old, 0) if old else 0, added)
        if old is None:
            changes.new_themes.append(change)
        elif added:
            changes.grown_themes.append(change)
    old_text = [s.text for s in before.answer.sentences]
    new_text = [s.text for s in after.answer.sentences]
    old_set, new_set = set(old_text), set(new_text)
    changes.sentences_added = [t for t in new_text if t not in old_set]
    changes.sentences_removed = [t for t in old_text if t not in new_set]
    return changes


def _to_stored(overview: Overview, state: dict[str, Any]) -> StoredOverview:
    content = {"answer": overview.answer.to_dict(), "sections": [vars(s) for s in overview.sections]}
    content["notes"] = overview.notes
    return StoredOverview(
        slug=overview.key,
        topic=overview.subject,
        backend=overview.backend,
        built_at=overview.built_at,
        paper_ids=overview.paper_ids,
        themes=[t.to_dict() for t in overview.themes],
        content=content,
        state=state,
    )


def _from_stored(row: StoredOverview) -> Overview:
    return Overview(
        kind="topic",
        key=row.slug,
        subject=row.topic,
        backend=row.backend,
        built_at=row.built_at,
        paper_ids=row.paper_ids,
        answer=answer_from_dict(row.content["answer"]),
        sections=sections_from_dicts(row.content["sections"]),
        themes=[Theme.from_dict(t) for t in row.themes],
        notes=list(row.content.get("notes", [])),
    )
