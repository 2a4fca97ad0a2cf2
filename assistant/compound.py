"""Questions of two parts: "What is GRPO and how do agentic papers modify it?".

Read whole, such a question is scored as one: the sentences that best match both halves at once win, and the
offline answer says what GRPO is or how papers change it, seldom both. `parts` splits it where a second question
starts after "and" ("... and how ...", "... and which ..."), and puts the first part's subject where the second
says "it" ("How do agentic papers modify GRPO?"). The offline answerer answers each part from the same sources
and quotes the lead sentences of each, in order (assistant/extractive.py). A comparison ("What is the difference
between PPO and GRPO?") is asked as itself, then as what each thing is: the sentence that compares them, then what
the papers say each one is.
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


# "What is the difference between PPO and GRPO?", "How does GiGPO differ from GRPO?", "Compare PPO with GRPO",
# "PPO vs GRPO": two things compared
_COMPARED = (
    re.compile(
        r"^(?:what|where)\s+(?:is|are)\s+the\s+(?:\w+\s+)?differences?\s+between\s+(?P<x>.+?)\s+and\s+(?P<y>.+)$", re.I
    ),
    re.compile(r"^how\s+(?:does|do|is|are)\s+(?P<x>.+?)\s+(?:differ|different)\s+from\s+(?P<y>.+)$", re.I),
    re.compile(r"^how\s+do\s+(?P<x>.+?)\s+and\s+(?P<y>.+?)\s+differ\b.*$", re.I),
    re.compile(r"^compare\s+(?P<x>.+?)\s+(?:and|with|to|against)\s+(?P<y>.+)$", re.I),
    re.compile(r"^(?P<x>[^?]+?)\s+(?:vs\.?|versus)\s+(?P<y>.+)$", re.I),
)
_AFTER_THING = re.compile(r"\s+(?:for|in|on|when|within|under|at|during|regarding|in\s+terms\s+of)\s+.*$", re.I)
_NOT_A_THING = re.compile(  # a question word, or a pronoun that points back ("How do they differ from each other?")
    r"\b(?:what|which|how|why|when|where|who|it|its|they|them|their|this|that|these|those|each\s+other|one\s+another)\b",
    re.I,
)
_PLAIN = re.compile(r"^(?:plain|standard|vanilla|original|traditional|conventional|the)\s+", re.I)
COMPARED_WORDS = 5  # the most words of a thing compared: a name or a short noun phrase


def compared(question: str) -> tuple[str, str] | None:
    """The two things `question` compares ("What is the difference between PPO and GRPO?": PPO, GRPO), each a
    name or a noun phrase of `COMPARED_WORDS` words or fewer, what follows it ("... for agent training") left out;
    None when it compares nothing."""
    text = question.strip().rstrip(" ?.!")
    for pattern in _COMPARED:
        m = pattern.match(text)
        if m:
            x, y = (_PLAIN.sub("", t.strip(" ,")) for t in (m["x"], _AFTER_THING.sub("", m["y"])))
            if all(t and len(t.split()) <= COMPARED_WORDS and not _NOT_A_THING.search(t) for t in (x, y)):
                return x, y
    return None


def parts(question: str) -> list[str]:
    """`question` as the questions it asks, in order: two when a second question follows "and" after a first of
    `FIRST_WORDS` or more words, the second's "it" / "its" read as the first's subject where it has one (a "what
    is X" question's X); a comparison of X and Y as itself, then what X is and what Y is (`compared`); else
    `question` alone."""
    m = _SECOND.match(question.strip())
    if not m or not _ASKS.match(m["first"]) or len(m["first"].split()) < FIRST_WORDS:
        things = compared(question)
        return [question, *(_what_is(t) for t in things)] if things else [question]
    first = m["first"].rstrip(" ,;?") + "?"
    second = m["second"].rstrip(" ?") + "?"
    second = second[0].upper() + second[1:]
    subject = classify(first).subject
    if subject:
        second = _POSSESSIVE.sub(f"{subject}'s", second, count=1)
        second = _PRONOUN.sub(subject, second, count=1)
    return [first, second]


def _what_is(thing: str) -> str:
    """ "What is PPO?", "What are process rewards?"."""
    last = thing.split()[-1]
    plural = last.endswith("s") and not last.endswith("ss") and not last[:-1].isupper()
    return f"What {'are' if plural else 'is'} {thing}?"
