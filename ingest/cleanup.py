"""A PDF's page texts → blocks of body text and captions, each knowing its page and section.

What pypdf returns keeps the page's furniture and loses its structure. Before chunking:
- running headers and footers (short lines repeated at the top or bottom of many pages), page numbers and
  the arXiv side stamp are removed;
- section headings ("4.2 Reward design", "References") are taken out of the text and kept as the section
  of the text that follows them, so a chunk records its section instead of a heading glued into a sentence;
- figure and table captions ("Figure 3: ...") become blocks of their own, marked as captions;
- footnotes at the bottom of a page ("2We exclude five papers ...", "9https://...") are taken out of the
  page's text and put after the body of their section, their marks dropped, so that a sentence running on
  to the next page is not cut by them; a note's mark in the text after a word's punctuation ("research.1")
  is dropped too; the notes under a column of a two-column page, which pypdf reads in the middle of the page
  between a sentence and its end, follow that sentence's paragraph instead;
- words run together by the extraction are split again (`ingest.wordsplit`);
- lines pypdf runs into the sentences around them are set apart: a heading on a line of its own between one
  sentence's end and the next sentence ("... significantly." | "Proposed Approaches" | "In this section, ..."), and
  page 1's front matter above the abstract (title, authors, affiliations), each line a paragraph of its own, so
  that neither is quoted as the start of a sentence, and a publisher's notice there left out;
- in a paper that cites by superscript numbers, the numbers pypdf sets after a sentence's full stop ("... in drug
  discovery. 120 Small molecule ...") are dropped: they would open the next sentence.

`CLEANUP_VERSION` names this behaviour in the chunking fingerprint: changing it re-chunks stored papers.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import pairwise

from ingest.sections import SectionTracker, title_like
from ingest.wordsplit import restore_spaces, vocabulary

CLEANUP_VERSION = 12  # 2: short runs of blocks joined to the next before chunking (ingest/chunking.py);
# 3: a joined run takes the section holding most of its text, and main text never joins back matter;
# 4: footnotes moved after their section's body, and a sentence running on across a page break or a figure's
# text kept whole; 5: note marks after a word's punctuation dropped ("research.1"); 6: the same text, each chunk
# with where its pages start (`Chunk.page_marks`), so that a quote cites its own page; 7: on a line that ran its
# words together, short glued words split too and a space put back after a comma or full stop ("Toensure",
# "quality,we", "process.Compared"); 8: a paragraph's run-in heading given a full stop ("Reward Design. Our ...");
# 9: a run-in heading the paper sets elsewhere given its full stop before any word ("Training Objective. GRPO ...");
# 10: a column's footnotes in the middle of a page's text, between a sentence and its end, moved out as well;
# 11: a heading line between two sentences and page 1's front matter set apart, superscript citation numbers after
# a full stop dropped, and a numbered heading's second line read when it starts in small letters; 12: a publisher's
# notice in page 1's front matter left out, and a line there in small letters kept with the one before
EDGE_LINES = 5  # lines at the top and at the bottom of a page where running headers and footers sit
MAX_RUNNING_WORDS = 15
MAX_CAPTION_LINES = 6
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(r"(?:page\s+)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?|[ivxlc]{1,6}", re.IGNORECASE)
_ARXIV_STAMP = re.compile(r"arXiv:\s*\d{4}\.\d{4,5}(?:v\d+)?\s*\[[\w.\-]+\]\s*\d{1,2}\s*\w{3}\s*\d{4}")
_CAPTION = re.compile(r"(?:Figure|Fig\.|Table|Tab\.)\s*(?:[A-Z]\.?)?\d{1,3}\s*([:.|])\s*\S")
_HYPHEN_END = re.compile(r"[a-z]-$")
_SENTENCE_END = re.compile(r"[.!?][)\"'”’]?$")
FOOTNOTE_LINES = 12  # footnotes are looked for among a page's last lines with text
MAX_COLUMN_NOTE_LINES = 8  # the longest run of notes under a column before the page's text goes on
_LINK = re.compile(r"https?:|www\.")
# a note's mark glued to its text: "2We exclude ...", "9https://...", "†Corresponding author" (a numbered
# heading has a space after its number: "3 The S2ORC dataset")
_FOOTNOTE = re.compile(r"\d{1,2}(?=[A-Z][a-z]|https?:|www\.)|[*†‡]\s?(?=[A-Z])")
# a note's mark after a word's punctuation: "research.1", "S2ORC,1 a large corpus", "settings:12 (1)"; not a
# number of its own ("Section 3.1", "(A.1)", "arXiv:2005.14165"), an equation's subscript ("V_ov,9 = 2") or the
# number after an abbreviation ("Fig.3")
_NOTE_MARK = re.compile(r"(?<=[A-Za-z]{3}[.,;:])\d{1,2}(?=\s+[^\s=±−+×·<>≤≥\-]|\s*$)", re.MULTILINE)
_WORD_BEFORE = re.compile(r"([A-Za-z]+)[.,;:]$")
_NUMBERED = {"fig", "figs", "sec", "secs", "tab", "eq", "eqs", "ref", "refs", "vol", "app", "thm", "alg", "lem",
             "def", "prop", "cor", "chap", "ver", "rev", "step", "part", "no", "nos", "pp", "art"}  # fmt: skip
MIN_LINE_WORDS = 4  # a line of prose has at least this many tokens; axis labels and table cells fewer
MIN_WORD_SHARE = 0.6  # and mostly words; numbers and symbols fill table rows and algorithms
_WORD = re.compile(r"(?<!\S)[^\W\d_]{2,}[.,;:]?(?!\S)")  # a whole token that is a word (one scan per line)
MIN_PROSE_SHARE = 0.5  # prose: at least this share of a passage's tokens on lines of prose
MIN_PROSE_TOKENS = 20  # or a sentence's worth of them: a paragraph cut off by the table after it is still read
# superscript citation numbers as pypdf sets them after a sentence's full stop: "discovery. 120 Small", "humans.
# 22-24 Although"; a paper that cites so has dozens, one that does not a stray few ("... the latter). 17 English
# words fall into ...", a sentence that opens with a number)
_CITED_STOP = re.compile(r"(?<=[a-z)\]][.!?])[ \t]+\d{1,3}(?:\s*[,–-]\s*\d{1,3})*(?=\s+[A-Z][a-z])")
_CITED_END = re.compile(r"(?<=[.!?])\s+\d{1,3}(?:\s*[,–-]\s*\d{1,3})*$")  # the same numbers ending a line
MIN_CITED_STOPS = 5
MIN_APART_WORDS, MAX_APART_WORDS = 2, 8  # a heading line set apart between two sentences
SHORT_LINE = 0.85  # and shorter than this share of the page's lines of prose
_ABSTRACT = re.compile(r"(?i:abstract|a b s t r a c t)\b")
_NOTICE = re.compile(
    r"licen[cs]ed?\b|creative commons|published (?:under|by)|copyright|©|all rights reserved|permission to make",
    re.IGNORECASE,
)
FRONT_MATTER_LINES = 40  # page 1's abstract opens within its first lines with text, or the front matter is not read


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

    def __init__(self, known_headings: frozenset[str] = frozenset(), cited: bool = False) -> None:
        self.known_headings = known_headings  # the run-in headings the paper sets apart (`run_in_headings`)
        self.cited = cited  # the paper cites by superscript numbers (`cites_by_superscript`)
        self.blocks: list[Block] = []
        self.lines: list[str] = []
        self.notes: list[Block] = []  # footnotes waiting for the end of their section's text
        self.held: list[str] = []  # a column's notes waiting for the end of the paragraph they cut
        self.page, self.section, self.caption = 0, "", False

    def hold(self, notes: list[str]) -> None:
        self.held += notes

    def _release(self) -> None:
        """The held notes, each a paragraph of its own, after the paragraph they cut."""
        for note in self.held:
            self.lines += ["", note]
        self.held = []

    def flush(self) -> None:
        self._release()
        text = "\n".join(self.lines).strip()
        if text:
            text = restore_spaces(drop_note_marks(_CITED_STOP.sub("", text) if self.cited else text))
            if self.page > 1 and not self.caption:  # page 1: a title runs on into its next line
                text = split_run_in_headings(text, self.known_headings)
            self.blocks.append(Block(self.page, text, self.section, self.caption))
        self.lines = []

    def apart(self, line: str) -> None:
        """`line` as a paragraph of its own."""
        self.paragraph()
        self.lines += [line, ""]

    def paragraph(self) -> None:
        self._release()
        if self.lines and self.lines[-1]:
            self.lines.append("")

    def start(self, page: int, section: str, caption: bool) -> None:
        if (page, section, caption) != (self.page, self.section, self.caption):
            self.flush()
            if section != self.section:
                self.flush_notes()
            self.page, self.section, self.caption = page, section, caption

    def note(self, page: int, section: str, texts: list[str]) -> None:
        self.notes += [Block(page, restore_spaces(drop_note_marks(t)), section) for t in texts]

    def flush_notes(self) -> None:
        self.blocks += self.notes
        self.notes = []


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
    running, marks, cited = running_keys(split), caption_marks(split), cites_by_superscript(pages)
    tracker, out = SectionTracker(), _Builder(run_in_headings(split), cited)
    for number, page in enumerate(pages, start=1):
        lines, caption_left = strip_furniture(page.splitlines(), running), 0
        cut = footnote_start(lines)
        lines, notes = lines[:cut], footnotes(lines[cut:])
        lines, column = without_column_notes(lines)
        front, width = front_matter_end(lines) if number == 1 else 0, prose_width(lines)
        if front:
            out.start(number, tracker.section, False)
        for paragraph in front_matter(lines[:front]):
            out.apart(paragraph)
        for i, line in enumerate(lines):
            if i < front:
                continue
            if i in column:  # the sentence the notes cut has gone on: they follow its paragraph
                out.hold(column.pop(i))
            if not line.strip():  # a paragraph break ends a caption
                caption_left = 0
                out.start(number, tracker.section, False)
                out.paragraph()
                continue
            after = lines[i + 1] if i + 1 < len(lines) else ""
            if tracker.heading(line, after) or (_alone(lines, i) and tracker.standalone(line)):
                out.start(number, tracker.section, False)
                caption_left = 0
                continue
            if caption_left == 0 and heading_between(lines, i, width, cited):
                out.start(number, tracker.section, False)
                out.apart(line)
                continue
            m = _CAPTION.match(line.strip()) if caption_left == 0 else None
            if m and m.group(1) in marks:
                caption_left = MAX_CAPTION_LINES
            out.start(number, tracker.section, caption_left > 0)
            out.lines.append(line)
            if caption_left:
                caption_left = 0 if _SENTENCE_END.search(line.strip()) else caption_left - 1
        out.flush()
        out.note(number, tracker.section, notes)
    out.flush_notes()
    return join_hyphens(out.blocks)


def cites_by_superscript(pages: list[str]) -> bool:
    """Whether the paper cites by superscript numbers, which pypdf sets after a sentence's full stop: at least
    `MIN_CITED_STOPS` of them ("... in drug discovery. 120 Small molecule ...")."""
    return sum(len(_CITED_STOP.findall(page)) for page in pages) >= MIN_CITED_STOPS


def front_matter_end(lines: list[str]) -> int:
    """On page 1, the index of the line that opens the abstract ("Abstract", "ABSTRACT", "Abstract. Event
    detection ...") when it is among the first `FRONT_MATTER_LINES` lines with text: the lines above it are the
    title, authors, affiliations and a publisher's notices. 0 when there is no such line."""
    filled = [i for i, x in enumerate(lines) if x.strip()][:FRONT_MATTER_LINES]
    return next((i for i in filled if _ABSTRACT.match(lines[i].strip())), 0)


def front_matter(lines: list[str]) -> list[str]:
    """Page 1's front matter (`front_matter_end`) as paragraphs: a line each (title, authors, affiliations), a line
    in small letters carrying on the one before it; a publisher's notice ("Content from this work may be used under
    the terms of the Creative Commons Attribution 3.0 licence. ...", "Published under licence by IOP Publishing
    Ltd") is left out, with the lines that carry it on."""
    out: list[str] = []
    notice = False
    for line in (x.strip() for x in lines if x.strip()):
        if line[:1].islower() and (notice or out):
            if not notice:
                out[-1] += "\n" + line
            continue
        notice = bool(_NOTICE.search(line))
        if not notice:
            out.append(line)
    return out


def heading_between(lines: list[str], i: int, width: float, cited: bool = False) -> bool:
    """Whether line `i` is a heading on a line of its own, with no blank line around it, between one sentence's end
    and the next sentence: "... without increasing the overall parameter count significantly." | "Proposed
    Approaches" | "In this section, we introduce ...". The heading is a few capitalised words, shorter than the
    page's lines of prose (`width`, `prose_width`: a line of a column that opens a sentence after one ended is as
    long as they are), with no full stop or comma, no word that opens a sentence ("Data Collection We construct
    ..." is a run-in heading and its sentence) and no small word at its end; the next line is prose (not a
    table's row: "Type Method ALFWorld WebShop Overall")."""
    if i == 0 or i + 1 >= len(lines):
        return False
    before, line, after = lines[i - 1].strip(), lines[i].strip(), lines[i + 1].strip()
    words = line.split()
    if not MIN_APART_WORDS <= len(words) <= MAX_APART_WORDS or len(line) > SHORT_LINE * width:
        return False
    if "," in line or line.endswith("?") or not title_like(line) or words[-1].lower() in _SMALL:
        return False
    if any(w in _NOT_HEADINGS for w in words) or not after[:1].isupper() or not prose_line(after):
        return False
    return bool(_SENTENCE_END.search(_CITED_END.sub("", before) if cited else before))


def prose_width(lines: list[str]) -> float:
    """The median length, in characters, of a page's lines of prose (`prose_line`); 0 on a page without any."""
    lengths = sorted(len(x.strip()) for x in lines if prose_line(x))
    return float(lengths[len(lengths) // 2]) if lengths else 0.0


def footnote_start(lines: list[str]) -> int:
    """Where the page's footnotes start: the first of its last `FOOTNOTE_LINES` lines with text that opens
    with a note's mark glued to its text; they run to the end of the page. `len(lines)` when there are none."""
    filled = [i for i, x in enumerate(lines) if x.strip()]
    return next((i for i in filled[-FOOTNOTE_LINES:] if _FOOTNOTE.match(lines[i].strip())), len(lines))


def without_column_notes(lines: list[str]) -> tuple[list[str], dict[int, list[str]]]:
    """`lines` without the footnotes of a column that pypdf reads in the middle of a two-column page, and those
    notes (`footnotes`) by the index, in the lines returned, of the line the text goes on with. Such notes sit
    under the first column and cut its last sentence from the rest, which opens the second column: "... abstract
    or associated PDF and" | "14We use the cld2 tool ... score." | "do not provide significant value ...". A run
    counts only so placed: after a line left open, note lines (a line without a mark carries on an open note),
    then a line in small letters that carries the open sentence on."""
    kept: list[str] = []
    notes: dict[int, list[str]] = {}
    i = 0
    while i < len(lines):
        end = _column_note_end(lines, i)
        if end is None:
            kept.append(lines[i])
            i += 1
        else:
            notes.setdefault(len(kept), []).extend(footnotes(lines[i:end]))
            i = end
    return kept, notes


def _column_note_end(lines: list[str], i: int) -> int | None:
    """Where a run of a column's notes starting at line `i` ends (the line the text goes on with), or None if
    no such run starts there."""
    before = lines[i - 1].strip() if i else ""
    if not before or _SENTENCE_END.search(before) or not _FOOTNOTE.match(lines[i].strip()):
        return None
    closed, link = False, False  # the note so far ends with its last line; it is a link broken over the line
    for j in range(i, min(len(lines), i + MAX_COLUMN_NOTE_LINES + 1)):
        line = lines[j].strip()
        if j > i and closed and not _FOOTNOTE.match(line):
            return j if line[:1].islower() else None
        tail = link and not _FOOTNOTE.match(line) and " " not in line  # "bert" after "https://github.com/x/"
        closed = tail or _note_closed(line)
        link = bool(_LINK.search(line)) and not closed
    return None


def _note_closed(line: str) -> bool:
    """Whether a note's line ends it: a full stop, or a link that does not break over the line."""
    if _SENTENCE_END.search(line):
        return True
    return bool(_LINK.search(line)) and not line.endswith(("/", "-", "_", "."))


def footnotes(lines: list[str]) -> list[str]:
    """The notes in a page's footnote lines, each without its mark (a line without one continues a note)."""
    notes: list[str] = []
    for line in (x.strip() for x in lines if x.strip()):
        mark = _FOOTNOTE.match(line)
        if mark:
            notes.append(line[mark.end() :].lstrip())
        elif notes:
            notes[-1] += "\n" + line
    return [n for n in notes if n]


def continues(before: str, after: str) -> bool:
    """Whether `after` carries on the sentence `before` leaves open (a page break or a figure in between):
    `before` ends without a full stop, and `after` starts with a small letter or `before` ends with a comma,
    colon or semicolon ("... which Wang et al. (2022) define as:" | "“Checking the factual errors ...")."""
    end, start = before.rstrip(), after.lstrip()[:1]
    if not end or not start or _SENTENCE_END.search(end):
        return False
    return start.islower() or (end[-1] in ",:;" and not start.isdigit())


def drop_note_marks(text: str) -> str:
    """`text` without the footnote marks glued after a word's punctuation ("... for future research.1" ->
    "... for future research."); the notes themselves are moved by `footnotes`."""

    def keep(m: re.Match[str]) -> str:
        word = _WORD_BEFORE.search(text[max(0, m.start() - 12) : m.start()])
        return m.group(0) if word and word.group(1).lower() in _NUMBERED else ""

    return _NOTE_MARK.sub(keep, text)


# a paragraph's run-in heading with no full stop of its own, glued to its first sentence: "Reward Design We
# design ...", "Execution Environment For each ...": capitalised words (and the small words titles keep), then a
# word that opens a sentence, then a lowercase word
_OPENERS = (
    "We Our To The In This These Those For Given After It Its Each Since When While Unlike Following Here During "
    "Beyond Finally First Then Instead Specifically Concretely Formally Intuitively Let Consider Most Many All "
    "Both There Using By However Moreover Similarly Although Because"
)
_SMALL = frozenset(("of", "and", "for", "the", "in", "on", "with", "to", "via", "vs", "&", "or"))
_RUN_IN = re.compile(
    rf"^([A-Z][\w\-]*(?:\s+(?:[A-Z][\w\-]*|{'|'.join(sorted(_SMALL))})){{0,5}})\s+({'|'.join(_OPENERS.split())})(?=\s+[a-z(])"
)
_CAMEL = re.compile(r"[A-Z][a-z]+")
_NOT_HEADINGS = frozenset(_OPENERS.split()) | frozenset(("If", "As", "A", "An", "Figure", "Fig", "Table", "Section"))
# a run-in heading the paper sets with its own full stop ("Training Objective. We refine ..."): two to six
# capitalised words (and small title words), a full stop, a capitalised word
_STOPPED_HEADING = re.compile(rf"^\s*([A-Z][\w\-]*(?:\s+(?:[A-Z][\w\-]*|{'|'.join(sorted(_SMALL))})){{1,5}})\.\s+[A-Z]")
_CAPITALISED = re.compile(r"\s+(?=[A-Z][^\s.]*\s+[a-z(])")  # a capitalised word, then a lowercase one
_HEADING_REACH = 80  # characters: a run-in heading's six words fit


def run_in_headings(pages: list[list[str]]) -> frozenset[str]:
    """The run-in headings a paper sets at a paragraph's start, with a full stop ("Training Objective. We ...")
    or before a word that opens a sentence ("Training Objective We refine ..."), so that the same heading
    before another word ("Training Objective GRPO optimizes ...") is set apart from its sentence too
    (`split_run_in_headings`)."""
    found: set[str] = set()
    for lines in pages[1:]:  # page 1: a title's words
        for before, line in pairwise([".", *lines]):
            m = _STOPPED_HEADING.match(line) or (_SENTENCE_END.search(before.rstrip()) and _RUN_IN.match(line))
            words = m.group(1).split() if m else []
            if len(words) >= 2 and _heading_words(words):  # one capitalised word may well open a sentence
                found.add(" ".join(words))
    return frozenset(found)


def _heading_words(words: list[str]) -> bool:
    """Whether the words can be a run-in heading: not a sentence's opening word, nor a name's initial."""
    return not (words[0] in _NOT_HEADINGS or words[-1] in _NOT_HEADINGS or words[-1] in _SMALL or len(words[-1]) < 2)


def split_run_in_headings(text: str, known: frozenset[str] = frozenset()) -> str:
    """`text` with a full stop after each run-in heading that opens a paragraph or follows a sentence's end ("Reward
    Design We ..." -> "Reward Design. We ..."), so that the heading is not quoted as part of the sentence. A
    heading the paper sets apart elsewhere (`known`, from `run_in_headings`) is set apart before any capitalised
    word that a lowercase one follows ("Training Objective GRPO optimizes ...")."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if i and lines[i - 1].strip() and not _SENTENCE_END.search(lines[i - 1].rstrip()):
            continue
        m = _RUN_IN.match(line)
        if m and _heading_words(m.group(1).split()):
            heading = " ".join(_camel_words(w) for w in m.group(1).split())
            lines[i] = f"{heading}. {line[m.end(1) :].lstrip()}"
        elif known:
            lines[i] = _known_heading_stopped(line, known)
    return "\n".join(lines)


def _known_heading_stopped(line: str, known: frozenset[str]) -> str:
    """`line` with a full stop after the known heading it opens with, when a capitalised word follows it."""
    for cut in reversed(list(_CAPITALISED.finditer(line[:_HEADING_REACH]))):  # the longest heading first
        if " ".join(line[: cut.start()].split()) in known:
            return f"{line[: cut.start()].strip()}. {line[cut.end() :]}"
    return line


def _camel_words(word: str) -> str:
    """A heading's word with the spaces a run-together line lost ("TrajectoryCuration" -> "Trajectory Curation"),
    when each of its capitalised parts is a known word; a name ("MiroThinker", "GitHub") as it is."""
    parts = _CAMEL.findall(word)
    if len(parts) < 2 or "".join(parts) != word:
        return word
    known = vocabulary()
    return " ".join(parts) if all(len(p) >= 3 and p.lower() in known for p in parts) else word


def prose_line(line: str) -> bool:
    """Whether a line reads as a line of sentences: `MIN_LINE_WORDS` tokens or more, mostly words (not axis
    labels, table cells or an algorithm's steps)."""
    parts = line.split()
    return len(parts) >= MIN_LINE_WORDS and len(_WORD.findall(line)) >= MIN_WORD_SHARE * len(parts)


@lru_cache(maxsize=4096)  # a scope's questions weigh the same passages again and again (assistant.furniture)
def is_prose(text: str) -> bool:
    """Whether `text` reads as sentences rather than figure, table or algorithm text: at least
    `MIN_PROSE_SHARE` of its tokens, or `MIN_PROSE_TOKENS` of them, on lines of prose (`prose_line`). A chunk
    that opens with the paragraph before a table and goes on with the table's rows holds that paragraph's
    sentences, which may answer a question ("The resulting corpus consists of 81.1M papers." before S2ORC's
    Table 1)."""
    tokens = 0
    in_prose = 0
    for line in text.splitlines():
        parts = line.split()
        tokens += len(parts)
        if prose_line(line):
            in_prose += len(parts)
            if in_prose >= MIN_PROSE_TOKENS:  # prose whatever follows (most chunks: decided on the first lines)
                return True
    return tokens > 0 and in_prose >= min(MIN_PROSE_SHARE * tokens, MIN_PROSE_TOKENS)


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
