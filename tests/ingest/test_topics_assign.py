"""Topic assignment on a small real corpus (demo records, real embeddings, real Chroma and SQLite)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from ingest.arxiv_metadata import record_to_paper
from ingest.pipeline import Ingestor
from ingest.topic_assign import THRESHOLD, TopicAssigner
from papertalk.settings import Settings
from storage.store import Store
from tests.helpers.topics import demo_records_by_id

# Demo records whose topic a reader sees from the title and abstract (how many such papers assignment finds
# is measured by bench/bench_topics.py; these check the mechanism end to end).
EXPECTED = {
    "retrieval-augmented-generation": ["2604.09666", "2501.15228", "2604.09508"],
    "web-and-gui-agents": ["2504.10458", "2601.09770", "2603.17441"],
    "llm-recommendation": ["2412.12464", "2603.21613"],
    "llm-safety": ["2602.06854", "2501.14250"],
    "embodied-agents": ["2503.12122", "2603.16673"],
    "code-agents": ["2504.02605"],
}
UNRELATED = [
    ("retrieval-augmented-generation", "web-and-gui-agents"),
    ("web-and-gui-agents", "retrieval-augmented-generation"),
    ("llm-recommendation", "embodied-agents"),
    ("embodied-agents", "llm-recommendation"),
    ("llm-safety", "code-agents"),
    ("code-agents", "llm-recommendation"),
]


@pytest.fixture(scope="module")
def topic_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    store = Store(Settings(data_dir=tmp_path_factory.mktemp("topics") / "data"))
    records = demo_records_by_id({pid for ids in EXPECTED.values() for pid in ids})
    report = Ingestor(store).run(record_to_paper(r) for r in records)
    assert report.added == len(records) == 13
    TopicAssigner(store).assign_new(report.paper_ids)
    yield store
    store.close()


def _members(store: Store, slug: str) -> set[str]:
    return set(store.topics.paper_ids(slug))


@pytest.mark.parametrize("slug", sorted(EXPECTED))
def test_papers_land_in_their_topic(topic_store: Store, slug: str) -> None:
    assert set(EXPECTED[slug]) <= _members(topic_store, slug)


@pytest.mark.parametrize(("slug", "other"), UNRELATED)
def test_papers_stay_out_of_unrelated_topics(topic_store: Store, slug: str, other: str) -> None:
    assert not set(EXPECTED[slug]) & _members(topic_store, other)


def test_every_paper_shows_its_two_best_topics(topic_store: Store) -> None:
    ids = [pid for ids in EXPECTED.values() for pid in ids]
    assigner = TopicAssigner(topic_store)
    thresholds = dict(zip(assigner.slugs, assigner.thresholds, strict=True))
    assert thresholds["rl-for-llm-agents"] == 0.6 and thresholds["code-agents"] == THRESHOLD
    tags = topic_store.topics.tags_of(ids)
    for pid in ids:
        stored = topic_store.topics.scores_of(pid)
        assert len(stored) >= 2 and all(r.assigned == (r.score >= thresholds[r.slug]) for r in stored)
        best = [r.slug for r in stored if r.assigned][:2]
        assert [t.slug for t in tags[pid]] == best
        assert all(t.score is not None for t in tags[pid])


def test_assign_new_scores_only_papers_not_scored_at_their_content(topic_store: Store) -> None:
    assigner = TopicAssigner(topic_store)
    ids = [pid for ids in EXPECTED.values() for pid in ids]
    assert assigner.assign_new(ids).papers == 0
    changed = replace(
        record_to_paper(demo_records_by_id({"2412.12464"})[0]),
        title="A jailbreak attack on LLM recommender systems",
    )
    Ingestor(topic_store).run([changed])
    report = assigner.assign_new(ids)
    assert report.papers == 1
    assert topic_store.topics.unscored(ids) == []


def test_tags_given_at_ingest_stay_whatever_the_scores(topic_store: Store) -> None:
    slug = "web-and-gui-agents"
    robot = EXPECTED["embodied-agents"][0]
    topic_store.topics.assign(slug, [robot])
    TopicAssigner(topic_store).assign_all()
    assert robot in _members(topic_store, slug)
    assert any(t.slug == slug and t.score is None for t in topic_store.topics.tags_of([robot], limit=5)[robot])
    topic_store.catalog.transaction([("DELETE FROM paper_topics WHERE paper_id = ?", (robot,))])


def test_a_topic_defined_by_example_papers(topic_store: Store, tmp_path: Path) -> None:
    from assistant.topics import TopicService

    service = TopicService(topic_store)
    examples = EXPECTED["llm-safety"]
    definition = service.add("Jailbreaking", examples=examples)
    assert definition.examples == tuple(examples) and definition.origin == "user"
    report = TopicAssigner(topic_store).assign_all()
    assert report.topics == len(topic_store.topics.definitions())
    members = _members(topic_store, "jailbreaking")
    assert set(examples) <= members
    assert not members & set(EXPECTED["web-and-gui-agents"] + EXPECTED["embodied-agents"])
    assert not topic_store.topics.stale()


def test_keyword_evidence_whole_words_plurals_and_case_sensitive_acronyms() -> None:
    from ingest.topic_assign import Evidence
    from storage.topics import TopicDef

    rl = TopicDef("rl", "RL", keywords=("RL", "reinforcement learning", "GRPO"), categories=("cs.LG",))
    gui = TopicDef("gui", "GUI", keywords=("GUI agent", "GUI agents", "browser"))
    evidence = Evidence([rl, gui])
    texts = [
        "We train GUI agents with GRPO, a reinforcement learning (RL) method.",
        "A world model controls the gRPC client; our browsers are slow.",  # no RL, GRPO; plural browsers
        "Reinforcement Learning for control. The url and rl are lower case.",
    ]
    hits = evidence.keyword_hits(texts)
    assert hits.tolist() == [[3, 1], [0, 1], [1, 0]]
    assert evidence.category_match([["cs.LG", "cs.AI"], ["cs.CL"]]).tolist() == [[1, 0], [0, 0]]
