"""Acronyms and the long forms they stand for ("RL" → "reinforcement learning", "GRPO" → "group relative policy
optimization").

A long form is read where prose defines it, "Group Relative Policy Optimization (GRPO)": the acronym's capitals
are, in order, the initials of the words before the bracket, where a small word ("of", "with") or the later part
of a hyphenated word ("Pre-trained") may give none. Run over the arXiv abstracts it made the bundled glossary
`papertalk/data/acronyms.json` (scripts/build_acronyms.py): each acronym with the long form most abstracts give
it, kept only when most of them agree. The offline answer uses it to match a question's "RL" with a sentence
that says "reinforcement learning" (`assistant.focus`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from functools import cache, lru_cache
from pathlib import Path

GLOSSARY = Path(__file__).resolve().parents[1] / "papertalk" / "data" / "acronyms.json"
WORD = re.compile(r"(?<![\w\-])[A-Z][A-Za-z0-9]{1,9}(?![\w\-])")  # what may be an acronym: RL, GRPO, LLMs, CoT
_DEFINED = re.compile(r"\(([A-Z][A-Za-z0-9]{1,9})(?:[;,][^)]{0,60})?\)")  # "(GRPO)", "(GRPO; Shao et al., 2024)"
_WORDS_BEFORE = re.compile(r"((?:[A-Za-z][\w\-]*\s+){1,10})$")
_MAX_EXTRA_WORDS = 3  # a long form has at most this many words more than its acronym has capitals


# Acronyms everyone reads as words, whose glossary long form would mislead: to a reader "PDF" is a file, not a
# probability density function (the abstracts' usual meaning).
PLAIN = frozenset((
    "PDF", "GPU", "CPU", "TPU", "API", "URL", "HTML", "XML", "JSON", "SQL", "CSV", "RAM", "OS", "UI", "ID", "USB",
    "PC", "TV", "IT", "US", "UK", "EU", "USA", "PhD", "DNA", "RNA", "COVID",
))  # fmt: skip


def is_acronym(word: str) -> bool:
    """Mostly capitals, at least two, and not a plain word ("PDF"): "RL", "GRPO", "LLMs", "CoT" (not
    "MiroThinker" or "WebArena")."""
    capitals = sum(c.isupper() for c in word)
    return capitals >= 2 and capitals * 2 >= len(key(word)) and key(word) not in PLAIN


def acronyms(text: str) -> list[str]:
    """The acronyms `text` uses, in order."""
    return [m.group(0) for m in WORD.finditer(text) if is_acronym(m.group(0))]


def key(acronym: str) -> str:
    """The glossary's key for an acronym as written: "LLMs" → "LLM"."""
    return acronym[:-1] if len(acronym) > 2 and acronym.endswith("s") and acronym[-2].isupper() else acronym


_SKIPPABLE = frozenset(
    ["of", "for", "with", "from", "and", "the", "in", "on", "to", "a", "an", "by", "via", "as", "at"]
)


def _spells(letters: str, words: list[tuple[str, bool]]) -> bool:
    """Whether the words' initials spell `letters` in order, every word used; a small word ("of", "with") or the
    later part of a hyphenated word ("Pre-trained") may give no letter."""

    def go(i: int, j: int) -> bool:
        if j == len(words):
            return i == len(letters)
        word, continues = words[j]
        if i < len(letters) and word[0].lower() == letters[i] and go(i + 1, j + 1):
            return True
        return j > 0 and (continues or word.lower() in _SKIPPABLE) and go(i, j + 1)

    return go(0, 0)


def _words(text: str) -> list[tuple[str, bool]]:
    """Words and hyphenated parts, each with whether it continues a hyphenated word."""
    out = []
    for token in text.split():
        for n, part in enumerate(p for p in token.split("-") if p):
            out.append((part, n > 0))
    return out


def long_form(acronym: str, words_before: str) -> str | None:
    """The long form `acronym` abbreviates at the end of `words_before` (its capitals are the initials of the
    long form's words, in order), lower-cased; None when the words before the bracket do not spell it."""
    letters = "".join(c.lower() for c in key(acronym) if c.isupper())
    tokens = words_before.split()
    if len(letters) < 2:
        return None
    for n in range(1, min(len(tokens), len(letters) + _MAX_EXTRA_WORDS) + 1):
        tail = tokens[-n:]
        if tail[0][0].lower() != letters[0] or tail[0].lower() in _SKIPPABLE:
            continue
        if _spells(letters, _words(" ".join(tail))):
            form = " ".join(tail)
            return _singular(form.lower()) if form[0].isalpha() and len(_words(form)) >= 2 else None
    return None


def _singular(form: str) -> str:
    head, _, last = form.rpartition(" ")
    if last.endswith("ies") and len(last) > 4:
        last = last[:-3] + "y"
    elif last.endswith("s") and not last.endswith("ss") and len(last) > 3:
        last = last[:-1]
    return f"{head} {last}" if head else last


def definitions(text: str) -> Iterator[tuple[str, str]]:
    """(acronym, long form) for each "Long Form (ACR)" that `text` spells out."""
    for m in _DEFINED.finditer(text):
        if not is_acronym(m.group(1)):
            continue
        before = _WORDS_BEFORE.search(text[max(0, m.start() - 160) : m.start()])
        if before:
            form = long_form(m.group(1), before.group(1))
            if form:
                yield key(m.group(1)), form


def form_key(form: str) -> str:
    """A long form as compared with another: "Group-Relative Policy Optimisation" and "group relative policy
    optimization" are one, and so are "centralized training with decentralized execution" and "centralized
    training decentralized execution" (the small words that give no letter are left out)."""
    words = form.lower().replace("isation", "ization").replace("-", " ").split()
    return " ".join(w for w in words if w not in _SKIPPABLE)


def agreed_forms(spellings: Iterable[tuple[str, str]]) -> dict[str, str]:
    """For each acronym that texts of (text, paper id) spell out, the long form the most papers give it (a tie
    goes to the glossary's form, then to the first read). When the texts come from several papers and only one of
    them spells the acronym out, its spelling is left out if the glossary has one: one paper's "Generalized Reward
    Policy Optimization (GRPO)" does not outweigh what nearly every other paper means by GRPO; the texts of one
    paper say what it means by its own acronyms."""
    papers: dict[str, dict[str, set[str]]] = {}
    written: dict[str, str] = {}
    every_paper = set()
    for text, paper in spellings:
        every_paper.add(paper)
        for acronym, form in _spelled_out(text):
            k = form_key(form)
            papers.setdefault(acronym, {}).setdefault(k, set()).add(paper)
            written.setdefault(k, form)
    out = {}
    for acronym, forms in papers.items():
        known = glossary().get(acronym)
        best = max(forms, key=lambda k: (len(forms[k]), k == form_key(known or "")))  # ties: the first read
        if len(every_paper) == 1 or len(forms[best]) > 1 or not known:
            out[acronym] = written[best]
    return out


def spells_otherwise(text: str, acronym: str, form: str) -> bool:
    """`text` spells `acronym` out as something other than `form` ("Generalized Reward Policy Optimization
    (GRPO)" against "group relative policy optimization")."""
    wanted, k = form_key(form), key(acronym)
    return any(a == k and form_key(f) != wanted for a, f in _spelled_out(text))


@lru_cache(maxsize=4096)
def _spelled_out(text: str) -> tuple[tuple[str, str], ...]:
    """`definitions` of a passage or sentence, read once: a definition question reads its sources' spellings for
    the search, the lookup and the lead."""
    return tuple(definitions(" ".join(text.split())))


@cache
def glossary() -> dict[str, str]:
    """The bundled acronym → long form glossary (empty when the file is missing)."""
    try:
        return dict(json.loads(GLOSSARY.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return {}


def expand(acronym: str, local: dict[str, str] | None = None) -> str | None:
    """The long form of `acronym`: as the text at hand defines it (`local`), else as the glossary has it."""
    k = key(acronym)
    return (local or {}).get(k) or glossary().get(k)
