"""Follow-up questions made standalone without an LLM, kept short.

A follow-up borrows context only when it needs it: when it refers back ("it", "their", "this paper",
"these methods", "the authors") before naming anything the reference could point to, or when it names
nothing at all ("Why?", "Tell me more"). It then gets ONE short phrase from the conversation: the subject
of the previous question (its named terms or main noun phrase), or, for "this paper" and "the authors",
the short title of the paper the previous answer cited first. A question that stands on its own is left
exactly as it was, so an unrelated question inside a chat is answered as if it were asked alone, and no
standalone question is ever longer than the question plus `MAX_SUBJECT_WORDS` words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MAX_SUBJECT_WORDS = 8

_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9+\-'’./]*[A-Za-z0-9+]|[A-Za-z0-9]")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


FUNCTION = _words(
    """a an the and or but nor so yet if then than as of for in on at to from by with without within into onto
    over under about between among against via per vs versus through during after before since until while
    what which who whom whose why how when where whether is are was were be been being am do does did done doing
    have has had having can could will would shall should may might must i me my mine we us our you your he him
    his she her hers it its they them their theirs itself themselves this that these those there here
    any some all each every both either neither no not none other others another such same own more most
    much many few less least very really just also only even still too else again further please tell
    explain describe summarize summarise give list show name mention say said says mean means meant there's
    what's it's that's how's who's one ones lot lots kind sort way thing things something anything
    main key overall exactly actually specifically briefly roughly approximately generally typically
    best better worse worst good bad big small large new old first second last next different similar
    possible true false correct ok okay yes and/or e.g. i.e. etc"""
)
GENERIC_NOUNS = _words(
    """paper papers work works study studies article articles publication publications author authors
    method methods approach approaches technique techniques model models system systems framework frameworks
    dataset datasets data corpus corpora benchmark benchmarks algorithm algorithms tool tools idea ideas
    result results finding findings contribution contributions limitation limitations strength strengths
    weakness weaknesses advantage advantages disadvantage disadvantages drawback drawbacks problem problems
    difference differences similarity similarities detail details example examples number size amount
    part parts aspect aspects point points question questions answer answers information summary overview
    topic topics goal goals purpose aim aims motivation conclusion conclusions evaluation experiments
    experiment performance accuracy"""
)
_VERB_STEMS = _words(
    """contain use work differ compare perform propose introduce train evaluate help improve achieve show find
    describe handle build make collect define address solve include cover exist consider apply relate mention
    create produce obtain outperform beat compute matter win"""
)
_IRREGULAR = _words("made built found shown done got given gave took taken ran run wrote written held kept led won")
# verbs that are often nouns in questions ("design", "test", "report", "release") are not listed
GENERIC_VERBS = _IRREGULAR | {stem + end for stem in _VERB_STEMS for end in ("", "s", "es", "d", "ed")}
CONNECTORS = {"of", "for", "in", "on", "with", "and", "to", "from", "via", "vs", "versus", "between"}
DO_AUXILIARIES = {"do", "does", "did", "can", "could", "will", "would", "should", "may", "might", "must"}
WH_WORDS = {"what", "which", "whose"}
PRONOUNS = {"it", "its", "they", "them", "their", "theirs", "itself", "themselves"}
POSSESSIVES = {"its", "their", "theirs"}
DEMONSTRATIVES = {"this", "that", "these", "those"}
PAPER_NOUNS = {"paper", "papers", "work", "study", "article", "publication", "author", "authors"}
REFERENT_NOUNS = GENERIC_NOUNS - {"data", "number", "size", "amount", "information", "question", "questions"}
_BARE_DEMONSTRATIVE_AFTER = {
    "is", "was", "are", "were", "does", "did", "do", "about", "explain", "describe", "summarize", "summarise",
    "by", "of", "on", "with", "mean", "means", "like", "use", "to",
}  # fmt: skip
_EXPLETIVE_IT = re.compile(
    r"\b(?:is|was|isn't|wasn't)\s+it\s+(?:true|possible|known|likely|the\s+case|necessary|important|common|"
    r"feasible|fair|reasonable|hard|difficult|easy|correct|better|worse|worth|enough|ok|okay)\b"
    r"|\bit\s+(?:is|was|seems|seemed|appears|appeared)\s+(?:\w+\s+)?(?:that|to|whether|if)\b"
    r"|\bdoes\s+it\s+matter\b|\bit\s+matters?\b|\bhow\s+come\b|\bit\s+(?:takes|took)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    index: int

    @property
    def low(self) -> str:
        return self.text.lower().replace("’", "'").removesuffix("'s")

    @property
    def named(self) -> bool:
        """A name or term: S2ORC, LongEval, GPT-4, 1998, or a capitalised word inside the sentence."""
        word = self.text
        return (
            any(c.isdigit() for c in word)
            or any(c.isupper() for c in word[1:])
            or (self.index > 0 and word[0].isupper() and self.low not in FUNCTION)
        )

    @property
    def kind(self) -> str:
        """F(unction), V(erb, generic), N(oun, generic) or C(ontent)."""
        low = self.low
        if low in FUNCTION and not (len(self.text) > 1 and self.text.isupper()):  # "US", "IT" are names
            return "F"
        if low in GENERIC_VERBS and not self.named:
            return "V"
        if low in GENERIC_NOUNS and not self.named:
            return "N"
        return "C"


@dataclass(frozen=True)
class Reference:
    """Words of a question that point back: a pronoun, "this"/"that", or "this paper", "the authors"..."""

    start: int  # token index of the first word
    end: int  # token index after the last word
    form: str  # "pronoun", "possessive", "bare" or "phrase"
    about_paper: bool  # refers to a paper ("this paper", "the authors"), resolved with a cited title


def tokens(text: str) -> list[Token]:
    return [Token(m.group(), m.start(), m.end(), i) for i, m in enumerate(_WORD.finditer(text))]


def _expletive_its(text: str, toks: Sequence[Token]) -> set[int]:
    """Indexes of "it" tokens that refer to nothing ("is it true that ...", "it seems that ...")."""
    spans = [m.span() for m in _EXPLETIVE_IT.finditer(text)]
    return {t.index for t in toks if t.low == "it" and any(a <= t.start < b for a, b in spans)}


def references(text: str) -> list[Reference]:
    """The words of `text` that refer back to something said before, in order."""
    toks = tokens(text)
    skip = _expletive_its(text, toks)
    out: list[Reference] = []
    i = 0
    while i < len(toks):
        ref = _reference_at(toks, i, skip)
        if ref is not None:
            out.append(ref)
            i = ref.end
        else:
            i += 1
    return out


def _reference_at(toks: Sequence[Token], i: int, skip: set[int]) -> Reference | None:
    low = toks[i].low
    nxt = toks[i + 1].low if i + 1 < len(toks) else ""
    if low in PRONOUNS and i not in skip and toks[i].kind == "F":
        return Reference(i, i + 1, "possessive" if low in POSSESSIVES else "pronoun", False)
    if low in DEMONSTRATIVES | {"the"} and nxt in REFERENT_NOUNS:
        end = i + 2
        if low == "the" and nxt not in PAPER_NOUNS:
            return None  # "the results", "the dataset": too common to read as a reference
        return Reference(i, end, "phrase", nxt in PAPER_NOUNS)
    if low in DEMONSTRATIVES and _bare_demonstrative(toks, i):
        return Reference(i, i + 1, "bare", False)
    return None


def _bare_demonstrative(toks: Sequence[Token], i: int) -> bool:
    """ "What does that mean?", "Explain this.", "Why is that?" but not "a dataset that covers biology"."""
    if i == 0:
        return True
    return toks[i - 1].low in _BARE_DEMONSTRATIVE_AFTER and toks[i - 1].kind != "C"


def _wh_phrase(toks: Sequence[Token]) -> set[int]:
    """Indexes of the words a question asks for ("what DATASETS do they use"): never an antecedent."""
    out: set[int] = set()
    for t in toks:
        is_wh = t.low in WH_WORDS or (t.low in {"many", "much"} and t.index > 0 and toks[t.index - 1].low == "how")
        if not is_wh:
            continue
        j = t.index + 1
        while j < len(toks) and toks[j].kind in {"C", "N"}:
            out.add(j)
            j += 1
    return out


def needs_context(question: str) -> bool:
    """True when the question refers back before naming what it refers to, or names nothing at all."""
    toks = tokens(question)
    refs = references(question)
    asked = _wh_phrase(toks)
    in_refs = {j for r in refs for j in range(r.start, r.end)}
    own = [t for t in toks if t.kind == "C" and t.index not in in_refs]
    if not refs:
        return not own and len(toks) <= 12
    return any(_unresolved(r, own, asked) for r in refs)


def asks_of_the_paper(question: str) -> bool:
    """`question` names no subject and points back to none, but asks for a part of a paper ("What are the
    limitations?", "What is the main contribution?"): asked of one paper, that paper is its subject, not what the
    conversation spoke of before ("Why?" and "Tell me more" ask for no such part)."""
    toks = tokens(question)
    return not references(question) and not any(t.kind == "C" for t in toks) and any(t.kind == "N" for t in toks)


def _unresolved(ref: Reference, own: Sequence[Token], asked: set[int]) -> bool:
    """No word before the reference that it could stand for (a paper reference needs a name)."""
    before = [t for t in own if t.index < ref.start and t.index not in asked]
    if ref.about_paper:
        before = [t for t in before if t.named]
    return not before


def subject(question: str) -> str:
    """The short phrase a question is about: its named terms' noun phrase, else its main noun phrase."""
    toks = tokens(question)
    in_refs = {j for r in references(question) for j in range(r.start, r.end)}
    spans = _spans(toks, in_refs)
    if not spans:
        return ""
    asked = _wh_phrase(toks)
    named = [s for s in spans if any(t.named for t in s)]
    if named:
        best, extra = named[0], named[1:]
    else:
        unasked = [s for s in spans if not all(t.index in asked for t in s)] or spans
        best, extra = max(unasked, key=lambda s: sum(t.kind == "C" for t in s)), []
    words = _with_article(toks, best)
    for span in extra:
        words += ["and", *(t.text for t in span)]
    return _clip(words)


def _spans(toks: Sequence[Token], skip: set[int]) -> list[list[Token]]:
    """Runs of content words and generic nouns, joined by "of", "for", "and"...; each holds a content word."""
    spans: list[list[Token]] = []
    current: list[Token] = []
    for t in toks:
        usable = t.index not in skip and t.kind in {"C", "N"}
        joins = t.low in CONNECTORS and current and _next_usable(toks, t.index, skip)
        if usable or joins:
            current.append(t)
            continue
        spans.append(current)
        current = []
    spans.append(current)
    return [_trim(_drop_verb(toks, s)) for s in spans if any(t.kind == "C" for t in s)]


def _drop_verb(toks: Sequence[Token], span: list[Token]) -> list[Token]:
    """ "does [PaSa retrieve]?" → "PaSa": after "does", a phrase's last plain word is the question's verb."""
    if len(span) < 2 or span[-1].named or span[-1].kind != "C":
        return span
    before = span[0].index - 1
    if before >= 0 and toks[before].low == "the":
        before -= 1
    after = span[-1].index + 1
    ends = after >= len(toks) or toks[after].kind == "F"
    return span[:-1] if ends and before >= 0 and toks[before].low in DO_AUXILIARIES else span


def _next_usable(toks: Sequence[Token], i: int, skip: set[int]) -> bool:
    return i + 1 < len(toks) and i + 1 not in skip and toks[i + 1].kind in {"C", "N"}


def _trim(span: list[Token]) -> list[Token]:
    """Without generic nouns in front ("main results of X" → "X"... kept when they head the phrase)."""
    start = 0
    while start < len(span) and span[start].kind != "C":
        start += 1
    return span[start:]


def _with_article(toks: Sequence[Token], span: Sequence[Token]) -> list[str]:
    words = [t.text for t in span]
    first = span[0].index
    if first > 0 and toks[first - 1].low == "the":
        words.insert(0, "the")
    return words


def _clip(words: list[str]) -> str:
    words = words[:MAX_SUBJECT_WORDS]
    while words and words[-1].lower() in CONNECTORS | {"the"}:
        words.pop()
    return " ".join(words)


def short_title(title: str) -> str:
    """A paper's short name: "S2ORC" for "S2ORC: The Semantic Scholar Open Research Corpus"."""
    title = " ".join(title.split())
    head, sep, _ = title.partition(":")
    if sep and 0 < len(head.split()) <= MAX_SUBJECT_WORDS:
        return head.strip()
    return _clip(title.split())


def standalone(question: str, earlier: Sequence[str], cited_title: str = "") -> str:
    """`question` made to stand alone after the `earlier` standalone questions (oldest first).

    `cited_title` is the title of the paper the previous answer cited first; "this paper" and "the
    authors" point to it. At most one short phrase is added, and only where the question needs it.
    """
    if not earlier or not needs_context(question):
        return question
    toks = tokens(question)
    asked = _wh_phrase(toks)
    in_refs = {j for r in references(question) for j in range(r.start, r.end)}
    own = [t for t in toks if t.kind == "C" and t.index not in in_refs]
    target = next((r for r in references(question) if _unresolved(r, own, asked)), None)
    phrase = short_title(cited_title) if target and target.about_paper and cited_title else ""
    phrase = phrase or previous_subject(earlier)
    if not phrase:
        return question
    return _insert(question, toks, target, phrase)


def previous_subject(earlier: Sequence[str]) -> str:
    """The subject of the latest earlier question that has one."""
    for text in reversed(earlier):
        found = subject(text)
        if found:
            return found
    return ""


def _insert(question: str, toks: Sequence[Token], ref: Reference | None, phrase: str) -> str:
    if ref is None:  # "Why?", "Tell me more": the subject goes last
        body = question.rstrip(" ?.!")
        return f"{body} ({phrase}){question[len(body) :].strip()}"
    first, last = toks[ref.start], toks[ref.end - 1]
    if ref.form in {"pronoun", "possessive"}:
        plural = phrase.endswith("s") and not phrase.endswith(("ss", "us", "is")) and not phrase[-2:].isupper()
        word = phrase + ("'" if plural else "'s")
        word = word if ref.form == "possessive" else phrase
        if first.index == 0:
            word = word[0].upper() + word[1:]
        return question[: first.start] + word + question[last.end :]
    return f"{question[: last.end]} ({phrase}){question[last.end :]}"


_ORDINALS = {"first": 0, "1st": 0, "top": 0, "second": 1, "2nd": 1, "third": 2, "3rd": 2, "fourth": 3, "4th": 3,
             "fifth": 4, "5th": 4, "last": -1}  # fmt: skip
_KIND_NOUNS = "one|item|entry|name|algorithm|method|benchmark|dataset|model|framework"
# "the first one", "the second algorithm", "the last of them": an item of the list the previous answer gave
_ORDINAL = re.compile(
    rf"\bthe\s+({'|'.join(_ORDINALS)})\s+(?:(?:{_KIND_NOUNS})s?(?:\s+of\s+(?:them|these|those))?|of\s+(?:them|these|those))"
    rf"(?:['’]s)?(?![\w\-])",
    re.IGNORECASE,
)


_ORD = "|".join(_ORDINALS)
_ITEMS = rf"(?:\s+(?:ones?|(?:{_KIND_NOUNS})s?)(?:\s+of\s+(?:them|these|those))?)?"
# "the first and the second one", "the first one with the last", "the second and third algorithms"
_PAIR = re.compile(
    rf"\bthe\s+({_ORD}){_ITEMS}\s+(and|with|to|or|vs\.?|versus)\s+(?:the\s+)?({_ORD}){_ITEMS}(?![\w\-])",
    re.IGNORECASE,
)
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "2": 2, "3": 3, "4": 4, "5": 5}
# "the first two", "the top three algorithms", "the first 3 of them"
_LEADING = re.compile(rf"\bthe\s+(?:first|top)\s+({'|'.join(_COUNTS)}){_ITEMS}(?![\w\-])", re.IGNORECASE)


def listed_item(question: str, listed: Sequence[str]) -> str:
    """`question` with "the first one", "the second algorithm", "the last of them" made the name of that item of
    the list the previous answer gave ("How does the first one work?" after "GRPO — 4 papers; PPO — 3 papers" asks
    "How does GRPO work?"), and two or more items named together ("Compare the first and the second one",
    "the first two": "GRPO and PPO"); `question` as it is when it says no such thing or the list is shorter."""
    if not listed:
        return question

    def item(word: str) -> str | None:
        at = _ORDINALS[word.lower()]
        return listed[at] if -len(listed) <= at < len(listed) else None

    def pair(m: re.Match[str]) -> str:
        a, b = item(m.group(1)), item(m.group(3))
        return f"{a} {m.group(2)} {b}" if a and b and a != b else m.group(0)

    def leading(m: re.Match[str]) -> str:
        n = _COUNTS[m.group(1).lower()]
        if n > len(listed) or n < 2:
            return m.group(0)
        return ", ".join(listed[: n - 1]) + f" and {listed[n - 1]}"

    def named(m: re.Match[str]) -> str:
        name = item(m.group(1))
        own = m.group(0).endswith(("'s", "’s"))
        return name + ("'s" if own else "") if name else m.group(0)

    question = _LEADING.sub(leading, _PAIR.sub(pair, question))
    return _ORDINAL.sub(named, question)
