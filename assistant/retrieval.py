"""Hybrid retrieval: dense (Chroma) and keyword (BM25) rankings fused into one (assistant/fusion.py)."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from functools import cached_property

from assistant.asked_section import asked_section, section_start
from assistant.focus import paper_query
from assistant.furniture import weigh_furniture
from assistant.fusion import feedback_vector, fuse
from assistant.fusion import rrf_fuse as rrf_fuse  # kept importable from here
from assistant.types import Passage, Scope
from assistant.versioned_cache import VersionedCache
from papertalk.errors import NotFound
from papertalk.settings import RetrievalSettings
from storage.store import Store
from storage.topics import slugify
from storage.vectors import VectorHit

log = logging.getLogger(__name__)
WIDE_SCOPE = 500  # papers; wider scopes filter dense results after the search instead of inside Chroma
MAX_FETCH = 1000  # the most unfiltered candidates a wide scope searches before letting Chroma filter
FETCH_MARGIN = 1.2  # unfiltered candidates fetched: this times the candidates wanted / the scope's share
POOL_FACTOR = 3  # passages weighed for furniture per passage returned
Hits = list[tuple[str, float]]  # (chunk id, score), best first
IN_BATCH = 20000  # paper ids per Chroma `$in` filter (SQLite binds at most 32,766 variables per statement)
SCOPE_CACHE = 32  # resolved scopes kept per retriever (a chat on a topic page asks many questions in one)


@dataclass(frozen=True)
class ResolvedScope:
    paper_ids: list[str] | None  # None: every paper
    published: tuple[int, int] | None  # yyyymmdd bounds for the vector store filter
    # Names this resolution, (scope, the catalog's scopes_version): the keyword index and the scope's chunk
    # vectors keep what they derive from `paper_ids` under it. None: nothing is kept.
    key: Hashable | None = None

    @cached_property
    def allowed(self) -> frozenset[str]:
        """`paper_ids` as a set (built once per resolution, 4-8 ms for 40k papers)."""
        return frozenset(self.paper_ids or ())


def scope_key(scope: Scope) -> tuple[str | None, ...]:
    """What a scope's resolution depends on (a topic by its slug)."""
    paper = scope.paper_id.removeprefix("arxiv:") if scope.paper_id else None
    since, until = (d.isoformat() if d else None for d in (scope.since, scope.until))
    return (paper, slugify(scope.topic) if scope.topic else None, since, until)


class HybridRetriever:
    """Finds the passages that best match a query within a scope."""

    def __init__(self, store: Store, settings: RetrievalSettings | None = None) -> None:
        self.store = store
        self.settings = settings or store.settings.retrieval
        self._indexed = (-1, 0)  # (chunks_version, indexed papers then)
        self._scopes: VersionedCache[ResolvedScope] = VersionedCache(SCOPE_CACHE)

    def resolve(self, scope: Scope) -> ResolvedScope:
        """The scope's indexed papers and date bounds. Kept per scope while the catalog's `scopes_version` stands
        (no paper, date, status or topic membership changed, in any process): the questions of a chat in one
        scope resolve it once (a topic of 7.6k papers: 50-100 ms at 112k papers, docs/benchmarks.md)."""
        key = scope_key(scope)
        if not any(key):
            return ResolvedScope(None, None)
        version = self.store.catalog.scopes_version  # read before resolving: see VersionedCache
        return self._scopes.get_or_build(key, version, lambda: self._resolve(scope, (key, version)))

    def _resolve(self, scope: Scope, key: Hashable) -> ResolvedScope:
        ids: list[str] | None = None
        if scope.paper_id:
            paper = self.store.catalog.get(scope.paper_id.removeprefix("arxiv:"))
            if paper is None or paper.status != "indexed":
                raise NotFound(
                    f"paper {scope.paper_id!r} is not indexed: see `papertalk papers list`, or ask "
                    "about a PDF with `papertalk ask --pdf FILE`"
                )
            ids = [paper.paper_id]
        if scope.topic:
            members = self.store.topics.paper_ids(slugify(scope.topic))
            if not members:  # an unknown topic is NotFound (counting members costs a scan: only then)
                self.store.topics.get(scope.topic)
            ids = members if ids is None else _intersect(ids, members)
        published = None
        if scope.since or scope.until:
            low = int(scope.since.strftime("%Y%m%d")) if scope.since else 0
            high = int(scope.until.strftime("%Y%m%d")) if scope.until else 99991231
            published = (low, high)
            dated = self.store.catalog.paper_ids_between(scope.since, scope.until)
            ids = dated if ids is None else _intersect(ids, dated)
        return ResolvedScope(ids, published, key)

    def retrieve(self, query: str, scope: Scope | None = None, k: int | None = None) -> list[Passage]:
        """The best `k` passages for `query` in `scope`, best first, with dense and keyword scores."""
        k = k or self.settings.top_k
        resolved = self.resolve(scope or Scope())
        if resolved.paper_ids is not None and not resolved.paper_ids:
            return []
        one_paper = bool(scope and scope.paper_id)
        asked = asked_section(query) if one_paper else None
        if one_paper and self.settings.paper_focus and scope and scope.paper_id:
            query = self._paper_query(query, scope.paper_id)
        dense, keyword = self._candidates(query, resolved, one_paper)
        fused = fuse(dense, keyword, self.settings, one_paper=one_paper)
        pool = fused[: k * POOL_FACTOR] if self.settings.furniture_weight < 1 else fused[:k]
        passages = weigh_furniture(self._hydrate(pool, dict(dense), dict(keyword)), self.settings.furniture_weight)
        if asked and scope and scope.paper_id:
            passages = self._asked_section_first(asked, scope.paper_id, passages, fused, dense, keyword)
        return passages[:k]

    def _asked_section_first(
        self, asked: str, paper_id: str, passages: list[Passage], fused: Hits, dense: Hits, keyword: Hits
    ) -> list[Passage]:
        """For a question about one paper that asks for a section of its own (`assistant.asked_section`: "What
        are the limitations of X?"), the start of that section first, then the other passages."""
        rank = {chunk_id: i for i, (chunk_id, _) in enumerate(fused)}
        chunks = section_start(asked, self.store.catalog.chunks_of(paper_id), rank)
        score = dict(fused)
        first = self._hydrate([(c.chunk_id, score.get(c.chunk_id, 0.0)) for c in chunks], dict(dense), dict(keyword))
        taken = {p.chunk_id for p in first}
        return first + [p for p in passages if p.chunk_id not in taken]

    def _paper_query(self, query: str, paper_id: str) -> str:
        """The question as a search inside one paper reads it (`assistant.focus.paper_query`)."""
        row = self.store.catalog.get(paper_id)
        return paper_query(query, row.title) if row is not None else query

    def keyword_passages(self, query: str, scope: Scope | None = None, k: int = 50) -> list[Passage]:
        """The best `k` passages in `scope` by BM25 alone, best first (no embedding, no fusion): where a term
        the question names is written, however the passages' meaning ranks them."""
        resolved = self.resolve(scope or Scope())
        if resolved.paper_ids is not None and not resolved.paper_ids:
            return []
        hits = self.store.keywords.search(query, k, paper_ids=resolved.paper_ids, scope_key=resolved.key)
        return self._hydrate(hits, {}, dict(hits))

    def holding(self, query: str, scope: Scope | None = None) -> dict[str, list[str]]:
        """Every chunk in `scope` whose title or text has each keyword term of `query`, by paper (paper id -> chunk
        ids): where a name may be written, all of it, unranked (`KeywordIndex.holding`)."""
        resolved = self.resolve(scope or Scope())
        if resolved.paper_ids is not None and not resolved.paper_ids:
            return {}
        return self.store.keywords.holding(query, resolved.paper_ids, resolved.key)

    def _candidates(
        self, query: str, scope: ResolvedScope, one_paper: bool = False
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """The dense and keyword candidates; with feedback on, for a question over the whole corpus, the dense
        ones of the second round (a scope's dense search has other costs: docs/benchmarks.md)."""
        n = self.settings.candidates
        vector = self.store.embedder.get_query_embedding(query)
        dense = [(h.chunk_id, h.score) for h in self._dense(vector, n, scope)]
        keyword = self.store.keywords.search(query, n, paper_ids=scope.paper_ids, scope_key=scope.key)
        if self.settings.feedback_chunks and scope.paper_ids is None and not one_paper and dense:
            dense = self._feedback(vector, dense, keyword, scope)
        return dense, keyword

    def _feedback(self, vector: list[float], dense: Hits, keyword: Hits, scope: ResolvedScope) -> Hits:
        """Dense candidates for the query vector moved towards the first round's best fused chunks (Rocchio)."""
        best = [chunk_id for chunk_id, _ in fuse(dense, keyword, self.settings)[: self.settings.feedback_chunks]]
        moved = feedback_vector(vector, self.store.vectors.vectors_of(best), self.settings.feedback_weight)
        return [(h.chunk_id, h.score) for h in self._dense(moved, self.settings.candidates, scope)]

    def _dense(self, vector: list[float], n: int, scope: ResolvedScope) -> list[VectorHit]:
        """Nearest chunks in scope. A scope that is a few percent of the store is searched exactly over its chunk
        vectors in memory (read once, `ScopeVectors`); a wider one first tries an unfiltered search, which then
        holds enough of its chunks. Chroma's metadata filter, the last resort, costs 0.2-2 s at 112k papers, an
        unfiltered search a few ms (docs/benchmarks.md)."""
        vectors, ids = self.store.vectors, scope.paper_ids
        if ids is None:
            return self._indexed_hits(lambda fetch: vectors.search(vector, fetch), n)

        def exact() -> list[VectorHit] | None:
            return self.store.scope_vectors.search(vector, n, ids, key=scope.key)

        def post_filtered() -> list[VectorHit] | None:
            return self._post_filtered(vector, n, scope) if len(ids) > WIDE_SCOPE else None

        wide = len(ids) > WIDE_SCOPE and n * FETCH_MARGIN * self._indexed_papers() <= MAX_FETCH * len(ids)
        for way in (post_filtered, exact) if wide else (exact, post_filtered):
            hits = way()
            if hits is not None:
                return hits
        # Chroma's filter, in batches of ids SQLite can bind, merged by score
        batches = [vectors.search(vector, n, paper_ids=ids[i : i + IN_BATCH]) for i in range(0, len(ids), IN_BATCH)]
        return sorted((h for hits in batches for h in hits), key=lambda h: -h.score)[:n]

    def _post_filtered(self, vector: list[float], n: int, scope: ResolvedScope) -> list[VectorHit] | None:
        """The in-scope hits of an unfiltered search sized to the scope's share of the corpus (then, if short, of
        MAX_FETCH), if they can stand for Chroma's filtered search (None if not): all `n` of them, or every chunk
        in scope when the search returned the whole store. Score fusion normalises over the whole list, so it
        needs the same list; rank fusion (RRF) ranks the hits it has alike, so 2 x top_k of them are enough."""
        allowed = scope.allowed
        share = len(allowed) / max(1, self._indexed_papers())
        enough = n if self.settings.fusion == "convex" else min(n, 2 * self.settings.top_k)
        indexed = self._all_indexed()
        for fetch in sorted({min(MAX_FETCH, max(n, math.ceil(n * FETCH_MARGIN / share))), MAX_FETCH}):
            found = self._indexed_hits(lambda size: self.store.vectors.search(vector, size), fetch, indexed)
            hits = [h for h in found if h.paper_id in allowed][:n]
            if len(hits) >= enough or len(found) < fetch:
                return hits
        return None

    def _indexed_hits(
        self, search: Callable[[int], list[VectorHit]], fetch: int, indexed: frozenset[str] | None = None
    ) -> list[VectorHit]:
        """The best `fetch` hits of `search` among the papers the catalog holds as indexed. An ingest writes a
        paper's vectors after marking it pending and before marking it indexed (a kill in between leaves them
        so until the rerun): while the catalog stands still, such hits must neither appear nor take the place
        of indexed ones, or two answers at one catalog version differ. As many more hits as were dropped are
        fetched, so the result is what the vector store would give without them. `indexed`: the catalog's
        indexed papers, if the caller holds them (else each search's papers are looked up)."""
        size = fetch
        while True:
            found = search(size)
            known = indexed if indexed is not None else self._indexed_among({h.paper_id for h in found})
            kept = [h for h in found if h.paper_id in known]
            if len(kept) >= fetch or len(found) < size:  # enough, or the whole store was read
                return kept[:fetch]
            size += fetch - len(kept)

    def _indexed_among(self, paper_ids: set[str]) -> set[str]:
        return self.store.catalog.indexed_of(paper_ids)

    def _all_indexed(self) -> frozenset[str]:
        """Every indexed paper, kept as resolved scopes are: a wide scope's unfiltered searches then need no
        lookup of their hits' papers (15-30 ms per question at 112k papers; reading them all once, ~60 ms)."""
        version = self.store.catalog.scopes_version
        everything = self._scopes.get_or_build(
            ("indexed",), version, lambda: ResolvedScope(self.store.catalog.paper_ids_between(None, None), None)
        )
        return everything.allowed

    def _indexed_papers(self) -> int:
        version = self.store.catalog.chunks_version
        if self._indexed[0] != version:
            self._indexed = (version, self.store.catalog.count_papers("indexed"))
        return self._indexed[1]

    def _hydrate(
        self, fused: list[tuple[str, float]], dense: dict[str, float], keyword: dict[str, float]
    ) -> list[Passage]:
        chunks = self.store.catalog.chunks_by_id(c for c, _ in fused)
        papers = self.store.catalog.get_many(ch.paper_id for ch in chunks.values())
        out = []
        for chunk_id, score in fused:
            chunk = chunks.get(chunk_id)
            paper = papers.get(chunk.paper_id) if chunk else None
            if chunk is None or paper is None:
                log.warning("chunk %s is in an index but not in the catalog: rerun the ingest", chunk_id)
                continue
            out.append(
                Passage(
                    chunk_id=chunk_id,
                    paper_id=paper.paper_id,
                    title=paper.title,
                    authors=paper.authors,
                    year=paper.year,
                    link=paper.link,
                    page_start=chunk.page_start,
                    page_end=chunk.page_end,
                    text=chunk.text,
                    score=score,
                    dense_score=dense.get(chunk_id),
                    keyword_score=keyword.get(chunk_id),
                    section=chunk.section,
                    caption=chunk.caption,
                    page_marks=chunk.page_marks,
                )
            )
        return out


def _intersect(ids: list[str], others: list[str]) -> list[str]:
    keep = set(others)
    return [i for i in ids if i in keep]
