"""The question as a search inside one paper and the offline answer's sentence scorer read it.

Two things in a question mislead without telling passages or sentences apart:
- **The paper's own name, in a search inside that paper** (Ask PDF). "What RL algorithm is used to train
  MiroThinker?" asked of the MiroThinker report is about every passage of it, but BM25 and the embedding model
  both rank the passages that say "MiroThinker" (benchmark results) over the one that answers ("We employ Group
  Relative Policy Optimization (GRPO)"). The search reads the name as "it" ("its" for "MiroThinker's"), unless
  the question asks what that name is (`paper_query`). The sentence scorer keeps the name: an answering
  sentence often has it as its subject ("MiroThinker v1.0 is developed under the ReAct paradigm"), and taking
  it out there lost as many answers as it gained (docs/benchmarks.md, bench_focus).
- **Acronyms.** The embedding model knows "reinforcement learning" far better than "RL": each acronym of the
  question is followed by its long form, as the sources define it or else as the bundled glossary has it
  (`assistant.acronyms`), and a sentence that spells a long form out counts as using its acronym
  (`with_acronyms`).
Retrieval over a topic or the corpus, and abstention's reading of the question, are left as they were. Both are
off by default (`retrieval.paper_focus`, `answer.focus`): on the questions measured they were as often worse as
better (docs/benchmarks.md, bench_focus).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from assistant.acronyms import acronyms, agreed_forms, expand
from assistant.question_type import classify
from assistant.sentence_features import name_like
from assistant.types import Passage

_TITLE_NAME = re.compile(r"^\s*([^:]{2,60}):")  # "MiroThinker: Pushing the ...", "S2ORC: The Semantic ..."
# a version after a name: "MiroThinker-1.7", "Qwen2.5", "GPT-4", "Agent v2" keep "MiroThinker", "Qwen", "GPT", "Agent";
# a digit that is part of the name stays ("MEM1", "Search-R1", "S2ORC")
_VERSION = re.compile(r"(?:[-\s]v?\d+(?:\.\d+)*[A-Za-z]?|v\d+(?:\.\d+)*|\d+\.\d+(?:\.\d+)*[A-Za-z]?)+$")


@dataclass(frozen=True)
class Focus:
    """The question to score sentences against, and the acronyms whose long forms a sentence may spell out."""

    text: str
    long_forms: dict[str, str] = field(default_factory=dict)  # acronym as the question writes it -> long form


def title_names(title: str) -> list[str]:
    """The names a title starts with, before its colon: "MiroThinker-1.7 & H1: ..." → ["MiroThinker", "H1"]."""
    m = _TITLE_NAME.match(title or "")
    if not m or len(m.group(1).split()) > 4:
        return []
    out = []
    for part in re.split(r"\s*(?:&|,|\band\b)\s*", m.group(1).strip()):
        base = base_name(part.strip())
        if len(base) >= 2 and " " not in base and any(c.isupper() for c in base[1:] + base[:1]):
            out.append(base)
    return out


def base_name(name: str) -> str:
    """`name` without a version after it: "MiroThinker-v1.0" → "MiroThinker"; "Search-R1" stays."""
    return _VERSION.sub("", name) or name


def named_papers(question: str, sources: Sequence[Passage]) -> set[int]:
    """The indices of the sources whose paper's title starts with a name the question says ("What is ReSeek and
    how does it design its reward?": "ReSeek: A Self-Correcting Framework ..."), when the sources are of more than
    one paper: in a search over many papers, the paper of that name is the one asked about. A name counts when it
    reads as one (`name_like`: "ReSeek", "Search-R1", "EVA", not "Agents") and the question has it as written."""
    said = _said_names(question, sources)
    return {i for i, p in enumerate(sources) if said.intersection(title_names(p.title))}


def asks_of_named(question: str, sources: Sequence[Passage]) -> bool:
    """`question` asks "which X" of a paper it names, as the subject ("Which benchmarks is AgentRM evaluated on?",
    "Which RL algorithm does ReSeek use?"): one paper's sentences answer it, not a list across the sources' papers
    ("Which benchmarks use ReAct?" asks across them)."""
    return any(
        re.search(rf"^\s*which\b[^?]*?\b(?:is|are|was|were|does|do|did|has|have)\s+{re.escape(name)}\b", question, re.I)
        for name in _said_names(question, sources)
    )


def _said_names(question: str, sources: Sequence[Passage]) -> set[str]:
    """The names the sources' titles start with that `question` says as written (`named_papers`); none when the
    sources are of one paper."""
    if len({p.paper_id for p in sources}) < 2:
        return set()
    return {
        name
        for name in {n for p in sources for n in title_names(p.title)}
        if name_like(name) and re.search(rf"(?<![\w\-]){re.escape(name)}(?:['’]s)?(?![\w\-])", question)
    }


def _mention(name: str) -> re.Pattern[str]:
    """`name` as a word, with a version after it ("MiroThinker-v1.0-72B") and a possessive ("PaSa's"); a
    CamelCase name also as its words ("Paper Mage" for PaperMage: `as_written`)."""
    return re.compile(rf"(?<![\w\-])(?:the\s+)?{_spaced(name)}(?:[\w.\-]*)(['’]s)?(?![\w\-])", re.IGNORECASE)


_CAMEL = re.compile(r"(?<![\w\-])(?:[A-Z][a-z]+){2,}(?![\w\-])")  # "PaperMage", "CiteSee", "MiroThinker"


def _parts(name: str) -> list[str]:
    """The capitalised words a CamelCase name is made of ("PaperMage" → ["Paper", "Mage"]); [] for any other."""
    parts = re.findall(r"[A-Z][a-z]+", name)
    return parts if len(parts) > 1 and "".join(parts) == name and min(map(len, parts)) > 2 else []


def mentions_name(name: str, text: str) -> bool:
    """`text` writes `name` as a word: with a version or a part after a hyphen ("MiroThinker-v1.0-72B", "PaSa's",
    "Search-R1 v2"), a CamelCase name also spaced; not inside a longer word ("Herald" does not write "Hera"). A name
    in capitals as written ("LEAP" is not "leap"), any other in any case ("PaSa", "PASA")."""
    letters = [c for c in name if c.isalpha()]
    exact = len(letters) > 1 and all(c.isupper() for c in letters)
    pattern = rf"(?<![\w\-]){_spaced(name)}(?:-[\w.\-]*|\d[\w.]*)?(?:['’]s)?(?![\w\-])"
    return bool(re.search(pattern, text, 0 if exact else re.IGNORECASE))


def _spaced(name: str) -> str:
    """A pattern for `name` that also reads a CamelCase name written as separate words."""
    parts = _parts(name)
    return r"\s*".join(map(re.escape, parts)) if parts else re.escape(name)


def camel_names(question: str) -> list[str]:
    """The CamelCase names a question writes as one word ("PaperMage")."""
    return [m.group(0) for m in _CAMEL.finditer(question) if _parts(m.group(0))]


def as_written(question: str, paper_text: str) -> str:
    """`question` with each CamelCase name written as the paper writes it when the paper only writes it as
    separate words: PDF text often reads a name set in small capitals as two words ("paper mage" for PaperMage),
    and neither the keyword index nor the sentence scorer then finds the one-word name in the paper's text. A
    paper that writes the name apart more often than as one word (its title may have it once) is read so."""
    for name in camel_names(question):
        parts = _parts(name)
        joined = len(re.findall(re.escape(name), paper_text, re.IGNORECASE))  # the title may have it once
        apart = r"\s+".join(map(re.escape, parts))
        if len(re.findall(rf"(?<![\w\-]){apart}(?![\w\-])", paper_text, re.IGNORECASE)) > joined:
            question = re.sub(rf"(?<![\w\-]){re.escape(name)}(?![\w\-])", " ".join(parts), question)
    return question


def without_own_name(question: str, title: str) -> str:
    """`question` with the names `title` starts with made "it" ("its" for a possessive), unless it asks what one of
    them is."""
    kind = classify(question)
    for name in title_names(title):
        if kind.answer == "definition" and re.match(_spaced(name), kind.subject, re.IGNORECASE):
            return question  # "What is PaSa?": the name is what is asked about
        question = _mention(name).sub(lambda m: "its" if m.group(1) else "it", question)
    return question


def spelled_out(text: str, local: dict[str, str] | None = None) -> Focus:
    """`text` with each acronym followed by its long form (`local` definitions first, then the glossary)."""
    forms: dict[str, str] = {}
    for acronym in dict.fromkeys(acronyms(text)):
        form = expand(acronym, local)
        if form and form not in text.lower():
            forms[acronym] = form
            text = re.sub(rf"(?<![\w\-]){re.escape(acronym)}(?![\w\-])", f"{acronym} ({form})", text, count=1)
    return Focus(text, forms)


def _local_long_forms(sources: Sequence[Passage]) -> dict[str, str]:
    return agreed_forms((p.text, p.paper_id) for p in sources)


def focus(question: str, sources: Sequence[Passage]) -> Focus:
    """The question as the sentence scorer reads it: its acronyms spelled out as the sources define them, else as
    the glossary does."""
    return spelled_out(question, _local_long_forms(sources) if acronyms(question) else None)


def paper_query(question: str, title: str) -> str:
    """What a search inside the paper titled `title` looks for: `question` without the paper's own name, its
    acronyms spelled out."""
    return spelled_out(without_own_name(question, title)).text


def with_acronyms(
    sentence_terms: set[str], sentence: str, focus: Focus, acronym_terms: dict[str, set[str]]
) -> set[str]:
    """`sentence_terms` with the keyword terms of each of the focus's acronyms whose long form the sentence spells
    out ("... reinforcement learning ..." counts as "RL"); `acronym_terms`: each acronym's own keyword terms."""
    lowered = " ".join(sentence.lower().split())
    added = [acronym_terms.get(a, set()) for a, form in focus.long_forms.items() if form in lowered]
    return sentence_terms.union(*added) if added else sentence_terms
