"""A "which X" question about one paper ("Which RL algorithm trains PaSa's Crawler?"): a source that names a
thing of the asked kind, when retrieval found none.

The passages that share the question's words often describe the training or the setup around the answer without
naming it ("We conduct RL training on the AutoScholarQuery training set ..."), while the one that names it ("we
design a novel session-level PPO algorithm") shares few of them and ranks lower. When no sentence of the sources
names a thing of the asked kind (`names_asked_kind`), the paper's passages that BM25 ranks best for the question
are read, and the first that names one joins the sources; the extractive answer then leads with it
(`assistant.extractive`, the kind-first rule).
"""

from __future__ import annotations

from assistant.definitions import first_holding
from assistant.entities import HEAD_KIND, kind_counts
from assistant.question_type import classify
from assistant.retrieval import HybridRetriever
from assistant.scoring import terms
from assistant.sentence_features import names_asked_kind, names_base
from assistant.types import Passage, Scope
from ingest.sentences import split_sentences, usable

LOOKED_AT = 50  # passages read for a sentence that names a thing of the asked kind (by BM25 for the question)
_ASKING = frozenset(("which", "what", "whose"))  # the keyword index keeps these words: they say nothing here


def names_one(question: str, text: str, about: frozenset[str] = frozenset()) -> bool:
    """Whether a usable sentence of `text` names a thing of the kind `question` asks for. Given `about` (the
    question's own terms, `_about`), that sentence must share one of them, or the passage two: a name of the kind
    in an aside ("networks that predicted COVID-19 diagnoses" for "Which dataset was the solubility model trained
    on?") is about something else. A question that asks what its subject is built on wants a sentence that says
    so of the subject itself (`names_base`: "Our method is ... on top of a standard GRPO loss")."""
    kind = classify(question)
    local = kind_counts([text])
    says = names_base if kind.base else names_asked_kind  # "What base model ...": one that says what X is built on
    naming = [s.text for s in split_sentences(text) if usable(s) and says(kind, question, s.text, local)]
    if not naming or not about or kind.base:  # `names_base` holds the sentence to the subject itself
        return bool(naming)
    return any(about & t for t in terms(naming)) or len(about & terms([text])[0]) > 1


def _about(question: str) -> frozenset[str]:
    """The question's keyword terms besides the words that name kinds ("algorithm", "dataset", "model"): what a
    looked-up sentence must share with it to be about the same thing (a dataset named in an aside is no answer)."""
    (own,) = terms([question])
    return frozenset(own - set().union(*terms(list(HEAD_KIND))) - _ASKING)


def with_asked_kind(retriever: HybridRetriever, query: str, scope: Scope, sources: list[Passage]) -> list[Passage]:
    """`sources`, and for a "which X" question about one paper none of whose sources names a thing of kind X, the
    best-ranked passage of the paper (by BM25 for the question) that does, if any, after them."""
    kind = classify(query)
    if kind.answer != "entity" or not kind.kinds or not scope.paper_id:
        return sources
    if any(names_one(query, p.text) for p in sources):
        return sources
    about = _about(query)
    return first_holding(retriever, query, scope, sources, LOOKED_AT, lambda t: names_one(query, t, about))
