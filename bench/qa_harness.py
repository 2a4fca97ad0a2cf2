"""Single-paper question answering, measured: papers, questions with gold answers and evidence, and scores.

Shared by `bench.bench_qasper` (QASPER) and `bench.calibrate` (threshold calibration). A question is asked as
Ask PDF asks it: hybrid retrieval limited to its paper (`Scope(paper_id=...)`), then the extractive answerer.

Definitions used in docs/benchmarks.md:
- answer F1: SQuAD-style token F1 (lower-case, no punctuation, no a/an/the, whitespace collapsed) between the
  answer text (the quoted sentences, without [n] markers; "Unanswerable" when it abstains) and each
  annotator's reference, max over annotators. References as QASPER builds them: extractive spans joined with
  ", ", the free-form answer, "Yes"/"No", or "Unanswerable".
- evidence recall@k: a gold evidence paragraph is retrieved when one of the top-k passages holds at least half
  of the paragraph's word 4-grams (normalised tokens), or at least half of the passage's 4-grams come from the
  paragraph (a paragraph longer than one chunk). Per question: share of an annotator's evidence retrieved,
  max over annotators; averaged over questions with text evidence (table/figure evidence is left out: floats
  are not indexed).
- evidence quoted: the answer has a sentence that is at least half made of a gold evidence paragraph's
  4-grams (or holds half of them); over questions with text evidence.
"""

from __future__ import annotations

import re
import shutil
import string
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from assistant.extractive import ExtractiveAnswerer
from assistant.service import Assistant
from assistant.stored_sentences import stored_lookup
from assistant.types import Answer, Passage, Scope
from ingest.pipeline import Ingestor
from papertalk.settings import Settings
from storage.records import Paper
from storage.store import Store

UNANSWERABLE = "Unanswerable"
SHINGLE = 4
_MARKER = re.compile(r"\s*\[\d+\]")


@dataclass(frozen=True)
class Reference:
    """One annotator's answer: kind is extractive, abstractive, boolean or none (unanswerable)."""

    kind: str
    text: str
    evidence: tuple[str, ...] = ()


@dataclass
class Question:
    qid: str
    paper_id: str
    text: str
    references: list[Reference] = field(default_factory=list)
    source: str = "qasper"

    @property
    def kind(self) -> str:
        """The first annotator's answer kind; "out-of-scope" for questions asked of a paper not written for."""
        return self.references[0].kind if self.references else "out-of-scope"

    @property
    def unanswerable(self) -> bool:
        """Every annotator found no answer (or none was written for this paper)."""
        return all(r.kind == "none" for r in self.references)

    @property
    def answerable(self) -> bool:
        """No annotator marked it unanswerable."""
        return bool(self.references) and all(r.kind != "none" for r in self.references)


@dataclass
class Outcome:
    """What the assistant did with one question (answered without abstaining, so `best` is always known)."""

    question: Question
    best: float  # score of the best sentence; the answer abstains below `abstain_below`
    sources: list[Passage]
    answer: Answer


# --- text measures ---------------------------------------------------------------------------------
def normalize(text: str) -> str:
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def token_f1(prediction: str, reference: str) -> float:
    pred, ref = normalize(prediction).split(), normalize(reference).split()
    if not pred or not ref:
        return float(pred == ref)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def best_f1(prediction: str, references: Sequence[Reference]) -> float:
    return max((token_f1(prediction, r.text) for r in references), default=0.0)


def shingles(text: str) -> set[tuple[str, ...]]:
    tokens = normalize(text).split()
    if len(tokens) < SHINGLE:
        return {tuple(tokens)} if tokens else set()
    return {tuple(tokens[i : i + SHINGLE]) for i in range(len(tokens) - SHINGLE + 1)}


def covers(passage: set[tuple[str, ...]], evidence: set[tuple[str, ...]]) -> bool:
    """The passage holds most of the evidence, or is mostly made of it."""
    if not passage or not evidence:
        return False
    common = len(passage & evidence)
    return common >= 0.5 * len(evidence) or common >= 0.5 * len(passage)


def evidence_recall(references: Sequence[Reference], passages: Sequence[Passage], k: int) -> float | None:
    """Best annotator's share of text evidence found in the top `k` passages; None without text evidence."""
    top = [shingles(p.text) for p in passages[:k]]
    scores = []
    for ref in references:
        evidence = [shingles(e) for e in ref.evidence]
        evidence = [e for e in evidence if e]
        if evidence:
            scores.append(sum(any(covers(p, e) for p in top) for e in evidence) / len(evidence))
    return max(scores) if scores else None


def quotes_evidence(references: Sequence[Reference], answer: Answer) -> bool | None:
    """Whether a sentence of the answer comes from (or holds) a gold evidence paragraph; None without evidence."""
    evidence = [e for e in (shingles(t) for r in references for t in r.evidence) if e]
    if not evidence:
        return None
    return any(covers(shingles(s.text), e) for s in answer.sentences for e in evidence)


def answer_text(answer: Answer) -> str:
    """What the answer says, for F1: its sentences without [n] markers; "Unanswerable" when it abstains."""
    if answer.abstained or not answer.sentences:
        return UNANSWERABLE
    return " ".join(_MARKER.sub("", s.text) for s in answer.sentences)


# --- indexing and asking ---------------------------------------------------------------------------
def open_store(data_dir: Path, settings: Settings | None = None) -> Store:
    """A store in `data_dir`, emptied first: an index left by older code must not be measured."""
    shutil.rmtree(data_dir, ignore_errors=True)
    base = settings or Settings()
    return Store(base.model_copy(update={"data_dir": data_dir}))


def index_papers(store: Store, papers: Iterable[Paper]) -> int:
    """Ingest `papers`; returns the number of chunks."""
    report = Ingestor(store).run(papers)
    if report.failed:
        raise RuntimeError(f"ingest failed: {report.summary()}")
    return report.chunks


def ask_all(store: Store, questions: Sequence[Question]) -> list[Outcome]:
    """Ask each question of its own paper with abstention switched off, keeping the best sentence score."""
    settings = store.settings
    no_abstention = {"abstain_below": 0.0, "abstain_evidence": 0.0}
    open_settings = settings.model_copy(update={"answer": settings.answer.model_copy(update=no_abstention)})
    assistant = Assistant(store)
    assistant.settings = open_settings  # read when its answerer is first built, below
    out = []
    for q in questions:
        answer = assistant.ask(q.text, Scope(paper_id=q.paper_id))
        best = max((s.support or 0.0 for s in answer.sentences), default=0.0)
        out.append(Outcome(q, best, answer.sources, answer))
    return out


def reanswer(store: Store, outcomes: Sequence[Outcome], abstain_below: float) -> list[Answer]:
    """The answers the same sources give with `abstain_below` as the threshold (no new retrieval)."""
    answer_settings = store.settings.answer.model_copy(update={"abstain_below": abstain_below})
    answerer = ExtractiveAnswerer(store.embedder, answer_settings, stored=stored_lookup(store.sentence_vectors))
    return [answerer.answer(o.question.text, o.question.text, o.sources) for o in outcomes]
