"""Cue words that tell what a sentence of a paper does: frame a problem, describe a method, report a
result, name a challenge or a limitation. They nudge sentence scores; embeddings do the ranking."""

from __future__ import annotations

import re

_I = re.IGNORECASE

PROBLEM = re.compile(
    r"\b(?:aims? to|goal|problems?|tasks?|enabl\w+|increasingly|ha(?:s|ve) (?:shown|emerged|become|attracted)|"
    r"emerg\w+|promising|paradigm|widely|capabilit\w+|key to|essential|crucial|fundamental)\b",
    _I,
)
FIRST_PERSON = re.compile(r"\b(?:we|our|us|this (?:paper|work|study|article)|here)\b", _I)
APPROACH = re.compile(
    r"\b(?:we (?:propose|introduce|present|develop|design)|framework|method|approach|algorithm|"
    r"train\w*|optimi[sz]\w*|fine-tun\w+|reward\w*|polic(?:y|ies))\b",
    _I,
)
CHALLENGE = re.compile(
    r"\b(?:challenges?\b|challenging(?!\s+(?:benchmarks?|tasks?|datasets?|environments?|problems?|settings?|"
    r"scenarios?|domains?|games?|questions?))|remains?|remained|limited|limitations?|difficult\w*|struggl\w*|bottlenecks?|"
    r"hinder\w*|suffer\w*|unstable|instability|costly|expensive|open (?:problems?|questions?)|lack\w*|"
    r"fail\w*|brittle|inefficien\w*)\b",
    _I,
)
STRONG_CHALLENGE = re.compile(r"\b(?:challeng\w*|remains?|open (?:problems?|questions?)|bottlenecks?)\b", _I)
METHOD = re.compile(
    r"\b(?:we (?:propose|present|introduce|develop|design|train|build|construct|use|adopt|formulate|model)|"
    r"our (?:method|approach|model|framework|system|pipeline|algorithm)|consists of|is trained|architecture|"
    r"algorithm|pipeline|objective)\b",
    _I,
)
RESULT = re.compile(
    r"\b(?:outperform\w*|improv\w*|achiev\w*|(?:results?|experiments?|evaluations?) (?:show|indicate|demonstrate|"
    r"suggest|reveal)\w*|we (?:find|found|show|observe|demonstrate)|accuracy|state-of-the-art|gains?|"
    r"surpass\w*|\d+(?:\.\d+)?\s?%)",
    _I,
)
LIMITATION = re.compile(
    r"\b(?:limitations?|limited|future work|does not|do not|cannot|fails?|failure|drawbacks?|shortcomings?|"
    r"restricted|only (?:on|for|in)|not (?:yet|always|able)|remains?)\b",
    _I,
)
LIMITATIONS_HEADING = re.compile(r"(?:^|\n)\s*(?:\d+(?:\.\d+)*\.?\s*)?Limitations?\b")


def cue(pattern: re.Pattern[str], text: str) -> float:
    """1.0 when the pattern occurs in `text`, else 0.0."""
    return 1.0 if pattern.search(text) else 0.0


# A sentence that leans on the one before it ("To address this, ...", "These methods ...") reads badly alone.
ANAPHORA = re.compile(
    r"^(?:To (?:address|tackle|solve|overcome|fill|bridge|mitigate)\b[^,]*\b(?:this|these|those|such|gaps?|"
    r"issues?|challenges?|limitations?)\b|To this end|(?:Beyond|Based on|Building on|Despite|Motivated by|Inspired by) "
    r"(?:this|these|that|those)\b|These|This|Such|They|It|Its|Their|In (?:this|these|that)\b(?! (?:work|paper|study)))"
)
CONNECTIVE = re.compile(
    r"^(?:Moreover|Furthermore|Additionally|Finally|Specifically|However|Thus|Therefore|Then|First(?:ly)?|Second(?:ly)?|"
    r"Third(?:ly)?|Lastly|Next|Surprisingly|Interestingly|Notably|Importantly|Overall|Together|Consequently|Hence|"
    r"Instead|Meanwhile|Similarly|Likewise|Nevertheless|Nonetheless|Also)\b"
)
EARLY_REFERENCE = re.compile(r"^(?:\S+\s+){0,4}?(?:this|these|those|such)\s+(?!paper|work|study|article)", _I)


def dangling(text: str) -> float:
    """1.0 for a sentence that opens by leaning on an earlier one, 0.5 when it refers back early on, else 0."""
    if ANAPHORA.search(text) or CONNECTIVE.search(text):
        return 1.0
    return 0.5 if EARLY_REFERENCE.search(text) else 0.0
