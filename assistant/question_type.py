"""What a question asks for: a number, a named thing, a definition, a formula, or anything else.

The answer type is read from the question's wording ("how many" asks for a number, "which algorithm" for a
name, "what is X" for a definition of X, "reward function" for a formula or its description); the key terms
are the words of the question that a sentence answering it is likely to repeat.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

AnswerType = Literal["number", "entity", "definition", "formula", "other"]
ANSWER_TYPES: tuple[AnswerType, ...] = ("number", "entity", "definition", "formula", "other")

_NUMBER = re.compile(
    r"\bhow (?:many|much|large|big|long|often|fast|small|high|low|well)\b"
    r"|\bwhat (?:is |are |was |were )?(?:the )?(?:[\w\-]+ ){0,2}?(?:number|size|percentage|proportion|share|"
    r"amount|fraction|count|accuracy|score|f1|precision|recall|rate|performance|speed|cost|improvement|gain|"
    r"budget|agreement|correlation|duration|price|length|total|factor|rating|threshold|sensitivity)s?\b"
    r"|\bhow sensitive\b"
    r"|\bby how\b|\bwhat size\b",
    re.IGNORECASE,
)
_FORMULA = re.compile(
    r"\b(?:reward|loss|objective|formula|equation|penalty)(?: functions?)?\b|\bhow (?:is|are) \w+(?: \w+)? "
    r"(?:computed|calculated|defined)\b",
    re.IGNORECASE,
)
_THINGS = (
    r"(?:algorithms?|methods?|models?|datasets?|data sets?|corpus|corpora|benchmarks?|tools?|frameworks?|"
    r"architectures?|baselines?|metrics?|languages?|optimizers?|techniques?|approach(?:es)?|systems?|"
    r"libraries|library|parsers?|encoders?|classifiers?|embeddings?|features?|tasks?|sources?|venues?|"
    r"policies|policy|networks?|strategies|strategy|hardware|gpus?|licen[cs]es?|formats?|venues?)"
)
_ENTITY = re.compile(
    rf"^\s*(?:which|what)\b(?:\s+\w+){{0,3}}\s+{_THINGS}\b|\bwhich\b|\b(?:name|list)\s+the\b",
    re.IGNORECASE,
)
_DEFINITION = re.compile(
    r"^\s*(?:what(?:'s| is| are| was)|define|explain)\s+(?:a |an |the )?(?P<subject>[^?]{1,60}?)"
    r"\s*(?:\?|$| and (?:how|why|what|which|when) )"
    r"|^\s*what does (?P<subject2>[^?]{1,60}?) (?:mean|stand for|refer to|do)(?: in [^?]{1,40})?\s*\??\s*$"
    r"|^\s*what does the (?:paper|work|article|study) mean by (?P<subject4>[^?]{1,60}?)\s*\??\s*$"
    r"|^\s*what is meant by (?P<subject3>[^?]{1,60}?)\s*\??\s*$",
    re.IGNORECASE,
)
# The kinds of named thing (`assistant.entities.KINDS`) a "which X ..." question asks for, read from its head
# noun X: "Which RL algorithm trains the Crawler?" asks for an algorithm's name, "Which base LLM ..." for a model's.
THING_KINDS: dict[str, tuple[str, ...]] = {
    "algorithm": ("algorithm",), "method": ("algorithm",), "approach": ("algorithm",),
    "technique": ("algorithm",), "objective": ("algorithm",), "model": ("model",), "llm": ("model",),
    "dataset": ("dataset", "benchmark"), "corpus": ("dataset",), "corpora": ("dataset",),
    "benchmark": ("benchmark", "dataset"), "environment": ("benchmark", "framework"),
    "framework": ("framework",), "system": ("framework",), "toolkit": ("framework",),
}  # fmt: skip
_ASKED_THING = re.compile(
    rf"^\s*(?:which|what)\s+((?:[\w\-]+\s+){{0,5}}?)({'|'.join(sorted(THING_KINDS, key=len, reverse=True))})(?:e?s)?\b",
    re.IGNORECASE,
)
# The head noun is followed by the verb ("... algorithm trains", "... LLM is used") or a preposition; "Which model
# sizes ..." asks for sizes, not a model.
_AFTER_HEAD = re.compile(
    r"\s*[?,]|\s+(?:is|are|was|were|does|do|did|has|have|had|can|could|would|will|should|serves?|trains?|works?|"
    r"performs?|achieves?|underlies|powers?|used|best|in|on|for|to|from|of|that|and)\b",
    re.IGNORECASE,
)
# words between "which" and the head noun that make it something else: "What applications of the corpus ...",
# "Which baseline methods ..." (a baseline is any kind of thing), "What kind of model ..."
_NOT_THE_THING = re.compile(r"\b(?:of|the|a|an|baselines?|kinds?|types?|sorts?)\b", re.IGNORECASE)
# what a question asks for when it asks for the thing its subject is built on
_BASE = re.compile(
    r"\b(?:base|backbone|underlying|foundation|pre-?trained|adapts?|adapted|fine-?tunes?)\b|\bon top of\b|"
    r"\b(?:builds?|built|building|based|initiali[sz]ed|derived|distilled|started|starts?|fine-?tuned|finetuned|"
    r"trained|adapted)\s+(?:up)?(?:on|from)\b(?<!trained on)",
    re.IGNORECASE,
)
_NOT_SUBJECT = re.compile(r"^(?:difference|relation|role|effect|impact|purpose|goal|aim|main|best|most)\b", re.I)
_QUOTES = re.compile(r"[\"“”‘’]|(?<!\w)'|'(?!\w)")  # quote marks around the term, not an apostrophe
_LEADING = re.compile(r"^(?:(?:the|a|an) )?(?:(?:definition|meaning) of (?:(?:the|a|an) )?)?", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-']*")


@dataclass(frozen=True)
class QuestionType:
    """The answer type of a question and, for a definition, the thing to define."""

    answer: AnswerType
    subject: str = ""  # "PaSa" for "What is PaSa?"; "" unless the answer type is a definition
    kinds: tuple[str, ...] = ()  # ("algorithm",) for "Which RL algorithm trains X?"; () unless an entity is asked
    base: bool = False  # the asked thing is what the subject is built on: "What base model is X trained from?"


def asked_kinds(question: str) -> tuple[str, ...]:
    """The kinds of named thing a "which X ..." question asks for, from its head noun X (`THING_KINDS`); () when
    it names none or X is not the head ("Which model sizes ...", "What kind of model ...")."""
    m = _ASKED_THING.search(question)
    if m is None or _NOT_THE_THING.search(m.group(1)) or not _AFTER_HEAD.match(question, m.end()):
        return ()
    return THING_KINDS[m.group(2).lower()]


def asks_base(question: str) -> bool:
    """Whether a "which X" question asks what its subject is built on ("What base model is X trained from?",
    "Which RL algorithm does X build on?", "... serves as X's backbone?", "Which pre-trained model do they adapt?")
    rather than what it uses or was tested on ("trained on" asks for data, and is not read here)."""
    return bool(_BASE.search(question))


def _definition_subject(question: str) -> str:
    m = _DEFINITION.search(question)
    if not m:
        return ""
    subject = m.group("subject") or m.group("subject2") or m.group("subject3") or m.group("subject4") or ""
    subject = _LEADING.sub("", _QUOTES.sub("", subject).strip())
    words = _WORD.findall(subject)
    if not words or len(words) > 6 or _NOT_SUBJECT.search(subject):
        return ""
    return subject


def classify(question: str) -> QuestionType:
    """The answer type of `question`, from its wording; "other" when nothing in it says."""
    q = " ".join(question.split())
    if _NUMBER.search(q):
        return QuestionType("number")
    if _FORMULA.search(q):
        return QuestionType("formula")
    if _ENTITY.search(q):
        kinds = asked_kinds(q)
        return QuestionType("entity", kinds=kinds, base=bool(kinds) and asks_base(q))
    subject = _definition_subject(q)
    if subject:
        return QuestionType("definition", subject)
    return QuestionType("other")
