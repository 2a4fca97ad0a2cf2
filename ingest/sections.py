"""Section headings found in PDF text lines: "4.2 Reward design", "3.2. Tool Interface", "References".

pypdf gives no fonts, so a heading is recognised by its shape: a line that is a section number and a short
title, or one of the usual unnumbered section names. Numbers must move forward (2 → 2.1 → 3, never back
and never a jump past the next chapter), which keeps numbered list items, table rows and wrapped lines
that begin with a number from being taken for headings.
"""

from __future__ import annotations

import re

MAX_TITLE_WORDS = 12
MAX_TITLE_CHARS = 90
MAX_TOP_NUMBER = 15
MAX_CONTINUATION_WORDS = 6
MAX_STANDALONE_WORDS = 8
_NUMBERED = re.compile(r"(\d{1,2}(?:\.\d{1,2}){0,3})\.?\s+(\S.*)")
_LETTERED = re.compile(r"([A-H](?:\.\d{1,2}){1,3}|[A-H]\.?)\s+(\S.*)")
_NAMED = re.compile(
    r"(abstract|introduction|related works?|background|preliminaries|methods?|methodology|approach"
    r"|experiments?|experimental setup|results|evaluation|discussion|analysis|limitations|conclusions?"
    r"|conclusions? and future work|future work|ethics statement|broader impacts?|acknowledge?ments?"
    r"|references|bibliography|appendix|appendices|supplementary material)",
    re.IGNORECASE,
)
_BACK_MATTER = frozenset({"references", "bibliography", "appendix", "appendices", "supplementary material"})
_OPEN_WORDS = "a an and as at by for from in into of on or the to using via versus vs with"
_OPEN_ENDS = frozenset(_OPEN_WORDS.split())  # a title ending in one of these goes on on the next line
_TITLE_END = re.compile(r"[.,;:\-–]$")


def title_like(title: str) -> bool:
    """A short capitalised title: not a sentence, not a table row of numbers."""
    words = title.split()
    if not words or len(words) > MAX_TITLE_WORDS or len(title) > MAX_TITLE_CHARS:
        return False
    if not title[0].isupper() or _TITLE_END.search(title):
        return False
    letters = sum(c.isalpha() for c in title)
    return letters >= 0.7 * len(title.replace(" ", "")) and letters >= 3


def _numbers(label: str) -> tuple[int, ...]:
    return tuple(int(p) for p in label.rstrip(".").split("."))


def _tidy(title: str) -> str:
    title = " ".join(title.split())
    return title.title() if title.isupper() and len(title) > 4 else title


class SectionTracker:
    """Walks a paper's lines in order; `heading(line)` says whether a line is a heading and, when it is,
    makes it the current `section`."""

    def __init__(self) -> None:
        self.section = ""
        self._last: tuple[int, ...] = ()
        self._letter = ""
        self._open = False  # the heading just read ends in a word that cannot end a title
        self._back_matter = False  # after "References" or "Appendix": lettered appendix headings may follow

    def heading(self, line: str, after: str = "") -> bool:
        """Whether `line` is a heading or a heading's second line; `after` is the line that follows it."""
        line = line.strip()
        if self._open:  # the second line of a heading that wrapped: "3 The LONGEVAL guidelines for"
            self._open = False
            if self._goes_on(line, after):
                self.section = f"{self.section} {line}"
                return True
        found = self._numbered(line) or self._lettered(line) or self._named(line)
        self._open = found
        return found

    def _goes_on(self, line: str, after: str) -> bool:
        """Whether `line` carries on the heading just read: a few words with no full stop after a title that ends
        in a word a title cannot end with ("3 The LONGEVAL guidelines for" | "faithfulness human evaluation"), or
        that start in small letters before a line that starts in capitals ("3.1 Representing and manipulating" |
        "visually-rich documents with magelib" | "In this section, ...")."""
        if len(line.split()) > MAX_CONTINUATION_WORDS or _TITLE_END.search(line):
            return False
        if self.section.split()[-1].lower() in _OPEN_ENDS:
            return True
        return line[:1].islower() and after.strip()[:1].isupper()

    def standalone(self, line: str) -> bool:
        """A short title on a paragraph of its own (in text that separates paragraphs with blank lines)."""
        line = line.strip()
        if len(line.split()) > MAX_STANDALONE_WORDS or not title_like(line) or _NUMBERED.fullmatch(line):
            return False
        self.section, self._open = _tidy(line), False
        return True

    def _numbered(self, line: str) -> bool:
        m = _NUMBERED.fullmatch(line)
        if not m or not title_like(m.group(2)) or self._letter:
            return False
        numbers = _numbers(m.group(1))
        if not self._follows(numbers):
            return False
        self._last = numbers
        self.section = f"{m.group(1).rstrip('.')} {_tidy(m.group(2))}"
        return True

    def _follows(self, numbers: tuple[int, ...]) -> bool:
        """Whether a heading numbered `numbers` can come next: the next chapter, or a later part of this one."""
        top, last_top = numbers[0], self._last[0] if self._last else 0
        if top > MAX_TOP_NUMBER or any(n == 0 for n in numbers[1:]):
            return False
        if not self._last:
            return top <= 2
        return (top == last_top + 1 and all(n == 1 for n in numbers[1:])) or (top == last_top and numbers > self._last)

    def _lettered(self, line: str) -> bool:
        m = _LETTERED.fullmatch(line)
        if not m or not self._back_matter or not title_like(m.group(2)):
            return False
        label, letter = m.group(1), m.group(1)[0]
        following = chr(ord(self._letter) + 1) if self._letter else "A"
        if letter < (self._letter or "A") or (not self._letter and letter != "A"):
            return False
        if len(label) == 1 and letter != following:  # "C The clustering problem": only the next appendix
            return False
        self._letter = letter
        self.section = f"{m.group(1).rstrip('.')} {_tidy(m.group(2))}"
        return True

    def _named(self, line: str) -> bool:
        if not _NAMED.fullmatch(line):
            return False
        self.section = _tidy(line) if line.isupper() else line[0].upper() + line[1:]
        self._back_matter |= self.section.lower() in _BACK_MATTER
        return True


BACK_MATTER = re.compile(r"(references|bibliography|acknowledge?ments?|funding)\b", re.IGNORECASE)


def is_back_matter(section: str) -> bool:
    """Whether a section heading names back matter: "7 References", "A Acknowledgments", "Funding"."""
    return bool(BACK_MATTER.match(re.sub(r"^[A-Z\d.]+\s+", "", section)))
