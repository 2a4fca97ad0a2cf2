"""Checks a generated answer against its numbered sources.

Every `[n]`, `[n, m]` or `[n-m]` marker is parsed; numbers that name no source are dropped from the text and
reported. Each sentence that cites sources is matched against the sentences of the cited passages (embedding
similarity mixed with keyword overlap): the best match becomes the citation's exact span and its score the
support. A sentence whose support is below the threshold, or a claim that cites nothing, is marked unsupported.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from assistant.extractive import NOT_ANSWERED
from assistant.scoring import idf_weights, mix, overlap, terms
from assistant.types import Answer, AnswerSentence, Citation, Passage
from ingest.sentences import Sentence, split_sentences
from papertalk.settings import AnswerSettings
from storage.embeddings import embed_texts

_NUMBERS = r"\d+(?:\s*[-–]\s*\d+)?(?:\s*[,;]\s*\d+(?:\s*[-–]\s*\d+)?)*"
MARKER = re.compile(rf"(?P<space>[ \t]*)\[\s*(?:sources?\s*)?(?P<body>{_NUMBERS})\s*\]", re.IGNORECASE)
_THINK = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL)
_ABSTAIN = re.compile(
    r"\b(?:don't|do not|does not|doesn't|cannot|can't|could not|couldn't|did not|didn't)\s+(?:\w+\s+){0,3}?"
    r"(?:answer|contain|provide|address|mention|cover|include|say|discuss|specify|describe|state)"
    r"|\bnot (?:answered|mentioned|covered|addressed|discussed|stated)\b|\bno information\b"
)
MAX_RANGE = 50  # [1-500] is not a citation
MIN_CLAIM_WORDS = 6  # shorter uncited sentences ("In short:") are connectives, not claims
MIN_SOURCE_SENTENCE = 12  # characters; shorter pieces of a passage (headings, numbers) are not matched


def parse_marker(body: str) -> list[int]:
    """The source numbers of one marker body: "1, 3" -> [1, 3]; "2-4" -> [2, 3, 4]."""
    numbers: list[int] = []
    for part in re.split(r"[,;]", body):
        bounds = [int(x) for x in re.split(r"[-–]", part) if x.strip()]
        if len(bounds) == 2 and 0 <= bounds[1] - bounds[0] <= MAX_RANGE:
            numbers.extend(range(bounds[0], bounds[1] + 1))
        else:
            numbers.extend(bounds)
    return list(dict.fromkeys(numbers))


def numbered(sources: Sequence[Passage]) -> dict[int, Passage]:
    """Sources by their [n]: the number the service gave them, else their position from 1."""
    return {(p.number or i): p for i, p in enumerate(sources, start=1)}


@dataclass
class _Marked:
    plain: str  # the answer without markers: what is split into sentences and scored
    cited: str  # the answer with only valid markers, normalized: what the user sees
    marks: list[tuple[int, list[int]]] = field(default_factory=list)  # (offset in plain, numbers)
    removed: list[int] = field(default_factory=list)


def strip_markers(text: str, valid: set[int]) -> _Marked:
    plain: list[str] = []
    cited: list[str] = []
    out = _Marked("", "")
    pos = 0
    for m in MARKER.finditer(text):
        plain.append(text[pos : m.start()])
        cited.append(text[pos : m.start()])
        numbers = parse_marker(m.group("body"))
        good = [n for n in numbers if n in valid]
        out.removed.extend(n for n in numbers if n not in valid)
        if good:
            cited.append(f"{m.group('space')}[{', '.join(map(str, good))}]")
            out.marks.append((sum(map(len, plain)), good))
        pos = m.end()
    plain.append(text[pos:])
    cited.append(text[pos:])
    out.plain, out.cited = "".join(plain), "".join(cited)
    out.removed = list(dict.fromkeys(out.removed))
    return out


def answer_sentences(text: str) -> list[Sentence]:
    """Sentences of an answer, one line at a time so that list items stay apart."""
    out: list[Sentence] = []
    for line in re.finditer(r"[^\n]+", text):
        out.extend(Sentence(s.text, s.start + line.start(), s.end + line.start()) for s in split_sentences(line[0]))
    return out


def _owner(sentences: list[Sentence], offset: int) -> int:
    """The sentence a marker belongs to: the last one that starts before it (markers follow their claim)."""
    owner = 0
    for i, s in enumerate(sentences):
        if s.start < offset:
            owner = i
    return owner


def strip_reasoning(text: str) -> str:
    """A reply without the <think> block that reasoning models put before it."""
    return _THINK.sub("", text).strip()


def is_abstention(text: str) -> bool:
    return bool(_ABSTAIN.search(text.lower().replace("\u2019", "'")))


def makes_claim(text: str) -> bool:
    if len(re.findall(r"[A-Za-z]{2,}", text)) < MIN_CLAIM_WORDS:
        return False
    return not text.rstrip().endswith((":", "?")) and not is_abstention(text)


def _source_sentences(passage: Passage) -> list[Sentence]:
    found = [s for s in split_sentences(passage.text) if len(s.text) >= MIN_SOURCE_SENTENCE]
    if found or not passage.text.strip():
        return found
    start = len(passage.text) - len(passage.text.lstrip())
    end = len(passage.text.rstrip())
    return [Sentence(passage.text[start:end], start, end)]


def _unit(vectors: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class CitationChecker:
    """Turns a generated answer text into a checked `Answer`: valid citations, spans, support."""

    def __init__(self, embedder: BaseEmbedding, settings: AnswerSettings) -> None:
        self.embedder = embedder
        self.settings = settings

    def check(self, question: str, standalone: str, text: str, sources: Sequence[Passage], backend: str) -> Answer:
        text = strip_reasoning(text)
        by_number = numbered(sources)
        marked = strip_markers(text, set(by_number))
        sentences = answer_sentences(marked.plain)
        cited: list[list[int]] = [[] for _ in sentences]
        for offset, numbers in marked.marks:
            owner = cited[_owner(sentences, offset)]
            owner.extend(n for n in numbers if n not in owner)
        citations = self._cite([s.text for s in sentences], cited, by_number)
        checked = [self._judge(s.text, c) for s, c in zip(sentences, citations, strict=True)]
        abstained = not marked.marks and (not sentences or is_abstention(marked.plain))
        return Answer(
            question,
            standalone,
            marked.cited.strip() or NOT_ANSWERED,
            checked,
            list(sources),
            backend,
            abstained=abstained,
            removed_citations=marked.removed,
            notes=self._notes(checked, marked.removed, empty=not text),
        )

    def _judge(self, text: str, citations: list[Citation]) -> AnswerSentence:
        if not citations:
            return AnswerSentence(text, [], None, supported=not makes_claim(text))
        support = max(c.support for c in citations)
        return AnswerSentence(text, citations, support, supported=support >= self.settings.support_threshold)

    def _cite(self, claims: list[str], cited: list[list[int]], by_number: dict[int, Passage]) -> list[list[Citation]]:
        """For each claim, one citation per cited source: the source sentence that supports it best."""
        wanted = sorted({n for numbers in cited for n in numbers})
        if not wanted:
            return [[] for _ in claims]
        pool = [(n, s) for n in wanted for s in _source_sentences(by_number[n])]
        vectors = _unit(embed_texts(self.embedder, claims + [s.text for _, s in pool]))
        claim_vecs, pool_vecs = vectors[: len(claims)], vectors[len(claims) :]
        pool_terms = terms([s.text for _, s in pool])
        idf = idf_weights(pool_terms)
        claim_terms = terms(claims)

        def best(i: int, n: int) -> Citation:
            idx = [j for j, (m, _) in enumerate(pool) if m == n]
            if not idx:
                return _citation(n, by_number[n], None, 0.0)
            sims = np.clip(pool_vecs[idx] @ claim_vecs[i], 0.0, 1.0)
            lexical = np.array([overlap(claim_terms[i], pool_terms[j], idf) for j in idx])
            scores = np.asarray(mix(sims, lexical, self.settings.semantic_weight))
            top = int(np.argmax(scores))
            return _citation(n, by_number[n], pool[idx[top]][1], float(scores[top]))

        return [[best(i, n) for n in numbers] for i, numbers in enumerate(cited)]

    def _notes(self, sentences: list[AnswerSentence], removed: list[int], empty: bool) -> list[str]:
        notes = []
        if empty:
            notes.append("the LLM returned an empty answer")
        if removed:
            notes.append(f"removed citations to sources that do not exist: {', '.join(f'[{n}]' for n in removed)}")
        weak = sum(not s.supported for s in sentences)
        if weak:
            notes.append(f"{weak} of {len(sentences)} sentences are not supported by the sources they cite")
        return notes


def _citation(number: int, passage: Passage, sentence: Sentence | None, support: float) -> Citation:
    first, last = passage.pages_of(sentence.start, sentence.end) if sentence else (passage.page_start, passage.page_end)
    return Citation(
        number=number,
        chunk_id=passage.chunk_id,
        paper_id=passage.paper_id,
        page_start=first,
        page_end=last,
        span_start=sentence.start if sentence else 0,
        span_end=sentence.end if sentence else 0,
        quote=sentence.text if sentence else "",
        support=round(support, 4),
        section=passage.section,
    )
