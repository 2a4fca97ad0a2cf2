"""SciFact: second-round ideas on top of papertalk's fusion, each tuned on train (bench_scifact --feedback).

Everything is computed exactly over every stored chunk (numpy cosines over the stored vectors; BM25 as
`storage.bm25` scores it, over the keyword index's texts and tokens), and fused as `HybridRetriever` fuses:
each ranking's top `candidates` chunks (keyword: positive scores only), min-max normalised, a chunk missing
from a list at that list's floor, a convex combination, a paper at its best fused chunk. The variants:

- `BM25 k1, b`: the keyword index's parameters;
- `second chunk`: a paper scored at its best fused chunk plus a share of its second-best;
- `dense feedback`: Rocchio on vectors: the claim's vector + a x the mean vector of the first round's best
  `k` fused (or dense) chunks, unit length, searched again and fused again with the same keyword ranking;
- `keyword feedback`: RM3 terms of the first round's best `k` fused chunks (term share of each chunk,
  weighted by its fused score) added to the claim's terms, the keyword search run again;
- `both feedbacks`: the two second rounds fused;
- `dense feedback + BM25 k1, b + second chunk`: the three chosen settings together;
- `title`: a third list, each chunk at the cosine of the claim with its paper's title alone;
- `best sentence`: a third list, each chunk at the claim's best cosine with one of its sentences, as ingest
  stored their vectors (storage/sentence_vectors.py): a claim often restates one sentence of its abstract.

Each variant's settings and the dense weight are chosen on the 809 train claims; test is for reference.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from assistant.retrieval import HybridRetriever
from bench.common import markdown_table, percentile
from bench.fusion_eval import evaluate
from bench.latency_probes import stored_vectors
from bench.scifact_data import Beir, via_retriever
from storage.bm25 import K1, B
from storage.keyword import KeywordTokenizer
from storage.store import Store

CANDIDATES = 100
WEIGHTS = (0.4, 0.45, 0.5, 0.55, 0.6)  # dense weight, tuned with every setting
SHIPPED_WEIGHT = 0.45


def unit(matrix: np.ndarray) -> np.ndarray:
    return matrix / np.maximum(np.linalg.norm(matrix, axis=-1, keepdims=True), 1e-12)


@dataclass
class Exact:
    """Every claim and every stored chunk, as matrices."""

    qids: list[str]
    queries: np.ndarray  # claims x dims, unit length
    chunk_ids: list[str]
    vectors: np.ndarray  # chunks x dims, unit length
    chunk_paper: np.ndarray  # paper column of each chunk
    tf: sparse.csr_matrix  # chunks x terms
    lengths: np.ndarray  # terms per chunk
    qterms: sparse.csr_matrix  # claims x terms (counts)
    relevant: list[dict[int, int]]  # per claim: paper column -> relevance
    train: np.ndarray
    test: np.ndarray
    titles: np.ndarray | None = None  # papers x dims, unit length
    sentences: np.ndarray | None = None  # claims x chunks: the best stored sentence's cosine (0: none stored)

    def dense(self, queries: np.ndarray | None = None) -> np.ndarray:
        return (self.queries if queries is None else queries) @ self.vectors.T

    def bm25(self, k1: float = K1, b: float = B, qterms: sparse.csr_matrix | None = None) -> np.ndarray:
        """claims x chunks BM25 (bm25s's "lucene" scoring, as storage/bm25.py)."""
        n = self.tf.shape[0]
        df = np.bincount(self.tf.indices, minlength=self.tf.shape[1])
        idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
        coo = self.tf.tocoo()
        norm = k1 * (1 - b + b * self.lengths / self.lengths.mean())
        values = idf[coo.col] * coo.data / (coo.data + norm[coo.row])
        weights = sparse.csr_matrix((values.astype(np.float32), (coo.row, coo.col)), shape=self.tf.shape)
        terms = self.qterms if qterms is None else qterms
        return np.asarray((terms @ weights.T).todense(), dtype=np.float32)


def exact_of(store: Store, beir: Beir, embed_titles: bool) -> Exact:
    qids = [q for q in dict.fromkeys([*beir.qrels["train"], *beir.qrels["test"]]) if q in beir.queries]
    papers = list(beir.corpus)
    column = {p: i for i, p in enumerate(papers)}
    ids, vectors = stored_vectors(store.vectors.collection)
    texts = dict(store.catalog.iter_chunk_texts())
    tokenize = KeywordTokenizer()
    vocab: dict[str, int] = {}
    tf = _counts(tokenize([texts[i] for i in ids]), vocab, grow=True)
    qterms = _counts(tokenize([beir.queries[q] for q in qids]), vocab, grow=False)
    qrels = {**beir.qrels["train"], **beir.qrels["test"]}
    relevant = [{column[p]: r for p, r in qrels.get(q, {}).items() if r > 0 and p in column} for q in qids]
    queries = np.array([store.embedder.get_query_embedding(beir.queries[q]) for q in qids], dtype=np.float32)
    titles = None
    if embed_titles:
        embedded = store.embedder.get_text_embedding_batch([beir.corpus[p][0] for p in papers])
        titles = unit(np.array(embedded, dtype=np.float32))
    return Exact(
        qids, unit(queries), ids, unit(vectors), np.array([column[c.split("#", 1)[0]] for c in ids]),
        tf, np.asarray(tf.sum(axis=1)).ravel(), qterms, relevant,
        np.array([i for i, q in enumerate(qids) if q in beir.qrels["train"]]),
        np.array([i for i, q in enumerate(qids) if q in beir.qrels["test"]]), titles,
        best_sentences(store, unit(queries), ids),
    )  # fmt: skip


def best_sentences(store: Store, queries: np.ndarray, chunk_ids: list[str]) -> np.ndarray | None:
    """claims x chunks: each chunk's best cosine between the claim and one of its stored sentence vectors."""
    stored = store.sentence_vectors.get(chunk_ids)
    if not stored:
        return None
    column = {c: i for i, c in enumerate(chunk_ids)}
    keys = sorted(stored, key=lambda key: column[key[0]])
    owners = np.array([column[c] for c, _ in keys])
    sims = queries @ unit(np.stack([stored[k] for k in keys])).T
    starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
    out = np.zeros((len(queries), len(chunk_ids)), dtype=np.float32)
    out[:, owners[starts]] = np.maximum.reduceat(sims, starts, axis=1)
    return out


def _counts(tokens: list[list[str]], vocab: dict[str, int], grow: bool) -> sparse.csr_matrix:
    rows, cols, values = [], [], []
    for i, toks in enumerate(tokens):
        for term, count in Counter(toks).items():
            if grow:
                vocab.setdefault(term, len(vocab))
            if term in vocab:
                rows.append(i)
                cols.append(vocab[term])
                values.append(count)
    return sparse.csr_matrix((np.array(values, np.float32), (rows, cols)), shape=(len(tokens), len(vocab)))


# --- one claim's fusion --------------------------------------------------------------------------
def _top(scores: np.ndarray, n: int, positive: bool) -> np.ndarray:
    n = min(n, len(scores))
    idx = np.argpartition(-scores, n - 1)[:n]
    return idx[scores[idx] > 0] if positive else idx


def _minmax(values: np.ndarray) -> np.ndarray:
    low, high = values.min(), values.max()
    return (values - low) / (high - low) if high > low else np.ones_like(values)


def fused_chunks(lists: Sequence[tuple[np.ndarray, float, bool]]) -> tuple[np.ndarray, np.ndarray]:
    """Chunk columns and convex-fused scores, best first, of (scores over every chunk, weight, positive only)."""
    tops = [(_top(scores, CANDIDATES, positive), scores, w) for scores, w, positive in lists]
    union = np.unique(np.concatenate([idx for idx, _, _ in tops]))
    fused = np.zeros(len(union))
    for idx, scores, weight in tops:
        if len(idx) and weight > 0:
            full = np.zeros(len(union))  # min-max: the list's floor is 0
            full[np.searchsorted(union, idx)] = _minmax(scores[idx].astype(np.float64))
            fused += weight * full
    order = np.argsort(-fused, kind="stable")
    return union[order], fused[order]


def paper_ranking(chunk_paper: np.ndarray, chunks: np.ndarray, fused: np.ndarray, second: float = 0.0) -> np.ndarray:
    """Paper columns by best fused chunk (`chunks` best first), plus `second` x their second-best."""
    papers, first = np.unique(chunk_paper[chunks], return_index=True)
    score = fused[first]
    if second:
        seen = np.zeros(len(papers))
        rank_of = np.searchsorted(papers, chunk_paper[chunks])
        counts = np.zeros(len(papers), dtype=int)
        for pos, r in enumerate(rank_of):
            counts[r] += 1
            if counts[r] == 2:
                seen[r] = fused[pos]
        score = score + second * seen
    return papers[np.argsort(-score, kind="stable")]


def ndcg10(ranking: np.ndarray, relevant: dict[int, int]) -> float:
    dcg = sum(relevant.get(int(p), 0) / math.log2(i + 2) for i, p in enumerate(ranking[:10]))
    ideal = sum(r / math.log2(i + 2) for i, r in enumerate(sorted(relevant.values(), reverse=True)[:10]))
    return dcg / ideal if ideal else 0.0


def recall100(ranking: np.ndarray, relevant: dict[int, int]) -> float:
    return len({int(p) for p in ranking[:100]} & set(relevant)) / len(relevant) if relevant else 0.0


# --- variants ------------------------------------------------------------------------------------
Ranker = Callable[[int, float], np.ndarray]  # (claim row, dense weight) -> paper columns, best first


def mean_scores(ex: Exact, rows: np.ndarray, rank: Ranker, weight: float) -> tuple[float, float]:
    rankings = [rank(int(r), weight) for r in rows]
    ndcg = float(np.mean([ndcg10(k, ex.relevant[r]) for k, r in zip(rankings, rows, strict=True)]))
    return ndcg, float(np.mean([recall100(k, ex.relevant[r]) for k, r in zip(rankings, rows, strict=True)]))


def hybrid(ex: Exact, dense: np.ndarray, keyword: np.ndarray, second: float = 0.0, third: np.ndarray | None = None,
           third_share: float = 0.0) -> Ranker:  # fmt: skip
    def rank(row: int, weight: float) -> np.ndarray:
        lists = [(dense[row], weight, False), (keyword[row], 1 - weight, True)]
        if third is not None:
            lists = [(s, w * (1 - third_share), p) for s, w, p in lists] + [(third[row], third_share, False)]
        return paper_ranking(ex.chunk_paper, *fused_chunks(lists), second=second)

    return rank


def feedback_queries(ex: Exact, first: Callable[[int], np.ndarray], k: int, a: float) -> np.ndarray:
    """Rocchio: each claim's vector + a x the mean of its first round's best `k` chunks' vectors, unit length."""
    moved = np.vstack([ex.queries[r] + a * ex.vectors[first(r)[:k]].mean(axis=0) for r in range(len(ex.qids))])
    return unit(moved).astype(np.float32)


def feedback_terms(ex: Exact, first: Callable[[int], tuple[np.ndarray, np.ndarray]], k: int, terms: int,
                   original: float) -> sparse.csr_matrix:  # fmt: skip
    """RM3 from the first round's best `k` fused chunks: the claim's terms share `original`, the heaviest
    `terms` of those chunks (term share of each chunk, weighted by its fused score) the rest."""
    share = sparse.csr_matrix(ex.tf.multiply(1 / np.maximum(ex.lengths, 1)[:, None]))
    rows, cols, values = [], [], []
    for r in range(len(ex.qids)):
        own = ex.qterms[r]
        weights = {int(c): original * v / max(own.data.sum(), 1) for c, v in zip(own.indices, own.data, strict=True)}
        chunks, fused = first(r)
        mass = np.maximum(fused[:k], 0)
        model = np.asarray(share[chunks[:k]].T @ (mass / mass.sum() if mass.sum() > 0 else mass)).ravel()
        heaviest = np.argsort(-model)[:terms]
        total = model[heaviest].sum() or 1.0
        for c in heaviest:
            weights[int(c)] = weights.get(int(c), 0.0) + (1 - original) * model[c] / total
        rows += [r] * len(weights)
        cols += list(weights)
        values += list(weights.values())
    return sparse.csr_matrix((np.array(values, np.float32), (rows, cols)), shape=ex.qterms.shape)


@dataclass
class Result:
    variant: str
    setting: str
    weight: float
    train: tuple[float, float]
    test: tuple[float, float]


def tune(ex: Exact, variant: str, settings: dict[str, Ranker], weights: Sequence[float] = WEIGHTS) -> Result:
    """The setting and dense weight best on train (nDCG@10), with its test scores."""
    scored = [
        (mean_scores(ex, ex.train, rank, w), name, w)
        for (name, rank), w in itertools.product(settings.items(), weights)
    ]
    (train, name, weight) = max(scored, key=lambda s: round(s[0][0], 4))
    return Result(variant, name, weight, train, mean_scores(ex, ex.test, settings[name], weight))


# --- the run -------------------------------------------------------------------------------------
BM25_GRID = list(itertools.product((0.6, 0.9, 1.2, 1.5), (0.5, 0.75, 0.9, 1.0)))
ROCCHIO_GRID = list(itertools.product(("fused", "dense"), (3, 5, 10), (0.25, 0.5, 1.0)))
SENTENCE_SHARES = (0.2, 0.35, 0.5)
RM3_GRID = list(itertools.product((3, 5, 10), (10, 20), (0.5, 0.7)))


def run_variants(ex: Exact, log: Callable[[str], None]) -> tuple[list[Result], Result, tuple[str, int, float]]:
    """Every variant tuned on train; the runnable dense feedback's result and its (source, chunks, weight)."""
    dense, keyword = ex.dense(), ex.bm25()
    out: list[Result] = []

    def add(variant: str, settings: dict[str, Ranker], weights: Sequence[float] = WEIGHTS) -> Result:
        result = tune(ex, variant, settings, weights)
        out.append(result)
        log(f"  {variant}: {result.setting}, dense weight {result.weight:g}: train {result.train[0]:.4f}, "
            f"test {result.test[0]:.4f}")  # fmt: skip
        return result

    add("current defaults", {f"k1={K1:g}, b={B:g}": hybrid(ex, dense, keyword)}, (SHIPPED_WEIGHT,))
    add("BM25 as bm25s's defaults", {"k1=1.5, b=0.75": hybrid(ex, dense, ex.bm25(1.5, 0.75))}, (SHIPPED_WEIGHT,))
    add("dense weight retuned", {"exact search": hybrid(ex, dense, keyword)})
    params = {f"k1={k1:g}, b={b:g}": (k1, b) for k1, b in BM25_GRID}
    bm25 = add("BM25 k1, b", {name: hybrid(ex, dense, ex.bm25(*p)) for name, p in params.items()})
    shares = {f"share {s:g}": s for s in (0.05, 0.1, 0.2, 0.3)}
    second = add("second chunk", {name: hybrid(ex, dense, keyword, second=s) for name, s in shares.items()})
    moved, rocchio, expanded = _feedback_rounds(ex, dense, keyword)
    dense_fb = add("dense feedback", {name: hybrid(ex, m, keyword) for name, m in moved.items()})
    fused = {name: hybrid(ex, m, keyword) for name, m in moved.items() if rocchio[name][0] == "fused"}
    runnable = add("dense feedback from the fused chunks (as HybridRetriever runs it)", fused)
    keyword_fb = add("keyword feedback", {name: hybrid(ex, dense, m) for name, m in expanded.items()})
    both = f"{dense_fb.setting}; {keyword_fb.setting}"
    add("both feedbacks", {both: hybrid(ex, moved[dense_fb.setting], expanded[keyword_fb.setting])})
    together = f"{dense_fb.setting}; {bm25.setting}; second chunk {second.setting}"
    best_bm25 = ex.bm25(*params[bm25.setting])
    add("dense feedback + BM25 k1, b + second chunk",
        {together: hybrid(ex, moved[dense_fb.setting], best_bm25, second=shares[second.setting])})  # fmt: skip
    if ex.titles is not None:
        title = (ex.queries @ ex.titles.T)[:, ex.chunk_paper]
        add("title", {f"share {s:g}": hybrid(ex, dense, keyword, third=title, third_share=s) for s in (0.1, 0.2, 0.3)})
    if ex.sentences is not None:
        add("best sentence", sentence_settings(ex, dense, keyword))
    return out, runnable, rocchio[runnable.setting]


def sentence_settings(ex: Exact, dense: np.ndarray, keyword: np.ndarray) -> dict[str, Ranker]:
    """The best-sentence list at each share of the fused score (dense and BM25 share the rest as before)."""
    assert ex.sentences is not None
    return {f"share {s:g}": hybrid(ex, dense, keyword, third=ex.sentences, third_share=s) for s in SENTENCE_SHARES}


def _feedback_rounds(
    ex: Exact, dense: np.ndarray, keyword: np.ndarray
) -> tuple[dict[str, np.ndarray], dict[str, tuple[str, int, float]], dict[str, np.ndarray]]:
    """Every dense feedback setting's second-round cosines (with its setting) and every keyword feedback
    setting's second-round BM25, the first round being the shipped fusion (or the dense ranking)."""

    def first(row: int) -> tuple[np.ndarray, np.ndarray]:
        return fused_chunks([(dense[row], SHIPPED_WEIGHT, False), (keyword[row], 1 - SHIPPED_WEIGHT, True)])

    def by_dense(row: int) -> np.ndarray:
        return np.argsort(-dense[row])

    moved, rocchio = {}, {}
    for source, k, a in ROCCHIO_GRID:
        name = f"{source} top {k}, a={a:g}"
        rocchio[name] = (source, k, a)
        moved[name] = ex.dense(feedback_queries(ex, (lambda r: first(r)[0]) if source == "fused" else by_dense, k, a))
    expanded = {f"top {k}, {t} terms, original {o:g}": ex.bm25(qterms=feedback_terms(ex, first, k, t, o))
                for k, t, o in RM3_GRID}  # fmt: skip
    return moved, rocchio, expanded


def end_to_end(store: Store, beir: Beir, chunks: int, weight: float, dense_weight: float) -> str:
    """`HybridRetriever` itself (approximate search), feedback off and on: scores, and per-claim milliseconds
    over the test claims (best of 2 interleaved rounds)."""
    off = store.settings.retrieval
    update = {"feedback_chunks": chunks, "feedback_weight": weight, "convex_dense_weight": dense_weight}
    on = off.model_copy(update=update)
    rows = []
    times: dict[str, list[list[float]]] = {"off": [], "on": []}
    test = [q for q in beir.qrels["test"] if q in beir.queries]
    for _ in range(2):
        for name, settings in (("off", off), ("on", on)):
            times[name].append(_timed(HybridRetriever(store, settings), [beir.queries[q] for q in test]))
    for name, settings in (("off", off), ("on", on)):
        train = evaluate(via_retriever(store, settings, beir, list(beir.qrels["train"])), beir.qrels["train"])
        got = evaluate(via_retriever(store, settings, beir, test), beir.qrels["test"])
        best = [min(x) for x in zip(*times[name], strict=True)]
        label = (
            "current defaults" if name == "off" else f"dense feedback ({chunks} chunks, a={weight:g}, {dense_weight:g})"
        )
        rows.append([label, train.ndcg10, got.ndcg10, got.recall100, percentile(best, 50), percentile(best, 95)])
    return markdown_table(
        ["HybridRetriever", "train nDCG@10", "test nDCG@10", "test R@100", "retrieve p50 ms", "retrieve p95 ms"],
        rows,
        digits=3,
    )


def _timed(retriever: HybridRetriever, queries: Sequence[str]) -> list[float]:
    out = []
    for query in queries:
        start = time.perf_counter()
        retriever.retrieve(query)
        out.append(1000 * (time.perf_counter() - start))
    return out


def results_table(results: Sequence[Result]) -> str:
    """Each variant's setting and scores, and its test gain over the first row (the defaults)."""
    base = results[0].test[0]
    return markdown_table(
        ["variant", "setting chosen on train", "dense weight", "train nDCG@10", "train R@100", "test nDCG@10",
         "test R@100", "test vs defaults"],
        [[r.variant, r.setting, f"{r.weight:g}", r.train[0], r.train[1], r.test[0], r.test[1],
          f"{r.test[0] - base:+.3f}"] for r in results],
        digits=3,
    )  # fmt: skip


def feedback_body(store: Store, beir: Beir) -> str:
    ex = exact_of(store, beir, embed_titles=True)
    results, dense_fb, (source, chunks, weight) = run_variants(ex, lambda line: print(line, flush=True))
    table = results_table(results)
    best = max(results, key=lambda r: round(r.train[0], 4))
    pipeline = _pipeline(store, beir, source, chunks, weight, dense_fb.weight)
    return (
        f"{len(ex.chunk_ids):,} chunks of the 5,183 abstracts; {len(ex.train):,} train and {len(ex.test)} test "
        "claims. Exact search over every chunk (cosines of the stored vectors; BM25 as the keyword index scores "
        "it), fused as `HybridRetriever` fuses (min-max convex, 100 candidates per list, a paper at its best "
        "fused chunk), so `current defaults` differs slightly from the end-to-end row of the SciFact section "
        "(approximate HNSW search there). Every setting and the dense weight (0.4-0.6) chosen on train; test "
        "for reference. `current defaults` uses the keyword index's k1 and b (storage/bm25.py); the next row, "
        "bm25s's defaults, is the same row while the index keeps them."
        f"\n\n{table}\n\nBest on train: {best.variant} ({best.setting}, dense weight "
        f"{best.weight:g}): train nDCG@10 {best.train[0]:.3f}, test {best.test[0]:.3f}.\n{pipeline}"
    )


def sentence_body(store: Store, beir: Beir) -> str:
    """Only the shipped fusion and the best-sentence list beside it (`bench_scifact --sentences`)."""
    ex = exact_of(store, beir, embed_titles=False)
    if ex.sentences is None:
        raise SystemExit("the SciFact store holds no sentence vectors: run `papertalk embed-sentences` on it")
    dense, keyword = ex.dense(), ex.bm25()
    results = [
        tune(ex, "current defaults", {f"k1={K1:g}, b={B:g}": hybrid(ex, dense, keyword)}, (SHIPPED_WEIGHT,)),
        tune(ex, "best sentence", sentence_settings(ex, dense, keyword)),
    ]
    alone = hybrid(ex, ex.sentences, keyword)
    results.append(Result("best sentence alone", "no BM25", 1.0, mean_scores(ex, ex.train, alone, 1.0),
                          mean_scores(ex, ex.test, alone, 1.0)))  # fmt: skip
    table = results_table(results)
    stored = int((ex.sentences[0] != 0).sum())
    return (
        f"{len(ex.chunk_ids):,} chunks of the 5,183 abstracts ({stored:,} with stored sentence vectors); "
        f"{len(ex.train):,} train and {len(ex.test)} test claims; exact search as in the feedback section. "
        "Best sentence: a third list in the convex fusion, each chunk at the claim's best cosine with one of its "
        "sentences (the vectors ingest stores for offline answers), its share of the fused score and the dense "
        "weight chosen on train; the dense and BM25 lists share the rest as before. `best sentence alone`: the "
        f"sentence list in place of the chunk cosines, no BM25.\n\n{table}\n"
    )


def _pipeline(store: Store, beir: Beir, source: str, chunks: int, weight: float, dense_weight: float) -> str:
    if source != "fused":
        return (
            "\nThe dense feedback chosen on train takes the dense top chunks, which `HybridRetriever` does not run.\n"
        )
    return (
        "\nThe dense feedback chosen on train run end to end (`feedback_chunks`, `feedback_weight`), all 300 test "
        f"claims, retrieve() with k=200 for the scores and the default top_k for the times:\n\n"
        f"{end_to_end(store, beir, chunks, weight, dense_weight)}\n"
    )
