"""A question that names a paper outside its scope: said so, with that paper, instead of quoting others.

Asked in a topic, "How many tool calls per task can MiroThinker make?" got sentences about context windows from
other papers: MiroThinker is in the library but not in the topic, so none of the topic's passages could answer,
and nothing told the asker where the answer was. When a name the question gives is written in none of the scope's
passages, and a paper outside the scope has that name (its title starts with it: "MiroThinker: Pushing ..."), the
answer says so and names that paper, to be asked on its own or with the whole library; nothing is quoted.
Questions over the whole library never get here: every paper is in scope.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from assistant.entities import GENERIC
from assistant.focus import base_name, mentions_name, title_names
from assistant.retrieval import HybridRetriever
from assistant.sentence_features import name_like
from assistant.types import Answer, PaperRef, Passage, Scope

_WORD = re.compile(r"[A-Za-z][\w.+\-’']*")  # a word with its digits and inner hyphens ("S2ORC", "Search-R1's")
SAME_NAME = 3  # papers named for one name of the question (two papers may share one: "CAPO: ...")
LOOKED_AT = 20  # passages the keyword index gives for the name, in the scope and then in the whole library


def question_names(question: str) -> list[str]:
    """The names the question gives after its first word ("MiroThinker", "Search-R1", "GRPO", "Coinvisor"), as
    written: a capital there starts a name (a word prose capitalises, "Agents", is written in every scope)."""
    body = question.split(maxsplit=1)[1] if len(question.split()) > 1 else ""
    found = (re.sub(r"['’]s$", "", w).rstrip(".-") for w in _WORD.findall(body))
    return [n for n in dict.fromkeys(found) if len(n) >= 3 and n not in GENERIC and (name_like(n) or n[0].isupper())]


def named_elsewhere(
    question: str, scope: Scope, sources: Sequence[Passage], retriever: HybridRetriever
) -> list[PaperRef]:
    """The papers outside `scope` that a name of `question` names, for each name that neither the sources nor
    any other passage of the scope holds; [] for a question over every paper."""
    if not (scope.topic or scope.paper_id or scope.since or scope.until):
        return []
    held = " ".join([*(p.text for p in sources), *(p.title for p in sources)])
    missing = [n for n in question_names(question) if not mentions_name(base_name(n), held)]
    refs = []
    for name in missing:
        in_scope = retriever.keyword_passages(name, scope, k=LOOKED_AT)
        if any(mentions_name(base_name(name), f"{p.title} {p.text}") for p in in_scope):
            continue
        allowed = retriever.resolve(scope).allowed
        refs += [
            PaperRef(p.paper_id, p.title, name)
            for p in _papers(retriever.keyword_passages(name, Scope(), k=LOOKED_AT))
            if p.paper_id not in allowed and base_name(name).lower() in {t.lower() for t in title_names(p.title)}
        ][:SAME_NAME]
    return refs


def _papers(passages: Sequence[Passage]) -> list[Passage]:
    """The first passage of each paper, best first."""
    return list({p.paper_id: p for p in reversed(passages)}.values())[::-1]


def elsewhere_answer(
    question: str, standalone: str, refs: Sequence[PaperRef], sources: list[Passage], where: str, backend: str
) -> Answer:
    """The answer that says the scope (`where`: "topic 'RL for LLM Agents'") does not name what the question asks
    about and which library papers do; the closest passages stay listed as sources, nothing is quoted."""
    names = " or ".join(dict.fromkeys(r.name for r in refs))
    papers = "; ".join(f'"{r.title}" ({r.paper_id})' for r in refs)
    one = len(refs) == 1
    if where == "this paper":
        said = f"This paper does not mention {names}, so it cannot answer this."
    else:  # "topic 'RL for LLM Agents'"; a date range: "this scope (topic 'RL for LLM Agents', since 2026-01-01)"
        scope = where if where.startswith("topic") and "," not in where else f"this scope ({where})"
        said = f"No paper in {scope} mentions {names}, so none can answer this."
    text = (
        f"{said} The library has {'that paper' if one else 'those papers'} outside this scope: {papers}. "
        f"Ask {'it' if one else 'them'} on {'its' if one else 'their'} own, or ask across all papers."
    )
    note = f"named outside the scope: {', '.join(f'{r.name} = {r.paper_id}' for r in refs)}"
    return Answer(question, standalone, text, [], sources, backend, abstained=True, notes=[note], elsewhere=list(refs))
