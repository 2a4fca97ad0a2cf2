"""Reorderings inside one paper (bench/pdf_rerank_eval.py): signals and orders on passages worked by hand."""

import numpy as np

from assistant.types import Passage
from bench.pdf_rerank_eval import Signals, coverage, neighbours, reordered, retrieval_row, rrf, with_neighbour
from bench.qa_harness import Question, Reference

EVIDENCE = "We hire freelancers with professional experience in English, creative writing, or education."


def chunk(ordinal: int, text: str, score: float = 0.0) -> Passage:
    return Passage(f"p#hash#{ordinal:04d}", "p", "t", [], None, None, 1, 1, text, score=score)


def signals_of(pool: list[Passage], **values: list[float]) -> Signals:
    reference = Reference("abstractive", "freelancers", (EVIDENCE,))
    question = Question("q1", "p", "Who annotated the summaries?", [reference])
    head = {name: np.array(v, dtype=float) for name, v in values.items()}
    head["rank"] = -np.arange(len(pool), dtype=float)
    head["score"] = np.array([p.score for p in pool])
    return Signals(question, pool, head)


def test_rank_alone_keeps_retrieval_order_and_a_strong_signal_moves_a_passage_up() -> None:
    pool = [chunk(i, f"passage number {i}") for i in range(4)]
    s = signals_of(pool, sentence=[0.1, 0.2, 0.3, 0.9])
    assert rrf(("rank", 1.0))(s) == [0, 1, 2, 3]
    assert rrf(("rank", 1.0), ("sentence", 2.0))(s)[0] == 3  # ranked 4th, but its signal is first by far
    assert [p.chunk_id for p in reordered(s, rrf(("rank", 1.0)))] == [p.chunk_id for p in pool]


def test_a_passage_gets_its_retrieved_neighbours_better_score_and_nothing_for_absent_ones() -> None:
    pool = [chunk(5, "a", 0.5), chunk(9, "b", 0.4), chunk(6, "c", 0.1), chunk(20, "d", 0.3)]
    assert neighbours(pool, pool).tolist() == [0.1, 0.0, 0.5, 0.0]
    s = signals_of(pool, neighbour=neighbours(pool, pool).tolist())
    assert with_neighbour(0.5)(s) == [0, 1, 2, 3]  # c: 0.1 + 0.25 stays below b (0.4)
    assert with_neighbour(0.8)(s) == [0, 2, 1, 3]  # c: 0.1 + 0.4 overtakes b (0.4) and d (0.3)


def test_coverage_weighs_the_question_terms_a_passage_holds_by_their_rarity() -> None:
    idf = {"annot": 3.0, "summari": 0.5, "who": 0.5}  # stemmed, as the keyword index stores them
    head = [chunk(0, "The summaries were long."), chunk(1, "Two people annotated every unit of the summaries.")]
    values = coverage("Who annotated the summaries?", head, idf)
    assert values.tolist() == [0.125, 0.875]  # "who" is in neither


def test_retrieval_row_counts_evidence_at_5_in_top_k_and_first() -> None:
    filler = [chunk(i, f"unrelated text about model training number {i}") for i in range(6)]
    gold = chunk(7, "Section B. " + EVIDENCE)
    s = signals_of([*filler, gold], sentence=[0, 0, 0, 0, 0, 0, 1.0])
    assert retrieval_row([s], rrf(("rank", 1.0)), 8) == (0.0, 1, 0, 1)  # 7th: in the top 8 only
    assert retrieval_row([s], rrf(("rank", 1.0), ("sentence", 3.0)), 8) == (1.0, 1, 0, 1)  # 2nd: ties rank 2-7
    assert retrieval_row([s], rrf(("rank", 1.0), ("sentence", 10.0)), 8) == (1.0, 1, 1, 1)
