"""The retrieved passages the sentence scorer is trained and measured on: each question of bench/pdf_qa.json and
of the QASPER slice asked of its own paper (Ask PDF's scope), with the passages the answerer would be given."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from assistant.service import Assistant
from assistant.types import Passage, Scope
from bench.bench_qasper import pdf_store, qasper_store
from bench.qa_harness import Question
from storage.store import Store

Retrieved = list[tuple[Question, list[Passage]]]


def sources_of(store: Store, questions: Sequence[Question]) -> Retrieved:
    assistant = Assistant(store)
    return [(q, assistant.sources(q.text, Scope(paper_id=q.paper_id))) for q in questions]


def retrieved() -> tuple[Any, dict[str, Retrieved]]:
    """The embedder, and the sources of every question of both sets (each set indexed afresh)."""
    store, _, questions, _, _ = pdf_store()
    pdf = sources_of(store, questions)
    qstore, qquestions = qasper_store()
    return store.embedder, {"pdf-qa": pdf, "qasper": sources_of(qstore, qquestions)}
