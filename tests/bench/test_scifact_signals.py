"""Fusing more than two rankings per paper (bench/scifact_signals.py), checked against papertalk's own fusion."""

import numpy as np
import pytest

from bench.fusion_eval import Convex, evaluate
from bench.keyword_runs import Feedback, LocalBM25
from bench.scifact_signals import ChunkMatrix, Combo, claims_of, evaluate_combo, normalised, tune_set, weight_grid


def test_weight_grid_holds_every_positive_split_summing_to_one() -> None:
    grid = weight_grid(3, 0.25)
    assert grid.shape == (3, 3)  # (0.25, 0.25, 0.5) in each order
    assert np.allclose(grid.sum(axis=0), 1.0) and (grid > 0).all()
    assert weight_grid(2).shape == (2, 19)


@pytest.mark.parametrize("norm", ["minmax", "zscore"])
@pytest.mark.parametrize("weight", [0.2, 0.45, 0.8])
def test_two_rankings_score_as_papertalks_paper_level_convex_fusion(norm: str, weight: float) -> None:
    rng = np.random.default_rng(7)
    papers = [f"p{i}" for i in range(60)]
    dense = rng.random((12, 60)).astype(np.float32)
    keyword = np.where(rng.random((12, 60)) < 0.5, rng.random((12, 60)) * 9, 0.0).astype(np.float32)
    qrels = {f"q{q}": {papers[j]: 1 + (j % 2) for j in rng.choice(60, 3, replace=False)} for q in range(12)}
    claims = claims_of(list(qrels), papers, qrels)
    signals = {"dense max": dense, "BM25 chunk": keyword}
    rows = np.arange(12)
    got = evaluate_combo(signals, Combo(("dense max", "BM25 chunk"), (weight, 1 - weight), norm, 20), claims, rows)

    def run(scores: np.ndarray) -> list[tuple[str, float]]:
        order = np.argsort(-scores)[:20]
        return [(papers[i], float(scores[i])) for i in order if scores[i] > 0]

    fusion = Convex(20, weight, norm, level="paper")  # type: ignore[arg-type]
    want = evaluate({q: fusion.rank(run(dense[i]), run(keyword[i])) for i, q in enumerate(qrels)}, qrels)
    assert got.ndcg10 == pytest.approx(want.ndcg10) and got.recall100 == pytest.approx(want.recall100)


def test_tuning_finds_the_weights_that_rank_the_relevant_paper_first() -> None:
    papers = ["a", "b", "c"]
    # a wins on dense, b on keyword; the relevant paper b needs the keyword side to weigh more
    signals = {
        "dense max": np.array([[0.9, 0.5, 0.1]], np.float32),
        "BM25 chunk": np.array([[1.0, 3.0, 0.5]], np.float32),
    }
    claims = claims_of(["q"], papers, {"q": {"b": 1}})
    combo, scores = tune_set(signals, ("dense max", "BM25 chunk"), claims, np.arange(1), [("minmax", 3)])
    assert scores.ndcg10 == 1.0
    assert combo.weights[1] > 0.5 - 1e-6


def test_chunk_matrix_groups_chunks_by_paper() -> None:
    ids = ["p2#h#0001", "p1#h#0000", "p2#h#0000"]
    vectors = np.array([[0, 1], [1, 0], [0, 2]], dtype=np.float32)
    chunks = ChunkMatrix.of(["p1", "p2"], ids, vectors)
    assert chunks.ids == ["p1#h#0000", "p2#h#0000", "p2#h#0001"]
    assert chunks.paper_max(ids, np.array([[5.0, 1.0, 2.0]])).tolist() == [[1.0, 5.0]]
    assert np.allclose(chunks.means, [[1, 0], [0, 1]])


def test_rm3_scores_rank_as_rm3() -> None:
    texts = ["graph neural networks for molecules", "molecules in water", "neural machine translation", "graph theory"]
    index = LocalBM25([f"d{i}" for i in range(4)], texts)
    fb = Feedback(2, 5, 0.5)
    scores = index.rm3_scores("graph molecules", fb)
    assert [d for d, _ in index.rm3("graph molecules", 4, fb)] == [
        f"d{i}" for i in np.argsort(-scores) if scores[i] > 0
    ]
    assert not index.rm3_scores("zebra", fb).any()


def test_normalised_keeps_the_top_candidates_and_leaves_the_rest_out() -> None:
    scores = np.array([0.0, 4.0, 2.0, 3.0], np.float32)
    assert np.allclose(normalised(scores, "minmax", 2, False), [np.nan, 1.0, np.nan, 0.0], equal_nan=True)
    # more candidates than papers; a keyword list leaves out papers without a match
    assert np.allclose(normalised(scores, "minmax", 100, True), [np.nan, 1.0, 0.0, 0.5], equal_nan=True)
