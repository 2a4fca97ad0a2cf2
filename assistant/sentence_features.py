"""Features of a candidate answer sentence for one question, read by the learned sentence scorer.

Each feature is a number computed from the question (its answer type and key terms) and the sentence in its
place (its passage's rank, its neighbours, its section when the chunk knows it). `CHEAP` features need no
embedding; `FULL` starts from the embedding-based support score, computed only for the sentences the cheap
ones keep.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from assistant.asked_section import asked_section
from assistant.entities import expands, family_kind, generic, names
from assistant.question_type import QuestionType
from assistant.scoring import overlap, terms
from storage.keyword import stemmer

_NUMBER = re.compile(
    r"(?<![\w.\[])(?<!\w-)(?:\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*(?:%|percent|[kKMB]\b|million|billion|thousand|hours?|"
    r"days?|weeks?|GB|TB|MB|tokens|papers|x\b))?"
)
_YEAR = re.compile(r"^(?:19|20)\d\d$")
# a date is no quantity: "2024-10-01", "10/01/2024", "1 October 2024", "Oct. 1, 2024"
_DATE = re.compile(
    r"\b(?:19|20)\d\d[-/.]\d{1,2}[-/.]\d{1,2}\b|\b\d{1,2}[-/.]\d{1,2}[-/.](?:19|20)\d\d\b"
    r"|\b\d{1,2}\s+(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?(?:\s+(?:19|20)\d\d)?\b"
    r"|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b(?:,?\s+(?:19|20)\d\d)?"
)
# a count written as a word ("Six participants were recruited"); "one" is left out, prose uses it at will, and so
# is a word that multiplies or picks ("three times more", "two of the models")
_NUMBER_WORD = re.compile(
    r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|"
    r"eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)\b(?!\s*(?:times|-?fold|of)\b)",
    re.IGNORECASE,
)
_HOW_MANY = re.compile(r"\bhow many\b|\bwhat (?:is |was )?the number of\b", re.IGNORECASE)
# a number that names a part of the paper or an item of a list, not a quantity: "Section 3", "Fig. 2", "(1)"
_POINTER = re.compile(
    r"(?:\b(?:sections?|sec\.|figures?|figs?\.|tables?|tab\.|equations?|eqs?\.|appendix|appendices|chapters?|"
    r"algorithms?|lines?|stud(?:y|ies)|stages?|phases?|steps?|theorems?|lemmas?|footnotes?|RQ|Q)|§)\s*\(?[A-Z]?\d+"
    r"(?:\.\d+)*[a-z]?\)?(?:\s*(?:,|and|&|[-–])\s*\(?[A-Z]?\d+(?:\.\d+)*[a-z]?\)?)*|(?<![\w)])\(\d{1,2}\)",
    re.IGNORECASE,
)
_CITATION = re.compile(
    r"\(\s*[A-Z][A-Za-z\-]+(?: et al\.?| and [A-Z][A-Za-z\-]+)?,? \d{4}[a-z]?\s*[;)]|\[\d+(?:[,\-–]\s*\d+)*\]"
)
_NAME = re.compile(r"\b(?:[A-Z]{2,}[A-Za-z0-9\-]*|[A-Z][a-z]+[A-Z][A-Za-z0-9\-]*|[A-Za-z]+-\d[\w.\-]*)\b")
_CAPTION = re.compile(r"^\s*(?:fig(?:ure)?\.?|table|tab\.|algorithm)\s*\d+|^\s*\([a-z]\)\s", re.IGNORECASE)
_HEADING = re.compile(r"^\s*(?:\d+(?:\.\d+)*\.?\s+[A-Z][a-z]+|[A-Z][A-Z ]{6,}\b)")
_DEFINES = re.compile(
    r"\b(?:is|are)\s+(?:a|an|the|defined as)\b|\brefers? to\b|\bdenotes?\b|\brepresents?\b|\bconsists? of\b|"
    r"\bis one (?:that|which|with|where)\b|\b(?:we|this paper|this work) "
    r"(?:propose|introduce|present|describe)s?\b|\b(?:called|named|dubbed|termed)\b",
    re.IGNORECASE,
)
_FORMULA = re.compile(r"[=∑Σ∏λαβγ·×≤≥]|\b(?:defined as|computed as|calculated as|given by|equals?)\b", re.IGNORECASE)
_CONTINUES = re.compile(
    r"^\s*(?:this|these|it|they|such|however|moreover|thus|therefore|furthermore|additionally|in addition|"
    r"then|also|here|specifically|in particular)\b",
    re.IGNORECASE,
)
_OWN_WORK = re.compile(r"\b(?:we|our|us)\b", re.IGNORECASE)
_GOOD_SECTIONS = re.compile(r"method|approach|model|experiment|result|evaluation|training|setup|data|implement", re.I)
_BAD_SECTIONS = re.compile(r"related|background|reference|bibliograph|acknowledg|appendix|limitation|ethic", re.I)

CHEAP = (
    "bias", "lexical", "rare", "bigram", "prior", "first", "position", "length", "numbers", "names", "citations",
    "caption", "heading", "continues", "own_work", "prev_lexical", "next_lexical", "good_section", "bad_section",
    "q_number", "q_entity", "q_definition", "q_formula",
    "number_x_number", "entity_x_names", "definition_x_defines", "definition_x_subject_first", "formula_x_formula",
    "formula_x_defines",
)  # fmt: skip
FULL = (
    "support", "caption", "heading", "number_x_number", "entity_x_names", "definition_x_defines",
    "definition_x_subject_first", "formula_x_formula", "formula_x_defines", "citations", "prior", "rare", "bigram",
    "prev_lexical", "continues",
)  # fmt: skip
# `support` is today's sentence score, semantic_weight x embedding similarity + the rest x keyword overlap: the full
# model learns how much the answer type, captions, headings and the passage's rank should move it.


def full_row(cheap: Sequence[float], support: float) -> list[float]:
    """The `FULL` features of a sentence from its `CHEAP` ones and its support score."""
    values = dict(zip(CHEAP, cheap, strict=True))
    values["support"] = support
    return [values[name] for name in FULL]


@dataclass(frozen=True)
class Context:
    """A sentence in its place: passage rank (0 is the best), neighbours, section ("" when unknown)."""

    text: str
    terms: frozenset[str]
    bigrams: frozenset[tuple[str, str]]
    rank: int
    index: int  # in its passage
    count: int  # sentences in its passage
    prev_terms: frozenset[str] = frozenset()
    next_terms: frozenset[str] = frozenset()
    section: str = ""


@dataclass(frozen=True)
class Query:
    """The question as the features read it."""

    terms: frozenset[str]
    kind: QuestionType
    rare: frozenset[str]  # its two rarest terms in the candidate pool
    bigrams: frozenset[tuple[str, str]]
    subject: str = ""  # lower-cased thing to define


@lru_cache(maxsize=4096)
def _unpointed(text: str) -> str:
    """`text` without its citation markers and the numbers of what it points to ("Table 4", "[12]"), read once
    per sentence however many rules look at its numbers."""
    return _DATE.sub(" ", _POINTER.sub(" ", _CITATION.sub(" ", text)))


def numbers_in(text: str, words: bool = False) -> int:
    """Quantities in `text`: numbers that are not years, citation numbers, list markers or the numbers of a section,
    figure, table or equation the sentence points to ("in Section 3"); with `words`, counts written as words too
    ("Six participants were recruited": what a "how many" question may be answered by)."""
    text = _unpointed(text)
    spans = [m.group(0) for m in _NUMBER.finditer(text)]
    return sum(not _YEAR.match(s.strip()) for s in spans) + (len(_NUMBER_WORD.findall(text)) if words else 0)


# the benchmark a number question asks about: "What score does MiroThinker-H1 achieve on BrowseComp?"
_ON_NAME = re.compile(r"\bon\s+(?:the\s+)?(" + _NAME.pattern.removeprefix(r"\b(?:").removesuffix(r")\b") + r")")


_NEAR = r"(?:\S+\s+){0,3}?"  # at most three words between
_SCORE = r"(?<![\w.])\d+(?:\.\d+)?%?"


def scored_on(question: str, text: str) -> bool:
    """`text` gives a number next to the benchmark the number question asks about ("... 43.4 on BrowseComp",
    "BrowseComp (43.4)"): within three words either side, citation numbers left out."""
    asked = [m.group(1) for m in _ON_NAME.finditer(question)]
    if not asked:
        return False
    text = _CITATION.sub(" ", text)
    for name in asked:
        named = re.escape(name) + r"[\w\-]*"  # "ALFWorld-3B" for "ALFWorld"
        if re.search(rf"{_SCORE}\s+{_NEAR}{named}|{named}\W+{_NEAR}{_SCORE}", text):
            return True
    return False


# what a measurement is in, not what a count counts: "10 minutes", "$35", "87%" answer no "how many participants"
_UNIT = re.compile(
    r"(?:%|percent\b|minutes?\b|mins?\b|hours?\b|hrs?\b|seconds?\b|secs?\b|ms\b|days?\b|weeks?\b|months?\b|years?\b|"
    r"GB\b|MB\b|TB\b|KB\b|USD\b|dollars?\b)",
    re.IGNORECASE,
)


def gives_number(question: str, text: str) -> bool:
    """`text` gives a number of the kind a number question asks for: any quantity (`numbers_in`); for "how many" a
    count, written as a word too, and not a measurement in a unit the question does not ask in ("in 10 minutes",
    "for two weeks", "$35" for "How many participants took part?"; "How many hours ...?" is answered by hours)."""
    if not asks_count(question):
        return numbers_in(text) > 0
    clean = _unpointed(text)
    asked = {u.lower().rstrip("s") for u in _UNIT.findall(question)}
    for m in itertools.chain(_NUMBER.finditer(clean), _NUMBER_WORD.finditer(clean)):
        if _YEAR.match(m.group(0).strip()) or clean[max(0, m.start() - 1) : m.start()] == "$":
            continue
        digits = re.match(r"[\d,.]+", m.group(0))
        end = m.start() + len(digits.group(0)) if digits else m.end()
        unit = _UNIT.match(clean[end:].lstrip())
        if unit is None or unit.group(0).lower().rstrip("s") in asked:
            return True
    return False


def asks_count(question: str) -> bool:
    """`question` asks how many of something there are: a count may be written as a word."""
    return bool(_HOW_MANY.search(question))


def _names(text: str, query_text_terms: frozenset[str]) -> int:
    return sum(m.group(0).lower() not in query_text_terms for m in _NAME.finditer(text))


def bigrams(words: Sequence[str]) -> frozenset[tuple[str, str]]:
    """Adjacent pairs of (stemmed) words: a phrase of the question found again in a sentence."""
    return frozenset(itertools.pairwise(words))


def make_query(terms: frozenset[str], ordered: Sequence[str], kind: QuestionType, idf: dict[str, float]) -> Query:
    rare = frozenset(sorted(terms, key=lambda t: -idf.get(t, 1.0))[:2])
    return Query(terms, kind, rare, bigrams(ordered), kind.subject.lower())


def _section_flags(section: str) -> tuple[float, float]:
    if not section:
        return 0.0, 0.0
    return float(bool(_GOOD_SECTIONS.search(section))), float(bool(_BAD_SECTIONS.search(section)))


def cheap_features(q: Query, c: Context, idf: dict[str, float]) -> list[float]:
    """The `CHEAP` features of one sentence, in that order."""
    text = c.text
    kind = q.kind.answer
    numbers, names = numbers_in(text), _names(text, q.terms)
    defines = bool(_DEFINES.search(text))
    formula = bool(_FORMULA.search(text))
    head = text.lower()[: max(60, len(q.subject) + 20)]
    good, bad = _section_flags(c.section)
    return [
        1.0,
        overlap(set(q.terms), set(c.terms), idf),
        len(q.rare & c.terms) / max(1, len(q.rare)),
        len(q.bigrams & c.bigrams) / max(1, len(q.bigrams)),
        1.0 / (1 + c.rank),
        float(c.index == 0),
        c.index / max(1, c.count - 1),
        math.log1p(len(text)) / 6.5,
        min(numbers, 3) / 3,
        min(names, 3) / 3,
        float(bool(_CITATION.search(text))),
        float(bool(_CAPTION.search(text))),
        float(bool(_HEADING.search(text))),
        float(bool(_CONTINUES.search(text))),
        float(bool(_OWN_WORK.search(text))),
        overlap(set(q.terms), set(c.prev_terms), idf),
        overlap(set(q.terms), set(c.next_terms), idf),
        good,
        bad,
        float(kind == "number"),
        float(kind == "entity"),
        float(kind == "definition"),
        float(kind == "formula"),
        float(kind == "number" and numbers > 0),
        float(kind == "entity" and names > 0),
        float(kind == "definition" and defines),
        float(kind == "definition" and bool(q.subject) and q.subject in head),
        float(kind == "formula" and formula),
        float(kind == "formula" and defines),
    ]


# Hand-set nudges for today's (keyword-prefiltered) scorer, in support-score units: the labelled data at hand
# has no definition questions to learn them from (docs/benchmarks.md, "Sentence selection").
DEFINES_BONUS, CAPTION_PENALTY, NUMBER_BONUS = 0.15, 0.15, 0.05
QUESTION_PENALTY = 0.3  # a paper's own question ("What is the best highlighting algorithm?") is no answer to it
NAME_BONUS = 0.1  # a "which model / dataset / baseline" question is answered by a name it does not give itself
KIND_BONUS = 0.2  # ... the more so when the name is of the kind asked for ("Which RL algorithm ...": GRPO)
HEADING_PENALTY = 0.2  # a paragraph's run-in heading ("Dataset and Evaluation Metrics.") names a topic, answers nothing
POINTER_PENALTY = 0.15  # "Results ... are reported in Table 4." says where the answer is, not what it is
SETUP_BONUS = 0.05  # "Which base model ...?": "We initialize from ...", "We evaluate X on ..." say what was used
LIST_BONUS = 0.1  # "Which benchmarks ...?" asks for several: a sentence that names three or more new ones lists them
LIST_NAMES = 3
FUTURE_PENALTY = 0.1  # "Future work can explore ..." says what is not done: no answer unless what comes next is asked
CREDITS_PENALTY = 0.3  # "Kalpesh also contributed to project scoping ...": who did what answers no question of content
UNKNOWN_PENALTY = 0.1  # "... remains not fully understood" says what no one knows: no answer unless the gap is asked
MEANS_BONUS = 0.1  # "How does X do Y?": a sentence that says by what means ("we segment ... on conjunctions")
CHANGE_BONUS = 0.05  # "How much does X improve ...?": "lifts the average from 44.7 to 62.1", "+9.4%" say how much
MEASURE_BONUS = 0.05  # "What precision does the Selector reach?": the number next to "precision", not to "recall"
MEASURE_WORDS = 3  # how near, in words, the asked measure is to the number
RESTATES_PENALTY = 0.3  # a sentence made only of the question's words ("Retrieval Augmented Prompt Tuning (RAPT)")
SCORED_ON_BONUS = 0.1  # "What does X score on BrowseComp?": "43.4 on BrowseComp" is the number asked for
_SETUP_VERBS = (
    r"use|adopt|employ|evaluate|compare|train|fine-?tune|initiali[sz]e|build|buil|leverage|implement|test|validate|"
    r"include|apply|appli|choose|chose|select|optimi[sz]e|perform|develop|utili[sz]e|consider|conduct|benchmark|"
    r"experiment|measure|report|run|ran|start|base"
)
# words that say what a thing is built on, read by `says_what_was_used` and `names_base`
_BUILT_ON = r"built (?:on|upon)|initiali[sz]ed from|on top of|(?:trained|fine-?tuned) from"
_SETS_UP = re.compile(
    r"\b(?:we|our\s+(?:\w+\s+)?(?:model|method|system|approach|agent|framework|pipeline)s?)\b(?:\s+[\w\-]+){0,3}?\s+"
    r"(?:" + _SETUP_VERBS + r")(?:s|d|ed|es|ing|t)?\b"
    r"|\b(?:is|are|was|were)\s+(?:\w+ly\s+)?(?:used|adopted|employed|chosen|selected|trained|evaluated|fine-?tuned)\b"
    r"|\b(?:" + _BUILT_ON + r"|based on|initiali[sz]ed with|(?:trained|fine-?tuned) on)\b",
    re.IGNORECASE,
)
_ASKS_SEVERAL = re.compile(
    r"\b(?:which|what)\b(?:\s+[\w\-]+){0,3}?\s+(?:benchmarks|datasets|data sets|baselines|metrics|methods|models|"
    r"tools|systems|tasks|features|algorithms|languages|approaches|corpora|techniques|parsers|solvers|variants)\b",
    re.IGNORECASE,
)
_SECTION_POINTER = re.compile(
    r"\(\s*(?:see\s+)?(?:§|sec(?:tion)?\.?)\s*\d[\d.]*\s*\)|\b(?:in|see)\s+(?:§|sec(?:tion)?\.?)\s*\d[\d.]*",
    re.IGNORECASE,
)
_POINTS_AWAY = re.compile(
    r"\b(?:are|is|were|was|be)\s+(?:\w+ly\s+)?(?:shown|reported|presented|given|listed|summari[sz]ed|displayed|"
    r"illustrated|depicted|provided|detailed|described|discussed|found)\s+in\s+(?:the\s+)?(?:tables?|fig(?:ure)?s?\.?|"
    r"sec(?:tion)?s?\.?|appendix|§)\s*[A-Z]?\d|\b(?:we|table|figure|fig\.)\s+(?:show|present|report|list|summari[sz]e)s?\s+"
    r"in\s+(?:tables?|fig(?:ure)?s?\.?)\s*\d",
    re.IGNORECASE,
)
# a paper's road map in words: "In this section, we introduce our proposed approaches: ...", "Finally, we discuss
# how a two-step process ...", "The study answers the following questions:" announce what comes, say none of it
_ANNOUNCES = re.compile(
    r"^\s*(?:(?:in\s+this|in\s+the\s+(?:next|following))\s+(?:section|subsection|paper|work|chapter|part)|here|below|"
    r"next|finally|first(?:ly)?|then|now)\s*,?\s+we\s+(?:will\s+|further\s+|briefly\s+|first\s+|now\s+)?(?:introduce|"
    r"present|describe|discuss|detail|explain|outline|sketch|review|summari[sz]e|elaborate)\b"
    r"|\bwe\s+(?:will\s+|then\s+|also\s+)?(?:discuss|describe|explain|outline|sketch|elaborate on)\s+(?:how|what|why|"
    r"whether|the following)\b"
    r"|\b(?:the\s+following|as\s+follows)(?:\s+[\w\-]+){0,2}\s*:\s*$|\bthe\s+following\s+(?:research\s+)?questions\s*:",
    re.IGNORECASE,
)
_FUTURE = re.compile(
    r"\bfuture (?:work|research|directions?|studies|versions?)\b|\bwe (?:plan|hope|intend) to\b|\bleave\b.{0,40}\bfor "
    r"future\b|\bremains? to be (?:explored|seen|studied|investigated)\b",
    re.IGNORECASE,
)
_ASKS_AHEAD = re.compile(r"\b(?:future|next|open|challenges?|plan|directions?)\b", re.IGNORECASE)
# what is not yet known or done: "the optimal design of such agents remains not fully understood", "little is
# known about", "has rarely been studied", "remains an open question"
_UNKNOWN = re.compile(
    r"\b(?:remains?|remained|is|are|was|were)\s+(?:still\s+|largely\s+|also\s+|yet\s+)?"
    r"(?:not\s+(?:yet\s+|fully\s+|well\s+|clearly\s+)?(?:understood|explored|known|clear|studied|investigated)"
    r"|(?:poorly|little|less|rarely|seldom)\s+(?:understood|explored|known|studied|investigated)"
    r"|(?:under|un)-?(?:explored|studied|investigated|clear|known)|elusive|an open (?:question|problem|challenge))\b"
    r"|\blittle is known\b|\b(?:has|have)\s+(?:not|rarely|seldom|never)\s+been\s+(?:studied|explored|investigated)\b",
    re.IGNORECASE,
)
# a question about what is missing or why the work was done is answered by what no one knew
_ASKS_GAP = re.compile(
    r"\b(?:why|gaps?|open|unknown|unclear|lack\w*|miss\w*|problems?|challenges?|limitations?|motivat\w*|address\w*|"
    r"understood|explored|studied|question)\b",
    re.IGNORECASE,
)
_ASKS_HOW = re.compile(r"^\s*how\s+(?:does|do|did|is|are|was|were|can|could)\b", re.IGNORECASE)
# how something compares or was evaluated asks for a result, not a means
_ASKS_HOW_WELL = re.compile(r"\b(?:compar\w*|evaluat\w*|assess\w*|perform\w*|differ\w*|tested|validated)\b", re.I)
_BY_MEANS = re.compile(
    r"\b(?:by|through|via)\s+(?:\w+ly\s+)?\w+ing\b|\busing\b|\b(?:relies|rely|relying|based)\s+on\b"
    r"|\bwe\s+(?:first\s+|then\s+|also\s+)?(?:compute|convert|segment|score|extract|use|apply|define|generate|retrieve|"
    r"combine|select|filter|cluster|measure|estimate|split|map|link|match|identify|detect|sample|construct|feed)\w*\b",
    re.IGNORECASE,
)
# a first page's venue line: "Proceedings of the 17th Conference of the European Chapter of the Association for
# Computational Linguistics, pages 1650-1669"; and a line of affiliations: "♠University of Massachusetts Amherst,
# ♢Allen Institute for AI, ♡Yale University"
_AFFILIATIONS = re.compile(
    r"[♠♢♡♣♤♥♦♧†‡§¶]\s*(?:[A-Z][\w.\-]*\s+){0,6}?(?:University|Institute|College|Laborator(?:y|ies)|Inc\b)"
)
_VENUE_LINE = re.compile(r"^\s*(?:In\s+)?Proceedings\s+of\b.{0,200}?\bpages?\s+\d+\s*[–\-]+\s*\d+", re.IGNORECASE)
# who did what: "Details of individual author contributions can be found here.", "Kalpesh also contributed to ..."
_CREDITS = re.compile(
    r"\bauthors?['’]?\s+contributions?\b|\bequal(?:ly)?\s+contribut|\bcontributed\s+equally\b"
    r"|(?-i:\b[A-Z][a-z]+)\s+(?:also\s+|equally\s+)?contributed\b|\b(?:authors?|we\s+all)\s+(?:also\s+)?contributed\b"
    r"|\bcontributions?\s+of\s+(?:each|the|all)\s+authors?\b",
    re.IGNORECASE,
)
_ASKS_WHO = re.compile(r"\bwho\b|\bauthors?\b|\bcredit", re.IGNORECASE)
# a paper's own contribution: "We propose TCPO, a turn-level credit assignment method ...", "this work trains ..."
_CONTRIBUTES = re.compile(
    r"\b(?:we|this\s+(?:paper|work))\s+(?:\w+ly\s+|further\s+|then\s+|also\s+)?(?:propose|introduce|present|develop|"
    r"design|build|construct|devise|formulate|cast|frame|model|train|augment|equip|decompose|reformulate)(?:s|d|ed|es)?\b",
    re.IGNORECASE,
)
_ASKS_CHANGE = re.compile(
    r"\b(?:improv\w*|gains?|reduc\w*|increas\w*|decreas\w*|faster|slower|efficien\w*|better|worse|boost\w*|lift\w*|"
    r"outperform\w*|drops?|speed-?ups?|more|less|fewer)\b",
    re.IGNORECASE,
)
_N = r"\d+(?:\.\d+)?"
_CHANGE = re.compile(
    rf"\bfrom\s+{_N}%?\s+to\s+{_N}|(?<![\w.])[+−]\s?{_N}\s*(?:%|points?|pp|pts)?|\bby\s+(?:about\s+|over\s+|up to\s+|"
    rf"nearly\s+|almost\s+)?{_N}\s*(?:%|points?|pp|x\b|×|times)|{_N}\s*(?:x|×|times|-fold)\s+(?:faster|fewer|more|less|"
    rf"smaller|larger|higher|lower|better)|{_N}\s*(?:%|points?|pp)\s+(?:higher|lower|better|worse|more|less|fewer|"
    rf"improvement|gain|increase|decrease|reduction|absolute|relative)",
    re.IGNORECASE,
)
_SAYS_WHAT = re.compile(r",\s*(?:which|that)\s+(?:is|are)\b|\b(?:is|are)\s+(?:a|an)\b", re.IGNORECASE)
RUN_IN_WORDS = 6  # the most words a run-in heading has
# what makes a few words a statement rather than a heading: a subject pronoun or an auxiliary verb
_STATES = re.compile(
    r"\b(?:we|our|it|its|they|this|these|there|is|are|was|were|has|have|had|can|could|will|would|do|does|did|be|"
    r"been|may|might|must|should)\b",
    re.IGNORECASE,
)
# starts as a question (after "Q3:" or "RQ2:", or after a figure's labels run into it: "COARSE-grained How well is
# …?") and ends as one; "… the following challenges: (1) How can …?" does not
_ASKS = re.compile(
    r"^\s*(?:(?:[A-Z][\w\-]*\s+){1,4}(?=[A-Z]))?(?:R?Q\d+\s*[:.]\s*)?(?i:what|which|who|whom|whose|when|where|why|how|"
    r"is|are|was|were|do|does|did|can|could|should|would|will|may|might|has|have|had)\b.*\?[\s\"”’')\]]*$",
    re.DOTALL,
)


def _named(subject: str, text: str) -> re.Match[str] | None:
    """Where `text` names `subject` as a word of its own ("GRPO", not the "GRPO" of "SC-GRPO" or "GRPO-like"),
    its last word singular or plural ("semantic dependency graphs" for "semantic dependency graph")."""
    return _naming(subject).search(text)


@lru_cache(maxsize=1024)
def _naming(subject: str) -> re.Pattern[str]:
    stem = re.escape(subject[:-1] if subject.lower().endswith("s") and len(subject) > 3 else subject)
    return re.compile(rf"(?<![\w\-]){stem}s?(?![\w\-])", re.IGNORECASE)


def defines(text: str, subject: str) -> bool:
    """`text` defines `subject`: names it near its start and says what it is there ("X is a", "we present X,
    a"); an "is a" later in the sentence is about something else ("... X captures ...; Y (2020) is an update"),
    and one before the name says what something else is ("The first circuit is the β-multiplier ...")."""
    head = text[: max(80, len(subject) + 30)]
    named = _named(subject, head) if subject else None
    if named is None:
        return False
    if re.search(rf"{re.escape(subject)}\s*(?:\(\w+\))?\s*,\s*(?:a|an|the)\b", head, re.IGNORECASE):
        return True
    return any(_NAMES_AFTER.match(m.group(0)) or m.start() >= named.start() for m in _DEFINES.finditer(head))


# the defining words that come before the name they define ("we propose X", "called X"); the others follow it
_NAMES_AFTER = re.compile(r"(?:we|this paper|this work)\s|called|named|dubbed|termed", re.IGNORECASE)


# The word before a name that makes "X, a ..." or "X is a ..." say something else than what X is: "With GRPO,
# a 7B model reaches ...", "the main difference from PPO is a learned value function", "at the same time, a ...".
_NOT_ABOUT_IT = re.compile(
    r"\b(?:in|at|as|for|with|after|before|unlike|like|from|by|under|over|using|via|than|to|of|on|and|or|vs|"
    r"versus|same|such)\s+(?:the\s+|a\s+|an\s+)?$",
    re.IGNORECASE,
)
_WHAT_IT_IS = (
    r"(?:\s*\([^()]{0,80}\)|\s*\[[^\[\]]{0,20}\])?"  # "GRPO (Shao et al., 2024)", "GRPO [12]"
    r"(?:,\d*\s+(?:a|an)\s|\s+(?:is|are)\s+(?:a|an)\s|\s+(?:refers to|denotes|stands for)\s)"
)
_FUNCTION_WORDS = frozenset(
    ["this", "that", "these", "those", "it", "its", "they", "them", "there", "here", "what", "which", "who", "one"]
)
_WHAT_PLAIN_WORDS_ARE = r"(?:(?:is|are)\s+(?:a|an|the|one|any|defined as)\b|(?:refers?|refer) to\b|denotes?\b|means?\b)"
_NAMED_SO = r"\b(?:called|termed|dubbed|named|known as)\s+(?:the\s+|a\s+|an\s+)?[\"“‘']?"
_INTRODUCING = r"\b(?:propose|introduce|present|call|name|dub|term)(?:s|d|ed|bed)?\s+(?:a\s+|an\s+|the\s+)?"
_AFTER_INTRODUCED = r"(?=\s*(?:[,(;:.]|$)|\s+(?:a|an|which|that|as|to|for|in)\b)"  # "we propose ARPO, a ..."
# "we introduce Group Relative Policy Optimization (GRPO) to jointly optimize agent policies": X, named bare, put to
# use ("we propose a hierarchical Large autoBidding Model (LBM) to leverage ..." brings a new thing in)
_PUT_TO_USE = re.compile(r"^\w+\s+(?!(?:a|an|the|our|two|three|new|novel)\b)[^()]*\([^()]*\)\s+to\s", re.IGNORECASE)
# "we introduce a novel interactive interface—Paper Plain—": what it is, then its name after a dash or colon
_INTRODUCED_AS = r"(?:[\w\-]+\s+){0,5}[\w\-]+\s*(?:[—–:]|--)\s*"
# "Paper Plain1—with ...": a footnote mark after a name of several words ending in a small letter ("Plain1.5" is
# another name)
_FOOTNOTE = r"(?:(?-i:(?<=[a-z]))\d(?=[—–,;:]|[.\s](?!\d)))?"


def name_like(subject: str) -> bool:
    """Whether a "what is X" subject starts with a name (a capital after its first letter, or a digit: "GRPO",
    "PaSa", "Search-R1"), or is a name of several capitalised words ("Paper Plain": asked mid-question, the
    capitals are the asker's), not everyday words ("time", "an example", "known about GRPO") that prose uses at
    will."""
    words = subject.split()
    first = words[0] if words else ""
    titled = len(words) > 1 and all(w[:1].isupper() for w in words)
    return bool(re.search(r"[A-Z]", first[1:]) or re.search(r"\d", first) or titled)


def introduces(text: str, subject: str) -> bool:
    """`text` says what the name `subject` is, strictly: it spells out the acronym ("Group Relative Policy
    Optimization (GRPO)", `assistant.entities.expands`) or says what it is (`describes`). A sentence that only
    uses X ("we propose SC-GRPO", "with GRPO, a 7B model reaches", "we present GRPO's training curves") does not.
    A subject that is no name (`name_like`: everyday words) is held to the stricter `plainly_defines`."""
    if not subject:
        return False
    if not name_like(subject):
        return plainly_defines(text, subject)
    return expands(text, subject) or describes(text, subject)


def describes(text: str, subject: str) -> bool:
    """`text` says what the name `subject` is, beyond spelling it out: what it is comes right after it ("MCTS, a
    heuristic search method", "X is an ...", "Group Relative Policy Optimization (GRPO), a reinforcement learning
    method that ...", "(GRPO), which ..."), or it is introduced by name ("we propose ARPO, a ...", "we introduce
    Agentic Reinforced Policy Optimization (ARPO)"). "Existing approaches such as Group Relative Policy
    Optimization (GRPO) struggle with ..." only spells it out. A subject that is no name: `plainly_defines`."""
    if not subject:
        return False
    if not name_like(subject):
        return plainly_defines(text, subject)
    footnote = _FOOTNOTE if " " in subject else ""  # "Skill1" is a name of its own, "Paper Plain1" a footnote
    name = rf"(?<![\w\-]){re.escape(subject)}{footnote}(?![\w\-'’])"
    for m in re.finditer(rf"(?:\({name}\)|{name}){_WHAT_IT_IS}", text, re.IGNORECASE):
        if not _NOT_ABOUT_IT.search(text[max(0, m.start() - 40) : m.start()]):
            return True
    if re.search(rf"\({name}\),\s+which\s", text):  # "... (GRPO), which estimates the baseline from a group"
        return True
    if re.search(rf"\b(?:[Uu]nlike|[Ii]n\s+contrast\s+to)\s+(?:[\w\-]+\s+){{0,2}}{name},\s+which\s", text):
        return True  # "Unlike DeepSeek GRPO, which eliminates the value function ..."
    if re.search(rf"{_INTRODUCING}{_INTRODUCED_AS}{name}", text, re.IGNORECASE):
        return True
    spelled = re.search(rf"{_INTRODUCING}(?:[\w\-]+\s+){{0,8}}\({name}\)(?![\w\-])", text, re.IGNORECASE)
    if spelled and not _PUT_TO_USE.match(text[spelled.start() :]):  # "introduce Long Form (X)"
        return True
    return bool(re.search(rf"{_INTRODUCING}{name}{_AFTER_INTRODUCED}", text, re.IGNORECASE))


# a word that makes a name of its own with the one after it: "multi-context GRPO", "Hybrid GRPO"
_VARIANT_WORD = r"\b([A-Za-z]+-[\w\-]+|[A-Z][\w]*)"
# words that say which X, not another thing ("the standard GRPO is a ..."), or open a sentence ("Thus GRPO is a ...")
_PLAIN_KIND = frozenset(
    (
        "the",
        "a",
        "an",
        "standard",
        "vanilla",
        "original",
        "classic",
        "plain",
        "naive",
        "basic",
        "thus",
        "hence",
        "here",
        "specifically",
        "notably",
        "namely",
        "formally",
        "briefly",
        "concretely",
        "essentially",
        "originally",
        "recently",
        "today",
        "now",
        "then",
        "similarly",
        "likewise",
        "importantly",
        "overall",
        "instead",
        "also",
    )
)


def names_a_variant(text: str, subject: str) -> bool:
    """`text` names, in brackets, a variant built on the name `subject`: "Hybrid Group Relative Policy Optimization
    (Hybrid GRPO) is a framework that extends ... GRPO", "we propose Turn-Level GRPO (TL-GRPO), a ...". Such a
    sentence says what the variant is, not what `subject` is; so does one that says what X is with a word before it
    that makes another name ("we introduce multi-context GRPO, an end-to-end RL framework"). A citation after the
    name ("(GRPO; Shao et al., 2024)") names none."""
    for inner in re.findall(r"\(([^()]{1,60})\)", text):
        inner = inner.strip()
        if subject in inner and inner != subject and not re.match(rf"{re.escape(subject)}\s*[;,]", inner):
            return True
    for m in re.finditer(rf"{_VARIANT_WORD}\s+{re.escape(subject)}{_WHAT_IT_IS}", text):
        if m.group(1).lower() not in _PLAIN_KIND:  # "we introduce multi-context GRPO, an end-to-end RL framework"
            return True
    return False


def plainly_defines(text: str, subject: str) -> bool:
    """`text` defines the everyday words `subject` in so many words: it opens with them (after an introductory
    clause; several words may be their head noun, `_said`) followed by what they are ("Deep research is a new
    agentic capability ...", "According to W and H, a counterfactual is an example ...", "A molecular
    counterfactual is one with ..." for "chemical counterfactual"), or names the thing so ("a topology called
    β-multiplier"). Laxer forms ("X is used", "with X, a ...") say nothing about what words that prose uses at
    will are."""
    if not set(subject.lower().split()) - _FUNCTION_WORDS:
        return False  # "What is this?": a pronoun opens many sentences and names nothing
    opening = rf"^(?:[^,.;:]{{0,60}},\s*)?(?:(?:a|an|the)\s+)?{_said(subject)}\s+{_WHAT_PLAIN_WORDS_ARE}"
    named_so = rf"{_NAMED_SO}{_words(subject.split())}"
    return bool(re.search(opening, text, re.IGNORECASE) or re.search(named_so, text, re.IGNORECASE))


_OF = frozenset(("in", "of", "for", "on", "with", "to", "from", "by", "at", "as", "under", "between", "among"))


def _said(subject: str) -> str:
    """A pattern for the everyday words `subject` as a sentence may open with them: all of them, or the head noun of
    two or more with at most one word of its own before it ("a molecular counterfactual", "a counterfactual" for
    "chemical counterfactual"; the head of "piezoresistive effect in silicon" is "effect")."""
    words = subject.split()
    phrase = list(itertools.takewhile(lambda w: w.lower() not in _OF, words))
    if len(phrase) < 2:
        return _words(words)
    return rf"(?:{_words(words)}|(?:[\w\-]+\s+)?{_words(phrase[-1:])})"


def _words(words: list[str]) -> str:
    """A pattern for `words` as a whole, the last one singular or plural."""
    return r"\s+".join(re.escape(w) for w in words) + r"(?:s|es)?(?![\w\-])"


def defining(text: str, subject: str) -> bool:
    """`text` defines `subject` (`defines`: named near the start with a definitional phrase there) or spells
    it out or introduces it (`introduces`): what earns a "what is X" question's nudge."""
    return bool(subject) and (defines(text, subject) or introduces(text, subject))


def points_away(text: str) -> bool:
    """`text` says where an answer is and gives none: "Results are reported in Table 4.", "Finally, we compare
    S2ORC with other corpora (§7)." (a paper's road map); a number beside the pointer is an answer."""
    return bool(_POINTS_AWAY.search(text) or _SECTION_POINTER.search(text)) and not numbers_in(
        _SECTION_POINTER.sub(" ", text)
    )


def announces(text: str) -> bool:
    """`text` announces what comes and says none of it ("In this section, we introduce our proposed approaches:
    RAPT and NC-RAPT.", "Finally, we discuss how ...", "The study answers the following questions: ..."); one that
    says what the announced thing is ("we introduce RAPT, which is a synergy of ...") or gives a number does not."""
    return bool(_ANNOUNCES.search(text)) and not _SAYS_WHAT.search(text) and not numbers_in(text)


def looks_ahead(question: str, text: str) -> bool:
    """`text` says what is left for later ("Future work can explore ...", "One main area of future research is
    ...") and `question` does not ask what comes next: it says neither what the work did nor what it lacks ("What are
    the limitations of RubricEM?" is answered by "Another limitation is that we use Gemini Flash as the judge")."""
    return bool(_FUTURE.search(text)) and not _ASKS_AHEAD.search(question)


def admits_unknown(question: str, text: str) -> bool:
    """`text` says what is not yet known or studied ("While the use of RL for training search agents is promising,
    the optimal design of such agents remains not fully understood") and `question` asks neither what is missing
    nor why the work was done: it states the gap, not the answer."""
    return bool(_UNKNOWN.search(text)) and not _ASKS_GAP.search(question)


@lru_cache(maxsize=1024)
def _plain(text: str) -> str:
    """`text`'s words, lower-cased, without punctuation (a paper's title is read once for all its sentences)."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def repeats_title(text: str, title: str) -> bool:
    """`text` is the paper's title or a piece of it ("PaperMage: A Unified Toolkit for Processing, Representing,
    and", the title page's lines read as a sentence): it names the paper and answers nothing."""
    said = _plain(text)
    return len(said.split()) >= 3 and said in _plain(title)


def states_change(question: str, text: str) -> bool:
    """`question` asks by how much something changed ("How much does CAST improve over the baselines?") and `text`
    gives a change: "from 44.7 to 62.1", "+9.4%", "by 12%", "3x faster", "6.2 points higher"."""
    return bool(_ASKS_CHANGE.search(question) and _CHANGE.search(text))


# the words of a number question that name no measure: "How much ... does ... reach?"
_ASKING_WORDS = (
    "what which how much many does do did is are was were be the a an of in on to for by with at from its their "
    "reach reaches achieve achieves get gets obtain obtains has have had there"
)


@lru_cache(maxsize=1)
def _asking_terms() -> frozenset[str]:
    return frozenset(terms([_ASKING_WORDS])[0])


@lru_cache(maxsize=256)
def _measure_terms(question: str) -> frozenset[str]:
    """The words of `question` that may name what is measured ("precision", "power", "gauge factor"): its keywords
    less the asking words and the names it gives (the paper's name is next to every number of the paper)."""
    named = terms([" ".join(names(question))])[0] if names(question) else set()
    return frozenset(terms([question])[0] - _asking_terms() - named)


def measures_asked(question: str, text: str) -> bool:
    """A number in `text` has one of the question's measure words within `MEASURE_WORDS` words of it: "the
    Selector's precision reaches 95%" for "What precision does PaSa's Selector reach?", where "surpasses ... by
    11.12% in recall, with similar precision" gives the number of another measure."""
    asked = _measure_terms(question)
    if not asked or not _NUMBER.search(text):
        return False
    clean = _unpointed(text)
    starts = [m.start() for m in _NUMBER.finditer(clean) if not _YEAR.match(m.group(0).strip())]
    if not starts:
        return False
    words = clean.split()
    at = [len(clean[:start].split()) for start in starts]  # the word each number starts
    near = {j for i in at for j in range(max(0, i - MEASURE_WORDS), min(len(words), i + MEASURE_WORDS + 1))}
    said = [p for j in sorted(near) for p in re.findall(r"[a-z]{2,}", words[j].lower())]
    return not asked.isdisjoint(stemmer().stemWords(said))


def says_how(question: str, text: str) -> bool:
    """`question` asks how something is done ("How are summaries split into fine-grained units?") and `text` says by
    what means ("we segment sentences on conjunctions ...", "... relies on the piezoresistive effect", "by averaging
    ...", "using a k-nearest-neighbour search")."""
    return bool(_ASKS_HOW.search(question) and not _ASKS_HOW_WELL.search(question) and _BY_MEANS.search(text))


def asks_how_done(question: str) -> bool:
    """`question` asks how something is done ("How do papers assign credit to individual turns?"), not how well, nor
    why it is hard."""
    return bool(_ASKS_HOW.search(question) and not _ASKS_HOW_WELL.search(question) and not _ASKS_GAP.search(question))


def asks_contribution(question: str) -> bool:
    """`question` asks what a paper itself brings ("What is the main contribution?", "What does this paper
    propose?": `asked_section`), not who did what."""
    return asked_section(question) == "contributions" and not _ASKS_WHO.search(question)


def credits_people(text: str) -> bool:
    """`text` says who did what ("Details of individual author contributions can be found here.", "Kalpesh also
    contributed to project scoping ..."): no answer to what the paper says."""
    return bool(_CREDITS.search(text))


def states_contribution(text: str) -> bool:
    """`text` says what its paper does ("We propose TCPO, a turn-level credit assignment method ...", "this work
    trains ..."): over many papers, what answers "how do papers do X", where a sentence on the field ("A growing
    consensus is that agents should ...") or its problem ("... remains difficult") frames the question."""
    return bool(_CONTRIBUTES.search(text))


def restates(question: str, text: str) -> bool:
    """Every keyword of `text` is one of `question`'s: a heading or a sentence that repeats the question's words
    ("Retrieval Augmented Prompt Tuning (RAPT)" for "What is Retrieval Augmented Prompt Tuning (RAPT)?") adds
    nothing to it."""
    asked, said = terms([question, text])
    return bool(said) and said <= asked


def lists_what_is_asked(question: str, text: str) -> bool:
    """`question` asks for several things of a kind ("Which baselines is CAST compared against?") and `text` names
    `LIST_NAMES` or more that the question does not give ("... GRPO, GSPO, and DAPO"): it lists them."""
    return bool(_ASKS_SEVERAL.search(question)) and len(set(new_names(question, text))) >= LIST_NAMES


def says_what_was_used(text: str) -> bool:
    """`text` says what the work used, built on or was tested on ("We fine-tune Qwen3-8B ...", "We evaluate X on
    seven benchmarks", "The AqSolDB database was used to train ...", "Based on Qwen3 MoE models, ..."): the kind of
    sentence that answers "which base model / benchmarks / baselines", where a claim of results ("X achieves the
    best scores on four benchmarks") only mentions them."""
    return bool(_SETS_UP.search(text))


def run_in_heading(text: str) -> bool:
    """`text` reads as a paragraph's run-in heading ("Controlled comparison against trained baselines.", "Limitations
    of OPENSCHOLAR."): a few words, no question, no subject pronoun or auxiliary verb that would make it a
    statement ("We use GRPO.", "Molecular distance is subjective.")."""
    words = text.split()
    return 0 < len(words) <= RUN_IN_WORDS and not text.rstrip().endswith("?") and not _STATES.search(text)


def new_names(question: str, text: str) -> list[str]:
    """The names in `text` (`assistant.entities.names`) that `question` does not give, nor a variant of one it gives
    ("RubricEM-8B-RL" or "RubricEM-SFT" when the question asks about RubricEM-8B: the asked thing, not an answer)."""
    asked, stems = question.lower(), _asked_stems(question)
    return [n for n in names(text) if n.lower() not in asked and n.lower().split("-")[0] not in stems]


@lru_cache(maxsize=256)
def _asked_stems(question: str) -> frozenset[str]:
    """The first parts of the names `question` gives ("rubricem" for RubricEM-8B), read once per question rather
    than once per candidate sentence."""
    return frozenset(n.lower().split("-")[0] for n in names(question))


def names_asked_kind(kind: QuestionType, question: str, text: str, local: dict[str, Counter[str]]) -> bool:
    """`text` names a thing of the kind the question asks for (`QuestionType.kinds`) that the question does not
    give: GRPO for "Which RL algorithm trains X?". `local`: what the passages at hand say each name is."""
    return bool(kind.kinds) and any(family_kind(n, local.get(n)) in kind.kinds for n in new_names(question, text))


# a sentence that says what a thing is built on: "Based on the open-source Qwen3 models, X is trained ...", "the
# base Qwen3-8B model", "implemented on top of the DAPO backbone", "We train Llama 3.1 8B Instruct on ..." (not
# "distilled from": a teacher; nor "backbone" alone: "All backbone RL algorithms we compare ...")
_DERIVES = re.compile(
    r"\b(?:" + _BUILT_ON + r")\b|\b(?:based|builds?|building) (?:up)?on\b|"
    r"\b(?:finetuned|derived|adapted|started|starting) from\b|\bthe base\b|"
    r"\bbase (?:models?|LLMs?|LMs?|polic(?:y|ies)|language models?|algorithms?)\b|"
    r"\bas (?:the|our) (?:[\w\-.]+ )?(?:base|backbone|starting point|initial)\b",
    re.IGNORECASE,
)
_TRAINS_NAMED = re.compile(r"\b[Ww]e (?:train|fine-?tune|finetune|initiali[sz]e) [A-Z]")  # "We train Llama ..."
_SIZE = re.compile(r"(?<![\w\-.])\d+(?:\.\d+)?[BM]\b")  # a model's size written apart: "Llama 3.1 8B Instruct"
_OWN = re.compile(r"\b(?:we|our|us)\b", re.IGNORECASE)


def names_base(kind: QuestionType, question: str, text: str, local: dict[str, Counter[str]]) -> bool:
    """For a question that asks what its subject is built on (`QuestionType.base`), `text` says that of the
    subject (it names it, or speaks as its authors: "we", "our method") and of a thing of the asked kind: a name of
    that kind (or, for a model, a size written apart: "Llama 3.1 8B") in words of derivation ("based on", "on top
    of", "the base ... model", "we train <Name>"). "GRPO+OPSD adds a loss on top of GRPO" is about another."""
    if not kind.base or not (_DERIVES.search(text) or _TRAINS_NAMED.search(text)):
        return False
    lowered = text.lower()
    if not (_OWN.search(text) or any(stem in lowered for stem in _asked_stems(question))):
        return False
    return names_asked_kind(kind, question, text, local) or ("model" in kind.kinds and bool(_SIZE.search(text)))


def name_bonus(kind: QuestionType, question: str, text: str, local: dict[str, Counter[str]]) -> float:
    """The nudge for a name that may answer a "which ..." question: `KIND_BONUS` when it is of the asked kind,
    none when every new name is known to be of another kind (a benchmark for "which algorithm"), `NAME_BONUS`
    when the question names no kind or a new name's kind is unknown."""
    new = new_names(question, text)
    if not new:
        return 0.0
    if not kind.kinds:
        return NAME_BONUS
    found = {family_kind(n, local.get(n)) for n in new}
    if found & set(kind.kinds):
        return KIND_BONUS
    return NAME_BONUS if None in found else 0.0


OTHER_NAME_PENALTY = 0.05  # "How many queries does RealScholarQuery contain?": "200 queries from AutoScholarQuery"


@lru_cache(maxsize=4096)
def _name_parts(name: str) -> frozenset[str]:
    """The words a name is made of, lower-cased: "RealScholarQuery" → {real, scholar, query}, "SS-GRPO" → {ss, grpo}."""
    return frozenset(p.lower() for p in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d[\w.]*", name))


@lru_cache(maxsize=256)
def _asked_names(question: str) -> tuple[tuple[str, frozenset[str]], ...]:
    """The names `question` asks about with the words of three letters or more they are made of (a name with none,
    "RL", has no sibling to tell apart; nor has a field's acronym)."""
    out = []
    for asked in dict.fromkeys(m.group(0) for m in _NAME.finditer(question)):
        parts = frozenset(p for p in _name_parts(asked) if len(p) > 2)
        if parts and not generic(asked):  # "LLM", "SFT": a field's acronym, not a thing with siblings
            out.append((asked, parts))
    return tuple(out)


def names_another(question: str, text: str) -> bool:
    """`text` names a sibling of a name the question asks about ("AutoScholarQuery" for "RealScholarQuery",
    "SS-GRPO" for "GRPO": a name sharing a word with it) and not the asked name itself: what it says is about the
    other thing."""
    lowered = text.lower()
    for asked, parts in _asked_names(question):
        if not any(p in lowered for p in parts) or _named(asked, text):
            continue  # no word of the asked name at all (most sentences: read no further), or the name itself
        for m in _NAME.finditer(text):
            other = m.group(0)
            if other.lower().startswith(asked.lower()) or asked.lower().startswith(other.lower()):
                continue  # the asked name with a version ("MiroThinker-v1.0"), or its stem
            if parts & _name_parts(other):
                return True
    return False


def type_bonus(
    kind: QuestionType, text: str, question: str = "", local: dict[str, Counter[str]] | None = None
) -> float:
    """How much what the question asks for moves a sentence's rank: up for the defining sentence of a "what is
    X" question, for a number that answers a number question (a count for "how many"; more when it is the change
    or the measure asked for, or is given on the asked benchmark), for a name the question does not give that
    answers a "which ..." question (when `question` is given; `name_bonus`, with `local`, what the passages say
    each name is; more when the sentence says what the work used or lists several things asked for) and for the
    means a "how is X done" question asks for; down for a figure or table caption, for a sentence that is itself a
    question, for a paragraph's run-in heading, for one that points to a table, figure or section or announces what
    comes and gives no number, for one made only of the question's words, for future work when what comes next
    is not asked, for what is not yet known when no gap is asked, for who did what when no one is asked about, and
    for a first page's venue line or affiliations."""
    front = _VENUE_LINE.search(text) or _AFFILIATIONS.search(text)  # a first page's venue or affiliations
    bonus = -CAPTION_PENALTY if _CAPTION.search(text) or front else 0.0
    if _ASKS.search(text):
        bonus -= QUESTION_PENALTY
    if run_in_heading(text):
        bonus -= HEADING_PENALTY
    if points_away(text) or announces(text):
        bonus -= POINTER_PENALTY
    if question and restates(question, text):
        bonus -= RESTATES_PENALTY
    if question and looks_ahead(question, text):
        bonus -= FUTURE_PENALTY
    if question and admits_unknown(question, text):
        bonus -= UNKNOWN_PENALTY
    if question and credits_people(text) and not _ASKS_WHO.search(question):
        bonus -= CREDITS_PENALTY
    if question and names_another(question, text):
        bonus -= OTHER_NAME_PENALTY
    if kind.answer in ("other", "formula") and says_how(question, text):
        bonus += MEANS_BONUS
    if kind.answer == "definition" and defining(text, kind.subject):
        bonus += DEFINES_BONUS
    if kind.answer == "number" and gives_number(question, text):
        bonus += NUMBER_BONUS + (SCORED_ON_BONUS if scored_on(question, text) else 0.0)
        bonus += CHANGE_BONUS if states_change(question, text) else 0.0
        bonus += MEASURE_BONUS if not asks_count(question) and measures_asked(question, text) else 0.0
    if kind.answer == "entity" and question:
        bonus += name_bonus(kind, question, text, local or {})
        if says_what_was_used(text):
            bonus += SETUP_BONUS
        if lists_what_is_asked(question, text):
            bonus += LIST_BONUS
    return bonus
