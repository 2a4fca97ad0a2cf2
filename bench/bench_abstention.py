"""Abstention of the offline answer: the evidence model (assistant/abstention.py) against today's score rule.

Questions: the QASPER slice (answerable ones should be answered; those every annotator marked unanswerable
should not), QASA's 244 unanswerable questions each asked of one QASPER paper, and the PDF set
(bench/pdf_qa.json: answerable and not-answered questions on the two bundled CC BY PDFs, the answerable ones
asked of the other paper, and off-topic AI questions asked of each). Each is asked as Ask PDF asks it (hybrid
retrieval within its paper); the evidence (best sentence score, question terms and names found, answer type
present, retriever agreement) is gathered with abstention off.

Split: question ids by CRC-32 parity (`bench.eval_data.half`), the same halves as bench/calibrate.py. The
logistic weights and the probability threshold are fitted and chosen on the calibration half only, by the
criterion of bench/calibrate.py; the held-out half is reported. Baseline in the same run: today's rule
(abstain when the best sentence scores below `answer.abstain_below`).

    nice -n 10 python -m bench.bench_abstention [--reuse]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from assistant.abstention import WEIGHTS, Evidence
from assistant.elsewhere import named_elsewhere
from assistant.extractive import ExtractiveAnswerer
from assistant.service import Assistant
from assistant.stored_sentences import stored_lookup
from assistant.types import Scope
from bench.bench_qasper import pdf_store, qasper_dir, qasper_store
from bench.calibrate import CRITERION
from bench.common import ROOT, add_common_args, markdown_table, publish, quiet_logs, shared_dir
from bench.eval_data import cross_paper, half, out_of_scope, qasa_questions
from bench.qa_harness import Question
from bench.thresholds import Sample, choose, rates, split
from papertalk.settings import Settings
from storage.store import Store

MODULE = "bench.bench_abstention"
CACHE = ROOT / "bench" / ".cache" / "abstention" / "evidence.json"
FEATURES = ("best", "coverage", "missing_name", "type_missing", "agreement")
MODEL = ("best", "coverage", "missing_name", "agreement")  # type_missing: fitted with the wrong sign, no gain


@dataclass
class Row:
    qid: str
    group: str
    positive: bool  # should be answered
    split: str
    features: dict[str, float]
    elsewhere: bool = False  # the question names a paper outside its scope (assistant.elsewhere): Ask PDF abstains


def group_of(q: Question, label: str) -> tuple[str, bool] | None:
    """(group, should answer) as bench/calibrate.py groups questions; None for annotator disagreements."""
    if q.answerable:
        return f"{label}: answerable", True
    if not q.references:
        return f"{label}: {q.source}", False
    if q.unanswerable:
        return f"{label}: unanswerable in its paper", False
    return None


def gather_rows(store: Store, questions: Sequence[Question], label: str) -> list[Row]:
    assistant = Assistant(store)
    answerer = ExtractiveAnswerer(store.embedder, store.settings.answer, stored=stored_lookup(store.sentence_vectors))
    rows = []
    for q in questions:
        grouped = group_of(q, label)
        if grouped is None:
            continue
        sources = assistant.sources(q.text, Scope(paper_id=q.paper_id))
        scope = Scope(paper_id=q.paper_id)
        evidence = answerer.evidence(q.text, sources)
        named = bool(named_elsewhere(q.text, scope, sources, assistant.retriever))
        rows.append(Row(q.qid, grouped[0], grouped[1], half(q.qid), evidence.features(), named))
    return rows


def collect(settings: Settings) -> tuple[list[Row], list[str]]:
    rows, notes = [], []
    store, papers, questions, generic, _ = pdf_store(settings)
    ids = sorted(p.paper_id for p in papers)
    off = [Question(f"off-{i:02d}@{pid}", pid, t, [], "off-topic") for i, t in enumerate(generic) for pid in ids]
    rows += gather_rows(store, questions + cross_paper(questions) + off, "PDF set")
    notes.append(f"PDF set: {len(questions)} questions on {len(papers)} bundled PDFs, their cross-paper copies, "
                 f"{len(generic)} off-topic questions per paper")  # fmt: skip
    if qasper_dir().exists():
        qstore, qquestions = qasper_store()
        qasa_dir = shared_dir() / "data" / "eval" / "qasa"
        qids = sorted({q.paper_id for q in qquestions})
        extra = out_of_scope(qasa_questions(qasa_dir), qids, "QASA, out of scope") if qasa_dir.exists() else []
        rows += gather_rows(qstore, qquestions + extra, "QASPER")
        notes.append(f"QASPER: {len(qquestions)} questions on {len(qids)} papers; QASA: {len(extra)} unanswerable "
                     "questions, each asked of one QASPER paper")  # fmt: skip
    return rows, notes


# --- fitting and scoring -----------------------------------------------------------------------------
def fit(rows: Sequence[Row], features: Sequence[str] = MODEL) -> dict[str, float]:
    """Logistic weights (should answer = 1) on `rows`, classes weighted equally; features left out weigh 0."""
    from sklearn.linear_model import LogisticRegression

    x = [[r.features[f] for f in features] for r in rows]
    y = [int(r.positive) for r in rows]
    model = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000).fit(x, y)
    weights = {"bias": float(model.intercept_[0])} | dict.fromkeys(FEATURES, 0.0)
    weights.update({f: float(w) for f, w in zip(features, model.coef_[0], strict=True)})
    return {k: round(v, 3) for k, v in weights.items()}


def probability(row: Row, weights: dict[str, float]) -> float:
    f = row.features
    evidence = Evidence(f["best"], f["coverage"], bool(f["missing_name"]), bool(f["type_missing"]), f["agreement"])
    return evidence.probability(weights)


def samples(
    rows: Sequence[Row], score: str, weights: dict[str, float], floor: float, elsewhere: bool = False
) -> list[Sample]:
    """One sample per question; for the model its probability, zero where the best-score floor abstains (and,
    with `elsewhere`, where the question names a paper outside its scope)."""
    out = []
    for r in rows:
        value = r.features["best"] if score == "best" else probability(r, weights)
        if score != "best" and (r.features["best"] < floor or (elsewhere and r.elsewhere)):
            value = 0.0
        out.append(Sample(value, r.positive, r.group, r.split))
    return out


# --- report -------------------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def rule_row(name: str, ss: Sequence[Sample], t: float) -> list[object]:
    row: list[object] = [name]
    for part in ("calibration", "held-out"):
        answered, abstained = rates(split(ss, part), t)
        row += [_pct(1 - answered), _pct(abstained)]
    return row


def group_rows(rules: Sequence[tuple[str, list[Sample], float]]) -> list[list[object]]:
    held = {name: split(ss, "held-out") for name, ss, _ in rules}
    first = next(iter(held.values()))
    out: list[list[object]] = []
    for group in sorted({s.group for s in first}):
        members = [s for s in first if s.group == group]
        row: list[object] = [group, len(members), "answered" if members[0].positive else "abstained"]
        for name, _, t in rules:
            ms = [s for s in held[name] if s.group == group]
            row.append(_pct(sum((s.score >= t) == s.positive for s in ms) / len(ms)))
        out.append(row)
    return out


def body(rows: Sequence[Row], notes: Sequence[str], settings: Settings) -> tuple[str, dict[str, float], float]:
    answer = settings.answer
    cal = [r for r in rows if r.split == "calibration"]
    fitted = fit(cal)
    base = samples(rows, "best", WEIGHTS, 0.0)
    t_base = choose(split(base, "calibration"))
    shipped = samples(rows, "model", WEIGHTS, answer.abstain_below)
    refit = samples(rows, "model", fitted, answer.abstain_below)
    t_refit = choose(split(refit, "calibration"))
    every = fit(cal, FEATURES)
    with_type = samples(rows, "model", every, answer.abstain_below)
    t_type = choose(split(with_type, "calibration"))
    answered = samples(rows, "model", WEIGHTS, answer.abstain_below, elsewhere=True)
    rules = [
        (f"today: best < {answer.abstain_below:.2f} (abstain_below)", base, answer.abstain_below),
        (f"best < {t_base:.2f} (re-chosen on calibration)", base, t_base),
        (f"evidence model, shipped weights, p < {answer.abstain_evidence:.2f} (default)", shipped,
         answer.abstain_evidence),
        (f"evidence model, weights fitted now, p < {t_refit:.2f}", refit, t_refit),
        (f"the same with type_missing too, p < {t_type:.2f}", with_type, t_type),
        ("the default, or the question names a paper outside its scope (assistant.elsewhere): as Ask PDF answers",
         answered, answer.abstain_evidence),
    ]  # fmt: skip
    n_cal, n_held = len(cal), len(rows) - len(cal)
    table = markdown_table(["rule (abstain when)", "cal: false abstentions", "cal: unanswerable abstained",
                            "held-out: false abstentions", "held-out: unanswerable abstained"],
                           [rule_row(n, ss, t) for n, ss, t in rules])  # fmt: skip
    groups = markdown_table(["held-out group", "n", "correct is", *[f"rule {i + 1}" for i in range(len(rules))]],
                            group_rows(rules))  # fmt: skip
    text = (
        "Data: " + "; ".join(notes) + f". {n_cal} calibration and {n_held} held-out questions (question ids split "
        "by CRC-32 parity, as bench/calibrate.py). Features per question, gathered with abstention off: "
        + ", ".join(FEATURES)
        + f" (assistant/abstention.py). Weights: logistic regression on the calibration half (classes balanced) "
        f"over {', '.join(MODEL)}; type_missing is left out of the shipped model (fitted with it, its weight is "
        f"{every['type_missing']:+.2f}, the wrong sign, and the held-out rates do not improve: fifth row). "
        f"Threshold: {CRITERION}. Every evidence-model rule also keeps the floor best < {answer.abstain_below:.2f}. "
        "The last row is what Ask PDF does: the default rule, and an abstention that names the paper when the "
        "question names a paper of the store outside its scope (assistant.elsewhere: none of the paper's passages "
        "names it and another paper's title starts with it); it fires on "
        f"{sum(r.elsewhere for r in rows)} of these {len(rows)} questions."
        f"\n\nShipped weights: `{json.dumps(WEIGHTS)}`; fitted in this run: "
        f"`{json.dumps(fitted)}`.\n\n{table}\n\nCorrect decisions by group, held-out half (rules in the order "
        f"above):\n\n{groups}\n"
    )
    return text, fitted, t_refit


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    parser.add_argument("--reuse", action="store_true", help=f"reuse the evidence gathered last time ({CACHE})")
    args = parser.parse_args(argv)
    settings = Settings(data_dir=ROOT / "bench" / ".cache" / "unused")
    if args.reuse and CACHE.exists():
        saved = json.loads(CACHE.read_text())
        rows, notes = [Row(**r) for r in saved["rows"]], saved["notes"]
    else:
        with quiet_logs():
            rows, notes = collect(settings)
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        CACHE.write_text(json.dumps({"rows": [r.__dict__ for r in rows], "notes": notes}))
    text, fitted, t = body(rows, notes, settings)
    publish(args, "abstention", "Abstention: evidence model against the score rule (bench_abstention)", MODULE, text)
    print(f"fitted weights {json.dumps(fitted)}; threshold {t:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
