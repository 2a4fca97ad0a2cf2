"""The fusion of dense and keyword rankings: RRF, normalisations, the convex combination, paper-level scores."""

import math

import pytest

from assistant.fusion import by_paper, convex_fuse, fuse, minmax, normalized, rrf_fuse, zscore
from assistant.retrieval import HybridRetriever
from assistant.types import Scope
from papertalk.settings import RetrievalSettings
from storage.store import Store


def test_rrf_sums_weight_over_k_plus_rank() -> None:
    fused = dict(rrf_fuse([(1.0, ["a", "b"]), (2.0, ["b", "c"])], k=1))
    assert fused == pytest.approx({"a": 1 / 2, "b": 1 / 3 + 2 / 2, "c": 2 / 3})
    assert [i for i, _ in rrf_fuse([(1.0, ["a"]), (0.0, ["z"])], k=60)] == ["a"]  # weight 0: left out


def test_minmax_maps_best_to_one_and_worst_to_zero() -> None:
    assert minmax([4.0, 3.0, 2.0]) == [1.0, 0.5, 0.0]
    assert minmax([7.0]) == [1.0] and minmax([2.0, 2.0]) == [1.0, 1.0]  # one candidate, or ties: each the best
    assert minmax([]) == []


def test_zscore_counts_standard_deviations_from_the_mean() -> None:
    assert zscore([3.0, 1.0]) == [1.0, -1.0]  # mean 2, population std 1
    assert zscore([4.0, 2.0, 0.0]) == pytest.approx([math.sqrt(1.5), 0.0, -math.sqrt(1.5)])
    assert zscore([5.0, 5.0]) == [0.0, 0.0] and zscore([]) == []


def test_a_missing_id_gets_the_lists_lowest_normalised_score() -> None:
    scores, floor = normalized([("a", 3.0), ("b", 1.0)], "zscore")
    assert scores == {"a": 1.0, "b": -1.0} and floor == -1.0
    assert normalized([("a", 3.0), ("b", 1.0)], "minmax")[1] == 0.0


def test_convex_combines_normalised_scores() -> None:
    dense = [("a", 0.9), ("b", 0.7), ("c", 0.5)]  # min-max 1, 0.5, 0
    keyword = [("c", 12.0), ("b", 8.0), ("d", 2.0)]  # min-max 1, 0.6, 0
    fused = dict(convex_fuse(dense, keyword, 0.75))
    assert fused == pytest.approx({"a": 0.75, "b": 0.75 * 0.5 + 0.25 * 0.6, "c": 0.25, "d": 0.0})
    order = [i for i, _ in convex_fuse(dense, keyword, 0.25)]
    assert order == ["c", "b", "a", "d"]  # c 0.75, b 0.125 + 0.45, a 0.25, d 0


def test_convex_weight_one_or_zero_is_one_ranking_alone() -> None:
    dense, keyword = [("a", 0.9), ("b", 0.1)], [("b", 5.0), ("c", 3.0), ("d", 1.0)]
    assert [i for i, _ in convex_fuse(dense, keyword, 1.0)][:2] == ["a", "b"]
    assert [i for i, _ in convex_fuse(dense, keyword, 0.0)][:2] == ["b", "c"]  # then a and d, both 0


def test_convex_with_no_keyword_match_ranks_by_dense_alone() -> None:
    assert convex_fuse([("a", 0.9), ("b", 0.5)], [], 0.5) == [("a", 0.5), ("b", 0.0)]
    assert convex_fuse([], [], 0.5) == []


def test_by_paper_gives_each_chunk_its_papers_best_or_total_score() -> None:
    keyword = [("p1#0", 5.0), ("p2#0", 4.0), ("p2#1", 3.0)]
    assert by_paper(keyword, "max") == [("p1#0", 5.0), ("p2#0", 4.0), ("p2#1", 4.0)]
    assert by_paper(keyword, "sum") == [("p2#0", 7.0), ("p2#1", 7.0), ("p1#0", 5.0)]


def test_fuse_follows_the_settings() -> None:
    dense, keyword = [("a", 0.9), ("b", 0.8)], [("b", 3.0), ("a", 1.0)]
    rrf = RetrievalSettings(fusion="rrf", rrf_k=1, dense_weight=1.0, keyword_weight=1.0)
    assert fuse(dense, keyword, rrf) == rrf_fuse([(1.0, ["a", "b"]), (1.0, ["b", "a"])], 1)
    convex = RetrievalSettings(fusion="convex", convex_dense_weight=0.6, normalization="minmax")
    assert fuse(dense, keyword, convex) == [("a", pytest.approx(0.6)), ("b", pytest.approx(0.4))]
    assert fuse(dense, keyword, convex.model_copy(update={"convex_dense_weight": 0.4}))[0][0] == "b"


@pytest.mark.parametrize("fusion", ["rrf", "convex"])
def test_the_retriever_runs_each_fusion(corpus: Store, fusion: str) -> None:
    settings = corpus.settings.retrieval.model_copy(update={"fusion": fusion})
    passages = HybridRetriever(corpus, settings).retrieve("How many papers does the S2ORC corpus contain?", k=5)
    assert passages and passages[0].title.startswith("S2ORC")
    assert [p.score for p in passages] == sorted((p.score for p in passages), reverse=True)


def test_one_paper_questions_use_the_single_paper_fusion() -> None:
    dense, keyword = [("a", 0.9), ("b", 0.8)], [("b", 3.0), ("a", 1.0)]
    settings = RetrievalSettings(fusion="convex", single_paper_fusion="rrf", rrf_k=1)
    assert fuse(dense, keyword, settings, one_paper=True) == rrf_fuse([(1.0, ["a", "b"]), (1.0, ["b", "a"])], 1)
    assert fuse(dense, keyword, settings) == convex_fuse(dense, keyword, settings.convex_dense_weight)


def test_the_retriever_fuses_by_rank_inside_one_paper_and_by_score_across_papers(corpus: Store) -> None:
    settings = RetrievalSettings(fusion="convex", single_paper_fusion="rrf")  # the defaults, spelt out
    retriever = HybridRetriever(corpus, settings)
    question = "How many papers does the S2ORC corpus contain?"
    pid = retriever.retrieve(question, k=1)[0].paper_id
    inside = retriever.retrieve(question, Scope(paper_id=pid), k=5)
    rrf_ceiling = (settings.dense_weight + settings.keyword_weight) / (settings.rrf_k + 1)  # first in both lists
    assert inside and all(p.score <= rrf_ceiling for p in inside)
    across = retriever.retrieve(question, k=5)
    assert across[0].score > rrf_ceiling  # a convex score: the weight of the list(s) it tops, in [0, 1]
    assert all(0.0 <= p.score <= 1.0 for p in across)
