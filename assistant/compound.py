"""Questions of two parts: "What is GRPO and how do agentic papers modify it?".

Read whole, such a question is scored as one: the sentences that best match both halves at once win, and the
offline answer says what GRPO is or how papers change it, seldom both. `parts` splits it where a second question
starts after "and" ("... and how ...", "... and which ..."), and puts the first part's subject where the second
says "it" ("How do agentic papers modify GRPO?"). The offline answerer answers each part from the same sources
and quotes the lead sentences of each, in order (assistant/extractive.py).
"""

from __future__ import annotations

import re

from assistant.question_type import classify

# "..., and how ...", "... and which ...": a second question after "and"
_SECOND = re.compile(
    r"^(?P<first>.+?)(?:,\s*|\s+)and\s+(?P<second>(?:how|what|which|why|when|where|who|whose)\b.+)$", re.IGNORECASE
)
_ASKS = re.compile(r"^\s*(?:how|what|which|why|when|where|who|whose|is|are|does|do|did|can|could)\b", re.IGNORECASE)
_POSSESSIVE = re.compile(r"\b(?:its|their)\b", re.IGNORECASE)
_PRONOUN = re.compile(r"\b(?:it|they|them)\b", re.IGNORECASE)
FIRST_WORDS = 3  # the fewest words of a first part: "Which datasets and what metrics ..." is one question


def parts(question: str) -> list[str]:
    """`question` as the questions it asks, in order: two when a second question follows "and" after a first of
    `FIRST_WORDS` or more words, the second's "it" / "its" read as the first's subject where it has one (a "what
    is X" question's X); else `question` alone."""
    m = _SECOND.match(question.strip())
    if not m or not _ASKS.match(m["first"]) or len(m["first"].split()) < FIRST_WORDS:
        return [question]
    first = m["first"].rstrip(" ,;?") + "?"
    second = m["second"].rstrip(" ?") + "?"
    second = second[0].upper() + second[1:]
    subject = classify(first).subject
    if subject:
        second = _POSSESSIVE.sub(f"{subject}'s", second, count=1)
        second = _PRONOUN.sub(subject, second, count=1)
    return [first, second]
