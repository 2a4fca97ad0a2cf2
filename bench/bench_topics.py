"""Topic assignment: recall against a survey's labels, precision on a hand-labelled sample, the keyword baseline.

The pool is a papertalk data dir built under bench/.cache/topics/ by the real ingest pipeline (chunked,
embedded, in Chroma and the catalog): the demo corpus (2,212 records that a keyword filter picked for
"RL for LLM Agents"), the survey-labelled papers found in the shared arXiv file (98), and 3,000 other
papers of that file drawn with a fixed seed. Assignment then runs as in papertalk (`TopicAssigner`).

- Recall: of the 98 papers that the agentic-RL survey lists and that are in the arXiv file, the share
  assigned to "RL for LLM Agents"; the baseline's recall is the share that the keyword subset holds.
- Precision: papers of the realistic pool (demo corpus + the 3,000 random papers) assigned to the topic,
  taken in a seeded order, judged by hand from title and abstract (bench/topic_labels_rl_for_llm_agents.jsonl,
  rules in bench/README.md); the baseline's precision is measured the same way on the keyword subset.
- Calibration: the threshold sweep below; `--folds` reports precision/recall of a threshold chosen on one
  half of the labels on the other half.

    nice -n 10 python -m bench.bench_topics --phase prepare   # ingest the pool (~40 min on 2 busy cores)
    nice -n 10 python -m bench.bench_topics                   # score, measure, record (~1 min once prepared)
    python -m bench.bench_topics --to-label 40                # print the next sampled papers without a label
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import ROOT, Stopwatch, add_common_args, arxiv_file, markdown_table, publish, require, shared_dir

MODULE = "bench.bench_topics"
CACHE = ROOT / "bench" / ".cache" / "topics"
LABELS = ROOT / "bench" / "topic_labels_rl_for_llm_agents.jsonl"
OTHER_LABELS = ROOT / "bench" / "topic_labels_other_topics.jsonl"  # 20 per topic, same seeded order
OTHER_SAMPLE = 20
TOPIC = "rl-for-llm-agents"
SEED = 7
RANDOM_PAPERS = 3000
SAMPLE = 100


def curated_file() -> Path:
    return shared_dir() / "data" / "arxiv" / "agentic-rl-survey-curated-list.jsonl"


def demo_ids() -> set[str]:
    from papertalk.demo import DEMO_METADATA

    with gzip.open(DEMO_METADATA, "rt", encoding="utf-8") as fh:
        return {json.loads(line)["id"] for line in fh}


def survey_ids() -> set[str]:
    return {json.loads(line)["arxiv_id"] for line in require(curated_file(), "the survey labels").open()}


def pool_records() -> Path:
    """The pool as one JSON-lines file: demo corpus, the survey's labelled papers, seeded random papers."""
    path = CACHE / "pool.jsonl"
    if path.exists():
        return path
    labelled, demo = survey_ids(), demo_ids()
    keep, others = [], []
    with gzip.open(require(arxiv_file(), "the shared arXiv file"), "rt", encoding="utf-8") as fh:
        for line in fh:
            rid = json.loads(line)["id"]
            (keep if rid in demo or rid in labelled else others).append(line)
    others.sort()
    random.Random(SEED).shuffle(others)
    CACHE.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(keep + others[:RANDOM_PAPERS]))
    return path


def open_store() -> Any:
    from papertalk.settings import Settings
    from storage.store import Store

    return Store(Settings(data_dir=CACHE / "data"))


def prepare() -> None:
    from ingest.pipeline import Ingestor
    from ingest.sources import arxiv_papers

    store = open_store()
    report = Ingestor(store).run(arxiv_papers(pool_records()))
    print(report.summary())
    store.close()


# --- groups and the labelled sample ----------------------------------------------------------------
@dataclass
class Pool:
    ids: list[str]
    demo: set[str]  # = the keyword subset
    survey: set[str]  # survey-labelled papers in the pool
    realistic: set[str]  # demo corpus + random papers (the survey-only additions left out)
    titles: dict[str, str]
    abstracts: dict[str, str]


def load_pool() -> Pool:
    ids, titles, abstracts = [], {}, {}
    for line in pool_records().open():
        r = json.loads(line)
        ids.append(r["id"])
        titles[r["id"]], abstracts[r["id"]] = " ".join(r["title"].split()), " ".join(r["abstract"].split())
    demo, survey = demo_ids(), survey_ids() & set(ids)
    realistic = {i for i in ids if i in demo or i not in survey}
    return Pool(ids, demo, survey, realistic, titles, abstracts)


def sample_order(ids: set[str]) -> list[str]:
    """A seeded order: the sample of any subset is its first papers in this order."""
    return sorted(ids, key=lambda i: hashlib.sha256(f"{SEED}:{i}".encode()).hexdigest())


def load_labels() -> dict[str, bool]:
    if not LABELS.exists():
        return {}
    return {r["paper_id"]: bool(r["label"]) for r in map(json.loads, LABELS.read_text().splitlines()) if r}


def precision(assigned: set[str], labels: dict[str, bool], n: int = SAMPLE) -> tuple[float, int, int]:
    """(precision, labelled in the sample, sample size) over the first `n` of `assigned` in the seeded order."""
    sample = sample_order(assigned)[:n]
    judged = [labels[i] for i in sample if i in labels]
    return (sum(judged) / len(judged) if judged else float("nan")), len(judged), len(sample)


# --- scoring ---------------------------------------------------------------------------------------
def score_pool(pool: Pool) -> dict[str, Any]:
    """Assignment evidence of every pool paper against every topic, and a timed `assign_all` of the store."""
    from ingest.topic_assign import TopicAssigner

    store = open_store()
    assigner = TopicAssigner(store)
    kept, _, similarity, hits, cats = assigner.evidence(pool.ids)
    with Stopwatch() as full:
        report = assigner.assign_all()
    store.close()
    return {
        "ids": kept,
        "slugs": assigner.slugs,
        "thresholds": assigner.thresholds,
        "similarity": similarity,
        "hits": hits,
        "cats": cats,
        "assign_s": full.seconds,
        "assign_cpu": full.cpu,
        "assignments": report.assignments,
    }


def topic_scores(data: dict[str, Any], slug: str = TOPIC) -> np.ndarray:
    from ingest.topic_assign import combine

    j = data["slugs"].index(slug)
    return np.asarray(combine(data["similarity"][:, j], data["hits"][:, j], data["cats"][:, j]))


def topic_threshold(data: dict[str, Any], slug: str = TOPIC) -> float:
    return float(data["thresholds"][data["slugs"].index(slug)])


def assigned_set(data: dict[str, Any], threshold: float | None = None, slug: str = TOPIC) -> set[str]:
    cut = topic_threshold(data, slug) if threshold is None else threshold
    return {pid for pid, s in zip(data["ids"], topic_scores(data, slug), strict=True) if s >= cut}


def sweep(data: dict[str, Any], pool: Pool, labels: dict[str, bool], thresholds: list[float]) -> list[list[Any]]:
    rows = []
    for t in thresholds:
        got = assigned_set(data, t)
        p, judged, n = precision(got & pool.realistic, labels)
        recall = len(got & pool.survey) / len(pool.survey)
        rows.append([t, len(got & pool.realistic), recall, p, f"{judged}/{n}"])
    return rows


def _fold(pid: str) -> int:
    return int(hashlib.sha256(f"fold:{pid}".encode()).hexdigest(), 16) % 2


def fold_f1(data: dict[str, Any], pool: Pool, labels: dict[str, bool], t: float, fold: int) -> tuple[float, float]:
    """(precision over the fold's labelled papers assigned at `t`, recall of the fold's survey papers)."""
    got = assigned_set(data, t)
    judged = [labels[i] for i in got & pool.realistic if i in labels and _fold(i) == fold]
    survey = {i for i in pool.survey if _fold(i) == fold}
    return (sum(judged) / len(judged) if judged else 0.0), len(got & survey) / max(len(survey), 1)


def held_out(data: dict[str, Any], pool: Pool, labels: dict[str, bool], grid: list[float]) -> list[list[Any]]:
    """Threshold chosen for F1 on one half of the labels (and survey papers), measured on the other half."""
    rows = []
    for fold in (0, 1):

        def f1(t: float, fold: int = fold) -> float:
            p, r = fold_f1(data, pool, labels, t, fold)
            return 2 * p * r / (p + r) if p + r else 0.0

        best = max(grid, key=f1)
        p, r = fold_f1(data, pool, labels, best, 1 - fold)
        rows.append([f"chosen on half {fold}, measured on half {1 - fold}", best, p, r])
    return rows


def load_other_labels() -> dict[str, dict[str, bool]]:
    out: dict[str, dict[str, bool]] = {}
    if OTHER_LABELS.exists():
        for r in map(json.loads, OTHER_LABELS.read_text().splitlines()):
            out.setdefault(r["topic"], {})[r["paper_id"]] = bool(r["label"])
    return out


def other_precision(data: dict[str, Any], pool: Pool) -> list[list[Any]]:
    """Precision of other topics over the labelled part of their first `OTHER_SAMPLE` papers (realistic pool)."""
    rows = []
    for slug, labels in load_other_labels().items():
        p, judged, n = precision(assigned_set(data, slug=slug) & pool.realistic, labels, OTHER_SAMPLE)
        rows.append([slug, topic_threshold(data, slug), p, f"{judged}/{n}"])
    return rows


def topic_counts(data: dict[str, Any], pool: Pool) -> list[list[Any]]:
    realistic = np.array([pid in pool.realistic for pid in data["ids"]])
    demo = np.array([pid in pool.demo for pid in data["ids"]])
    rows = []
    for slug in data["slugs"]:
        member = topic_scores(data, slug) >= topic_threshold(data, slug)
        counts = [int((member & realistic).sum()), int((member & demo).sum()), int((member & ~demo & realistic).sum())]
        rows.append([slug, topic_threshold(data, slug), *counts])
    rows.sort(key=lambda r: -r[2])
    return rows


def to_label(pool: Pool, data: dict[str, Any], labels: dict[str, bool], n: int, threshold: float | None) -> None:
    """Print the next papers of both samples that have no label yet (for judging by hand)."""
    mine = sample_order(assigned_set(data, threshold) & pool.realistic)[:SAMPLE]
    base = sample_order(pool.demo)[:SAMPLE]
    todo = [i for i in dict.fromkeys(mine + base) if i not in labels][:n]
    for pid in todo:
        print(json.dumps({"paper_id": pid, "title": pool.titles[pid], "abstract": pool.abstracts[pid]}))


def headline(pool: Pool, data: dict[str, Any], labels: dict[str, bool]) -> str:
    rows = []
    cut = topic_threshold(data)
    for name, chosen in (("keyword subset (demo corpus)", pool.demo), (f"assignment (threshold {cut})", None)):
        chosen = assigned_set(data) if chosen is None else chosen
        realistic = chosen & pool.realistic
        found = len(chosen & pool.survey)
        p, judged, n = precision(realistic, labels)
        rows.append([name, len(realistic), found, found / len(pool.survey), p, f"{judged}/{n}"])
    headers = ["RL for LLM Agents", "papers (realistic pool)", "survey papers found", "recall", "precision", "labelled"]
    return markdown_table(headers, rows, digits=3)


def report(args: argparse.Namespace, pool: Pool, data: dict[str, Any], labels: dict[str, bool]) -> None:
    n = len(data["ids"])
    positives = sum(labels.values())
    body = (
        f"Pool: {len(pool.ids):,} papers ({len(pool.demo):,} demo = keyword subset, {len(pool.survey)} "
        f"survey-labelled, {RANDOM_PAPERS:,} random, seed {SEED}); realistic = demo + random "
        f"({len(pool.realistic):,}). Hand labels: {len(labels)} papers, {positives} positive "
        f"(`{LABELS.relative_to(ROOT)}`, rules in bench/README.md).\n\n{headline(pool, data, labels)}\n\n"
        f"Threshold sweep (precision over the labelled part of each threshold's seeded sample of {SAMPLE}):\n\n"
        + markdown_table(
            ["threshold", "assigned", "recall", "precision", "labelled"],
            sweep(data, pool, labels, args.sweep),
            digits=3,
        )
        + "\n\nHeld out: the threshold that maximises F1 on one half of the hand labels and survey papers "
        "(split by a hash of the id), measured on the other half:\n\n"
        + markdown_table(["", "threshold", "precision", "recall"], held_out(data, pool, labels, args.sweep), digits=3)
        + "\n\nOther topics, hand-labelled the same way (is the paper about the topic?), "
        f"`{OTHER_LABELS.relative_to(ROOT)}`:\n\n"
        + markdown_table(["topic", "threshold", "precision", "labelled"], other_precision(data, pool), digits=2)
        + "\n\nPapers per topic (realistic pool; demo corpus; random papers):\n\n"
        + markdown_table(["topic", "threshold", "realistic", "demo", "random"], topic_counts(data, pool), digits=2)
        + f"\n\nSpeed: `TopicAssigner.assign_all` on the {n:,}-paper store took {data['assign_s']:.1f} s wall, "
        f"{data['assign_cpu']:.1f} s CPU ({n / data['assign_s']:,.0f} papers/s: paper vectors read from Chroma, "
        f"numpy scores, keyword regexes, SQLite writes); {data['assignments']:,} assignments.\n"
    )
    publish(args, "topics", "Topic assignment", MODULE, body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phase", choices=["prepare", "measure", "all"], default="all")
    parser.add_argument("--to-label", type=int, default=0, help="print N sampled papers that have no label yet")
    parser.add_argument("--threshold", type=float, default=None, help="with --to-label: sample at this threshold")
    grid = [round(0.50 + 0.02 * k, 2) for k in range(9)]
    parser.add_argument("--sweep", type=float, nargs="*", default=grid, help="thresholds to sweep")
    add_common_args(parser)
    args = parser.parse_args()
    if args.phase in ("prepare", "all"):
        prepare()
    if args.phase == "prepare":
        return
    pool = load_pool()
    data = score_pool(pool)
    labels = load_labels()
    if args.to_label:
        to_label(pool, data, labels, args.to_label, args.threshold)
        return
    report(args, pool, data, labels)


if __name__ == "__main__":
    main()
