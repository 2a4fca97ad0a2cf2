"""Cleanup of text pulled out of PDFs and metadata."""

from __future__ import annotations

import re
import unicodedata

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff\u200b\u00ad]")
_HYPHEN_BREAK = re.compile(r"(\w)-\n(\w)")
_SPACES = re.compile(r"[ \t\u00a0\u2000-\u200a\u202f\u205f\u3000]+")
_SPACE_NEWLINE = re.compile(r" *\n *")
_MANY_NEWLINES = re.compile(r"\n{3,}")
_SURROGATE = re.compile(r"[\ud800-\udfff]")
_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl"}


def fix_surrogates(text: str) -> str:
    """Join UTF-16 surrogate pairs and drop stray halves (pypdf emits them for math italic letters).

    A string holding a lone surrogate cannot be encoded or tokenized, so it must not get past ingest.
    """
    if not _SURROGATE.search(text):
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "ignore")


def clean_text(text: str) -> str:
    """Join words hyphenated across line breaks, drop control characters, tidy whitespace."""
    text = fix_surrogates(text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for lig, rep in _LIGATURES.items():
        text = text.replace(lig, rep)
    text = _CONTROL.sub("", text)
    text = _SPACES.sub(" ", text)
    text = _SPACE_NEWLINE.sub("\n", text)
    text = _HYPHEN_BREAK.sub(r"\1\2", text)
    text = _MANY_NEWLINES.sub("\n\n", text)
    return text.strip()


def one_line(text: str) -> str:
    """Collapse all whitespace (metadata titles and abstracts wrap lines)."""
    return " ".join(unicodedata.normalize("NFC", fix_surrogates(text)).split())


_ARXIV_NEW = r"(\d{4}\.\d{4,5})(v\d+)?"
_ARXIV_OLD = r"([a-z\-]+(?:\.[A-Z]{2})?/\d{7})(v\d+)?"
_ARXIV_IN_TEXT = re.compile(r"arXiv:\s*(" + _ARXIV_NEW + "|" + _ARXIV_OLD + r")", re.IGNORECASE)
_ARXIV_FILENAME = re.compile(r"(?<!\d)" + _ARXIV_NEW + r"(?!\d)")


def normalise_arxiv_id(raw: str) -> str | None:
    """`arXiv:2501.10120v2` → `2501.10120`; None if `raw` is not an arXiv id."""
    raw = raw.strip()
    raw = re.sub(r"^(arxiv:|https?://arxiv\.org/(abs|pdf)/)", "", raw, flags=re.IGNORECASE)
    raw = raw.removesuffix(".pdf")
    m = re.fullmatch(_ARXIV_NEW + "|" + _ARXIV_OLD, raw)
    if not m:
        return None
    return m.group(1) or m.group(3)


def arxiv_id_from_filename(name: str) -> str | None:
    m = _ARXIV_FILENAME.search(name)
    return m.group(1) if m else None


def arxiv_id_from_text(text: str) -> str | None:
    m = _ARXIV_IN_TEXT.search(text)
    if not m:
        return None
    return m.group(2) or m.group(4)
