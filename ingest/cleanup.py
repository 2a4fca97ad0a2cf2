"""A PDF's page texts → blocks of body text and captions, each knowing its page and section.

What pypdf returns keeps the page's furniture and loses its structure. Before chunking:
- running headers and footers (short lines repeated at the top or bottom of many pages), page numbers and
  the arXiv side stamp are removed;
- section headings ("4.2 Reward design", "References") are taken out of the text and kept as the section
  of the text that follows them, so a chunk records its section instead of a heading glued into a sentence;
- figure and table captions ("Figure 3: ...") become blocks of their own, marked as captions;
- words run together by the extraction are split again (`ingest.wordsplit`).

`CLEANUP_VERSION` names this behaviour in the chunking fingerprint: changing it re-chunks stored papers.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace

from ingest.sections import SectionTracker
from ingest.wordsplit import restore_spaces

CLEANUP_VERSION = 3  # 2: short runs of blocks joined to the next before chunking (ingest/chunking.py);
# 3: a joined run takes the section holding most of its text, and main text never joins back matter
EDGE_LINES = 5  # lines at the top and at the bottom of a page where running headers and footers sit
MAX_RUNNING_WORDS = 15
MAX_CAPTION_LINES = 6
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(r"(?:page\s+)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?|[ivxlc]{1,6}", re.IGNORECASE)
_ARXIV_STAMP = re.compile(r"arXiv:\s*\d{4}\.\d{4,5}(?:v\d+)?\s*\[[\w.\-]+\]\s*\d{1,2}\s*\w{3}\s*\d{4}")
_CAPTION = re.compile(r"(?:Figure|Fig\.|Table|Tab\.)\s*(?:[A-Z]\.?)?\d{1,3}\s*([:.|])\s*\S")
_HYPHEN_END = re.compile(r"[a-z]-$")
_SENTENCE_END = re.compile(r"[.!?][)\"'”’]?$")


@dataclass(frozen=True)
class Block:
    """Consecutive lines of one page that share a section and are all body text or all one caption."""

    page: int  # from 1
    text: str
    section: str = ""
    caption: bool = False


def _key(line: str) -> str:
    """A line as compared across pages: page numbers inside it do not matter."""
    return _DIGITS.sub("#", " ".join(line.lower().split()))


def _edges(lines: list[str]) -> list[str]:
    if len(lines) <= 2 * EDGE_LINES:
        return lines
    return lines[:EDGE_LINES] + lines[-EDGE_LINES:]


def running_keys(pages: list[list[str]]) -> set[str]:
    """Keys of the short lines found at the edges of at least 3 pages and at least 30% of them."""
    seen: Counter[str] = Counter()
    for lines in pages:
        seen.update({_key(x) for x in _edges(lines) if len(x.split()) <= MAX_RUNNING_WORDS})
    need = max(3, math.ceil(0.3 * len(pages)))
    return {k for k, n in seen.items() if n >= need}


def _is_furniture(line: str, at_edge: bool, running: set[str]) -> bool:
    """A running header or footer, a page number, or the arXiv stamp."""
    stripped = line.strip()
    if _ARXIV_STAMP.fullmatch(stripped):
        return True
    if at_edge and _PAGE_NUMBER.fullmatch(stripped):
        return True
    key = _key(stripped)
    # a repeated line with words in it is furniture wherever it sits; a bare number only at an edge
    return key in running and (at_edge or any(c.isalpha() for c in key))


def strip_furniture(lines: list[str], running: set[str]) -> list[str]:
    """The page's lines without its running headers, footers and page numbers (blank lines are kept: they
    separate paragraphs; the edges are the first and last lines with text)."""
    filled = [i for i, x in enumerate(lines) if x.strip()]
    edge = set(filled[:EDGE_LINES] + filled[-EDGE_LINES:])
    return [x for i, x in enumerate(lines) if not x.strip() or not _is_furniture(x, i in edge, running)]


class _Builder:
    """Collects lines into blocks as the pages are walked."""

    def __init__(self) -> None:
        self.blocks: list[Block] = []
        self.lines: list[str] = []
        self.page, self.section, self.caption = 0, "", False

    def flush(self) -> None:
        text = "\n".join(self.lines).strip()
        if text:
            self.blocks.append(Block(self.page, restore_spaces(text), self.section, self.caption))
        self.lines = []

    def paragraph(self) -> None:
        if self.lines and self.lines[-1]:
            self.lines.append("")

    def start(self, page: int, section: str, caption: bool) -> None:
        if (page, section, caption) != (self.page, self.section, self.caption):
            self.flush()
            self.page, self.section, self.caption = page, section, caption


def caption_marks(lines: list[list[str]]) -> str:
    """The punctuation after a caption's number: ":" or "|" when the paper uses them ("Figure 1: ..."), for
    then "Table 4. On average ..." is a sentence that happens to start a line; else "." too."""
    for page in lines:
        for line in page:
            m = _CAPTION.match(line.strip())
            if m and m.group(1) != ".":
                return ":|"
    return ":|."


def clean_pages(pages: list[str]) -> list[Block]:
    """Every page's text as blocks of body text and captions, without furniture or heading lines."""
    split = [[x for x in page.splitlines() if x.strip()] for page in pages]
    running, marks = running_keys(split), caption_marks(split)
    tracker, out = SectionTracker(), _Builder()
    for number, page in enumerate(pages, start=1):
        lines, caption_left = strip_furniture(page.splitlines(), running), 0
        for i, line in enumerate(lines):
            if not line.strip():  # a paragraph break ends a caption
                caption_left = 0
                out.start(number, tracker.section, False)
                out.paragraph()
                continue
            if tracker.heading(line) or (_alone(lines, i) and tracker.standalone(line)):
                out.start(number, tracker.section, False)
                caption_left = 0
                continue
            m = _CAPTION.match(line.strip()) if caption_left == 0 else None
            if m and m.group(1) in marks:
                caption_left = MAX_CAPTION_LINES
            out.start(number, tracker.section, caption_left > 0)
            out.lines.append(line)
            if caption_left:
                caption_left = 0 if _SENTENCE_END.search(line.strip()) else caption_left - 1
        out.flush()
    return join_hyphens(out.blocks)


def _alone(lines: list[str], i: int) -> bool:
    """Whether line `i` is a paragraph of its own: blank lines (or the page's edge) before and after it."""
    before = i == 0 or not lines[i - 1].strip()
    after = i == len(lines) - 1 or not lines[i + 1].strip()
    return before and after and any(not x.strip() for x in lines)


def join_hyphens(blocks: list[Block]) -> list[Block]:
    """A word hyphenated across a page break ("in-" | "clude class") joined on the earlier page."""
    out: list[Block] = []
    for block in blocks:
        prev = out[-1] if out else None
        if prev and _continues(prev, block):
            word, _, rest = block.text.lstrip().partition(" ")
            word, newline, after = word.partition("\n")
            out[-1] = replace(prev, text=prev.text[:-1] + word)
            block = replace(block, text=(f"{after} {rest}" if newline else rest).strip())
        if block.text:
            out.append(block)
    return out


def _continues(prev: Block, block: Block) -> bool:
    same_body = (prev.section, prev.caption, block.caption) == (block.section, False, False)
    return same_body and bool(_HYPHEN_END.search(prev.text)) and block.text[:1].islower()


def plain_pages(pages: list[str]) -> list[Block]:
    """Each page as one block, as it was extracted (cleanup turned off)."""
    return [Block(number, text) for number, text in enumerate(pages, start=1)]
