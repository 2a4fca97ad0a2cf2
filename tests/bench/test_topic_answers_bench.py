"""The topic-question bench: its labelled questions are well formed, and an answer is judged by what it cites."""

from __future__ import annotations

import gzip
import json
from collections import Counter

from assistant.types import Answer, AnswerSentence, Citation, Passage
from bench.bench_topic_answers import judge, load_questions
from papertalk.demo import DEMO_METADATA


def test_every_gold_paper_is_a_demo_record_and_every_quote_is_its_own() -> None:
    with gzip.open(DEMO_METADATA, "rt", encoding="utf-8") as fh:
        records = {str(r["id"]): r for r in map(json.loads, fh)}
    questions = load_questions("all")
    assert len({q["id"] for q in questions}) == len(questions) == 60
    assert Counter(q["split"] for q in questions) == {"dev": 30, "test": 30}
    for q in questions:
        assert q["gold"], q["id"]
        for gold in q["gold"]:
            record = records[gold["paper_id"]]
            said = " ".join(f"{record['title']} {record['abstract']}".split())
            assert " ".join(gold["quote"].split()) in said, (q["id"], gold["paper_id"])


def _cite(paper: str, number: int) -> Citation:
    return Citation(number, f"{paper}#0", paper, None, None, 0, 1, "q", 0.5)


def test_an_answer_is_judged_by_the_papers_it_cites_first_and_in_all() -> None:
    question = {"id": "t", "split": "dev", "kind": "how", "question": "How?", "gold": [{"paper_id": "b"}]}
    sources = [Passage(f"{p}#0", p, p, [], None, None, None, None, "t") for p in ("a", "b", "c")]
    sentences = [AnswerSentence("one", [_cite("a", 1)]), AnswerSentence("two", [_cite("b", 2), _cite("a", 1)])]
    row = judge(question, Answer("How?", "How?", "", sentences, sources, "extractive"), {"b"}, 5.0)
    assert (row["reachable"], row["in_sources"], row["cited"], row["first"]) == (True, True, True, False)
    assert row["cited_papers"] == ["a", "b"] and row["precision"] == 0.5
    abstained = Answer("How?", "How?", "", sentences, sources, "extractive", abstained=True)
    assert judge(question, abstained, set(), 5.0)["cited"] is False
