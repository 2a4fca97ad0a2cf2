"""Themes: paper vectors read back from Chroma, k-means with a silhouette-chosen k, class-based TF-IDF names,
new papers joining their nearest theme, and old themes matched to new ones by shared papers."""

from __future__ import annotations

import numpy as np
import pytest

from assistant.themes import (
    Theme,
    assign,
    choose_clusters,
    distinctive_terms,
    k_candidates,
    make_themes,
    match_themes,
    unit,
)
from storage.paper_vectors import paper_vectors
from storage.store import Store
from tests.assistant.conftest import TOPIC


@pytest.fixture
def topic_vectors(corpus: Store) -> tuple[list[str], np.ndarray]:
    ids = corpus.topics.paper_ids(corpus.topics.get(TOPIC).slug)
    return paper_vectors(corpus.catalog, corpus.vectors, ids)


def test_paper_vector_is_the_unit_mean_of_its_chunk_vectors(corpus: Store) -> None:
    paper_id = next(p.paper_id for p in corpus.catalog.list_papers(limit=100) if p.n_chunks > 1)
    ids, matrix = paper_vectors(corpus.catalog, corpus.vectors, [paper_id, "no-such-paper"])
    assert ids == [paper_id]  # a paper without chunks is left out, not a zero row
    chunk_ids = [c.chunk_id for c in corpus.catalog.chunks_of(paper_id)]
    stored = np.asarray(corpus.vectors.collection.get(ids=chunk_ids, include=["embeddings"])["embeddings"])
    expected = stored.mean(axis=0) / np.linalg.norm(stored.mean(axis=0))
    assert np.allclose(matrix[0], expected, atol=1e-5)


def test_k_is_chosen_by_silhouette_within_the_range(topic_vectors: tuple[list[str], np.ndarray]) -> None:
    ids, vectors = topic_vectors
    labels, found = choose_clusters(vectors)
    assert len(labels) == len(ids) == 30
    assert set(found.silhouettes) == set(k_candidates(len(ids)))
    assert found.k == max(found.silhouettes, key=lambda k: found.silhouettes[k])
    assert set(labels.tolist()) == set(range(found.k))


def test_small_topics_get_few_themes_and_tiny_ones_one() -> None:
    assert k_candidates(2212) == list(range(4, 13))
    assert k_candidates(30) == [3]
    assert k_candidates(9) == []
    labels, found = choose_clusters(unit(np.random.default_rng(0).normal(size=(9, 8))))
    assert found.k == 1 and set(labels.tolist()) == {0}


def test_theme_names_are_the_terms_that_set_each_theme_apart() -> None:
    web = [f"A web agent navigates browser pages and clicks buttons on websites, case {i}." for i in range(5)]
    maths = [f"Math reasoning with chain of thought solves competition problems, case {i}." for i in range(5)]
    common = " Large language models are trained with reinforcement learning."
    names = distinctive_terms([t + common for t in web + maths], [0] * 5 + [1] * 5, 2)
    assert "web agent" in names[0] or "web" in names[0]
    assert any("math" in t for t in names[1])
    for terms in names:
        assert not {"large", "language", "reinforcement", "learning"} & set(" ".join(terms[:3]).split())
        assert "case" not in terms and "the" not in terms


def test_themes_hold_every_paper_once_most_central_first(
    corpus: Store, topic_vectors: tuple[list[str], np.ndarray]
) -> None:
    ids, vectors = topic_vectors
    labels, _ = choose_clusters(vectors)
    papers = corpus.catalog.get_many(ids)
    themes = make_themes(ids, vectors, labels, [f"{papers[p].title}. {papers[p].abstract}" for p in ids])
    members = [pid for t in themes for pid in t.paper_ids]
    assert sorted(members) == sorted(ids)
    assert [t.size for t in themes] == sorted((t.size for t in themes), reverse=True)
    for theme in themes:
        assert theme.scores == sorted(theme.scores, reverse=True)
        assert theme.terms, "every theme of a real corpus gets a name"


def test_a_new_paper_joins_its_nearest_theme_and_moves_its_centre() -> None:
    rng = np.random.default_rng(1)
    a, b = unit(rng.normal(size=16)), unit(rng.normal(size=16))
    themes = [
        Theme(1, ["a"], ["a1", "a2"], [0.9, 0.8], a.copy()),
        Theme(2, ["b"], ["b1"], [0.9], b.copy()),
    ]
    near_b = unit(b + 0.1 * rng.normal(size=16))
    added = assign(themes, ["new"], near_b[None, :])
    assert added == {2: ["new"]}
    assert themes[1].paper_ids[0] in {"b1", "new"} and set(themes[1].paper_ids) == {"b1", "new"}
    assert np.allclose(themes[1].centre, (b + near_b) / 2)
    assert themes[0].paper_ids == ["a1", "a2"]


def test_themes_are_matched_by_shared_papers_and_a_split_continues_once() -> None:
    centre = np.zeros(4, dtype=np.float32)
    old = [Theme(1, [], list("abcdef"), [0.0] * 6, centre), Theme(2, [], list("xyz"), [0.0] * 3, centre)]
    new = [
        Theme(1, [], [*"abcd", "n1"], [0.0] * 5, centre),  # most of old 1
        Theme(2, [], [*"ef", "n2", "n3"], [0.0] * 4, centre),  # the rest of old 1: new
        Theme(3, [], [*"xyz", "n4"], [0.0] * 4, centre),  # old 2 grown
    ]
    assert match_themes(old, new) == {1: 1, 3: 2}
