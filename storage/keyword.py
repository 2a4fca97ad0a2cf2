"""The BM25 keyword index, kept in step with the catalog without rebuilding it.

On disk (`keyword_path`) lies a main segment, `main-<version>/`: every chunk of the catalog at that
`chunks_version`. Each change to a paper's chunks bumps `chunks_version` and logs the paper in
`chunk_changes`, in the transaction that changes them (storage/catalog.py). Catching up reads, in one read
snapshot, the papers logged since the index's version and their current chunks: their old chunks are marked
dead and the current ones become a small delta segment. Scores use the statistics of all live chunks
(storage/bm25.py), so a search after any sequence of adds, replacements and deletions ranks exactly as a
full rebuild would. When the deltas pass `MERGE_AT` of the main segment, `refresh` (which an ingest calls
after writing) merges them into a new main folder and prunes the log; every process that later sees the
log's floor pass its own version loads that folder. Processes never write the same file: folders are
written under a temporary name and renamed.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from storage import bm25
from storage.bm25 import Segment, Stats
from storage.catalog import Catalog

log = logging.getLogger(__name__)

INDEX_FORMAT = 3  # 3: bm25 segments + change log; folders in another format are ignored and rebuilt
MERGE_AT = 0.05  # deltas holding more chunks than this share of the main segment are merged into it
MAX_DELTAS = 16  # more delta segments than this are merged into one (in memory)
FLOOR_KEY = "chunk_changes_floor"
MASKS_KEPT = 8  # scopes whose chunk masks are kept (per index state)
TOKENS_KEPT = 8192  # texts whose tokens a tokenizer remembers (0 for the index's own: it reads each chunk once)


@cache  # once: setting a logger's level clears every logger's cache (1-2 ms per call)
def _bm25s() -> Any:
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets DEBUG on import
    return bm25s


@cache
def stemmer() -> Any:
    """The Snowball English stemmer the keyword index stems with: a word stemmed elsewhere matches its terms."""
    import Stemmer

    return Stemmer.Stemmer("english")


class KeywordTokenizer:
    """Lower-case words of two or more characters, English stop words removed, Snowball-stemmed.

    The last `memo` texts' tokens are remembered: an extractive answer reads the same passages' sentences
    several times (scoring, abstention, list answers), and a chat's questions the same passages again. Each
    text is tokenized alone (bm25s gives a text the same tokens whatever else is in the batch).
    """

    def __init__(self, memo: int = TOKENS_KEPT) -> None:
        self.memo = memo
        self._held: OrderedDict[str, list[str]] = OrderedDict()
        self._lock = threading.Lock()

    def _tokenize(self, texts: list[str]) -> list[list[str]]:
        out = _bm25s().tokenize(texts, stopwords="en", stemmer=stemmer(), return_ids=False, show_progress=False)
        return out

    def __call__(self, texts: list[str]) -> list[list[str]]:
        if not self.memo:
            return self._tokenize(texts)
        with self._lock:
            known = {t: self._held[t] for t in texts if t in self._held}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        if missing:
            known |= dict(zip(missing, self._tokenize(missing), strict=True))
        with self._lock:
            for text in dict.fromkeys(texts):
                self._held[text] = known[text]
                self._held.move_to_end(text)
            while len(self._held) > self.memo:
                self._held.popitem(last=False)
        return [list(known[t]) for t in texts]


@dataclass
class _State:
    """What a search reads: replaced as a whole on each catch-up, so searches need no lock."""

    segments: list[Segment] = field(default_factory=list)  # the main segment first
    papers: list[str] = field(default_factory=list)  # paper number -> paper id
    paper_no: dict[str, int] = field(default_factory=dict)
    version: int = -1  # the catalog's chunks_version these segments reflect
    main_version: int = -1
    stats: Stats = field(default_factory=lambda: Stats(0, 0.0))
    norms: list[np.ndarray] = field(default_factory=list)
    cache: dict[str, bm25.Contributions | None] = field(default_factory=dict)  # common terms, for these stats
    _sorted: tuple[int, np.ndarray, np.ndarray] | None = None  # (papers then, their ids sorted, their numbers)

    def with_segments(self, segments: list[Segment], version: int) -> _State:
        stats = Stats.of(segments)
        norms = [stats.norms(s) for s in segments] if stats.n_docs else [np.zeros(len(s)) for s in segments]
        return _State(segments, self.papers, self.paper_no, version, self.main_version, stats, norms)

    def numbers_of(self, paper_ids: Iterable[str]) -> np.ndarray:
        """The numbers of those of `paper_ids` the table holds, found by binary search over the sorted ids: a
        few ms for 40k ids at 112k papers, where one dict lookup per id took 40-80 ms (docs/benchmarks.md)."""
        if self._sorted is None or self._sorted[0] != len(self.papers):
            ids = np.array(self.papers) if self.papers else np.array([], dtype="U1")
            order = np.argsort(ids, kind="stable")
            self._sorted = (len(ids), ids[order], order)
        _, ids, order = self._sorted
        wanted = np.array(list(paper_ids) or [""])
        if not len(ids):
            return np.zeros(0, dtype=np.int64)
        at = np.minimum(np.searchsorted(ids, wanted), len(ids) - 1)
        return np.asarray(order[at[ids[at] == wanted]], dtype=np.int64)

    def number(self, paper_id: str) -> int:
        """The paper's number, added to the table if new (the table only grows while the state lives)."""
        number = self.paper_no.get(paper_id)
        if number is None:
            number = self.paper_no[paper_id] = len(self.papers)
            self.papers.append(paper_id)
        return number


class KeywordIndex:
    """BM25 over every chunk (title + text); `search` can be limited to some papers."""

    def __init__(self, path: Path, catalog: Catalog) -> None:
        self.path = path
        self.catalog = catalog
        self.tokenize = KeywordTokenizer(memo=0)
        self._lock = threading.Lock()
        self._state = _State()
        self._masks: OrderedDict[Hashable, tuple[_State, list[np.ndarray]]] = OrderedDict()

    # --- keeping up with the catalog --------------------------------------------------------------
    def refresh(self) -> bool:
        """Catch up with the catalog, and merge the deltas into a saved main segment once they are large.

        An ingest calls this after writing; searches only catch up. True when anything was read or merged.
        """
        with self._lock:
            changed = self._catch_up()
            state = self._state
            delta = sum(len(s) for s in state.segments[1:])
            if state.segments and delta > MERGE_AT * max(1, len(state.segments[0])):
                self._merge_and_save()
                return True
            return changed

    def _catch_up(self) -> bool:
        state = self._state
        if self.catalog.chunks_version == state.version:
            return False
        # First use, or another process saved a newer main segment (so ours is older than the log reaches).
        if (state.version < 0 or self._floor() > state.main_version) and not self._load_main():
            self._build_all()
            return True
        while not self._apply_changes():  # the log was pruned past us: a newer main folder holds it
            if not self._load_main():
                self._build_all()
                return True
        return True

    def _apply_changes(self) -> bool:
        """Replace the chunks of every paper logged since our version; False if the log no longer reaches back."""
        state = self._state
        with self.catalog.snapshot():
            version = self.catalog.chunks_version
            if self._floor() > state.version:
                return False
            window = (state.version, version)
            changed = [r[0] for r in self.catalog.query(_CHANGED_PAPERS, window)]
            rows = self.catalog.query(_CHUNKS_OF_CHANGED, window)
        if version != state.version:
            self._replace_papers(changed, rows, version)
        return True

    def _replace_papers(self, changed: list[str], rows: Sequence[Any], version: int) -> None:
        old = self._state  # searches may still read it: its paper table is copied, not extended
        state = _State(old.segments, list(old.papers), dict(old.paper_no), old.version, old.main_version)
        gone = np.zeros(len(state.papers), dtype=bool)
        gone[[state.paper_no[p] for p in changed if p in state.paper_no]] = True
        segments = [seg.without_papers(gone) for seg in state.segments]
        if rows:
            segments.append(self._segment(state, [r[0] for r in rows], [f"{r[2]}\n{r[3]}" for r in rows]))
        if len(segments) > MAX_DELTAS + 1:
            segments = [segments[0], bm25.merge(segments[1:])]
        self._state = state.with_segments(segments, version)

    def _segment(self, state: _State, chunk_ids: list[str], texts: list[str]) -> Segment:
        numbers = np.array([state.number(c.split("#", 1)[0]) for c in chunk_ids], dtype=np.int32)
        return bm25.build(self.tokenize(texts), chunk_ids, numbers)

    def _floor(self) -> int:
        return int(self.catalog.get_meta(FLOOR_KEY) or 0)

    # --- the main segment on disk -----------------------------------------------------------------
    def _build_all(self) -> None:
        """Tokenize every chunk of the catalog into a new main segment and save it."""
        start = self.catalog.chunks_version  # read first: changes made while reading are caught up below
        state = _State(version=start, main_version=start)
        segments, ids, texts = [], [], []
        for chunk_id, text in self.catalog.iter_chunk_texts():
            ids.append(chunk_id)
            texts.append(text)
            if len(ids) >= 5000:
                segments.append(self._segment(state, ids, texts))
                ids, texts = [], []
        if ids:
            segments.append(self._segment(state, ids, texts))
        self._state = state.with_segments([bm25.merge(segments)], start)
        if not self._apply_changes():  # another process saved a newer main while we read: take that
            self._catch_up()
            return
        self._merge_and_save()
        log.info("keyword index built: %d chunks", self._state.stats.n_docs)

    def _merge_and_save(self) -> None:
        """Merge every segment into one, save it as main-<version>, and prune the change log up to it."""
        state = self._state
        main, papers = bm25.compact(state.segments, state.papers)
        folder = self.path / f"main-{state.version:012d}"
        if not folder.exists():
            tmp = self.path / f".tmp-{state.version}-{os.getpid()}-{threading.get_ident()}"
            shutil.rmtree(tmp, ignore_errors=True)
            main.save(tmp, papers)
            (tmp / "meta.json").write_text(json.dumps({"format": INDEX_FORMAT, "version": state.version}))
            try:
                tmp.rename(folder)
            except OSError:  # another process saved the same version first: the same chunks
                shutil.rmtree(tmp, ignore_errors=True)
        self.catalog.transaction(
            [
                ("DELETE FROM chunk_changes WHERE version <= ?", (state.version,)),
                (
                    "INSERT INTO meta(key, value) VALUES(?, ?) ON CONFLICT(key) DO UPDATE "
                    "SET value = MAX(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))",
                    (FLOOR_KEY, str(state.version)),
                ),
            ]
        )
        fresh = _State(papers=papers, paper_no={p: i for i, p in enumerate(papers)}, main_version=state.version)
        self._state = fresh.with_segments([main], state.version)
        self._remove_old_folders()

    def _main_folders(self) -> Iterator[tuple[int, Path]]:
        for folder in self.path.glob("main-*"):
            try:
                meta = json.loads((folder / "meta.json").read_text())
            except (OSError, ValueError):  # being removed by another process, or not ours
                continue
            if meta.get("format") == INDEX_FORMAT:
                yield int(meta["version"]), folder

    def _load_main(self) -> bool:
        """Load the newest saved main segment the catalog can have produced; False when there is none."""
        for _ in range(3):  # a folder can vanish between listing and reading when another process prunes
            floor, newest = self._floor(), self.catalog.chunks_version
            usable = [(v, f) for v, f in self._main_folders() if floor <= v <= newest]
            if not usable:
                return False
            version, folder = max(usable)
            try:
                segment, papers = Segment.load(folder)
            except OSError:
                continue
            fresh = _State(papers=papers, paper_no={p: i for i, p in enumerate(papers)}, main_version=version)
            self._state = fresh.with_segments([segment], version)
            return True
        return False

    def _remove_old_folders(self) -> None:
        floor = self._floor()
        for version, folder in list(self._main_folders()):
            if version < floor:
                shutil.rmtree(folder, ignore_errors=True)
        for tmp in self.path.glob(".tmp-*"):  # left by a process killed while saving (none saves for an hour)
            if time.time() - tmp.stat().st_mtime > 3600:
                shutil.rmtree(tmp, ignore_errors=True)
        for old in ("index", "papertalk.json"):  # the previous format (one bm25s index, rebuilt on each change)
            target = self.path / old
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
            elif target.exists():
                target.unlink()

    # --- search -----------------------------------------------------------------------------------
    def mask_for(self, paper_ids: Iterable[str], state: _State | None = None) -> list[np.ndarray]:
        """For each segment, which of its chunks belong to `paper_ids`."""
        state = state or self._state
        table = np.zeros(len(state.papers), dtype=bool)
        table[state.numbers_of(paper_ids)] = True
        return [table[seg.doc_paper] for seg in state.segments]

    def scope_masks(self, paper_ids: Sequence[str], key: Hashable | None, state: _State) -> list[np.ndarray]:
        """`mask_for(paper_ids)`, kept under `key` (which must name these very ids) while the index's state
        stands: a scope's next questions skip the 20-35 ms a 40k-paper mask costs at 112k papers."""
        if key is None:
            return self.mask_for(paper_ids, state)
        with self._lock:
            held = self._masks.get(key)
            if held is not None and held[0] is state:
                self._masks.move_to_end(key)
                return held[1]
        masks = self.mask_for(paper_ids, state)
        with self._lock:
            self._masks[key] = (state, masks)
            while len(self._masks) > MASKS_KEPT:
                self._masks.popitem(last=False)
        return masks

    def search(
        self, query: str, k: int, paper_ids: Sequence[str] | None = None, scope_key: Hashable | None = None
    ) -> list[tuple[str, float]]:
        """(chunk_id, BM25 score) of the best `k` chunks with a positive score, ties by chunk id. A `scope_key`
        names `paper_ids` (the same key always the same ids): their mask is then kept (`scope_masks`)."""
        with self._lock:
            self._catch_up()
        state = self._state
        terms = self.tokenize([query])[0]
        if not terms or not state.stats.n_docs:
            return []
        masks = self.scope_masks(paper_ids, scope_key, state) if paper_ids is not None else None
        if masks is not None and not any(m.any() for m in masks):
            return []
        found: list[tuple[float, str]] = []
        for i, scores in enumerate(bm25.scores(state.segments, state.norms, state.stats, terms, state.cache)):
            if masks is not None:
                scores = np.where(masks[i], scores, 0.0)
            found += _best(scores, state.segments[i].chunk_ids, k)
        found.sort(key=lambda hit: (-hit[0], hit[1]))
        return [(chunk_id, score) for score, chunk_id in found[:k]]

    def holding(
        self, query: str, paper_ids: Sequence[str] | None = None, scope_key: Hashable | None = None
    ) -> dict[str, list[str]]:
        """Every chunk (of `paper_ids`, if given) whose title or text has each term of `query`, by paper: paper id
        -> its chunk ids. Where a name or phrase may be written, all of it, however much (`search` ranks and stops
        at k): a few ms at 112k papers, 57 ms for a phrase 49k chunks hold (docs/benchmarks.md)."""
        with self._lock:
            self._catch_up()
        state = self._state
        terms = list(dict.fromkeys(self.tokenize([query])[0]))
        if not terms or not state.stats.n_docs:
            return {}
        masks = self.scope_masks(paper_ids, scope_key, state) if paper_ids is not None else None
        found: dict[str, list[str]] = {}
        for i, segment in enumerate(state.segments):
            docs = segment.postings(terms[0])[0]
            for term in terms[1:]:
                if not len(docs):
                    break
                docs = np.intersect1d(docs, segment.postings(term)[0], assume_unique=True)
            if masks is not None:
                docs = docs[masks[i][docs]]
            for j in docs:
                found.setdefault(state.papers[segment.doc_paper[j]], []).append(segment.chunk_ids[j])
        return found


def _best(scores: np.ndarray, chunk_ids: list[str], k: int) -> list[tuple[float, str]]:
    """(score, chunk id) of the positive scores among the top `k`, every tie at the cut included."""
    positive = np.flatnonzero(scores > 0)
    if len(positive) > k:
        cut = np.partition(scores[positive], len(positive) - k)[len(positive) - k]
        positive = positive[scores[positive] >= cut]
    return [(float(scores[i]), chunk_ids[i]) for i in positive]


_CHANGED_PAPERS = "SELECT DISTINCT paper_id FROM chunk_changes WHERE version > ? AND version <= ?"
_CHUNKS_OF_CHANGED = (
    "SELECT c.chunk_id, c.paper_id, p.title, c.text FROM chunks c JOIN papers p ON p.paper_id = c.paper_id "
    "WHERE c.paper_id IN (SELECT paper_id FROM chunk_changes WHERE version > ? AND version <= ?) ORDER BY c.rowid"
)
