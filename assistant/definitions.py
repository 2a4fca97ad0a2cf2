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
from assistant.sentence_features import describes, introduces, name_like, names_a_variant
from assistant.types import Passage, Scope
from ingest.sentences import split_sentences, usable

LOOKED_AT = 100  # passages read for a defining sentence (by BM25 for the subject alone)


def definition_tier(text: str, subject: str, form: str | None = None) -> int | None:
    """How well the sentence `text` says what `subject` is: None when it does not (`introduces`); 0 when it says
    what X is (`describes`: "Group Relative Policy Optimization (GRPO), a reinforcement learning method that ...");
    1 when it only spells the acronym out ("existing approaches such as Group Relative Policy Optimization (GRPO)
    struggle with ..."); 2 when it names a variant built on X in brackets ("Hybrid GRPO", "TL-GRPO":
    `names_a_variant`); 3 when it spells the acronym out other than as `form` (`agreed_form`)."""
    if not introduces(text, subject):
        return None
    if form and spells_otherwise(text, subject, form):
        return 3
    if names_a_variant(text, subject):
        return 2
    return 0 if describes(text, subject) else 1


def best_tier(text: str, subject: str, form: str | None = None) -> int | None:
    """The best `definition_tier` among the usable sentences of `text`, None when none says what `subject` is."""
    tiers = [definition_tier(s.text, subject, form) for s in split_sentences(text) if usable(s)]
    return min((t for t in tiers if t is not None), default=None)


def says_what(text: str, subject: str, form: str | None = None) -> bool:
    """Whether a usable sentence of `text` says what `subject` is, about it and spelt as `form` (tier 0 of
    `definition_tier`)."""
    return best_tier(text, subject, form) == 0


def agreed_form(subject: str, sources: list[Passage]) -> str | None:
    """The long form of the acronym `subject` as the sources agree on it (`assistant.acronyms.agreed_forms`),
    else as the glossary has it; None when `subject` is no acronym or neither knows it."""
    if not is_acronym(subject):
        return None
    return expand(subject, agreed_forms((p.text, p.paper_id) for p in sources))


def with_definition(retriever: HybridRetriever, query: str, scope: Scope, sources: list[Passage]) -> list[Passage]:
    """`sources`, and for a definition question about a name (`name_like`) none of whose sources says what it
    is (in the long form the sources or the glossary agree on, for an acronym), the best-ranked passage in scope
    (by BM25 for the name, with an acronym's long form) that does, if any, after them; failing that, when no source
    even spells the acronym out as agreed (tier 1 of `definition_tier`), the best-ranked one that does."""
    kind = classify(query)
    if kind.answer != "definition" or not name_like(kind.subject):
        return sources  # an everyday word ("what is time?") is no name a paper introduces
    form = agreed_form(kind.subject, sources)
    have = [best_tier(p.text, kind.subject, form) for p in sources]
    if 0 in have:
        return sources
    wanted = 0 if 1 in have else 1  # tiers a looked-up passage may hold: only a better one than the sources'
    search = f"{kind.subject} {form}" if form else kind.subject  # "GRPO group relative policy optimization"

    def rank(text: str) -> int | None:  # a tier no worse than `wanted`, else None
        tier = best_tier(text, kind.subject, form)
        return tier if tier is not None and tier <= wanted else None

    return best_holding(retriever, search, scope, sources, LOOKED_AT, rank)


def best_holding(
    retriever: HybridRetriever,
    search: str,
    scope: Scope,
    sources: list[Passage],
    k: int,
    rank: Callable[[str], int | None],
) -> list[Passage]:
    """`sources`, and after them the passage among the scope's `k` best for `search` by BM25, not among them,
    whose text `rank`s best (0 is best, None is not wanted; the BM25-best of equals), if any."""
    have = {p.chunk_id for p in sources}
    best: tuple[int, Passage] | None = None
    for passage in retriever.keyword_passages(search, scope, k):
        tier = rank(passage.text) if passage.chunk_id not in have else None
        if tier is not None and (best is None or tier < best[0]):
            best = (tier, passage)
            if tier == 0:
                break
    return _appended(sources, best[1]) if best else sources


def _appended(sources: list[Passage], passage: Passage) -> list[Passage]:
    """`sources` with `passage` after them, ranked last: it was not scored for the question, so it weighs nothing
    where the retrievers' scores do."""
    last = min((p.score for p in sources), default=0.0)
    return [*sources, replace(passage, score=last, dense_score=None, keyword_score=None)]


def first_holding(
    retriever: HybridRetriever, search: str, scope: Scope, sources: list[Passage], k: int, holds: Callable[[str], bool]
) -> list[Passage]:
    """`sources`, and after them the first of the scope's `k` best passages for `search` by BM25 that is not among
    them and whose text `holds` what is wanted, if any."""
    return best_holding(retriever, search, scope, sources, k, lambda t: 0 if holds(t) else None)
