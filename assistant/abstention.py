"""When the offline answer should say that the papers don't answer: evidence beyond the best sentence's score.

Signals read from the question and the passages retrieval gave (which come from the whole scope: BM25 puts
a chunk holding a rare question term among them whenever one exists in scope):
- `best`: the best sentence's score (until now the only signal, `answer.abstain_below`);
- `coverage`: the share of the question's terms, weighted by rarity, found anywhere in the passages;
- `missing_name`: the question names something (an acronym, a mixed-case name) that no passage mentions;
- `type_missing`: the question asks for a number, a year, a name or a percentage and no passage sentence
  that shares its terms holds one (measured, but weighed 0: on the calibration data it did not help);
- `agreement`: how much the dense and keyword retrievers' top passages coincide.
A logistic model over them (weights fitted by `bench.bench_abstention` on the calibration half of public
answerable and unanswerable questions) gives the probability that the passages answer the question; the
answer abstains below `answer.abstain_evidence`, and always below `answer.abstain_below`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from assistant.entities import GENERIC, NAME
from assistant.scoring import idf_weights, overlap, terms
from assistant.types import Passage
from ingest.sentences import split_sentences

TOP = 3  # passages per retriever compared for agreement
# Fitted by `python -m bench.bench_abstention` on its calibration half (docs/benchmarks.md, "Abstention").
WEIGHTS = {
    "bias": -4.406,
    "best": 4.34,
    "coverage": 4.163,
    "missing_name": -1.385,
    "type_missing": 0.0,  # gathered and reported; fitted, it took the wrong sign and gained nothing
    "agreement": 0.418,
}
QUESTION_WORDS = frozenset(terms(["what which who whom whose when where why how"])[0])  # not stop words to BM25
_NUMBER = re.compile(r"\d")
_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_PERCENT = re.compile(r"\d\s*%|\bpercent")
_ASKS = [
    (re.compile(r"\bhow (?:many|much|large|big|long|often|fast)\b|\bwhat (?:size|number|amount)\b", re.I), _NUMBER),
    (re.compile(r"\bwhat (?:percentage|proportion|fraction|share)\b", re.I), _PERCENT),
    (re.compile(r"\b(?:what|which) year\b|\bwhen (?:was|were|did)\b", re.I), _YEAR),
    (re.compile(r"\bwhich (?:model|dataset|benchmark|algorithm|method|language|metric)s?\b", re.I), NAME),
]


@dataclass(frozen=True)
class Evidence:
    best: float
    coverage: float
    missing_name: bool
    type_missing: bool
    agreement: float

    def probability(self, weights: dict[str, float] | None = None) -> float:
        """The chance (by the fitted model) that the passages answer the question."""
        w = weights or WEIGHTS
        z = w["bias"] + sum(w[k] * float(v) for k, v in self.features().items())
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))

    def features(self) -> dict[str, float]:
        return {
            "best": self.best,
            "coverage": self.coverage,
            "missing_name": float(self.missing_name),
            "type_missing": float(self.type_missing),
            "agreement": self.agreement,
        }

    def describe(self) -> str:
        return (
            f"best sentence {self.best:.2f}, question terms found {self.coverage:.0%}"
            + (", a name the question gives is in no passage" if self.missing_name else "")
            + (", no passage sentence holds the kind of answer asked for" if self.type_missing else "")
            + f", retrievers agree {self.agreement:.0%}"
        )


def gather(question: str, sources: Sequence[Passage], best: float) -> Evidence:
    """The evidence over the passages' texts; a term or name the question takes from a passage's paper title (Ask
    PDF's "How much were LongEval's annotators paid?", where no passage about pay names LongEval) counts as found."""
    texts = [p.text for p in sources]
    in_scope = [*texts, *dict.fromkeys(p.title for p in sources if p.title)]
    return Evidence(best, coverage(question, in_scope), missing_name(question, in_scope), type_missing(question, texts),
                    agreement(sources))  # fmt: skip


def coverage(question: str, texts: Sequence[str]) -> float:
    """Share of the question's terms present in the passages, each weighted by how few passages hold it
    (a term in every passage says little; a rare one found says much, a rare one missing more)."""
    q_terms = terms([question])[0] - QUESTION_WORDS
    if not q_terms or not texts:
        return 0.0
    idf = idf_weights(terms(list(texts)))
    absent = max(idf.values(), default=1.0)
    weights = {t: idf.get(t, absent) for t in q_terms}
    return sum(w for t, w in weights.items() if t in idf) / sum(weights.values())


def missing_name(question: str, texts: Sequence[str]) -> bool:
    """Whether the question gives a name (acronym, mixed case; not its first word) that no passage holds."""
    body = question.split(maxsplit=1)[1] if " " in question.strip() else ""
    given = {m.group(0).rstrip(".-?'s") for m in NAME.finditer(body)}
    wanted = {w.lower() for w in given if len(w) >= 3 and w not in GENERIC}
    text = " ".join(texts).lower()
    return any(w not in text for w in wanted)


def type_missing(question: str, texts: Sequence[str]) -> bool:
    """Whether the question asks for a kind of answer (number, percentage, year, name) that no passage sentence
    sharing a third of the question's terms holds."""
    wanted = [pattern for asks, pattern in _ASKS if asks.search(question)]
    if not wanted:
        return False
    q_terms = terms([question])[0]
    sentences = [s.text for t in texts for s in split_sentences(t)]
    related = [s for s, ts in zip(sentences, terms(sentences), strict=True) if overlap(q_terms, ts, {}) >= 1 / 3]
    return not any(pattern.search(s) for s in related for pattern in wanted)


def agreement(sources: Sequence[Passage]) -> float:
    """Share of the dense retriever's top passages that are also among the keyword retriever's top ones."""
    dense = _top(sources, "dense_score")
    keyword = _top(sources, "keyword_score")
    if not dense or not keyword:
        return 0.0
    return len(dense & keyword) / max(len(dense), len(keyword))


def _top(sources: Sequence[Passage], attr: str) -> set[str]:
    scored = [(getattr(p, attr), p.chunk_id) for p in sources if getattr(p, attr) is not None]
    return {c for _, c in sorted(scored, key=lambda x: -x[0])[:TOP]}


def abstains(evidence: Evidence, abstain_below: float, abstain_evidence: float) -> bool:
    """Abstain below the best-score floor, or when the evidence model's probability is below its threshold."""
    return evidence.best < abstain_below or evidence.probability() < abstain_evidence
