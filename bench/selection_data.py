"""Labelled sentences for the sentence scorer: SciFact rationales and single-paper questions with evidence.

One `Group` is one question (or claim) with its candidate sentences, each with the scorer's features and a
label (1 when the sentence is gold evidence). Used by bench/train_selection.py to fit and compare scorers.

- SciFact (shared/data/eval/scifact/original): each claim with rationales and each abstract it cites with
  evidence; the abstract's sentences are the candidates, the rationale sentences (supporting or
  contradicting) the positives. Train claims for training, dev claims (BEIR's test claims) for testing.
- Questions asked of one paper (bench/pdf_qa.json, QASPER): the sentences of the passages retrieved for the
  question are the candidates; a sentence is positive when at least half of its word 4-grams come from a gold
  evidence paragraph (`bench.qa_harness.covers`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from assistant.extractive import usable
from assistant.scoring import idf_weights, mix, overlap
from assistant.selection import Candidate, featurize, question_query
from assistant.types import Passage
from bench.qa_harness import Question, covers, shingles
from ingest.sentences import Sentence
from storage.embeddings import embed_texts


@dataclass
class Group:
    """One question's candidate sentences: features (the full set, dense last) and gold labels."""

    key: str
    source: str  # scifact, pdf-qa, qasper
    rows: list[list[float]] = field(default_factory=list)
    labels: list[int] = field(default_factory=list)
    baseline: list[float] = field(default_factory=list)  # today's score: 0.7 x dense + 0.3 x keyword overlap
    texts: list[str] = field(default_factory=list)


def _jsonl(path: Path) -> Iterator[dict]:
    with path.open(encoding="utf-8") as fh:
        yield from (json.loads(line) for line in fh if line.strip())


def _dense(embedder: BaseEmbedding, question: str, texts: Sequence[str]) -> np.ndarray:
    q = np.asarray(embedder.get_query_embedding(question), dtype=np.float32)
    return embed_texts(embedder, list(texts), short=True) @ q


def _finish(group: Group, question: str, cands: list[Candidate], labels: list[int], embedder: BaseEmbedding) -> Group:
    dense = _dense(embedder, question, [c.sentence.text for c in cands])
    q_terms = set(question_query(question, {}).terms)
    idf = idf_weights([set(c.context.terms) for c in cands])
    for cand, sim, label in zip(cands, dense, labels, strict=True):
        group.rows.append([*cand.features, float(sim)])
        group.labels.append(label)
        group.baseline.append(float(mix(float(sim), overlap(q_terms, set(cand.context.terms), idf), 0.7)))
        group.texts.append(cand.sentence.text)
    return group


def scifact_groups(folder: Path, split: str, embedder: BaseEmbedding, limit: int | None = None) -> list[Group]:
    """SciFact claims of `split` ("train" or "dev") against each abstract they cite with rationales."""
    corpus = {str(d["doc_id"]): d["abstract"] for d in _jsonl(folder / "corpus.jsonl")}
    groups = []
    for claim in list(_jsonl(folder / f"claims_{split}.jsonl"))[:limit]:
        for doc_id, sets in (claim.get("evidence") or {}).items():
            gold = {i for s in sets for i in s["sentences"]}
            sentences = corpus.get(str(doc_id), [])
            passage = _passage(" ".join(sentences))
            _, cands = featurize(claim["claim"], [passage], lambda s: bool(s.text.strip()))
            labels = [int(_index_of(c.sentence, sentences) in gold) for c in cands]
            if cands and any(labels):
                group = Group(f"{claim['id']}-{doc_id}", "scifact")
                groups.append(_finish(group, claim["claim"], cands, labels, embedder))
    return groups


def _index_of(sentence: Sentence, sentences: Sequence[str]) -> int:
    """Which abstract sentence `sentence` starts in (the abstract is its sentences joined by spaces)."""
    start = 0
    for i, text in enumerate(sentences):
        end = start + len(text) + 1
        if sentence.start < end:
            return i
        start = end
    return -1


def _passage(text: str) -> Passage:
    return Passage("c", "p", "", [], None, None, None, None, text)


def qa_groups(
    items: Sequence[tuple[Question, Sequence[Passage]]], source: str, embedder: BaseEmbedding, top_k: int = 8
) -> list[Group]:
    """Questions with text evidence against the sentences of their first `top_k` retrieved passages."""
    groups = []
    for question, passages in items:
        evidence = [e for e in (shingles(t) for r in question.references for t in r.evidence) if e]
        if not evidence:
            continue
        _, cands = featurize(question.text, list(passages[:top_k]), usable)
        labels = [int(any(covers(shingles(c.sentence.text), e) for e in evidence)) for c in cands]
        if cands:
            groups.append(_finish(Group(question.qid, source), question.text, cands, labels, embedder))
    return groups
