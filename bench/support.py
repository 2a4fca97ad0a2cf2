"""Support scores for the citation check, computed as assistant/citations.py computes them.

Sentence level: a claim against each sentence of its cited abstract (or passage): cosine of the full-length
embeddings clipped to [0, 1], mixed with the claim's IDF-weighted term overlap (IDF over the abstract's
sentences) by semantic_weight; the mix of `CitationChecker`. Passage level: the checker itself, run on
"claim [1]" with the abstract as source [1] (positive) and with the abstract minus its rationale sentences
(negative): the support it reports is the best sentence's score, which is what the threshold is applied to.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from assistant.citations import MIN_SOURCE_SENTENCE, CitationChecker
from assistant.scoring import idf_weights, mix, overlap, terms
from assistant.types import Passage
from bench.common import shared_dir
from bench.eval_data import Claim, half, scifact_claims, scifact_sentences
from bench.qa_harness import Question, covers, shingles
from bench.thresholds import Sample
from ingest.sentences import split_sentences
from papertalk.settings import AnswerSettings
from storage.embeddings import embed_texts
from storage.records import Paper

log = logging.getLogger(__name__)
WINDOW = 6  # PDF-set claims: sentences kept on each side of the evidence, as the claim's "abstract"


def sentence_scores(embedder: BaseEmbedding, claim: str, sentences: Sequence[str], weight: float) -> list[float]:
    vectors = embed_texts(embedder, [claim, *sentences])
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    sims = np.clip(vectors[1:] @ vectors[0], 0.0, 1.0)
    pool = terms(list(sentences))
    idf = idf_weights(pool)
    claim_terms = terms([claim])[0]
    return [float(mix(float(s), overlap(claim_terms, t, idf), weight)) for s, t in zip(sims, pool, strict=True)]


def sentence_samples(embedder: BaseEmbedding, claims: Sequence[Claim], weight: float, label: str) -> list[Sample]:
    """Rationale sentences are positives, the abstract's other sentences negatives."""
    out = []
    for claim in claims:
        for i, score in enumerate(sentence_scores(embedder, claim.text, claim.sentences, weight)):
            positive = i in claim.rationale
            out.append(Sample(score, positive, f"{label}: {'rationale' if positive else 'other'}", claim.split))
    return out


def passage_support(checker: CitationChecker, claim: str, sentences: Sequence[str]) -> float:
    source = Passage("bench", "bench", "", [], None, None, None, None, " ".join(sentences), number=1)
    answer = checker.check(claim, claim, f"{claim} [1]", [source], "bench")
    return max((s.support or 0.0 for s in answer.sentences if s.citations), default=0.0)


def passage_samples(
    embedder: BaseEmbedding, claims: Sequence[Claim], settings: AnswerSettings, label: str
) -> list[Sample]:
    """Per claim: the abstract as cited source (positive) and the abstract without its rationale (negative)."""
    checker = CitationChecker(embedder, settings)
    out = []
    for claim in claims:
        rest = [s for i, s in enumerate(claim.sentences) if i not in claim.rationale]
        out.append(Sample(passage_support(checker, claim.text, claim.sentences), True, f"{label}: with", claim.split))
        if len(rest) >= 2:
            score = passage_support(checker, claim.text, rest)
            out.append(Sample(score, False, f"{label}: without", claim.split))
    return out


def scifact_set() -> tuple[list[Claim], str]:
    folder = shared_dir() / "data" / "eval" / "scifact"
    if not folder.exists():
        return [], f"SciFact not found at {folder}, left out"
    corpus = [p for p in (folder / "beir" / "corpus.jsonl",) if p.exists()]
    corpus += [p for p in (folder / "hf_csv").glob("*corpus*") if p.suffix in (".csv", ".jsonl", ".json")]
    sentences = scifact_sentences(*corpus)
    claims = [c for c in scifact_claims(folder / "hf_csv") if c.doc_id in sentences]
    for claim in claims:
        claim.sentences = sentences[claim.doc_id]
        claim.rationale = {i for i in claim.rationale if i < len(claim.sentences)}
    note = (
        f"SciFact: {len(claims)} (claim, abstract) pairs with SUPPORT rationales "
        "(train claims for calibration, dev claims held out)"
    )
    return claims, note


def pdf_claims(papers: Sequence[Paper], questions: Sequence[Question], claims: dict[str, str]) -> list[Claim]:
    """PDF-set claims; a claim's "abstract" is the sentences around its evidence in the paper's text."""
    text = {p.paper_id: "\n\n".join(p.pages) for p in papers}
    out = []
    for q in questions:
        if not q.answerable or not claims.get(q.qid):
            continue
        sentences = [s.text for s in split_sentences(text[q.paper_id]) if len(s.text) >= MIN_SOURCE_SENTENCE]
        evidence = [shingles(e) for e in q.references[0].evidence]
        hits = [i for i, s in enumerate(sentences) if any(covers(shingles(s), e) for e in evidence)]
        if not hits:
            log.warning("evidence of %s not found in its paper", q.qid)
            continue
        low = max(0, min(hits) - WINDOW)
        window = sentences[low : max(hits) + WINDOW + 1]
        out.append(Claim(q.qid, claims[q.qid], q.qid, {i - low for i in hits}, half(q.qid), window))
    return out
