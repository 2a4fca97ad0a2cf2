"""Named methods, datasets, benchmarks, models and frameworks in scientific prose, and what kind each one is.

A name is an acronym, a mixed-case word or a word with a version ("GRPO", "ReAct", "WebArena", "Qwen2.5",
"Gemini-2.5-Pro"). Its kind comes from the words around it: a head noun after it ("the PPO algorithm"), a list it
is named in ("benchmarks such as GAIA and WebShop"), an apposition ("RAGEN, a modular framework"), or the long
form it abbreviates ("Group Relative Policy Optimization (GRPO)": optimization → algorithm). The same reading,
run over the arXiv abstracts, made the bundled vocabulary `papertalk/data/entities.json`
(scripts/build_entity_vocab.py), which says how each known name is usually described; text at hand adds its own
evidence. A versioned name the vocabulary lacks takes its family's kind ("Gemini-9-Ultra": a model, as the other
Gemini versions are).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator
from functools import cache
from pathlib import Path

KINDS = ("algorithm", "dataset", "benchmark", "model", "framework")
VOCABULARY = Path(__file__).resolve().parents[1] / "papertalk" / "data" / "entities.json"

_NAME = r"(?:[A-Z][A-Za-z]*[A-Z][\w.+\-]*|[A-Z][a-z]+\d[\w.+\-]*|[A-Z][a-z]+(?:-[A-Za-z]+)*-\d[\w.+\-]*|[A-Z]{2,}s?)"
# The same names as (?<![\w\-]){_NAME}(?![\w]), written to start with a capital so that the scan skips ahead to
# one (three times faster: a list answer reads every name in ~50 passages).
NAME = re.compile(
    r"[A-Z](?<![\w\-].)(?:[A-Za-z]*[A-Z][\w.+\-]*|[a-z]+\d[\w.+\-]*|[a-z]+(?:-[A-Za-z]+)*-\d[\w.+\-]*|[A-Z]+s?)(?![\w])"
)
_HEADS = {
    "algorithm": "algorithm algorithms optimization optimisation objective gradient estimator update method search "
    "sampling estimation decoding",
    "dataset": "dataset datasets corpus corpora data collection",
    "benchmark": "benchmark benchmarks bench suite arena leaderboard testbed",
    "model": "model models llm llms transformer backbone checkpoint",
    "framework": "framework frameworks system agent agents toolkit library platform pipeline environment "
    "architecture infrastructure engine",
}
HEAD_KIND = {word: kind for kind, words in _HEADS.items() for word in words.split()}
_HEAD = "|".join(sorted(HEAD_KIND, key=len, reverse=True))
# What follows a name to say its kind; matched where a name ends, not searched for (docs/benchmarks.md).
_AFTER = re.compile(rf"\s+(?:[a-z\-]+\s+)?({_HEAD})\b(?!-)")  # "GRPO algorithm", "WebArena web benchmark"
_APPOSITION = re.compile(rf"(?:\s*\([^)]{{0,80}}\))?,?\s+(?:an?|the)\s+(?:[\w\-]+\s+){{0,5}}?({_HEAD})\b(?!-)")
# "benchmarks such as GAIA and WebShop": found from its trigger words, the head noun read just before them.
_TRIGGERS = ("such as", "like", "including", "e.g.", "namely", "called", "named", "dubbed")
_TRIGGER_WORDS = "|".join(re.escape(t) + (",?" if t.endswith(".") else "") for t in _TRIGGERS)  # "e.g.," too
_BEFORE_TRIGGER = re.compile(r"([a-z]+)\s*(?:,|\()?\s*$")
_LIST = re.compile(
    rf"\b({_HEAD})\b(?!-)\s*(?:,|\()?\s*(?:{_TRIGGER_WORDS})\s+"
    rf"((?:{_NAME}(?:\s*\([^)]{{0,40}}\))?(?:,\s*|\s+and\s+|\s+or\s+|,\s*and\s+)?){{1,8}})"
)
_IN_BRACKETS = re.compile(rf"\(({_NAME})\)")
_WORD_END = re.compile(r"[A-Za-z][\w\-]*$")
_GENERIC = (
    "LLM LLMs LM LMs VLM VLMs MLLM MLLMs RL AI NLP ML DL API APIs GPU GPUs CPU QA IR KG KGs CV SOTA RLHF RLVR "
    "AGI NLU NLG MDP MDPs POMDP CoT SFT LRM LRMs US UK EU II III IV TODO OOD URL HTML JSON SQL PDF KL"
)
GENERIC = frozenset(_GENERIC.split())  # acronyms of fields and things, never an answer to "which method"
# a capitalised word, a hyphen and a version names a model ("Gemini-2.5-Pro", "Llama-3.1-8B", "Claude-4.5-Sonnet"),
# unless the word numbers the parts of a paper or a procedure ("Stage-2", "Table-3", "Top-5")
_NUMBERED = (
    "Item Items Observation Paper Stage Level System Step Phase Round Top Figure Fig Table Section Appendix Type "
    "Version Case Example Task Question Part Group Day Week Month Year Chapter Rule Class Layer Block Turn Pass Hop "
    "Shot Ans Covid Rouge Bleu Seal Recall Precision Accuracy Hit Hits Success Cluster Sample Run Trial Experiment "
    "Setting Scenario Query User Doc Document Page Line Eq Equation Theorem Lemma Proposition Definition Remark "
    "Corollary Algorithm Assumption Claim Property Condition Option Grade Tier Wave Batch Epoch Iteration"
)
_NUMBERED_WORDS = frozenset(_NUMBERED.split())


def generic(name: str) -> bool:
    """Whether `name` is a generic acronym (`GENERIC`) or numbers a part ("Stage-2"): never an answer."""
    return name in GENERIC or ("-" in name and name.split("-", 1)[0] in _NUMBERED_WORDS)


def names(text: str) -> list[str]:
    """The candidate names in `text`, in order, generic acronyms (LLM, RL, SFT...) left out."""
    return [m.group(0).rstrip(".-") for m in NAME.finditer(text) if not generic(m.group(0).rstrip(".-"))]


def _initials_match(expansion: str, name: str) -> bool:
    """Whether the long form's words start with the acronym's capitals ("Proximal Policy Optimization", PPO)."""
    capitals = [c for c in name if c.isupper()]
    initials = [w[0].upper() for w in re.split(r"[\s\-]+", expansion) if w]
    return len(capitals) >= 2 and initials[-len(capitals) :] == capitals


def _expansion_kind(words: str, name: str) -> str | None:
    parts = words.split()
    for size in range(len(parts), 0, -1):
        long_form = " ".join(parts[-size:])
        if _initials_match(long_form, name):
            return HEAD_KIND.get(parts[-1].lower().rstrip("s")) or HEAD_KIND.get(parts[-1].lower())
    return None


def _described(text: str, found: list[re.Match[str]], tail: re.Pattern[str]) -> Iterator[tuple[str, str]]:
    """(name, kind) where a found name is followed by `tail`; a name inside an earlier match is not read again."""
    end = 0
    for name in found:
        if name.start() >= end and (m := tail.match(text, name.end())):
            end = m.end()
            yield name.group(0).rstrip(".-"), HEAD_KIND[m.group(1).lower()]


def _trigger_starts(text: str) -> list[int]:
    """Where each trigger word of a list occurs (str.find: a regex alternation of them is ten times slower)."""
    starts = []
    for word in _TRIGGERS:
        at = text.find(word)
        while at >= 0:
            starts.append(at)
            at = text.find(word, at + 1)
    return sorted(starts)


def _words_before(text: str, end: int) -> str | None:
    """Up to 7 words right before `end` ("Group Relative Policy Optimization " before "(GRPO)"), None if none."""
    before = text[max(0, end - 120) : end]
    if not before or not before[-1].isspace():
        return None
    words: list[str] = []
    for token in reversed(before.split()):
        word = _WORD_END.search(token)
        if word is None or len(words) == 7:
            break
        words.append(word.group(0))
        if word.start() > 0:  # the word began inside this token: the run of words stops here
            break
    return " ".join(reversed(words)) or None


def _listed(text: str) -> Iterator[tuple[str, str]]:
    """(name, kind) for the names a list introduces: "benchmarks such as GAIA and WebShop"."""
    end = 0
    for start in _trigger_starts(text):
        if start < end:
            continue
        before = _BEFORE_TRIGGER.search(text, max(end, start - 40), start)
        if before is None or before.group(1) not in HEAD_KIND:
            continue
        m = _LIST.match(text, before.start())
        if m:
            end = m.end()
            kind = HEAD_KIND[m.group(1).lower()]
            for name in names(re.sub(r"\([^)]*\)", " ", m.group(2))):
                yield name, kind


def evidence(text: str) -> Iterator[tuple[str, str]]:
    """(name, kind) for every place in `text` that says what kind of thing a name is."""
    found = list(NAME.finditer(text))
    yield from _described(text, found, _AFTER)
    yield from _listed(text)
    yield from _described(text, found, _APPOSITION)
    for m in _IN_BRACKETS.finditer(text):  # "Group Relative Policy Optimization (GRPO)"
        before = _words_before(text, m.start())
        long_kind = _expansion_kind(before, m.group(1)) if before else None
        if long_kind:
            yield m.group(1).rstrip(".-"), long_kind


def expands(text: str, name: str) -> bool:
    """Whether `text` spells out the acronym `name`: "Group Relative Policy Optimization (GRPO)", or "GRPO
    (Group Relative Policy Optimization)"."""
    for m in re.finditer(rf"\({re.escape(name)}[;,)]", text):  # "(GRPO)", "(GRPO; Shao et al., 2024)"
        before = _words_before(text, m.start())
        if before and any(_initials_match(" ".join(before.split()[-n:]), name) for n in range(1, 8)):
            return True
    for m in re.finditer(rf"(?<![\w\-]){re.escape(name)}\s*\(([^()]{{3,100}})\)", text):
        if _initials_match(m.group(1), name) or _initials_match(re.sub(r"[^\w\s\-]", " ", m.group(1)), name):
            return True
    return False


def kind_counts(texts: list[str]) -> dict[str, Counter[str]]:
    """For each name the texts describe, how often they describe it as each kind."""
    out: dict[str, Counter[str]] = {}
    for text in texts:
        for name, kind in evidence(text):
            if not generic(name):
                out.setdefault(name, Counter())[kind] += 1
    return out


@cache
def vocabulary() -> dict[str, dict[str, int]]:
    """The bundled vocabulary: name → {kind: how many arXiv abstracts described it so}; empty if missing."""
    if not VOCABULARY.exists():
        return {}
    data: dict[str, dict[str, int]] = json.loads(VOCABULARY.read_text(encoding="utf-8"))
    return data


def kind_of(name: str, local: Counter[str] | None = None) -> str | None:
    """The kind a name most often has (the text at hand counts three times an abstract), None if unknown."""
    counts: Counter[str] = Counter(vocabulary().get(name, {}))
    for kind, n in (local or Counter()).items():
        counts[kind] += 3 * n
    if not counts:
        return None
    kind, top = counts.most_common(1)[0]
    return kind if top >= 2 and top >= 0.5 * sum(counts.values()) else None


# A name's last part, where a name says its own kind: "Tau2-Bench", "WebArena", "SWE-agent", "MiniHack-Env".
_OWN_HEAD = re.compile(r"(?:-|(?<=[a-z0-9])(?=[A-Z]))([A-Za-z]+)$")
SHORT_NAME = 2  # "EI", "IF": letters an abstract uses for an ability as often as for a benchmark


def listed_kind(name: str, local: Counter[str] | None = None) -> str | None:
    """The kind of a name for a list answer: `kind_of`, but a name of `SHORT_NAME` letters or fewer only where the
    text at hand says what it is ("EI ability", not the EI benchmark of some abstract), and a name the vocabulary
    and the text don't describe by its own last part ("Tau2-Bench", "WebArena")."""
    if len(name) <= SHORT_NAME and not local:
        return None
    kind = kind_of(name, local)
    if kind is not None:
        return kind
    head = _OWN_HEAD.search(name)
    return HEAD_KIND.get(head.group(1).lower()) if head else None


# A sized, tuned or versioned variant of a named model: "Qwen2.5-7b", "Llama-3.1-8B-Instruct", "Mistral-v0.3".
_VARIANT = re.compile(r"(?:-(?:\d+(?:\.\d+)?[bmk]|instruct|chat|base|it|v\d[\w.]*))+$", re.IGNORECASE)


@cache
def _by_lower_case() -> dict[str, str]:
    return {name.lower(): name for name in vocabulary()}


def family_kind(name: str, local: Counter[str] | None = None) -> str | None:
    """`kind_of`, or for a name neither the vocabulary nor the text describes, the kind of the name it is a
    variant of, in any case ("Qwen2.5-7b" is a model because "Qwen2.5" is)."""
    kind = kind_of(name, local)
    if kind is not None:
        return kind
    for form in dict.fromkeys((name, _VARIANT.sub("", name))):
        known = _by_lower_case().get(form.lower())
        if known is not None and (kind := kind_of(known, local)) is not None:
            return kind
    family = _FAMILY.match(name)
    counts = _families().get(family.group(1).lower()) if family else None
    return counts.most_common(1)[0][0] if counts else None


_FAMILY = re.compile(r"([A-Za-z]+)-[\w.+\-]*\d")  # a versioned name's family: "Gemini" of "Gemini-3-Flash"


@cache
def _families() -> dict[str, Counter[str]]:
    """For each family of versioned names the vocabulary knows ("gemini": "Gemini-2.5-Pro", "Gemini-1.5"), how
    the abstracts describe its members, all together."""
    out: dict[str, Counter[str]] = {}
    for name, kinds in vocabulary().items():
        if family := _FAMILY.match(name):
            out.setdefault(family.group(1).lower(), Counter()).update(kinds)
    return out
