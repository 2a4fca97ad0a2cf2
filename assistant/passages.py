"""Sources of one paper made distinct: the parts of an abstract become one source, and full-text passages
that would carry the same label ("Title (2020), p. 2") are told apart by their place in the paper.

Every source keeps its own text, and citations are spans of that text, so they stay exact: a merged
abstract source's text is the paper's whole abstract, which each of its parts was cut from.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import replace

from assistant.types import Passage
from storage.catalog import Catalog, ChunkRow, PaperRow


def distinct_sources(passages: list[Passage], catalog: Catalog) -> list[Passage]:
    """`passages` (best first) with each abstract-only paper once and no two sources labelled alike."""
    counts = Counter(p.paper_id for p in passages)
    repeated = {paper_id for paper_id, n in counts.items() if n > 1}
    if not repeated:
        return passages
    papers = catalog.get_many(repeated)
    chunks = catalog.chunks_by_id(p.chunk_id for p in passages if p.paper_id in repeated)
    merged = merge_abstracts(passages, papers, chunks)
    label_parts(merged, papers, chunks)
    return merged


def merge_abstracts(passages: list[Passage], papers: dict[str, PaperRow], chunks: dict[str, ChunkRow]) -> list[Passage]:
    """The parts of one paper's abstract become a single source, at the rank of its best part."""
    parts: dict[str, list[Passage]] = defaultdict(list)
    for p in passages:
        paper = papers.get(p.paper_id)
        if paper is not None and paper.abstract.strip() and not paper.has_full_text and p.page_start is None:
            parts[p.paper_id].append(p)
    out: list[Passage] = []
    for p in passages:
        group = parts.get(p.paper_id, [])
        if len(group) < 2:
            out.append(p)
        elif p is group[0]:
            out.append(_whole_abstract(group, papers[p.paper_id], chunks))
    return out


def _whole_abstract(group: list[Passage], paper: PaperRow, chunks: dict[str, ChunkRow]) -> Passage:
    best = group[0]
    ordered = sorted(group, key=lambda p: chunks[p.chunk_id].ordinal if p.chunk_id in chunks else 0)
    dense = [p.dense_score for p in group if p.dense_score is not None]
    keyword = [p.keyword_score for p in group if p.keyword_score is not None]
    return replace(
        best,
        text=paper.abstract,
        score=max(p.score for p in group),
        dense_score=max(dense) if dense else None,
        keyword_score=max(keyword) if keyword else None,
        chunk_ids=[p.chunk_id for p in ordered],
    )


def label_parts(passages: list[Passage], papers: dict[str, PaperRow], chunks: dict[str, ChunkRow]) -> None:
    """Sources that would read alike get their place in the paper: "passage 7 of 52"."""
    counts = Counter(p.label() for p in passages)
    for p in passages:
        chunk = chunks.get(p.chunk_id)
        paper = papers.get(p.paper_id)
        if counts[p.label()] < 2 or chunk is None or paper is None:
            continue
        where = "passage" if p.page_start else "abstract, part"
        p.part = f"{where} {chunk.ordinal + 1} of {paper.n_chunks}"
