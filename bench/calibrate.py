"""Calibrates the extractive answerer's `abstain_below` and the citation check's `support_threshold` on data.

abstain_below: every question is answered with abstention off, keeping the best sentence's score. Questions
that should be answered (QASPER questions no annotator marked unanswerable; the PDF set's answerable ones)
are positives; questions that should get an abstention (QASPER questions every annotator marked unanswerable,
QASA questions asked of a QASPER paper, the PDF set's unanswerable, cross-paper and off-topic questions) are
negatives. The threshold is chosen on the calibration half (question ids split by CRC-32 parity) by
`CRITERION` and reported on the held-out half.

support_threshold: the citation check marks a cited sentence unsupported when its best match in the cited
passage scores below the threshold. Each SciFact claim (train → calibration, dev → held-out) is checked by
the real `CitationChecker` against its cited abstract (should pass) and against the abstract without its
rationale sentences (should be flagged); the PDF set's answers, written as one-sentence claims, against the
sentences around their evidence, the same way. The threshold is chosen by the same criterion;
sentence-level precision/recall (rationale sentences vs the abstract's other sentences) is reported too.
Details in bench/support.py.

    nice -n 10 python -m bench.calibrate
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make `bench` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


from bench.bench_qasper import pdf_store, qasper_dir, qasper_run
from bench.common import ROOT, add_common_args, markdown_table, publish, quiet_logs, shared_dir
from bench.eval_data import (
    cross_paper,
    half,
    out_of_scope,
    qasa_questions,
)
from bench.qa_harness import Outcome, Question, ask_all
from bench.support import WINDOW, passage_samples, pdf_claims, scifact_set, sentence_samples
from bench.thresholds import MAX_MISS, Sample, balanced_accuracy, choose, prf, rates, split
from papertalk.settings import Settings
from storage.embeddings import build_embedding
from storage.records import Paper

MODULE = "bench.calibrate"
CRITERION = (
    f"among the thresholds 0.00-1.00 (step 0.01) that keep at least {100 * (1 - MAX_MISS):.0f}% of the "
    "positives on the calibration half, the middle of those with the best balanced accuracy (mean of the "
    "share of positives kept and the share of negatives caught)"
)


# --- abstention samples ---------------------------------------------------------------------------------
def abstention_samples(outcomes: Sequence[Outcome], label: str) -> list[Sample]:
    """One sample per question that should clearly be answered or not (annotator disagreements left out)."""
    out = []
    for o in outcomes:
        q = o.question
        if q.answerable:
            group = "answerable"
        elif not q.references:
            group = q.source  # asked of a paper it was not written for
        elif q.unanswerable:
            group = "unanswerable in its paper"
        else:
            continue
        out.append(Sample(o.best, q.answerable, f"{label}: {group}", half(q.qid)))
    return out


def qasper_samples() -> tuple[list[Sample], str]:
    if not qasper_dir().exists():
        return [], f"QASPER not found at {qasper_dir()}, left out"
    store, outcomes = qasper_run()
    qasa_dir = shared_dir() / "data" / "eval" / "qasa"
    papers = sorted({o.question.paper_id for o in outcomes})
    extra = out_of_scope(qasa_questions(qasa_dir), papers, "QASA, out of scope") if qasa_dir.exists() else []
    samples = abstention_samples(outcomes, "QASPER") + abstention_samples(ask_all(store, extra), "QASPER")
    note = f"QASPER: {len(outcomes)} questions on {len(papers)} papers; QASA: {len(extra)} questions, each asked of "
    note += "one QASPER paper" if qasa_dir.exists() else f"none ({qasa_dir} not found)"
    return samples, note


@dataclass
class PdfSet:
    papers: list[Paper]
    questions: list[Question]
    claims: dict[str, str]
    samples: list[Sample]
    note: str


def pdf_set(settings: Settings) -> PdfSet:
    """The bundled PDFs indexed as Ask PDF indexes them, and every question of the set asked."""
    store, papers, questions, generic, claims = pdf_store(settings)
    ids = sorted(p.paper_id for p in papers)
    off_topic = [Question(f"off-{i:02d}@{pid}", pid, t, [], "off-topic") for i, t in enumerate(generic) for pid in ids]
    outcomes = ask_all(store, questions + cross_paper(questions) + off_topic)
    n_ans = sum(q.answerable for q in questions)
    note = (
        f"PDF set (bench/pdf_qa.json): {len(questions)} questions written for the {len(papers)} bundled CC BY PDFs "
        f"({n_ans} answerable, {len(questions) - n_ans} not answered by the paper); the answerable ones also asked "
        f"of the other paper (cross-paper); {len(generic)} off-topic AI questions asked of each paper"
    )
    return PdfSet(papers, questions, claims, abstention_samples(outcomes, "PDF set"), note)


# --- report -------------------------------------------------------------------------------------------
def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def candidates(chosen: float, current: float) -> list[float]:
    return sorted({round(0.3 + 0.05 * i, 2) for i in range(9)} | {chosen, current})


def small_data(held: Sequence[Sample]) -> str:
    smallest = min(sum(s.positive for s in held), sum(not s.positive for s in held))
    if smallest >= 100:
        return ""
    return (
        f"Small data: the smaller held-out class has {smallest} items, so one item moves its rate by "
        f"{100 / max(smallest, 1):.0f} points; thresholds a few hundredths apart are not distinguishable here."
    )


def label(t: float, chosen: float, current: float) -> str:
    tags = (["chosen"] if t == chosen else []) + (["current default"] if t == current else [])
    text = f"{t:.2f}" + (f" ({', '.join(tags)})" if tags else "")
    return f"**{text}**" if t == chosen else text


def abstain_table(samples: Sequence[Sample], chosen: float, current: float) -> str:
    rows: list[list[object]] = []
    for t in candidates(chosen, current):
        row: list[object] = [label(t, chosen, current)]
        for name in ("calibration", "held-out"):
            answered, abstained = rates(split(samples, name), t)
            row += [_pct(answered), _pct(abstained), balanced_accuracy(split(samples, name), t)]
        rows.append(row)
    headers = ["abstain_below", "cal: answered (should answer)", "cal: abstained (should abstain)", "cal: bal. acc.",
               "held-out: answered", "held-out: abstained", "held-out: bal. acc."]  # fmt: skip
    return markdown_table(headers, rows, digits=3)


def group_table(samples: Sequence[Sample], chosen: float, current: float, verb: tuple[str, str]) -> str:
    """Per group on the held-out half: how many, score quartiles, and the decision rate at both thresholds."""
    rows: list[list[object]] = []
    held = split(samples, "held-out")
    for group in sorted({s.group for s in held}):
        members = sorted(s.score for s in held if s.group == group)
        positive = next(s.positive for s in held if s.group == group)
        rate = [sum((x >= t) == positive for x in members) / len(members) for t in (current, chosen)]
        q = [members[int(f * (len(members) - 1))] for f in (0.25, 0.5, 0.75)]
        rows.append([group, len(members), *q, f"{verb[0] if positive else verb[1]} {_pct(rate[0])}", _pct(rate[1])])
    headers = ["held-out group", "n", "score p25", "median", "p75", f"correct at {current:.2f}", f"at {chosen:.2f}"]
    return markdown_table(headers, rows, digits=3)


def abstain_body(samples: Sequence[Sample], notes: Sequence[str], chosen: float, current: float) -> str:
    cal, held = split(samples, "calibration"), split(samples, "held-out")
    answered, abstained = rates(held, chosen)
    return (
        "Data: " + "; ".join(notes) + f". {len(cal)} calibration and {len(held)} held-out questions "
        "(split by CRC-32 of the question id). Score = the best sentence's score in the extractive answerer "
        f"(abstention switched off while measuring). Criterion: {CRITERION}; positives are the questions that "
        f"should be answered, so at most {100 * MAX_MISS:.0f}% false abstentions.\n\n"
        f"**Chosen: abstain_below = {chosen:.2f}** (default when run: {current:.2f}). Held-out: "
        f"answers {_pct(answered)} of the questions it should answer (false abstentions {_pct(1 - answered)}) "
        f"and abstains on {_pct(abstained)} of those it should not answer. {small_data(held)}\n\n"
        f"{abstain_table(samples, chosen, current)}\n\nBy group, held-out half:\n\n"
        f"{group_table(samples, chosen, current, ('answered', 'abstained'))}\n"
    )


def support_table(passages: Sequence[Sample], sentences: Sequence[Sample], chosen: float, current: float) -> str:
    rows: list[list[object]] = []
    for t in candidates(chosen, current):
        row: list[object] = [label(t, chosen, current)]
        for name in ("calibration", "held-out"):
            kept, flagged = rates(split(passages, name), t)
            row += [_pct(kept), _pct(flagged), balanced_accuracy(split(passages, name), t)]
        rows.append(row + list(prf(split(sentences, "held-out"), t)))
    headers = ["support_threshold", "cal: supported kept", "cal: wrong source flagged", "cal: bal. acc.",
               "held-out: kept", "held-out: flagged", "held-out: bal. acc.", "held-out sentence precision",
               "sentence recall", "sentence F1"]  # fmt: skip
    return markdown_table(headers, rows, digits=3)


def support_body(
    passages: Sequence[Sample], sentences: Sequence[Sample], notes: Sequence[str], chosen: float, current: float
) -> str:
    kept, flagged = rates(split(passages, "held-out"), chosen)
    p, r, f = prf(split(sentences, "held-out"), chosen)
    return (
        "Data: " + "; ".join(notes) + ". Scores as assistant/citations.py computes them (see bench/support.py): "
        "semantic_weight x cosine of full-length MiniLM embeddings (clipped at 0) + (1 - semantic_weight) x "
        "the claim's IDF-weighted term overlap. Passage level, the decision the check makes: the checker run on "
        '"claim [1]" with the abstract as source [1] (should be supported) and with the abstract minus its '
        "rationale sentences (should be flagged: a related passage that does not back the claim); criterion: "
        f"{CRITERION}, positives being the citations that should pass (at most {100 * MAX_MISS:.0f}% false "
        '"unsupported" flags). Sentence level: rationale sentences vs the abstract\'s other sentences, '
        "precision/recall of score >= threshold.\n\n"
        f"**Chosen: support_threshold = {chosen:.2f}** (default when run: {current:.2f}). Held-out: a citation "
        f"of a passage that holds the support is kept as supported {_pct(kept)} of the time, one of a passage "
        f"without it is flagged {_pct(flagged)} of the time; sentence level precision {p:.2f}, recall {r:.2f}, "
        f"F1 {f:.2f}. "
        f"{small_data(split(passages, 'held-out'))}\n\n"
        f"{support_table(passages, sentences, chosen, current)}\n\nBy group, held-out half (passage level):\n\n"
        f"{group_table(passages, chosen, current, ('supported', 'flagged'))}\n"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(parser)
    args = parser.parse_args(argv)
    settings = Settings(data_dir=ROOT / "bench" / ".cache" / "unused")
    answer = settings.answer
    with quiet_logs():
        qasper, qasper_note = qasper_samples()
        pdf = pdf_set(settings)
        abstain = qasper + pdf.samples
        t_abstain = choose(split(abstain, "calibration"))
        abstain_text = abstain_body(abstain, [qasper_note, pdf.note], t_abstain, answer.abstain_below)
        embedder = build_embedding(settings)
        scifact, scifact_note = scifact_set()
        own = pdf_claims(pdf.papers, pdf.questions, pdf.claims)
        passages = passage_samples(embedder, scifact, answer, "SciFact")
        passages += passage_samples(embedder, own, answer, "PDF set")
        sentences = sentence_samples(embedder, scifact, answer.semantic_weight, "SciFact")
        sentences += sentence_samples(embedder, own, answer.semantic_weight, "PDF set")
        t_support = choose(split(passages, "calibration"))
        own_note = f"PDF set: {len(own)} answers written as one-sentence claims; a claim's abstract is its evidence "
        own_note += f"sentences and up to {WINDOW} sentences on each side (split by CRC-32 of the question id)"
        notes = [scifact_note, own_note]
        support_text = support_body(passages, sentences, notes, t_support, answer.support_threshold)
    publish(args, "calibration-abstain", "Calibration: abstain_below (calibrate)", MODULE, abstain_text)
    publish(args, "calibration-support", "Calibration: support_threshold (calibrate)", MODULE, support_text)
    print(f"chosen: abstain_below={t_abstain:.2f} support_threshold={t_support:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
