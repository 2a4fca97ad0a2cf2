"""The retrieved sentences' vectors stored at ingest (storage/sentence_vectors.py), found by sentence text.

Stored rows are keyed by chunk and sentence start; a passage is a chunk's text, or (for an abstract-only paper
retrieved in parts) the whole abstract, so each stored chunk is split again and its vectors are matched to
the passages' sentences by their text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from assistant.types import Passage
from ingest.sentences import split_sentences
from storage.sentence_vectors import SentenceVectors

StoredLookup = Callable[[Sequence[Passage]], dict[str, np.ndarray]]


def stored_lookup(vectors: SentenceVectors) -> StoredLookup:
    """{sentence text: unit vector} for the sentences of the passages that ingest embedded."""

    def lookup(sources: Sequence[Passage]) -> dict[str, np.ndarray]:
        abstracts = [p.paper_id for p in sources if p.page_start is None]
        out: dict[str, np.ndarray] = {}
        for text, by_start in vectors.of_chunks([p.chunk_id for p in sources], abstracts).values():
            for sentence in split_sentences(text):
                vector = by_start.get(sentence.start)
                if vector is not None and sentence.text not in out:
                    out[sentence.text] = vector  # unit length as embedded, to float16's precision (1e-3)
        return out

    return lookup
