"""Question latency at 2k, 20k and ~112k papers: retrieve + extractive answer, no LLM.

Three papertalk data dirs are built once under bench/.cache/latency/ from the shared arXiv file, through
the real pipeline (`Ingestor`: `Chunker`, catalog, `VectorIndex`, `KeywordIndex`); the 20k and 2k stores
hold the first papers of the same seeded shuffle. To make ~200k chunks affordable on a shared 2-core
machine, each chunk's vector is the embedding of its first 64 word pieces (`embed_texts(short=True)`):
chunk count, HNSW size, chunk texts and BM25 stay real. Vectors are cached as .npy parts, so reruns
re-embed nothing. Questions come from the titles of held-out records that no store contains.

Each size is then measured in its own process (its own peak RSS): warm-up, then every question timed end
to end (`Assistant.ask`, extractive backend) and per stage, then Chroma's recall@10 and @100 against
exact cosine search over the vectors stored in Chroma.

    nice -n 10 python -m bench.bench_latency                  # everything, cached steps skipped
    nice -n 10 python -m bench.bench_latency --phase prepare  # only chunk + embed (resumable)
    python -m bench.bench_latency --phase measure             # time the built stores (needs a quiet machine)

The first run embeds ~210k chunk gists: about 1.5 h on 2 free cores, 2.5 h on the shared machine (run it
in the background; a killed run resumes). Once everything is cached, `--phase measure` takes ~5 min.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.retrieval import MAX_FETCH
from bench.common import add_common_args, arxiv_file, emit_result, markdown_table, publish, require, run_child
from bench.latency_probes import AFTER_CHANGE, FETCHES, VARIANT_QUESTIONS, measure
from bench.latency_stores import (
    GIST,
    HOLDOUT,
    SIZES,
    build_store,
    load_papers,
    make_plan,
    prepare,
    store_dir,
    write_questions,
)

MODULE = "bench.bench_latency"
log = logging.getLogger(MODULE)


# --- report ---------------------------------------------------------------------------------------
STAGES = (
    "query embed",
    "dense search",
    "keyword (BM25)",
    "keyword: of which paper mask",
    "scope resolve (SQLite)",
    "fusion + hydrate",
    "answer: stored sentence vectors",
    "answer: sentence embed",
    "answer: rest",
    "other",
    "total",
)


def summary_table(results: list[dict[str, Any]]) -> str:
    headers = [
        "store",
        "papers",
        "chunks",
        "disk MiB",
        "first answer s",
        "p50 ms",
        "p95 ms",
        "max ms",
        "CPU ms p50 / p95",
    ]
    headers += ["peak RSS MiB", "recall@10", "recall@100", "load avg"]
    rows = []
    for r in results:
        t = r["all"]["total"]
        load = f"{r['load'][0]:.1f} → {r['load'][1]:.1f}"
        rows.append(
            [
                r["label"],
                r["built"]["papers"],
                r["built"]["vectors"],
                r["disk_mib"],
                r["cold_s"],
                t["p50"],
                t["p95"],
                t["max"],
                f"{r['all']['cpu']['p50']:.0f} / {r['all']['cpu']['p95']:.0f}",
                r["peak_rss_mib"],
                f"{r['recall@10']:.3f}",
                f"{r['recall@100']:.3f}",
                load,
            ]
        )
    return markdown_table(headers, rows)


def stage_table(results: list[dict[str, Any]], key: str) -> str:
    """Per stage p50 / p95 ms at each size; for a scope, at the largest size also its first question and the
    questions just after a catalog change (`time_scope`)."""
    headers = ["stage"] + [f"{r['label']} p50 / p95 ms" for r in results] + [f"{results[-1]['label']} share of mean"]
    last = results[-1][key]
    if "first" in last:
        headers += [f"{results[-1]['label']} first question ms", f"{results[-1]['label']} after a change p50 / p95 ms"]
    rows = []
    for stage in STAGES:
        cells = [f"{r[key][stage]['p50']:.1f} / {r[key][stage]['p95']:.1f}" for r in results]
        share = 100 * last[stage]["mean"] / last["total"]["mean"]
        if "first" in last:
            changed = last["after_change"][stage]
            cells += [f"{share:.0f}%", f"{last['first'][stage]:.1f}", f"{changed['p50']:.1f} / {changed['p95']:.1f}"]
        else:
            cells.append(f"{share:.0f}%")
        rows.append([stage, *cells])
    return markdown_table(headers, rows)


def dense_table(results: list[dict[str, Any]]) -> str:
    headers = ["100-candidate dense search"] + [f"{r['label']} p50 / p95 ms" for r in results]
    ways = list(dict.fromkeys(w for r in results for w in r["dense_raw"]["times"]))

    def cell(r: dict[str, Any], way: str) -> str:
        t = r["dense_raw"]["times"].get(way)
        return f"{t['p50']:.1f} / {t['p95']:.1f}" if t else "-"

    return markdown_table(headers, [[way, *[cell(r, way) for r in results]] for way in ways])


def answer_table(results: list[dict[str, Any]]) -> str:
    headers = ["the extractive answer alone"] + [f"{r['label']} p50 / p95 ms" for r in results]
    ways = [w for w in results[0]["answer_raw"] if w != "sentences"]
    rows = [
        [way, *[f"{r['answer_raw'][way]['p50']:.1f} / {r['answer_raw'][way]['p95']:.1f}" for r in results]]
        for way in ways
    ]
    return markdown_table(headers, rows)


def dominant(result: dict[str, Any], key: str) -> str:
    stages = {s: result[key][s]["mean"] for s in STAGES if s != "total"}
    top = max(stages, key=lambda s: stages[s])
    return f"{top} ({100 * stages[top] / result[key]['total']['mean']:.0f}% of the mean)"


def answer_intro(result: dict[str, Any]) -> str:
    f = result["filled"]
    return (
        "Sentence vectors: the store was built without them (embedding every sentence of 112k abstracts takes hours "
        f"here), so before timing the measurement stored them for every chunk of every paper the timed questions "
        f"retrieve, with the ingest's own code (`ingest.sentence_vectors.fill`): {f['papers']:,} papers, "
        f"{f['chunks']:,} chunks, {f.get('held', f['vectors']):,} sentence vectors. This run embedded {f['vectors']:,} "
        f"for the {f['filled']:,} chunks that had none ({f['s']:.0f} s); the others were stored by an earlier run "
        "(a chunk with no usable sentence has none). The "
        f"timed questions embedded {result['embedded_sentences']} sentences at question time. The extractive answer "
        f"alone, on the same sources, with the stored vectors ({result['answer_raw']['sentences']:.1f} sentences "
        "scored per answer) and without them (as before), taking turns:"
    )


def hnsw_line(result: dict[str, Any]) -> str:
    h = result.get("hnsw") or {}
    return (
        f"Chroma's HNSW settings (as papertalk creates the collection): ef_search {h.get('ef_search')}, "
        f"ef_construction {h.get('ef_construction')}, max_neighbors {h.get('max_neighbors')}, space {h.get('space')}."
    )


SCOPES = ("scoped", "narrow", "topic", "topic_wide")


def scope_intro(result: dict[str, Any], key: str) -> str:
    scoped = result[key]
    return (
        f"Per stage, {scoped['n']} of the questions limited to {scoped['scope']} (at {result['label']} that is "
        f"{scoped['papers']:,} papers, {100 * scoped['share']:.1f}%):"
    )


def scoped_table(result: dict[str, Any]) -> str:
    headers = ["scope", "papers", "share", "p50 ms", "p95 ms", "max ms", "CPU ms p50 / p95", "first question ms"]
    headers += ["after a change p50 / p95 ms", "top passages as with exact dense", "passage overlap"]
    rows = []
    for key in ("all", *SCOPES):
        t, exact = result[key], result.get("exact", {}).get(key)
        changed = t.get("after_change", {}).get("total")
        rows.append(
            [
                t.get("scope", "whole corpus"),
                t.get("papers", result["built"]["papers"]),
                f"{100 * t.get('share', 1.0):.1f}%",
                t["total"]["p50"],
                t["total"]["p95"],
                t["total"]["max"],
                f"{t['cpu']['p50']:.0f} / {t['cpu']['p95']:.0f}",
                f"{t['first']['total']:.1f}" if "first" in t else "-",
                f"{changed['p50']:.1f} / {changed['p95']:.1f}" if changed else "-",
                f"{exact['same']} of {exact['n']}" if exact else "-",
                f"{exact['overlap']:.3f}" if exact else "-",
            ]
        )
    return markdown_table(headers, rows)


def dense_intro(result: dict[str, Any]) -> str:
    rows = []
    for key in SCOPES:
        d = result["dense_raw"][key]
        kept = [f"{d['kept'][str(f)]:.0f}" for f in FETCHES]
        rows.append([d["scope"], d["papers"], *kept, f"{100 * d['accepted']:.0f}%"])
    headers = ["scope", "papers", *[f"in scope of {f:,} unfiltered" for f in FETCHES], "retriever kept its own"]
    return (
        f"Dense search alone, 100 candidates, {VARIANT_QUESTIONS} questions' vectors. At {result['label']}: how many "
        "of the 100 wanted are in scope among an unfiltered search's hits (mean), and how often the retriever's "
        "unfiltered search (sized to the scope's share, at most "
        f"{MAX_FETCH:,}) stood for Chroma's filtered one (all 100 in scope, as score fusion needs), else it let "
        f"Chroma filter:\n\n{markdown_table(headers, rows)}\n\nThe variants timed, taking turns:"
    )


def report_body(results: list[dict[str, Any]], args: argparse.Namespace) -> str:
    big = results[-1]
    verdict = "meets" if big["all"]["total"]["p95"] < 100 else "misses"
    worst = max(SCOPES, key=lambda key: big[key]["total"]["p95"])
    scoped_verdict = "meets" if big[worst]["total"]["p95"] < 100 else "misses"
    parts = [
        f"Retrieve + extractive answer per question (`Assistant.ask`, no LLM), {big['all']['n']} questions per size "
        f"after {HOLDOUT - args.questions} warm-up questions, each paying for its own query embedding. "
        f"Target: p95 under 100 ms at ~112k papers; this run **{verdict}** it "
        f"(p95 {big['all']['total']['p95']:.0f} ms). Slowest stage at {big['label']}: {dominant(big, 'all')}. "
        f"{GISTS.get(args.gist, GISTS[64])}",
        summary_table(results),
        hnsw_line(big),
        f"Scoped questions at {big['label']}, asked as a chat in one scope asks them: p50/p95/max are over the "
        "scope's questions after its first, which the process keeps the scope for (its resolved papers, their "
        "keyword mask, their chunk vectors stacked in memory; kept until a paper, date, status or topic membership "
        "changes, `scopes_version`); *first question* is the first one in the scope, which resolves and reads all of "
        f"that; *after a change* are {AFTER_CHANGE} questions each asked just after a write to the papers table "
        "(resolved and masked again, the chunk vectors still held as their chunks did not change). The same "
        f"target: the slowest scope, {big[worst]['scope']}, has p95 {big[worst]['total']['p95']:.0f} ms, so this "
        f"run **{scoped_verdict}** it. *Top passages as with exact dense* counts the questions (of the first "
        f"{VARIANT_QUESTIONS}) whose 8 passages are the very same, in the same order, when the dense half of the "
        "search is replaced by exact cosine search over every stored vector in scope (numpy; the keyword half is "
        "exact either way); *passage overlap* is the mean share of those 8 found.",
        scoped_table(big),
        "Per stage, whole corpus:",
        stage_table(results, "all"),
    ]
    for key in SCOPES:
        parts += [scope_intro(big, key), stage_table(results, key)]
    parts += [
        dense_intro(big),
        dense_table(results),
        answer_intro(big),
        answer_table(results),
        NOTES.replace("{GIST_NOTE}", GIST_NOTES.get(args.gist, GIST_NOTES[64])),
    ]
    return "\n\n".join(parts)


NOTES = """How the stores were made: the shared arXiv file's 111,997 records, 130 held out (their titles make the
questions), the rest shuffled with a fixed seed; the 2k and 20k stores hold the first 2,000 and 20,000 of
that order, the 112k store all 111,867. Each is a papertalk data dir written by `Ingestor` (real `Chunker`
chunks of title + abstract, SQLite catalog, Chroma collection with papertalk's HNSW settings, keyword index
over title + full chunk text). {GIST_NOTE} The number of vectors, the HNSW graph size, the chunk texts and
everything keyword-side are as in a real ingest. Questions are held-out titles
put in one of three templates ("What is known about …?", "Which methods have been proposed for …?",
"What results are reported on …?"); query embeddings use the full model as in normal use.

Stages: *query embed* is the MiniLM call for the question; *dense* is `HybridRetriever._dense`, 100
candidates: Chroma HNSW (`VectorIndex.search`), or, for a scope of a few percent of the store, exact cosine
search over its papers' chunk vectors held in memory (`ScopeVectors`: read from Chroma by the first question
in the scope, whose cost is then in the *first question* column); *keyword* is `KeywordIndex.search` (BM25,
bm25s scoring, 100 candidates); *fusion + hydrate* is the fusion (the default: convex) plus the SQLite reads of the 8
passages and their papers; *answer: stored sentence vectors* is the extractive answerer reading the vectors
ingest stored for the passages' sentences (one SQLite query, the chunks split again); *answer: sentence embed*
is it embedding the pre-filtered sentences that have none (none here, see below); *answer: rest* is sentence
splitting, keyword scoring and scoring every sentence; *other* is the rest of `ask`
(rewrite, numbering, streaming).
Peak RSS is the measuring process's high-water mark after the timed questions (model, Chroma's HNSW
index, BM25 postings), before the recall check loads every vector. Recall compares `VectorIndex.search`
(k = 10 and the retriever's k = 100) with exact cosine top-k computed in numpy over the vectors read back
from the same Chroma collection, for the same questions. The machine is shared: *load avg* is the
1-minute load at the start and end of each size's measurement (2 cores; above 2 means queued work), and
*CPU ms* is the process's CPU time per question over all its threads (ONNX's two, Chroma's), which other
users' load inflates much less than wall time. Topics: *RL for LLM Agents* holds the store's papers listed in
the shared `rl-for-llm-agents-keyword-subset.jsonl`, *cs.IR* every paper listed in cs.IR."""

GIST_NOTES = {
    64: "**What was embedded:** each chunk's vector is the embedding of the first 64 word pieces of its embedded "
    "text (title + chunk, `embed_texts(short=True)`), not of the full ≤256 pieces an ingest embeds, because "
    "embedding ~200k full chunks takes hours on this machine.",
    16: "**What was embedded (a reduced store):** each chunk's vector is the embedding of just 16 word pieces: the "
    "first 8 of the paper's title and the first 6 of the chunk's own text, plus the two special pieces "
    "(`--gist 16`), not the full ≤256 pieces an ingest embeds nor the 64 of earlier runs, because the 64-piece "
    "store takes 1.5-2.5 h of both cores to embed and the machine was shared. Dense neighbours are therefore "
    "coarser than in a real store (so the dense-side figures, recall and the overlap with exact search are "
    "those of these vectors), while dense search costs the same per vector.",
}
GISTS = {
    64: "",
    16: "**Reduced store: chunk vectors embed 16 word pieces (title start + chunk start), see the notes below.**",
}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phase", choices=["prepare", "build", "measure", "all"], default="all")
    parser.add_argument("--sizes", default=",".join(SIZES), help="comma-separated, of " + ", ".join(SIZES))
    parser.add_argument("--questions", type=int, default=100, help=f"timed questions per size (< {HOLDOUT})")
    parser.add_argument("--scoped", type=int, default=50, help="date-scoped questions per size")
    parser.add_argument(
        "--gist", type=int, default=GIST, help="word pieces embedded per chunk (16: the affordable stores)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    add_common_args(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", datefmt="%H:%M:%S")
    logging.getLogger("chromadb").setLevel(logging.WARNING)
    require(arxiv_file(), "the shared arXiv metadata file")
    if args.child:
        emit_result(measure(args.child, args.questions, args.scoped, args.gist))
        return
    labels = [s for s in args.sizes.split(",") if s]
    if args.phase in ("prepare", "all"):
        prepare(args.gist)
    if args.phase in ("build", "all"):
        papers = load_papers()
        plan = make_plan(papers)
        write_questions(papers, plan)
        labels = [label for label in labels if build_store(label, papers, plan, args.gist) is not None]
    if args.phase in ("measure", "all"):
        results = []
        for label in labels:
            if not (store_dir(label, args.gist) / "bench-built.json").exists():
                log.info("store-%s is not built yet: skipped (run --phase build)", label)
                continue
            child = ["--child", label, "--questions", str(args.questions), "--scoped", str(args.scoped)]
            child += ["--gist", str(args.gist)]
            result = run_child(MODULE, child)
            result["built"] = json.loads((store_dir(label, args.gist) / "bench-built.json").read_text())
            results.append(result)
            log.info(
                "%s: p50 %.1f ms, p95 %.1f ms", label, result["all"]["total"]["p50"], result["all"]["total"]["p95"]
            )
        title = f"Question latency at {', '.join(r['label'] for r in results)} papers"
        publish(args, section_name(labels, args.gist), title, MODULE, report_body(results, args))


def section_name(labels: list[str], gist: int) -> str:
    """The doc section a run writes: the full default run keeps "latency"; a reduced store or a subset of
    sizes gets a section of its own instead of replacing the full run's rows."""
    if gist == GIST and set(labels) == set(SIZES):
        return "latency"
    return f"latency-gist{gist}-{'-'.join(labels)}"


if __name__ == "__main__":
    main()
