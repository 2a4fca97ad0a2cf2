"""What identifies a paper read from a file: its bytes, arXiv id, DOI, full text, title and first author.

Two files of one paper (a re-saved copy, another download, a damaged copy) must end up as one record,
so a new PDF is looked up by each of these in the catalog before it is given an id of its own.
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import replace
from pathlib import Path

from ingest.pdf import file_digest
from storage.records import Paper, title_key

_DOI = r"10\.\d{4,9}/[^\s\"'<>]+"
_DOI_IN_TEXT = re.compile(r"(?:doi\.org/|\bdoi\s*:?\s*)(" + _DOI + ")", re.IGNORECASE)
_DOI_TAIL = ".,;:)]}"


def normalise_doi(raw: str) -> str | None:
    """`https://doi.org/10.18653/V1/2020.acl-main.447.` → `10.18653/v1/2020.acl-main.447`; None if no DOI.

    DOIs are case-insensitive, so they are kept lower-cased; of several (an arXiv record may list more than
    one), the first.
    """
    m = re.search(_DOI, raw)
    return m.group(0).rstrip(_DOI_TAIL).lower() if m else None


def doi_from_text(text: str) -> str | None:
    """A DOI that the text states as its own (`doi:10…`, `https://doi.org/10…`), not one it cites in passing."""
    m = _DOI_IN_TEXT.search(text)
    return normalise_doi(m.group(1)) if m else None


def with_file_identity(paper: Paper) -> Paper:
    """A paper read from a file, with the SHA-256 of that file and the DOI printed on its first page."""
    if not paper.has_full_text:
        return paper
    if paper.doi is None:
        paper = replace(paper, doi=doi_from_text(paper.pages[0]))
    if paper.file_hash is None and paper.path:
        with contextlib.suppress(OSError):  # a file gone since it was parsed is only not remembered
            paper = replace(paper, file_hash=file_digest(Path(paper.path)))
    return paper


def identity_keys(paper: Paper) -> set[tuple[str, str]]:
    """Every key by which `paper` would be recognised (see `Catalog.find_paper`)."""
    keys = {
        ("id", paper.paper_id),
        ("file", paper.file_hash),
        ("arxiv", paper.arxiv_id),
        ("doi", paper.doi),
        ("text", paper.text_hash()),
        ("title", title_key(paper.title, paper.authors)),
    }
    return {(kind, value) for kind, value in keys if value}
