"""Fit the extractive answerer's sentence scorer and compare it with today's score, on held-out questions.

Train: SciFact train claims (rationale sentences of the abstracts they cite) and the questions of
bench/pdf_qa.json about the S2ORC paper (2020.acl-main.447.pdf). Test: SciFact dev claims (BEIR's test
claims), the questions about the other bundled paper (2023.eacl-main.121.pdf) and the QASPER slice. Each
variant (how much a question asked of a paper weighs against a SciFact claim, and the regularisation C) is
cross-validated on the training questions only (5 folds by question; SciFact and the PDF questions weigh
alike), and the best is fitted on all of them and written to assistant/selection_model.json.

Both models are pairwise logistic regressions (gold sentence minus another sentence of the same question), so
their coefficients rank sentences within a question: the cheap one over features that need no embedding (it
picks the sentences to embed and reranks passages), the full one from today's support score plus the answer
type, caption, heading, rank and neighbour features (assistant/sentence_features.py).

    nice -n 10 python -m bench.train_selection

Measures, per question (claim): top-1 is the share of questions whose best-scored candidate is gold evidence;
top-4 the share with gold evidence among the four best (the extractive answer quotes up to four).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from assistant.selection import MODEL_PATH, LinearModel
from assistant.sentence_features import CHEAP, FULL, full_row
from bench.common import add_common_args, markdown_table, publish, quiet_logs, require, shared_dir
from bench.selection_data import Group, qa_groups, scifact_groups

MODULE = "bench.train_selection"
TRAIN_PDF = "2020.acl-main.447"
Scorer = Callable[[Group], Sequence[float] | np.ndarray]
View = Callable[[Group], np.ndarray]
NEGATIVES = 40
LICENCES = (
    "SciFact claims and rationales CC BY 4.0, abstracts ODC-By 1.0 (Wadden et al., 2020); QASPER not used for "
    "training; bench/pdf_qa.json written for papertalk about the CC BY 4.0 paper 2020.acl-main.447 (S2ORC)."
)


def top_hits(groups: Sequence[Group], scorer: Scorer, k: int) -> float:
    hits = 0
    for g in groups:
        order = np.argsort(-np.asarray(scorer(g), dtype=np.float64), kind="stable")[:k]
        hits += any(g.labels[i] for i in order)
    return hits / len(groups) if groups else 0.0


def _pairs(groups: Sequence[Group], view: View, weight_qa: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Differences gold minus other sentence of one question (and their negation), each question weighing 1
    (`weight_qa` for a question asked of a paper), at most `NEGATIVES` others per gold sentence."""
    rng = np.random.default_rng(0)
    diffs, weights = [], []
    for g in groups:
        x, labels = view(g), np.asarray(g.labels)
        pos, neg = np.flatnonzero(labels == 1), np.flatnonzero(labels == 0)
        if not len(pos) or not len(neg):
            continue
        neg_k = min(len(neg), NEGATIVES)
        w = (weight_qa if g.source != "scifact" else 1.0) / (len(pos) * neg_k)
        for p in pos:
            for n in neg if len(neg) <= NEGATIVES else rng.choice(neg, NEGATIVES, replace=False):
                diffs.append(x[p] - x[n])
                weights.append(w)
    d, w = np.asarray(diffs), np.asarray(weights)
    return np.vstack([d, -d]), np.r_[np.ones(len(d)), np.zeros(len(d))], np.r_[w, w] * (2 * len(w)) / (2 * w.sum())


def cheap_view(g: Group) -> np.ndarray:
    return np.asarray(g.rows)[:, : len(CHEAP)]


def full_view(g: Group) -> np.ndarray:
    return np.asarray([full_row(r[: len(CHEAP)], b) for r, b in zip(g.rows, g.baseline, strict=True)])


def fit_linear(groups: Sequence[Group], view: View, names: tuple[str, ...], weight_qa: float, c: float) -> LinearModel:
    from sklearn.linear_model import LogisticRegression

    x, y, w = _pairs(groups, view, weight_qa)
    scale = x.std(axis=0)
    scale[scale == 0] = 1.0
    model = LogisticRegression(C=c, max_iter=3000, fit_intercept=False).fit(x / scale, y, sample_weight=w)
    return LinearModel(names, np.zeros(len(names)), scale, model.coef_[0], 0.0)


def linear_scorer(model: LinearModel, view: View) -> Scorer:
    return lambda g: model.predict(view(g).tolist())


VARIANTS = {  # name: (weight of a question asked of a paper against a SciFact claim, C)
    "SciFact claims only, C=0.1": (0.0, 0.1),
    "SciFact claims only, C=1": (0.0, 1.0),
    "questions x1, C=0.1": (1.0, 0.1),
    "questions x1, C=1": (1.0, 1.0),
    "questions x5, C=0.1": (5.0, 0.1),
}


def _variant(weight_qa: float, c: float, full: bool = True) -> Callable[[Sequence[Group]], Scorer]:
    view, names = (full_view, FULL) if full else (cheap_view, CHEAP)
    return lambda gs: linear_scorer(fit_linear(gs, view, names, weight_qa, c), view)


def macro_cv(groups: Sequence[Group], fit: Callable[[Sequence[Group]], Scorer]) -> float:
    """Cross-validated top-1, the SciFact claims and the questions weighing alike."""
    scores = []
    for source in ("scifact", "pdf-qa"):
        held = [i for i, g in enumerate(groups) if g.source == source]
        hits = 0.0
        for f in range(5):
            test = [groups[i] for n, i in enumerate(held) if n % 5 == f]
            train = [g for i, g in enumerate(groups) if not (g.source == source and held.index(i) % 5 == f)]
            hits += top_hits(test, fit(train), 1) * len(test)
        scores.append(hits / len(held) if held else 0.0)
    return sum(scores) / len(scores)


def load_groups(embedder: Any, items: dict[str, list[Any]]) -> dict[str, list[Group]]:
    """The training and test groups; `items` holds (question, sources) pairs for "pdf-qa" and "qasper"."""
    folder = require(shared_dir() / "data" / "eval" / "scifact" / "original", "SciFact (shared/data/eval/scifact)")
    pdf = qa_groups(items["pdf-qa"], "pdf-qa", embedder)
    return {
        "train": scifact_groups(folder, "train", embedder) + [g for g in pdf if g.key.startswith(TRAIN_PDF)],
        "SciFact dev claims": scifact_groups(folder, "dev", embedder),
        "pdf_qa, 2023.eacl-main.121": [g for g in pdf if not g.key.startswith(TRAIN_PDF)],
        "QASPER slice": qa_groups(items["qasper"], "qasper", embedder),
    }


def compare(groups: dict[str, list[Group]]) -> tuple[str, str]:
    """The table of every variant (cross-validated on train, then tested), and the chosen variant's name."""
    train = groups["train"]
    tests = [k for k in groups if k != "train"]
    scorers: dict[str, Scorer] = {"today's score (0.7 x embedding + 0.3 x keyword overlap)": lambda g: g.baseline}
    cv: dict[str, float] = {}
    for name, (weight_qa, c) in VARIANTS.items():
        cv[name] = macro_cv(train, _variant(weight_qa, c))
        scorers[name] = _variant(weight_qa, c)(train)
    chosen = max(cv, key=lambda n: cv[n])
    scorers[f"cheap features only ({chosen})"] = _variant(*VARIANTS[chosen], full=False)(train)
    rows = []
    for name, scorer in scorers.items():
        row: list[object] = [name, cv.get(name, "-")]
        for t in tests:
            row += [top_hits(groups[t], scorer, 1), top_hits(groups[t], scorer, 4)]
        rows.append(row)
    headers = ["scorer", "train CV top-1"] + [f"{t} {m}" for t in tests for m in ("top-1", "top-4")]
    return markdown_table(headers, rows, digits=3), chosen


def write_model(train: Sequence[Group], weight_qa: float, c: float, path: Path = MODEL_PATH) -> None:
    data = {
        "about": "The extractive answerer's sentence scorer (assistant/selection.py); bench/train_selection.py",
        "trained_on": LICENCES,
        "question_weight": weight_qa,
        "C": c,
        "cheap": fit_linear(train, cheap_view, CHEAP, weight_qa, c).to_dict(),
        "full": fit_linear(train, full_view, FULL, weight_qa, c).to_dict(),
    }
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def counts(groups: dict[str, list[Group]]) -> str:
    return "; ".join(f"{k}: {len(v)} questions, {sum(len(g.labels) for g in v)} sentences" for k, v in groups.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    parser.add_argument("--keep-model", action="store_true", help="measure only; leave selection_model.json as it is")
    args = parser.parse_args(argv)
    from bench.selection_runs import retrieved

    with quiet_logs():
        embedder, items = retrieved()
        started = time.perf_counter()
        groups = load_groups(embedder, items)
        table, chosen = compare(groups)
    if not args.keep_model:
        write_model(groups["train"], *VARIANTS[chosen])
    body = (
        f"Groups ({counts(groups)}). {LICENCES} Chosen by cross-validation on the training questions only: "
        f"**{chosen}** (written to assistant/selection_model.json). Features: {', '.join(FULL)}.\n\n{table}\n\n"
        f"Fitting and measuring took {time.perf_counter() - started:.0f} s."
    )
    print(table)
    publish(args, "selection-train", "Sentence scorer: training and held-out selection (train_selection)", MODULE, body)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
