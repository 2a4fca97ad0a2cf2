"""The retrieval benchmark's metrics and fusion variants, on rankings worked out by hand."""

import json
import math
from pathlib import Path

import pytest

from bench.bench_scifact import load_beir, main
from bench.fusion_eval import (
    Convex,
    Fusion,
    evaluate,
    grid,
    ndcg,
    paper_run,
    papers_of,
    recall,
    tune,
    tune_convex,
    tune_rrf,
)


def ranked(*ids: str) -> list[tuple[str, float]]:
    """A run in the given order, scores falling by one per rank (RRF reads only the order)."""
    return [(item, float(len(ids) - i)) for i, item in enumerate(ids)]


def test_ndcg_matches_the_definition() -> None:
    assert ndcg(["a", "x", "b"], {"a": 1, "b": 1}) == pytest.approx(1.5 / (1 + 1 / math.log2(3)))
    assert ndcg(["b", "a"], {"a": 2, "b": 1}) == pytest.approx((1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert ndcg(["a", "b"], {"a": 1}) == 1.0
    assert ndcg(["x"] * 10 + ["a"], {"a": 1}) == 0.0  # past the cut


def test_recall_counts_relevant_ids_within_the_cut() -> None:
    assert recall(["a", "x", "b"], {"a": 1, "b": 1, "c": 1, "z": 0}) == pytest.approx(2 / 3)
    assert recall(["x"] * 100 + ["a"], {"a": 1}) == 0.0


def test_evaluate_scores_a_query_without_ranking_as_zero() -> None:
    scores = evaluate({"q1": ["a"]}, {"q1": {"a": 1}, "q2": {"b": 1}})
    assert (scores.ndcg10, scores.recall100, scores.queries) == (0.5, 0.5, 2)


def test_papers_of_keeps_each_papers_best_chunk() -> None:
    assert papers_of(["p2#h#0001", "p1#h#0000", "p2#h#0000", "p3"]) == ["p2", "p1", "p3"]


def test_chunk_sum_rewards_papers_with_several_matching_chunks() -> None:
    dense, keyword = ranked("p1#0", "p2#0", "p2#1"), ranked("p2#2", "p1#0")
    # fused chunks (k=1): p1#0 1/2+1/3, p2#2 1/2, p2#0 1/3, p2#1 1/4
    assert Fusion("chunk", 10, 1, 1.0).rank(dense, keyword) == ["p1", "p2"]
    assert Fusion("chunk-sum", 10, 1, 1.0).rank(dense, keyword) == ["p2", "p1"]


def test_paper_level_fusion_ranks_papers_before_fusing() -> None:
    dense, keyword = ranked("p3#0", "p3#1", "p3#2", "p1#0"), ranked("p2#0", "p1#1")
    # chunk level: p3#0 and p2#0 score 1/2, p1's best chunk 1/3; paper level: p1 is 2nd in both lists
    assert Fusion("chunk", 10, 1, 1.0).rank(dense, keyword)[-1] == "p1"
    assert Fusion("paper", 10, 1, 1.0).rank(dense, keyword)[0] == "p1"


def test_candidates_cut_each_ranking_and_weights_tip_the_balance() -> None:
    dense, keyword = ranked("p1#0", "p2#0"), ranked("p2#0", "p3#0")
    assert Fusion("chunk", 1, 60, 1.0).rank(dense, keyword) == ["p1", "p2"]
    assert Fusion("chunk", 2, 60, 1.0).rank(dense, keyword)[0] == "p2"
    assert Fusion("chunk", 1, 60, 0.5).rank(dense, keyword) == ["p2", "p1"]


def test_tune_puts_the_best_fusion_first() -> None:
    runs = {"q": (ranked("p1#0", "p2#0"), ranked("p2#0", "p1#0"))}
    results = tune(grid(["chunk"], [10], [1], [0.5, 2.0]), runs, {"q": {"p1": 1}})
    assert results[0][0].dense_weight == 2.0
    assert results[0][1].ndcg10 == 1.0 > results[1][1].ndcg10


def test_paper_run_keeps_each_papers_best_chunk_score() -> None:
    assert paper_run([("p1#1", 0.9), ("p2#0", 0.8), ("p1#0", 0.7)]) == [("p1", 0.9), ("p2", 0.8)]


def test_convex_weighs_normalised_scores_and_cuts_candidates() -> None:
    # min-max: dense p1 1, p2 0; keyword p2 1, p3 0.5, p1 0 -> at weight 0.6: p1 0.6, p2 0.4, p3 0.2
    dense, keyword = [("p1#0", 0.9), ("p2#0", 0.5)], [("p2#0", 10.0), ("p3#0", 6.0), ("p1#0", 2.0)]
    assert Convex(10, 0.6).rank(dense, keyword) == ["p1", "p2", "p3"]
    assert Convex(10, 0.4).rank(dense, keyword) == ["p2", "p1", "p3"]  # p1 0.4, p2 0.6, p3 0.3
    # cut at 2: keyword p2 1, p3 0, p1 missing (0) -> at 0.4: p2 0.6, p1 0.4, p3 0
    assert Convex(2, 0.4).rank(dense, keyword) == ["p2", "p1", "p3"]


def test_convex_paper_keyword_scores_lift_a_paper_matched_in_several_chunks() -> None:
    dense = [("p1#0", 0.8), ("p2#0", 0.78), ("p2#1", 0.6)]  # min-max: 1, 0.9, 0
    keyword = [("p1#0", 5.0), ("p2#0", 4.0), ("p2#1", 3.0), ("p3#0", 1.0)]
    # chunk scores, min-max 1, 0.75, 0.5, 0: p1#0 0.5 + 0.5 beats p2#0 0.45 + 0.375
    assert Convex(10, 0.5).rank(dense, keyword)[0] == "p1"
    # paper-sum: p2's chunks both score 7 (min-max 1), p1's 5 (4/6): p2#0 0.45 + 0.5 beats p1#0 0.5 + 0.333
    assert Convex(10, 0.5, keyword="paper-sum").rank(dense, keyword)[0] == "p2"
    assert Convex(10, 0.5, keyword="paper-max").rank(dense, keyword)[0] == "p1"


def test_tuning_by_family_finds_the_weight_that_ranks_the_relevant_paper_first() -> None:
    runs = {"q": ([("p1#0", 0.9), ("p2#0", 0.8)], [("p2#0", 9.0), ("p1#0", 1.0)])}
    qrels = {"q": {"p2": 1}}
    best, scores = tune_convex("chunk", ["chunk"], runs, qrels, [50, 100], [0.0, 0.5, 1.0])
    assert scores.ndcg10 == 1.0 and best.dense_weight < 1.0
    rrf, rrf_scores = tune_rrf("chunk", runs, qrels, [50, 100], [1, 60], [0.5, 1.0, 2.0])
    assert rrf_scores.ndcg10 == 1.0 and rrf.dense_weight == 0.5


def test_load_beir_reads_the_beir_layout(tmp_path: Path) -> None:
    (tmp_path / "qrels").mkdir()
    docs = [{"_id": "11", "title": "T", "text": "abstract"}, {"_id": 12, "text": "no title"}]
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (tmp_path / "queries.jsonl").write_text(json.dumps({"_id": "1", "text": "a claim"}) + "\n")
    for split, line in (("train", "1\t11\t1"), ("test", "1\t12\t2")):
        (tmp_path / "qrels" / f"{split}.tsv").write_text(f"query-id\tcorpus-id\tscore\n{line}\n")
    beir = load_beir(tmp_path)
    assert beir.corpus == {"scifact-11": ("T", "abstract"), "scifact-12": ("", "no title")}
    assert beir.queries == {"1": "a claim"}
    assert beir.qrels == {"train": {"1": {"scifact-11": 1}}, "test": {"1": {"scifact-12": 2}}}


def test_the_benchmark_skips_cleanly_without_the_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--data", str(tmp_path / "missing"), "--no-record"])
    assert exit_info.value.code == 0
    assert "skipped" in capsys.readouterr().out
