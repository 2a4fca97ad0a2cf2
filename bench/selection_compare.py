"""Today's extractive answers against the question-aware ones, on the same questions and the same retrieval run.

Each question is retrieved once, with twice top_k passages in retrieval order; then every configuration
answers from them: the first top_k passages (retrieval as it was) or the top_k the sentence-based rerank
keeps (bench/passage_rerank.py), answered by today's keyword-prefiltered scorer or the learned one.

Measures (over questions with text evidence): evidence recall@5 and evidence quoted as in bench/qa_harness.py;
first citation on a gold page: the answer's first citation cites a page range holding a gold evidence
paragraph (at least half of its word 4-grams); abstentions on answerable and unanswerable questions at the
current abstain_below.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from assistant.extractive import ExtractiveAnswerer, Scorer
from assistant.passages import distinct_sources
from assistant.service import Assistant
from assistant.stored_sentences import stored_lookup
from assistant.types import Answer, Passage, Scope
from bench.common import markdown_table
from bench.passage_rerank import RERANK_POOL, rerank
from bench.qa_harness import Question, covers, evidence_recall, quotes_evidence, shingles
from storage.records import Paper
from storage.store import Store

CONFIGS: tuple[tuple[str, bool, Scorer], ...] = (
    ("**retrieval order, keyword-prefiltered scorer with answer-type nudges** (defaults)", False, "keyword"),
    ("retrieval order, learned scorer", False, "learned"),
    ("sentence rerank, keyword-prefiltered scorer with answer-type nudges", True, "keyword"),
    ("sentence rerank, learned scorer", True, "learned"),
)


@dataclass
class Run:
    name: str
    sources: list[list[Passage]]
    answers: list[Answer]
    seconds: float  # answering time per question (rerank + answer), mean


def pools(store: Store, questions: Sequence[Question]) -> list[list[Passage]]:
    assistant = Assistant(store)
    k = store.settings.retrieval.top_k * RERANK_POOL
    return [assistant.retriever.retrieve(q.text, Scope(paper_id=q.paper_id), k) for q in questions]


def _numbered(store: Store, passages: list[Passage]) -> list[Passage]:
    out = distinct_sources([Passage(**vars(p)) for p in passages], store.catalog)
    for n, p in enumerate(out, start=1):
        p.number = n
    return out


def runs(
    store: Store,
    questions: Sequence[Question],
    pooled: list[list[Passage]],
    configs: Sequence[tuple[str, bool, Scorer]] = CONFIGS,
    stored: bool = True,
) -> list[Run]:
    """`stored`: read the sentence vectors ingest stored (as papertalk does), else embed at question time."""
    top_k = store.settings.retrieval.top_k
    lookup = stored_lookup(store.sentence_vectors) if stored else None
    out = []
    for name, reranked, scorer in configs:
        answerer = ExtractiveAnswerer(store.embedder, store.settings.answer, scorer, lookup)
        sources, answers, started = [], [], time.perf_counter()
        for q, pool in zip(questions, pooled, strict=True):
            kept = rerank(q.text, pool, top_k) if reranked else pool[:top_k]
            numbered = _numbered(store, kept)
            sources.append(numbered)
            answers.append(answerer.answer(q.text, q.text, numbered))
        out.append(Run(name, sources, answers, (time.perf_counter() - started) / max(1, len(questions))))
    return out


def gold_pages(question: Question, paper: Paper) -> set[int]:
    evidence = [e for e in (shingles(t) for r in question.references for t in r.evidence) if e]
    return {n for n, page in enumerate(paper.pages, start=1) if any(covers(shingles(page), e) for e in evidence)}


def first_page_right(answer: Answer, pages: set[int]) -> bool:
    if answer.abstained or not answer.sentences or not answer.sentences[0].citations:
        return False
    c = answer.sentences[0].citations[0]
    if c.page_start is None:
        return False
    return any(c.page_start <= p <= (c.page_end or c.page_start) for p in pages)


def _share(flags: Sequence[bool]) -> str:
    return f"{sum(flags)}/{len(flags)} ({100 * sum(flags) / len(flags):.0f}%)" if flags else "-"


def row(run: Run, questions: Sequence[Question], papers: dict[str, Paper]) -> list[object]:
    idx = [i for i, q in enumerate(questions) if any(r.evidence for r in q.references)]
    recalls = [evidence_recall(questions[i].references, run.sources[i], 5) for i in idx]
    found = [r for r in recalls if r is not None]
    quoted = [quotes_evidence(questions[i].references, run.answers[i]) for i in idx]
    pages = [first_page_right(run.answers[i], gold_pages(questions[i], papers[questions[i].paper_id])) for i in idx]
    answerable = [run.answers[i].abstained for i, q in enumerate(questions) if q.answerable]
    unanswerable = [run.answers[i].abstained for i, q in enumerate(questions) if q.unanswerable]
    recall = sum(found) / len(found) if found else 0.0
    return [run.name, recall, _share([bool(q) for q in quoted if q is not None]), _share(pages),
            _share(answerable), _share(unanswerable), 1000 * run.seconds]  # fmt: skip


def table(store: Store, questions: Sequence[Question], papers: Sequence[Paper]) -> str:
    by_id = {p.paper_id: p for p in papers}
    results = runs(store, questions, pools(store, questions))
    headers = ["configuration", "evidence recall@5", "evidence quoted", "first citation on a gold page",
               "abstained, answerable", "abstained, unanswerable", "ms per question"]  # fmt: skip
    return markdown_table(headers, [row(r, questions, by_id) for r in results], digits=3)
