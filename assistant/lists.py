"""List answers: "which algorithms / datasets / benchmarks / models ..." answered with the named things found.

The retrieved passages are read for names of the asked kind (`assistant.entities`); each name becomes one
item with the papers that name it, counted across papers, and one quote per paper: the sentence of that paper
that names it and best matches the question. Items are ordered by how many papers name them.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from assistant.entities import kind_counts, listed_kind, names
from assistant.focus import asks_of_named
from assistant.scoring import overlap, terms
from assistant.types import Answer, AnswerSentence, Citation, ListItem, Passage, Scope
from ingest.sentences import Sentence, split_sentences
from papertalk.settings import Settings

MAX_ITEMS = 10
LIST_TOP_K = 30  # passages a list question is answered from (the extractive backend; others keep top_k)
_PLURALS = {
    "algorithms": ("algorithm",),
    "methods": ("algorithm", "framework"),
    "approaches": ("algorithm", "framework"),
    "techniques": ("algorithm",),
    "objectives": ("algorithm",),
    "datasets": ("dataset", "benchmark"),
    "corpora": ("dataset",),
    "benchmarks": ("benchmark", "dataset"),
    "environments": ("benchmark", "framework"),
    "models": ("model",),
    "llms": ("model",),
    "frameworks": ("framework",),
    "systems": ("framework",),
    "toolkits": ("framework",),
}
_ASKS_LIST = re.compile(
    r"^\s*(?:which|what(?:\s+are(?:\s+the)?)?|list(?:\s+the)?|name(?:\s+the)?)\s+"
    rf"(?:[\w\-]+\s+){{0,4}}?({'|'.join(_PLURALS)})\b",
    re.IGNORECASE,
)
_SUFFIX = re.compile(r"-(?:based|style|like|inspired|driven|trained|tuned|family|series)$", re.IGNORECASE)


def asked_kinds(question: str) -> tuple[str, ...]:
    """The kinds a list question asks for ("Which RL algorithms ...?" → algorithm); () for other questions."""
    m = _ASKS_LIST.search(question)
    return _PLURALS[m.group(1).lower()] if m else ()


def list_sources(question: str, scope: Scope, settings: Settings) -> int | None:
    """How many passages to retrieve: more for a list question answered offline over many papers, else None."""
    if settings.llm.backend != "extractive" or scope.paper_id or not asked_kinds(question):
        return None
    return max(LIST_TOP_K, settings.retrieval.top_k)


@dataclass
class _Mention:
    source: int  # index into sources
    sentence: Sentence
    relevance: float


@dataclass
class _Found:
    name: str
    kind: str
    by_paper: dict[str, _Mention] = field(default_factory=dict)  # paper id → its best mention
    first: int = 10**6  # best rank of a source that names it

    def add(self, paper_id: str, mention: _Mention) -> None:
        best = self.by_paper.get(paper_id)
        if best is None or (mention.relevance, -mention.source) > (best.relevance, -best.source):
            self.by_paper[paper_id] = mention
        self.first = min(self.first, mention.source)


def canonical(name: str) -> str:
    return _SUFFIX.sub("", name)


def _named(text: str, local: dict[str, Counter[str]], kinds: tuple[str, ...], q_terms: set[str]) -> dict[str, str]:
    """The names of the asked kinds in one sentence: name → kind (a name the question itself gives is no answer)."""
    out = {}
    for name in dict.fromkeys(canonical(n) for n in names(text)):
        kind = listed_kind(name, local.get(name, Counter()))
        if kind in kinds and name.lower() not in q_terms:
            out[name] = kind
    return out


def find_items(question: str, sources: list[Passage], kinds: tuple[str, ...]) -> list[_Found]:
    """Names of the asked kinds in the sources, most papers first, then by the best source's rank."""
    local = kind_counts([p.text for p in sources])
    q_terms = terms([question])[0]
    named = [
        (i, passage, sentence, names_in)
        for i, passage in enumerate(sources)
        for sentence in split_sentences(passage.text)
        if (names_in := _named(sentence.text, local, kinds, q_terms))
    ]
    # The naming sentences' terms in one call: one tokenizer call per sentence made a list answer's tail
    # (50-150 ms for 50 sentences, docs/benchmarks.md).
    found: dict[str, _Found] = {}
    for (i, passage, sentence, names_in), words in zip(named, terms([n[2].text for n in named]), strict=True):
        mention = _Mention(i, sentence, overlap(q_terms, words, {}))
        for name, kind in names_in.items():
            found.setdefault(name.lower(), _Found(name, kind)).add(passage.paper_id, mention)
    ranked = sorted(found.values(), key=lambda f: (-len(f.by_paper), f.first, f.name))
    return ranked[:MAX_ITEMS]


def _citation(passage: Passage, mention: _Mention) -> Citation:
    s, p = mention.sentence, passage
    return Citation(p.number, p.chunk_id, p.paper_id, *p.pages_of(s.start, s.end), s.start, s.end, s.text,
                    round(mention.relevance, 4))  # fmt: skip


def _item(found: _Found, sources: list[Passage]) -> ListItem:
    mentions = sorted(found.by_paper.values(), key=lambda m: (-m.relevance, m.source))
    citations = [_citation(sources[m.source], m) for m in mentions]
    return ListItem(found.name, found.kind, len(found.by_paper), citations)


def item_line(item: ListItem) -> str:
    """ "GRPO — 3 papers" (the [n] markers are added where the line is shown)."""
    return f"{item.name} — {item.papers} paper{'s' if item.papers != 1 else ''}"


def list_answer(question: str, standalone: str, sources: list[Passage], backend: str) -> Answer | None:
    """The answer as a list of named things when the question asks for one, the sources come from more than one
    paper, they name some, and the question does not ask it of one paper it names (`asks_of_named`); None
    otherwise."""
    kinds = asked_kinds(standalone)
    if not kinds or len({p.paper_id for p in sources}) < 2:  # within one paper (Ask PDF) the sentences answer
        return None
    if asks_of_named(standalone, sources):  # "Which benchmarks is AgentRM evaluated on?": AgentRM's sentences do
        return None
    items = [_item(f, sources) for f in find_items(standalone, sources, kinds)]
    if not items:
        return None
    sentences = [AnswerSentence(item_line(it), sorted(it.citations, key=lambda c: c.number)) for it in items]
    marks = ["".join(f"[{c.number}]" for c in s.citations) for s in sentences]
    text = "; ".join(f"{s.text} {m}" for s, m in zip(sentences, marks, strict=True)) + "."
    note = f"list answer: {len(items)} named {' or '.join(kinds)} names found in {len(sources)} sources"
    return Answer(question, standalone, text, sentences, sources, backend, notes=[note], items=items)
