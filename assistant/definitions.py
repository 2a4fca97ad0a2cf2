"""Definition questions ("What is GRPO?"): a source that says what the thing is, when retrieval found none.

The retrieved passages on a "what is X" question often only use X ("... outperforms GRPO by 3%"), while the
sentence that says what X is ("we propose Group Relative Policy Optimization (GRPO), a ...") sits in a
passage that ranks lower. When none of the sources holds such a sentence (`introduces`), the passages of the
scope that BM25 ranks best for X alone are read, and the first that holds one joins the sources; the
extractive answer then leads with it (assistant/extractive.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from assistant.acronyms import agreed_forms, expand, is_acronym, spells_otherwise
from assistant.question_type import classify
from assistant.retrieval import HybridRetriever
from assistant.sentence_features import introduces, name_like, names_a_variant
from assistant.types import Passage, Scope
from ingest.sentences import split_sentences, usable

LOOKED_AT = 100  # passages read for a defining sentence (by BM25 for the subject alone)


def definition_tier(text: str, subject: str, form: str | None = None) -> int | None:
    """How well the sentence `text` says what `subject` is: None when it does not (`introduces`); 0 when it does;
    1 when it names a variant built on it in brackets ("Hybrid GRPO", "TL-GRPO": `names_a_variant`); 2 when it
    spells the acronym out other than as `form` (`agreed_form`)."""
    if not introduces(text, subject):
        return None
    if form and spells_otherwise(text, subject, form):
        return 2
    return 1 if names_a_variant(text, subject) else 0


def says_what(text: str, subject: str, form: str | None = None) -> bool:
    """Whether a usable sentence of `text` says what `subject` is, about it and spelt as `form` (tier 0 of
    `definition_tier`)."""
    return any(definition_tier(s.text, subject, form) == 0 for s in split_sentences(text) if usable(s))


def agreed_form(subject: str, sources: list[Passage]) -> str | None:
    """The long form of the acronym `subject` as the sources agree on it (`assistant.acronyms.agreed_forms`),
    else as the glossary has it; None when `subject` is no acronym or neither knows it."""
    if not is_acronym(subject):
        return None
    return expand(subject, agreed_forms((p.text, p.paper_id) for p in sources))


def with_definition(retriever: HybridRetriever, query: str, scope: Scope, sources: list[Passage]) -> list[Passage]:
    """`sources`, and for a definition question about a name (`name_like`) none of whose sources says what it
    is (in the long form the sources or the glossary agree on, for an acronym), the best-ranked passage in scope
    (by BM25 for the name) that does, if any, after them."""
    kind = classify(query)
    if kind.answer != "definition" or not name_like(kind.subject):
        return sources  # an everyday word ("what is time?") is no name a paper introduces
    form = agreed_form(kind.subject, sources)
    if any(says_what(p.text, kind.subject, form) for p in sources):
        return sources
    return first_holding(retriever, kind.subject, scope, sources, LOOKED_AT, lambda t: says_what(t, kind.subject, form))


def first_holding(
    retriever: HybridRetriever, search: str, scope: Scope, sources: list[Passage], k: int, holds: Callable[[str], bool]
) -> list[Passage]:
    """`sources`, and after them the first of the scope's `k` best passages for `search` by BM25 that is not among
    them and whose text `holds` what is wanted, if any."""
    have = {p.chunk_id for p in sources}
    for passage in retriever.keyword_passages(search, scope, k):
        if passage.chunk_id not in have and holds(passage.text):
            # not scored for the question: it ranks last, and weighs nothing where the retrievers' scores do
            last = min((p.score for p in sources), default=0.0)
            return [*sources, replace(passage, score=last, dense_score=None, keyword_score=None)]
    return sources
